// Occlusion culling in two phases, for the cull's count stage (cull.comp built with ORR_CULL_OCCLUSION
// the phase, 1 or 2: a constant, so that no branch hangs on a uniform alone, which lavapipe would
// specialise and compile again at each bind with new values):
// phase 1 keeps the items in the frustum that were visible the frame before; once those are drawn and
// the depth pyramid is built from their depth (pyramid.comp), phase 2 keeps the items in the frustum
// whose box the pyramid does not hide, and writes them as the next frame's visible bits. Conservative:
// an item is hidden only when the nearest depth of its box is farther than the farthest depth of every
// pixel its box can cover, with slack for float rounding.
layout(set = 1, binding = 0, std140) uniform OcclusionBlock { orr_gpu_occlusion u_occ; };
layout(set = 1, binding = 1, std430) buffer OcclusionWords { uint occ_words[]; };
layout(set = 1, binding = 2) uniform sampler2D u_pyramid;

// The item's box relative to the view origin, as visible() (cull.comp) computes it.
void occlusion_box(uint item, out vec3 centre, out vec3 half_extent)
{
    orr_gpu_draw_item it = items[u_cull.scene.x + item];
    orr_gpu_instance inst = instances[it.instance];
    orr_gpu_batch b = batches[u_cull.scene.y + (it.batch & ~ORR_GPU_ITEM_LEAD)];
    vec3 lo = vec3(b.bounds_min[0], b.bounds_min[1], b.bounds_min[2]);
    vec3 hi = vec3(b.bounds_max[0], b.bounds_max[1], b.bounds_max[2]);
    mat3 linear = mat3(inst.linear[0], inst.linear[1], inst.linear[2], inst.linear[3], inst.linear[4],
                       inst.linear[5], inst.linear[6], inst.linear[7], inst.linear[8]);
    vec3 t_hi = vec3(inst.t_hi[0], inst.t_hi[1], inst.t_hi[2]);
    vec3 t_lo = vec3(inst.t_lo[0], inst.t_lo[1], inst.t_lo[2]);
    precise vec3 offset = (t_hi - u_cull.origin_hi.xyz) + (t_lo - u_cull.origin_lo.xyz);
    cull_motion_blend(it.instance, offset, linear); // between ticks: where it is drawn (cull_motion.glsl)
    centre = linear * ((lo + hi) * 0.5) + offset;
    half_extent = abs(linear[0]) * ((hi.x - lo.x) * 0.5) + abs(linear[1]) * ((hi.y - lo.y) * 0.5) +
                  abs(linear[2]) * ((hi.z - lo.z) * 0.5);
}

// Whether the pyramid hides the item's box: false whenever in doubt (a corner at or behind the eye
// plane, or nearer than the near plane).
bool occlusion_hidden(uint item)
{
    vec3 centre, half_extent;
    occlusion_box(item, centre, half_extent);
    // a little larger, for the rounding of the box and of its projection
    half_extent = half_extent * (1.0 + 1e-5) + 1e-6 * (abs(centre) + vec3(1.0));
    vec2 lo = vec2(1e30), hi = vec2(-1e30);
    float nearest = 0.0;
    for (int k = 0; k < 8; k++) {
        vec3 s = vec3((k & 1) != 0 ? 1.0 : -1.0, (k & 2) != 0 ? 1.0 : -1.0, (k & 4) != 0 ? 1.0 : -1.0);
        vec4 q = u_occ.clip * vec4(centre + half_extent * s, 1.0);
        if (!(q.w > 1e-6)) return false;
        vec3 n = q.xyz / q.w;
        lo = min(lo, n.xy);
        hi = max(hi, n.xy);
        nearest = max(nearest, n.z);
    }
    if (nearest >= 1.0) return false;
    vec2 size = vec2(u_occ.sizes.zw);
    // its pixels (the centres it may cover), one more each side
    vec2 p0 = floor((lo * 0.5 + 0.5) * size) - 1.0, p1 = floor((hi * 0.5 + 0.5) * size) + 1.0;
    if (p1.x < 0.0 || p1.y < 0.0 || p0.x >= size.x || p0.y >= size.y) return false; // (drawn nowhere)
    ivec2 a = ivec2(clamp(p0, vec2(0.0), size - 1.0)), b = ivec2(clamp(p1, vec2(0.0), size - 1.0));
    // the finest level where they span at most 2 x 2 texels
    int levels = int(u_occ.sizes.y), l = 0;
    while (l + 1 < levels && (((b.x >> (l + 1)) - (a.x >> (l + 1))) > 1 || ((b.y >> (l + 1)) - (a.y >> (l + 1))) > 1))
        l++;
    // (b is within the view: b >> (l + 1) is within the level's texels, which the image may exceed)
    ivec2 t0 = a >> (l + 1), t1 = b >> (l + 1);
    float farthest = min(min(texelFetch(u_pyramid, t0, l).r, texelFetch(u_pyramid, ivec2(t1.x, t0.y), l).r),
                         min(texelFetch(u_pyramid, ivec2(t0.x, t1.y), l).r, texelFetch(u_pyramid, t1, l).r));
    // reversed Z: larger is nearer
    return nearest * (1.0 + 1e-4) < farthest;
}

// The item's visibility (seen: what the frustum test said) in this phase; kept (an instance's first item
// in the frustum, for the counts) stays so in phase 2 where the pyramid does not hide it.
bool occlusion_keep(uint item, bool seen, inout bool kept)
{
#if ORR_CULL_OCCLUSION == 1
    return seen && (occ_words[ORR_GPU_OCCLUSION_HEADER + item / 32u] & (1u << (item % 32u))) != 0u;
#else
    if (!seen && !kept) return false;
    bool hidden = occlusion_hidden(item);
    kept = kept && !hidden;
    return seen && !hidden;
#endif
}

// Once the block's words are made (s_words): phase 2 writes them as the next frame's bits.
void occlusion_end(uint group, uint t)
{
#if ORR_CULL_OCCLUSION == 2
    if (t < ORR_GPU_CULL_WORDS) occ_words[ORR_GPU_OCCLUSION_HEADER + group * ORR_GPU_CULL_WORDS + t] = s_words[t];
#endif
}
