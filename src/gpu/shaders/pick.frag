#version 450
// The id pass with a descriptor set per material (pick.glsl).
#extension GL_GOOGLE_include_directive : require
#include "pick.glsl"
