// The cull's view of an instance between ticks (cull.comp, occlusion.glsl): the pose the vertex stage
// draws it at (vertex.glsl; both blend with orr_motion_blend, motion.glsl), so that an instance drawn between
// its two poses is tested where it is drawn, never where its record alone says (it would be culled a
// frame early or late near an edge). The cull block's origin_hi.w is the lag and origin_lo.w (uint
// bits) the tick, as the view block's; at lag 0 ORR_GPU_VIEW_NO_BLEND, which no motion holds: the
// record's pose as it is, the same bits as before interpolation existed. The branch tests the motion's
// tick, never the block alone (lavapipe specialises on a condition of uniform values alone: see
// vertex.glsl).
#include "motion.glsl"
layout(set = 0, binding = 6, std430) readonly buffer MotionBuffer { orr_gpu_motion motions[]; };

// Returns how far apart the two places are (0 without a motion): the blend rounds within a relative
// 1e-7 of that, which the frustum test's slack takes in.
float cull_motion_blend(uint slot, inout vec3 offset, inout mat3 linear)
{
    if (motions[slot].tick != floatBitsToUint(u_cull.origin_lo.w)) return 0.0;
    return orr_motion_blend(motions[slot], u_cull.origin_hi.xyz, u_cull.origin_lo.xyz, u_cull.origin_hi.w, offset, linear);
}
