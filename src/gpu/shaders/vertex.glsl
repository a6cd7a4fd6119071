// The per-vertex shading of every mesh pipeline: a pool vertex of one record (instance slot + material
// slot; on the shell path, of one shell) -> clip position and the fragment shader's inputs (shade.glsl;
// its fur coordinates are the caller's). The vertex shader (mesh.vert)
// gets its inputs from the vertex input stage, the mesh shader (meshlet.mesh) reads the same vertex
// from the pool; both call orr_vertex, so the two paths hand the rasteriser the same values for the
// same vertex. Every result is `precise` (no contraction into fused multiply-adds), so that compilers
// of different stages cannot round it differently.
#include "motion.glsl"
#include "scene.glsl"
#include "variant.glsl"

struct orr_vertex_in {
    vec3 position;
    vec3 normal;
    vec4 tangent;
    vec2 uv0;
    vec2 uv1;
    vec4 color;
    vec4 weights;
    uvec4 joints;
    uint morph; // the vec4 index of its primitive's morph header, ORR_GPU_NO_MORPH = none
    uint index; // its index in the geometry pool (gl_VertexIndex of an indexed draw)
};

struct orr_vertex_out {
    vec4 position;  // clip space
    vec3 world_rel; // world orientation, relative to the view origin
    vec3 normal;
    vec4 tangent;   // xyz in world orientation, w: handedness (mirrors included)
    vec4 color;
    vec4 uv_a;      // texture coordinates of the slots, transformed: a = base colour,
    vec4 uv_b;      // metallic-roughness; b = normal, occlusion; c = emissive
    vec2 uv_c;
    uint material;
    uint mirrored;
};

// A slot's coordinates: its texcoord set through its KHR_texture_transform. Made per vertex, so that
// the fragment shader's derivatives come from interpolated values only (no per-pixel buffer read
// decides a mip level).
vec2 orr_slot_uv(uint material, uint slot, vec2 uv0, vec2 uv1)
{
    uint k = slot * 6u;
    vec2 uv = (materials[material].texcoords & (1u << slot)) != 0u ? uv1 : uv0;
    precise vec2 r = vec2(materials[material].uv_transform[k + 0u], materials[material].uv_transform[k + 1u]) * uv.x +
                     vec2(materials[material].uv_transform[k + 2u], materials[material].uv_transform[k + 3u]) * uv.y +
                     vec2(materials[material].uv_transform[k + 4u], materials[material].uv_transform[k + 5u]);
    return r;
}

