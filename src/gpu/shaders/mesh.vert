#version 450
#include "scene.glsl"

// The shell path (ORR_STRATEGY_SHELL and fur draws): the instance and material come from the push
// constant, and gl_InstanceIndex is the shell index (orr_gpu_shell). Otherwise from the view's record
// at gl_InstanceIndex (which includes firstInstance).
layout(constant_id = 0) const bool SHELL = false;
layout(push_constant) uniform ShellBlock { orr_gpu_shell u_shell; };

layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec4 in_tangent;
layout(location = 3) in vec2 in_uv0;
layout(location = 4) in vec2 in_uv1;
layout(location = 5) in vec4 in_color;
layout(location = 6) in vec4 in_weights;
layout(location = 7) in uvec4 in_joints;
layout(location = 8) in uint in_morph;

layout(location = 0) out vec3 out_world_rel; // world orientation, relative to the view origin
layout(location = 1) out vec3 out_normal;
layout(location = 2) out vec4 out_tangent;   // xyz in world orientation, w: handedness (mirrors included)
layout(location = 3) out vec4 out_color;
layout(location = 4) out vec4 out_uv_a;      // texture coordinates of the slots, transformed:
layout(location = 5) out vec4 out_uv_b;      // a = base colour, metallic-roughness; b = normal,
layout(location = 6) out vec2 out_uv_c;      // occlusion; c = emissive
layout(location = 7) flat out uint out_material;
layout(location = 8) flat out uint out_mirrored;
layout(location = 9) out vec3 out_fur;       // xy: the noise's coordinates (texcoords0 x density), z: the
                                             // shell's height h (0 off the shell path)

// A slot's coordinates: its texcoord set through its KHR_texture_transform. Made here, per vertex, so
// that the fragment shader's derivatives come from interpolated values only (no per-pixel buffer read
// decides a mip level).
vec2 slot_uv(uint material, uint slot)
{
    uint k = slot * 6u;
    vec2 uv = (materials[material].texcoords & (1u << slot)) != 0u ? in_uv1 : in_uv0;
    return vec2(materials[material].uv_transform[k + 0u], materials[material].uv_transform[k + 1u]) * uv.x +
           vec2(materials[material].uv_transform[k + 2u], materials[material].uv_transform[k + 3u]) * uv.y +
           vec2(materials[material].uv_transform[k + 4u], materials[material].uv_transform[k + 5u]);
}

void main()
{
    orr_gpu_record rec;
    if (SHELL) {
        rec.instance = u_shell.instance;
        rec.material = u_shell.material;
    } else {
        rec = records[u_view.params.x + uint(gl_InstanceIndex)];
    }
    orr_gpu_instance inst = instances[rec.instance];
    mat3 linear = mat3(inst.linear[0], inst.linear[1], inst.linear[2],
                       inst.linear[3], inst.linear[4], inst.linear[5],
                       inst.linear[6], inst.linear[7], inst.linear[8]);
    vec3 position = in_position;
    vec3 normal = in_normal;
    vec3 tangent = in_tangent.xyz;
    if (in_morph != ORR_GPU_NO_MORPH) {
        // Morph targets first (glTF: before skinning), any number of them, with the mesh's weights.
        uvec4 h = floatBitsToUint(morphs[in_morph]);
        uint local = uint(gl_VertexIndex) - h.z, weights = in_morph + 1u, deltas = weights + (h.x + 3u) / 4u;
        for (uint t = 0u; t < h.x; t++) {
            float w = morphs[weights + t / 4u][t % 4u];
            if (w == 0.0) continue;
            uint d = deltas + (t * h.y + local) * 3u;
            position += w * morphs[d].xyz;
            normal += w * morphs[d + 1u].xyz;
            tangent += w * morphs[d + 2u].xyz;
        }
    }
    if (inst.joint_count > 0u) {
        // Joint matrices are relative to the instance: skinning happens in mesh space, before the
        // instance's own transform. Zero weights and out-of-range joints are skipped.
        vec3 p = vec3(0.0), n = vec3(0.0), tn = vec3(0.0);
        for (int k = 0; k < 4; k++) {
            float w = in_weights[k];
            if (w == 0.0 || in_joints[k] >= inst.joint_count) continue;
            uint base = (inst.joint_offset + in_joints[k]) * 3u;
            vec4 r0 = joint_rows[base], r1 = joint_rows[base + 1u], r2 = joint_rows[base + 2u];
            p += w * vec3(dot(r0, vec4(position, 1.0)), dot(r1, vec4(position, 1.0)), dot(r2, vec4(position, 1.0)));
            n += w * vec3(dot(r0.xyz, normal), dot(r1.xyz, normal), dot(r2.xyz, normal));
            tn += w * vec3(dot(r0.xyz, tangent), dot(r1.xyz, tangent), dot(r2.xyz, tangent));
        }
        float total = in_weights.x + in_weights.y + in_weights.z + in_weights.w;
        if (total > 0.0) { // no weights at all: the bind pose
            position = p;
            normal = n;
            tangent = tn;
        }
    }
    vec3 t_hi = vec3(inst.t_hi[0], inst.t_hi[1], inst.t_hi[2]);
    vec3 t_lo = vec3(inst.t_lo[0], inst.t_lo[1], inst.t_lo[2]);
    // High minus high is exact for nearby values; the low parts carry what binary32 cannot.
    precise vec3 offset = (t_hi - u_view.origin_hi.xyz) + (t_lo - u_view.origin_lo.xyz);
    precise vec3 world_rel = (linear * position) + offset;

    // The cofactor matrix is det x inverse-transpose: right for normals up to scale and the sign of det.
    mat3 cof = mat3(cross(linear[1], linear[2]), cross(linear[2], linear[0]), cross(linear[0], linear[1]));
    float det_sign = (inst.flags & ORR_GPU_INSTANCE_MIRRORED) != 0u ? -1.0 : 1.0;
    vec3 world_normal = det_sign * (cof * normal);
    // Shell i of n stands at height h = i / (n - 1), h x shell_length out along the world-space normal
    // (metres, whatever the instance's scale). One shell (or none to spread) leaves the surface as it is.
    float h = 0.0;
    if (SHELL && u_shell.shell_count > 1u) {
        h = float(gl_InstanceIndex) / float(u_shell.shell_count - 1u);
        float len = length(world_normal);
        if (len > 0.0 && u_shell.shell_length > 0.0) world_rel += world_normal * (h * u_shell.shell_length / len);
    }
    gl_Position = u_view.proj * (u_view.view * vec4(world_rel, 1.0));
    out_fur = SHELL ? vec3(in_uv0 * u_shell.density, h) : vec3(0.0);
    out_normal = world_normal;
    // A tangent is a direction on the surface: it takes the linear part itself. A mirror turns
    // cross(normal, tangent) over, so the handedness flips with it.
    out_tangent = vec4(linear * tangent, in_tangent.w * det_sign);
    out_world_rel = world_rel;
    out_color = in_color;
    uint m = rec.material;
    out_uv_a = vec4(slot_uv(m, ORR_GPU_TEXTURE_BASE_COLOR), slot_uv(m, ORR_GPU_TEXTURE_METALLIC_ROUGHNESS));
    out_uv_b = vec4(slot_uv(m, ORR_GPU_TEXTURE_NORMAL), slot_uv(m, ORR_GPU_TEXTURE_OCCLUSION));
    out_uv_c = slot_uv(m, ORR_GPU_TEXTURE_EMISSIVE);
    out_material = m;
    out_mirrored = (inst.flags & ORR_GPU_INSTANCE_MIRRORED) != 0u ? 1u : 0u;
}
