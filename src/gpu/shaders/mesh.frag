#version 450
// Mesh fragments with a descriptor set per material (devices without dynamic indexing of
// sampled-image arrays). The shader itself is shade.glsl.
#include "shade.glsl"
