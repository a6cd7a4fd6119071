#version 450
// Writes a frame's changed instance records into their slots: the frame buffer holds `count` slot
// indices at `slots` and as many records at `records` (both in uints); one thread per record. Many
// scattered 80-byte copies as one dispatch, where a copy command with a region per record costs the
// GPU a copy each.
#extension GL_GOOGLE_include_directive : require
#include "gpu_shared.h"

layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) readonly buffer FrameWords { uint frame_words[]; };
layout(set = 0, binding = 1, std430) writeonly buffer InstanceWords { uint instance_words[]; };
layout(push_constant) uniform ScatterPush { uint count, slots, records; } push;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= push.count) return;
    uint slot = frame_words[push.slots + i];
    const uint words = 20u; // sizeof(orr_gpu_instance) / 4
    for (uint k = 0u; k < words; k++) instance_words[slot * words + k] = frame_words[push.records + i * words + k];
}
