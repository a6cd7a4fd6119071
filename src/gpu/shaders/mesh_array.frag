#version 450
// Mesh fragments with one texture array indexed by the material's slots. The shader itself is
// shade.glsl.
#define ORR_TEXTURE_ARRAY 1
#include "shade.glsl"
