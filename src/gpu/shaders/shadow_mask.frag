#version 450
// The shadow views' cut-out casters with a descriptor set per material (shadow_mask.glsl).
#extension GL_GOOGLE_include_directive : require
#include "shadow_mask.glsl"
