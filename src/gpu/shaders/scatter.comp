#version 450
// Writes a frame's changed instance records into their slots: the frame buffer holds `count` slot
// indices at `slots` and as many records at `records` (both in uints); one thread per record. Many
// scattered 80-byte copies as one dispatch, where a copy command with a region per record costs the
// GPU a copy each. Before a record is replaced, the pose it held goes to the slot's motion record
// (orr_gpu_motion) with the snapshot's tick, so that frames between ticks can blend the two; a record
// marked ORR_GPU_INSTANCE_TELEPORT (a new instance, or a jump) keeps no earlier pose.
#extension GL_GOOGLE_include_directive : require
#include "gpu_shared.h"

layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) readonly buffer FrameWords { uint frame_words[]; };
layout(set = 0, binding = 1, std430) buffer InstanceWords { uint instance_words[]; };
layout(set = 0, binding = 2, std430) writeonly buffer MotionWords { uint motion_words[]; };
// joints: 1 when this frame kept each changed palette's earlier rows (orri_joints_upload)
layout(push_constant) uniform ScatterPush { uint count, slots, records, tick, joints; } push;

const uint WORDS = 20u;        // sizeof(orr_gpu_instance) / 4
const uint MOTION_WORDS = 24u; // sizeof(orr_gpu_motion) / 4
const uint FLAGS_WORD = 17u;   // orr_gpu_instance.flags
const uint JOINT_OFFSET_WORD = 15u, JOINT_COUNT_WORD = 16u; // orr_gpu_instance.joint_offset, joint_count

mat3 linear_of(uint base, bool frame)
{
    float f[9];
    for (uint k = 0u; k < 9u; k++) f[k] = uintBitsToFloat(frame ? frame_words[base + k] : instance_words[base + k]);
    return mat3(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8]);
}

// m = rotation x diag(s) with s > 0 and a proper rotation (within float noise): q and s, true.
bool decompose(mat3 m, out vec4 q, out vec3 s)
{
    q = vec4(0.0, 0.0, 0.0, 1.0);
    s = vec3(length(m[0]), length(m[1]), length(m[2]));
    if (!(min(s.x, min(s.y, s.z)) > 0.0)) return false;
    mat3 r = mat3(m[0] / s.x, m[1] / s.y, m[2] / s.z);
    if (abs(dot(r[0], r[1])) > 1e-3 || abs(dot(r[0], r[2])) > 1e-3 || abs(dot(r[1], r[2])) > 1e-3) return false;
    if (determinant(r) <= 0.0) return false;
    // element (row i, column j) is r[j][i]
    float m00 = r[0][0], m11 = r[1][1], m22 = r[2][2];
    float m01 = r[1][0], m10 = r[0][1], m02 = r[2][0], m20 = r[0][2], m12 = r[2][1], m21 = r[1][2];
    float tr = m00 + m11 + m22;
    if (tr > 0.0) {
        float k = sqrt(tr + 1.0) * 2.0;
        q = vec4((m21 - m12) / k, (m02 - m20) / k, (m10 - m01) / k, 0.25 * k);
    } else if (m00 > m11 && m00 > m22) {
        float k = sqrt(1.0 + m00 - m11 - m22) * 2.0;
        q = vec4(0.25 * k, (m01 + m10) / k, (m02 + m20) / k, (m21 - m12) / k);
    } else if (m11 > m22) {
        float k = sqrt(1.0 + m11 - m00 - m22) * 2.0;
        q = vec4((m01 + m10) / k, 0.25 * k, (m12 + m21) / k, (m02 - m20) / k);
    } else {
        float k = sqrt(1.0 + m22 - m00 - m11) * 2.0;
        q = vec4((m02 + m20) / k, (m12 + m21) / k, 0.25 * k, (m10 - m01) / k);
    }
    q = normalize(q);
    return true;
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= push.count) return;
    uint slot = frame_words[push.slots + i];
    uint src = push.records + i * WORDS, dst = slot * WORDS, mo = slot * MOTION_WORDS;
    bool teleport = (frame_words[src + FLAGS_WORD] & ORR_GPU_INSTANCE_TELEPORT) != 0u;
    // the earlier pose: the record in the slot (or, teleporting, the new one itself)
    mat3 before = linear_of(teleport ? src : dst, teleport);
    mat3 now = linear_of(src, true);
    vec4 q0, q1;
    vec3 s0, s1;
    bool rotates = decompose(before, q0, s0);
    rotates = decompose(now, q1, s1) && rotates;
    for (uint k = 0u; k < 3u; k++) {
        motion_words[mo + 8u + k] = teleport ? frame_words[src + 9u + k] : instance_words[dst + 9u + k];   // t_hi
        motion_words[mo + 12u + k] = teleport ? frame_words[src + 12u + k] : instance_words[dst + 12u + k]; // t_lo
        motion_words[mo + 4u + k] = floatBitsToUint(s0[k]);
        motion_words[mo + 20u + k] = floatBitsToUint(s1[k]);
    }
    for (uint k = 0u; k < 4u; k++) {
        motion_words[mo + k] = floatBitsToUint(q0[k]);
        motion_words[mo + 16u + k] = floatBitsToUint(q1[k]);
    }
    motion_words[mo + 7u] = teleport ? ORR_GPU_NO_TICK : push.tick; // teleporting: drawn as its record says
    // The joints' earlier rows stand where the palette is now only if it did not move in the buffer.
    // Combined with & on uints, not &&: a short-circuit would make `push.joints` alone the condition of
    // an if, which lavapipe specialises and recompiles at every bind (see vertex.glsl).
    uint count = frame_words[src + JOINT_COUNT_WORD];
    uint joints = min(push.joints, 1u) & uint(count != 0u) & uint(!teleport) &
                  uint(count == instance_words[dst + JOINT_COUNT_WORD]) &
                  uint(frame_words[src + JOINT_OFFSET_WORD] == instance_words[dst + JOINT_OFFSET_WORD]);
    motion_words[mo + 11u] = (rotates ? ORR_GPU_MOTION_ROTATES : 0u) | joints * ORR_GPU_MOTION_JOINTS;
    motion_words[mo + 15u] = 0u;
    motion_words[mo + 23u] = 0u;
    for (uint k = 0u; k < WORDS; k++) {
        uint w = frame_words[src + k];
        instance_words[dst + k] = k == FLAGS_WORD ? (w & ~ORR_GPU_INSTANCE_TELEPORT) : w;
    }
}
