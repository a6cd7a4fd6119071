// Orrery's shared scene as a host technique's shaders see it (technique.h, ORR_TECHNIQUE_SCENE): the
// bindings at the set numbers the built-in shaders use, under the same names, and a few helpers.
//
//   set 0  u_view (orr_gpu_view: camera, origin, lights' range), records (the view's visible records),
//          instances, materials, joint_rows, lights, morphs, morph_weights (gpu_shared.h's structs)
//   set 1  the textures: orr_scene_texture(material, slot, uv)
//   set 2  the technique's reads, sampler2D at binding i (declared by the shader itself); a compute
//          technique's writes, image2D at binding ORR_SCENE_STORAGE_BINDING + i
//
// A compute shader defines ORR_SCENE_COMPUTE before including it: it sees set 0 (with its technique's
// view's block) and no textures (set 1 is not bound for compute).
// Before including it, a vertex shader defines ORR_SCENE_VERTEX (the pool vertex's inputs, the record
// of the instance drawn, the layer filter, a rigid placement) and a fragment shader ORR_SCENE_FRAGMENT
// (ORR_SCENE_VARYINGS: what the library's vertex stage passes). A mesh technique's task or mesh shader
// defines ORR_SCENE_TASK or ORR_SCENE_MESH (the layer filter, a rigid placement, the record of its
// workgroup when dispatched per record); its fragment shader declares its own inputs. The library defines
// ORR_SCENE_TEXTURE_ARRAY when it compiles GLSL for a device that indexes one texture array.
#ifndef ORRERY_SCENE_GLSL
#define ORRERY_SCENE_GLSL

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

// The view's lights are lights[u_view.params.y .. u_view.params.y + u_view.params.z).

// A compute technique's writes[i] is the storage image at set 2, binding ORR_SCENE_STORAGE_BINDING + i.
#define ORR_SCENE_STORAGE_BINDING 8

#if defined(ORR_SCENE_COMPUTE) || defined(ORR_SCENE_TASK) || defined(ORR_SCENE_MESH)
// (no textures: they are the fragment stage's)
#elif defined(ORR_SCENE_TEXTURE_ARRAY)
layout(constant_id = 2) const uint ORR_SCENE_TEXTURE_SLOTS = 1u;
layout(set = 1, binding = 0) uniform sampler2D orr_scene_textures[ORR_SCENE_TEXTURE_SLOTS];
// The material's texture in `slot` (ORR_GPU_TEXTURE_*), white where it has none.
vec4 orr_scene_texture(uint material, uint slot, vec2 uv)
{
    return texture(orr_scene_textures[min(materials[material].texture[slot], ORR_SCENE_TEXTURE_SLOTS - 1u)], uv);
}
#else
layout(set = 1, binding = 0) uniform sampler2D orr_scene_textures[ORR_GPU_TEXTURE_SLOTS];
vec4 orr_scene_texture(uint material, uint slot, vec2 uv) { return texture(orr_scene_textures[slot], uv); }
#endif

#ifdef ORR_SCENE_VERTEX
// The pool vertex (a host vertex shader reads those it needs).
layout(location = 0) in vec3 orr_in_position;
layout(location = 1) in vec3 orr_in_normal;
layout(location = 2) in vec4 orr_in_tangent;
layout(location = 3) in vec2 orr_in_uv0;
layout(location = 4) in vec2 orr_in_uv1;
layout(location = 5) in vec4 orr_in_color;

// The record (instance slot, material slot) of the instance this vertex belongs to.
orr_gpu_record orr_scene_record() { return records[u_view.params.x + uint(gl_InstanceIndex)]; }
#endif

#if defined(ORR_SCENE_TASK) || defined(ORR_SCENE_MESH)
// The record of this workgroup in a mesh technique dispatched per record (ORR_MESH_PER_RECORD):
// `first` is the uint the library appends to the push block (the run's first record).
orr_gpu_record orr_scene_group_record(uint first) { return records[u_view.params.x + first + gl_WorkGroupID.x]; }
#endif

#if defined(ORR_SCENE_VERTEX) || defined(ORR_SCENE_TASK) || defined(ORR_SCENE_MESH)
// The technique's layer mask (orr_technique_scene.layer_mask), set by the library.
layout(constant_id = 100) const uint ORR_SCENE_LAYER_MASK = 0u;

// Whether the technique's layer filter keeps the instance; a vertex of one it drops should be placed
// outside the clip volume (ORR_SCENE_DROPPED).
bool orr_scene_layer_kept(uint instance)
{
    return ORR_SCENE_LAYER_MASK == 0u || (instances[instance].layers & ORR_SCENE_LAYER_MASK) != 0u;
}
const vec4 ORR_SCENE_DROPPED = vec4(2.0, 2.0, 2.0, 1.0);

// A mesh-space point of the instance relative to the view origin (rigid placement: no skin, no morph).
vec3 orr_scene_place(uint instance, vec3 p)
{
    orr_gpu_instance inst = instances[instance];
    mat3 linear = mat3(inst.linear[0], inst.linear[1], inst.linear[2], inst.linear[3], inst.linear[4],
                       inst.linear[5], inst.linear[6], inst.linear[7], inst.linear[8]);
    vec3 t_hi = vec3(inst.t_hi[0], inst.t_hi[1], inst.t_hi[2]), t_lo = vec3(inst.t_lo[0], inst.t_lo[1], inst.t_lo[2]);
    return linear * p + ((t_hi - u_view.origin_hi.xyz) + (t_lo - u_view.origin_lo.xyz));
}
// A mesh-space normal of the instance in world orientation (not normalised).
vec3 orr_scene_normal(uint instance, vec3 n)
{
    orr_gpu_instance inst = instances[instance];
    vec3 c0 = vec3(inst.linear[0], inst.linear[1], inst.linear[2]);
    vec3 c1 = vec3(inst.linear[3], inst.linear[4], inst.linear[5]);
    vec3 c2 = vec3(inst.linear[6], inst.linear[7], inst.linear[8]);
    float s = (inst.flags & ORR_GPU_INSTANCE_MIRRORED) != 0u ? -1.0 : 1.0;
    return s * (mat3(cross(c1, c2), cross(c2, c0), cross(c0, c1)) * n);
}
// A point relative to the view origin, in clip space.
vec4 orr_scene_clip(vec3 world_rel) { return u_view.proj * (u_view.view * vec4(world_rel, 1.0)); }
#endif

#ifdef ORR_SCENE_FRAGMENT
// What the library's vertex stage passes (the built-in passes' values, skinned and morphed).
layout(location = 0) in vec3 orr_world_rel;   // the point, relative to the view origin
layout(location = 1) in vec3 orr_normal;      // world orientation, not normalised
layout(location = 2) in vec4 orr_tangent;     // xyz world orientation, w handedness
layout(location = 3) in vec4 orr_color;       // vertex colour
layout(location = 4) in vec4 orr_uv_a;        // xy base colour, zw metallic-roughness texture coordinates
layout(location = 5) in vec4 orr_uv_b;        // xy normal, zw occlusion
layout(location = 6) in vec2 orr_uv_c;        // emissive
layout(location = 7) flat in uint orr_material; // material slot (materials[], orr_scene_texture)
layout(location = 8) flat in uint orr_mirrored; // 1 for a mirrored instance
#endif

#endif // ORRERY_SCENE_GLSL
