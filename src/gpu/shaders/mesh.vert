#version 450
// The vertex shader of the mesh pipelines (mesh_vert.glsl).
#extension GL_GOOGLE_include_directive : require
#include "mesh_vert.glsl"
