#version 450
// The shadow views' cut-out casters with one texture array (shadow_mask.glsl).
#extension GL_GOOGLE_include_directive : require
#define ORR_TEXTURE_ARRAY 1
#include "shadow_mask.glsl"
