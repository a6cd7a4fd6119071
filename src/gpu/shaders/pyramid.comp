#version 450
// One level of a view's depth pyramid: each texel the farthest (smallest, reversed Z) of the 2 x 2
// texels of the level below it (level 0: of the view's depth pixels), clamped at the last row and
// column, so that with sizes halved rounding up every texel covers all the pixels under it, whatever
// the parity of the sizes.
#extension GL_GOOGLE_include_directive : require
#include "gpu_shared.h"

layout(local_size_x = ORR_GPU_PYRAMID_THREADS, local_size_y = ORR_GPU_PYRAMID_THREADS) in;

layout(set = 0, binding = 0) uniform sampler2D u_src;
layout(set = 0, binding = 1, r32f) uniform writeonly image2D u_dst;
// src: x, y the first texel read (the view's corner in its depth image), z, w the size read; dst: x, y its size
layout(push_constant) uniform PyramidPush { ivec4 src; ivec4 dst; } u_p;

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= u_p.dst.x || p.y >= u_p.dst.y) return;
    ivec2 s0 = 2 * p, s1 = min(s0 + 1, u_p.src.zw - 1), o = u_p.src.xy;
    float d = min(min(texelFetch(u_src, o + s0, 0).r, texelFetch(u_src, o + ivec2(s1.x, s0.y), 0).r),
                  min(texelFetch(u_src, o + ivec2(s0.x, s1.y), 0).r, texelFetch(u_src, o + s1, 0).r));
    imageStore(u_dst, p, vec4(d));
}
