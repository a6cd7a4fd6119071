// The cull's view of an instance between ticks (cull.comp, occlusion.glsl): the pose the vertex stage
// draws it at (vertex.glsl, whose blend this repeats term by term), so that an instance drawn between
// its two poses is tested where it is drawn, never where its record alone says (it would be culled a
// frame early or late near an edge). The cull block's origin_hi.w is the lag and origin_lo.w (uint
// bits) the tick, as the view block's; at lag 0 ORR_GPU_VIEW_NO_BLEND, which no motion holds: the
// record's pose as it is, the same bits as before interpolation existed. The branch tests the motion's
// tick, never the block alone (lavapipe specialises on a condition of uniform values alone: see
// vertex.glsl).
layout(set = 0, binding = 6, std430) readonly buffer MotionBuffer { orr_gpu_motion motions[]; };

// Returns how far apart the two places are (0 without a motion): the blend rounds within a relative
// 1e-7 of that, which the frustum test's slack takes in.
float cull_motion_blend(uint slot, inout vec3 offset, inout mat3 linear)
{
    if (motions[slot].tick != floatBitsToUint(u_cull.origin_lo.w)) return 0.0;
    float lag = u_cull.origin_hi.w;
    orr_gpu_motion mo = motions[slot];
    vec3 b_hi = vec3(mo.t_hi[0], mo.t_hi[1], mo.t_hi[2]), b_lo = vec3(mo.t_lo[0], mo.t_lo[1], mo.t_lo[2]);
    precise vec3 before = (b_hi - u_cull.origin_hi.xyz) + (b_lo - u_cull.origin_lo.xyz);
    float travel = length(before - offset);
    offset = mix(offset, before, lag);
    if ((mo.flags & ORR_GPU_MOTION_ROTATES) != 0u) {
        vec4 q1 = vec4(mo.now_rotation[0], mo.now_rotation[1], mo.now_rotation[2], mo.now_rotation[3]);
        vec4 q0 = vec4(mo.rotation[0], mo.rotation[1], mo.rotation[2], mo.rotation[3]);
        if (dot(q0, q1) < 0.0) q0 = -q0; // the shorter way round
        vec4 q = normalize(mix(q1, q0, lag));
        vec3 s = mix(vec3(mo.now_scale[0], mo.now_scale[1], mo.now_scale[2]), vec3(mo.scale[0], mo.scale[1], mo.scale[2]), lag);
        float x = q.x, y = q.y, z = q.z, w = q.w;
        linear = mat3(vec3(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + z * w), 2.0 * (x * z - y * w)) * s.x,
                      vec3(2.0 * (x * y - z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + x * w)) * s.y,
                      vec3(2.0 * (x * z + y * w), 2.0 * (y * z - x * w), 1.0 - 2.0 * (x * x + y * y)) * s.z);
    }
    return travel;
}
