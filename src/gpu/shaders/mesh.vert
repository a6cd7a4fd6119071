#version 450
#include "scene.glsl"

layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec4 in_color;

layout(location = 0) out vec3 out_world_rel; // world orientation, relative to the view origin
layout(location = 1) out vec3 out_normal;
layout(location = 2) out vec4 out_color;
layout(location = 4) flat out uint out_material;
layout(location = 5) flat out uint out_mirrored;

void main()
{
    orr_gpu_record rec = records[u_view.params.x + uint(gl_InstanceIndex)];
    orr_gpu_instance inst = instances[rec.instance];
    mat3 linear = mat3(inst.linear[0], inst.linear[1], inst.linear[2],
                       inst.linear[3], inst.linear[4], inst.linear[5],
                       inst.linear[6], inst.linear[7], inst.linear[8]);
    vec3 t_hi = vec3(inst.t_hi[0], inst.t_hi[1], inst.t_hi[2]);
    vec3 t_lo = vec3(inst.t_lo[0], inst.t_lo[1], inst.t_lo[2]);
    // High minus high is exact for nearby values; the low parts carry what binary32 cannot.
    precise vec3 offset = (t_hi - u_view.origin_hi.xyz) + (t_lo - u_view.origin_lo.xyz);
    precise vec3 world_rel = (linear * in_position) + offset;
    gl_Position = u_view.proj * (u_view.view * vec4(world_rel, 1.0));

    // The cofactor matrix is det x inverse-transpose: right for normals up to scale and the sign of det.
    mat3 cof = mat3(cross(linear[1], linear[2]), cross(linear[2], linear[0]), cross(linear[0], linear[1]));
    float det_sign = (inst.flags & ORR_GPU_INSTANCE_MIRRORED) != 0u ? -1.0 : 1.0;
    out_normal = det_sign * (cof * in_normal);
    out_world_rel = world_rel;
    out_color = in_color;
    out_material = rec.material;
    out_mirrored = (inst.flags & ORR_GPU_INSTANCE_MIRRORED) != 0u ? 1u : 0u;
}