// `shell`: the vertex is on the shell path with more than one shell (orr_gpu_shell): it stands at height
// h, h x shell_length metres out along its world-space normal (whatever the instance's scale).
orr_vertex_out orr_vertex(orr_vertex_in v, orr_gpu_record rec, bool shell, float h, float shell_length)
{
    orr_gpu_instance inst = instances[rec.instance];
    mat3 linear = mat3(inst.linear[0], inst.linear[1], inst.linear[2],
                       inst.linear[3], inst.linear[4], inst.linear[5],
                       inst.linear[6], inst.linear[7], inst.linear[8]);
    precise vec3 position = v.position;
    precise vec3 normal = v.normal;
    precise vec3 tangent = v.tangent.xyz;
#if ORR_HAS_MORPH
    if (v.morph != ORR_GPU_NO_MORPH) {
        // Morph targets first (glTF: before skinning), any number of them, with the instance's weights
        // (one per target of its mesh, which has at least this primitive's) or else the mesh's.
        uvec4 h = floatBitsToUint(morphs[v.morph]);
        uint local = v.index - h.z, weights = v.morph + 1u, deltas = weights + (h.x + 3u) / 4u;
        uint own = inst.weight_offset;
        for (uint t = 0u; t < h.x; t++) {
            float w = own == ORR_GPU_NO_MORPH ? morphs[weights + t / 4u][t % 4u]
                      : own + t < uint(morph_weights.length()) ? morph_weights[own + t] : 0.0;
            if (w == 0.0) continue;
            uint d = deltas + (t * h.y + local) * 3u;
            position += w * morphs[d].xyz;
            normal += w * morphs[d + 1u].xyz;
#if ORR_HAS_TANGENTS
            tangent += w * morphs[d + 2u].xyz;
#endif
        }
    }
#endif
#if ORR_HAS_SKIN // (a primitive without weights keeps its bind pose: the block would change nothing)
    if (inst.joint_count > 0u) {
        // Joint matrices are relative to the instance: skinning happens in mesh space, before the
        // instance's own transform. Zero weights and out-of-range joints are skipped.
        // Between ticks, a palette written at the snapshot's tick blends with the one it replaced, row by
        // row: skinning is linear in the rows, so each vertex stands at the blend of its two places (a
        // joint's own frame shrinks by cos(a/2) half-way through a turn of a in one tick: 0.4% at 10
        // degrees; the instance's own pose blends rigidly below). The test reads the motion (per
        // instance), never the view block alone (see below).
        float joint_lag = 0.0;
        if (motions[rec.instance].tick == floatBitsToUint(u_view.origin_lo.w) &&
            (motions[rec.instance].flags & ORR_GPU_MOTION_JOINTS) != 0u)
            joint_lag = u_view.origin_hi.w;
        precise vec3 p = vec3(0.0), n = vec3(0.0), tn = vec3(0.0);
        for (int k = 0; k < 4; k++) {
            float w = v.weights[k];
            if (w == 0.0 || v.joints[k] >= inst.joint_count) continue;
            uint base = (inst.joint_offset + v.joints[k]) * 3u;
            vec4 r0 = joint_rows[base], r1 = joint_rows[base + 1u], r2 = joint_rows[base + 2u];
            if (joint_lag > 0.0) {
                r0 = mix(r0, joint_rows_before[base], joint_lag);
                r1 = mix(r1, joint_rows_before[base + 1u], joint_lag);
                r2 = mix(r2, joint_rows_before[base + 2u], joint_lag);
            }
            p += w * vec3(dot(r0, vec4(position, 1.0)), dot(r1, vec4(position, 1.0)), dot(r2, vec4(position, 1.0)));
            n += w * vec3(dot(r0.xyz, normal), dot(r1.xyz, normal), dot(r2.xyz, normal));
            tn += w * vec3(dot(r0.xyz, tangent), dot(r1.xyz, tangent), dot(r2.xyz, tangent));
        }
        float total = v.weights.x + v.weights.y + v.weights.z + v.weights.w;
        if (total > 0.0) { // no weights at all: the bind pose
            position = p;
            normal = n;
            tangent = tn;
        }
    }
#endif
    vec3 t_hi = vec3(inst.t_hi[0], inst.t_hi[1], inst.t_hi[2]);
    vec3 t_lo = vec3(inst.t_lo[0], inst.t_lo[1], inst.t_lo[2]);
    orr_vertex_out o;
    // High minus high is exact for nearby values; the low parts carry what binary32 cannot.
    precise vec3 offset = (t_hi - u_view.origin_hi.xyz) + (t_lo - u_view.origin_lo.xyz);
    // Between ticks (the view's lag above 0), an instance that changed at the snapshot's tick stands at
    // the blend of its earlier pose and this one: translation linear (relative to the view origin, so
    // that binary64 positions blend as exactly as they subtract), rotation by normalised quaternion and
    // scale linear, so that a rigid body stays rigid (orr_motion_blend, motion.glsl, as every cull tests
    // it). At lag 0 the view's tick is ORR_GPU_VIEW_NO_BLEND,
    // which no motion holds: the instance's own record as it is.
    // The branch tests the motion's tick, never the view block alone: lavapipe (Mesa 22) compiles a copy
    // of a shader specialised on the view block's values whenever a branch depends on them alone and
    // removes much, at every bind, and never frees it (process memory grew ~0.2 MB a frame).
    if (motions[rec.instance].tick == floatBitsToUint(u_view.origin_lo.w))
        orr_motion_blend(motions[rec.instance], u_view.origin_hi.xyz, u_view.origin_lo.xyz, u_view.origin_hi.w, offset,
                         linear);
    precise vec3 world_rel = (linear * position) + offset;

    // The cofactor matrix is det x inverse-transpose: right for normals up to scale and the sign of det.
    mat3 cof = mat3(cross(linear[1], linear[2]), cross(linear[2], linear[0]), cross(linear[0], linear[1]));
    float det_sign = (inst.flags & ORR_GPU_INSTANCE_MIRRORED) != 0u ? -1.0 : 1.0;
    precise vec3 world_normal = det_sign * (cof * normal);
    if (shell) {
        precise float len = length(world_normal);
        if (len > 0.0 && shell_length > 0.0) world_rel += world_normal * (h * shell_length / len);
    }
    precise vec4 clip = u_view.proj * (u_view.view * vec4(world_rel, 1.0));
    o.position = clip;
    o.normal = world_normal;
    // A tangent is a direction on the surface: it takes the linear part itself. A mirror turns
    // cross(normal, tangent) over, so the handedness flips with it.
#if ORR_HAS_TANGENTS
    precise vec3 out_tangent = linear * tangent;
    o.tangent = vec4(out_tangent, v.tangent.w * det_sign);
#else
    o.tangent = vec4(0.0);
#endif
    o.world_rel = world_rel;
    o.color = v.color;
    uint m = rec.material;
#if ORR_HAS_TEXCOORDS
    o.uv_a = vec4(orr_slot_uv(m, ORR_GPU_TEXTURE_BASE_COLOR, v.uv0, v.uv1),
                  orr_slot_uv(m, ORR_GPU_TEXTURE_METALLIC_ROUGHNESS, v.uv0, v.uv1));
    o.uv_b = vec4(orr_slot_uv(m, ORR_GPU_TEXTURE_NORMAL, v.uv0, v.uv1), orr_slot_uv(m, ORR_GPU_TEXTURE_OCCLUSION, v.uv0, v.uv1));
    o.uv_c = orr_slot_uv(m, ORR_GPU_TEXTURE_EMISSIVE, v.uv0, v.uv1);
#else
    o.uv_a = o.uv_b = vec4(0.0);
    o.uv_c = vec2(0.0);
#endif
    o.material = m;
    o.mirrored = (inst.flags & ORR_GPU_INSTANCE_MIRRORED) != 0u ? 1u : 0u;
    return o;
}
