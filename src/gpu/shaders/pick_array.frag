#version 450
// The id pass with one texture array (pick.glsl).
#extension GL_GOOGLE_include_directive : require
#define ORR_TEXTURE_ARRAY 1
#include "pick.glsl"
