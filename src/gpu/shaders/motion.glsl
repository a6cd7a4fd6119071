// An instance between ticks: the blend of the pose its record holds and the earlier one its motion
// record keeps (orr_gpu_motion, written by scatter.comp), one function for the vertex stage
// (vertex.glsl) and every cull (cull_motion.glsl), so that an instance is tested where it is drawn.
// Translation blends linearly relative to the view's origin (binary64 positions blend as exactly as
// they subtract), rotation by normalised quaternion the shorter way round and scale linearly (a rigid
// body stays rigid), when the motion says both poses are a rotation times a scale (else the current
// linear part stays).
// The caller tests the motion's tick against its block's (the snapshot's tick at a lag above 0,
// ORR_GPU_VIEW_NO_BLEND, which no motion holds, at lag 0) and calls this only for a motion of that tick:
// that test reads the motion, never the block alone (lavapipe compiles a specialised copy of a shader
// at every bind for a branch on uniform values alone: see vertex.glsl). Nothing here branches on the
// block either.
#include "gpu_shared.h"

// `offset`: the current place relative to the view origin (origin_hi + origin_lo), moved to the blend;
// `linear`: set to the blended rotation and scale if the motion rotates. Returns how far apart the two
// places are (the culls' slack for the blend's rounding). Both are `precise` here because a parameter
// does not take it from the caller's variable: the vertex stage's world position is precise, and so
// its blend must be (no fused multiply-adds), and each cull then rounds it as the vertex stage does.
float orr_motion_blend(orr_gpu_motion mo, vec3 origin_hi, vec3 origin_lo, float lag, inout precise vec3 offset,
                       inout precise mat3 linear)
{
    vec3 b_hi = vec3(mo.t_hi[0], mo.t_hi[1], mo.t_hi[2]), b_lo = vec3(mo.t_lo[0], mo.t_lo[1], mo.t_lo[2]);
    precise vec3 before = (b_hi - origin_hi) + (b_lo - origin_lo);
    float travel = length(before - offset);
    offset = mix(offset, before, lag);
    if ((mo.flags & ORR_GPU_MOTION_ROTATES) != 0u) {
        vec4 q1 = vec4(mo.now_rotation[0], mo.now_rotation[1], mo.now_rotation[2], mo.now_rotation[3]);
        vec4 q0 = vec4(mo.rotation[0], mo.rotation[1], mo.rotation[2], mo.rotation[3]);
        if (dot(q0, q1) < 0.0) q0 = -q0; // the shorter way round
        vec4 q = normalize(mix(q1, q0, lag));
        vec3 s = mix(vec3(mo.now_scale[0], mo.now_scale[1], mo.now_scale[2]), vec3(mo.scale[0], mo.scale[1], mo.scale[2]),
                     lag);
        float x = q.x, y = q.y, z = q.z, w = q.w;
        linear = mat3(vec3(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + z * w), 2.0 * (x * z - y * w)) * s.x,
                      vec3(2.0 * (x * y - z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + x * w)) * s.y,
                      vec3(2.0 * (x * z + y * w), 2.0 * (y * z - x * w), 1.0 - 2.0 * (x * x + y * y)) * s.z);
    }
    return travel;
}
