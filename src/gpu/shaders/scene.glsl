// Bindings shared by the mesh shaders: one descriptor set per frame in flight. Records are the view's
// region of the view-data buffer (u_view.params.x); joints stand at the snapshot's joint offsets;
// lights are the view's, in the frame buffer (u_view.params.y, .z); morphs hold the morph-targeted
// primitives' headers, default weights and deltas (orr_gpu_morph); morph_weights are the snapshot's, at its
// weight offsets (orr_gpu_instance.weight_offset); motions hold each instance slot's earlier pose.
#extension GL_GOOGLE_include_directive : require
#include "gpu_shared.h"

layout(set = 0, binding = 0, std140) uniform ViewBlock { orr_gpu_view u_view; };
layout(set = 0, binding = 1, std430) readonly buffer RecordBuffer { orr_gpu_record records[]; };
layout(set = 0, binding = 2, std430) readonly buffer InstanceBuffer { orr_gpu_instance instances[]; };
layout(set = 0, binding = 3, std430) readonly buffer MaterialBuffer { orr_gpu_material materials[]; };
layout(set = 0, binding = 4, std430) readonly buffer JointBuffer { vec4 joint_rows[]; };
layout(set = 0, binding = 5, std430) readonly buffer LightBuffer { orr_gpu_light lights[]; };
layout(set = 0, binding = 6, std430) readonly buffer MorphBuffer { vec4 morphs[]; };
layout(set = 0, binding = 7, std430) readonly buffer WeightBuffer { float morph_weights[]; };
// each instance slot's earlier pose (orr_gpu_motion), blended between ticks (vertex.glsl)
layout(set = 0, binding = 11, std430) readonly buffer MotionBuffer { orr_gpu_motion motions[]; };
// the joints' rows before the frame that last wrote them (as joint_rows), blended between ticks
layout(set = 0, binding = 12, std430) readonly buffer JointMotionBuffer { vec4 joint_rows_before[]; };
