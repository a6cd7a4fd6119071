/* Orrery gpu_shared: the GPU structs, read by the C renderer and by the GLSL shaders (glslc gets
 * -I include/orrery), so that the layouts cannot drift.
 *
 *   orr_gpu_instance  80 bytes per instance slot, one storage buffer shared by every view and pass
 *   orr_gpu_material  224 bytes per material slot (the material id's index): glTF metallic-roughness
 *                     factors, and per texture slot (ORR_GPU_TEXTURE_*) its image, texcoord set and
 *                     KHR_texture_transform
 *   orr_gpu_record    8 bytes per visible surface draw of one view: instance slot + material slot,
 *                     found through gl_InstanceIndex (which includes firstInstance)
 *   orr_gpu_shell     the shell path's push constant (32 bytes): instance slot, material slot and the
 *                     shells' parameters per draw, so that gl_InstanceIndex is the shell index
 *   orr_gpu_view      the per-view uniform block: origin as high/low floats, rotation, projection,
 *                     the ambient sky, exposure, where the view's lights are
 *   orr_gpu_light     64 bytes per light of a view: position relative to the view origin, direction,
 *                     colour, intensity in physical units, range, cone cosines
 *   morphs            per morph-targeted primitive a header (orr_gpu_morph) and its targets' deltas
 *                     (position, normal, tangent: three vec4 per vertex per target), with the mesh's
 *                     default weights
 *   weights           the snapshot's morph weights (floats) at its weight offsets, kept across frames:
 *                     an instance with weights reads them instead of its mesh's defaults
 *   joints            each snapshot joint matrix (relative to its instance) as three vec4 rows (the
 *                     top 3x4 of the matrix), at the snapshot's joint offsets, kept across frames
 *   orr_gpu_draw_item  12 bytes per item of a retained draw scene (the cull's input): instance slot,
 *                     material slot, batch
 *   orr_gpu_batch     56 bytes per batch of a retained draw scene: its items, its index range, its
 *                     mesh's local bounds
 *   orr_gpu_cull      the per-view uniform block of the cull (compute): frustum planes relative to the
 *                     view origin, the origin, sizes and offsets of the view's regions
 *   meshlets          the meshlet strategy (gpu_meshlet.c): in the geometry pool, per resident mesh its
 *                     meshlets once (orr_gpu_meshlet, 16 bytes, and orr_meshlet_bounds, 48 bytes), their
 *                     vertex entries (uint) and triangle bytes (four a uint); per view and frame a uniform
 *                     block (orr_gpu_meshlet_view), a draw per indexed command of the view
 *                     (orr_gpu_meshlet_draw) and, with mesh shaders, its task commands (orr_gpu_meshlet_task)
 *
 * Storage-buffer structs use only 32-bit scalars and scalar arrays (std430: 4-byte alignment, the same
 * as C). The uniform block uses vec4/mat4 members only, each at a multiple of 16 bytes (std140 = C).
 */
#ifndef ORRERY_GPU_SHARED_H
#define ORRERY_GPU_SHARED_H

#if defined(__STDC__) || defined(__cplusplus)
#include <stdint.h>
#define ORR_GPU_STRUCT(name) typedef struct name name; struct name
#define ORR_GPU_UINT uint32_t
#define ORR_GPU_VEC4(n) float n[4]
#define ORR_GPU_UVEC4(n) uint32_t n[4]
#define ORR_GPU_MAT4(n) float n[16]
#define ORR_GPU_MAT4_ARRAY(n, count) float n[count][16]
#define ORR_GPU_VEC4_ARRAY(n, count) float n[count][4]
#else /* GLSL */
#define ORR_GPU_STRUCT(name) struct name
#define ORR_GPU_UINT uint
#define ORR_GPU_VEC4(n) vec4 n
#define ORR_GPU_UVEC4(n) uvec4 n
#define ORR_GPU_MAT4(n) mat4 n
#define ORR_GPU_MAT4_ARRAY(n, count) mat4 n[count]
#define ORR_GPU_VEC4_ARRAY(n, count) vec4 n[count]
#endif

/* orr_gpu_instance.flags */
#define ORR_GPU_INSTANCE_MIRRORED 1u /* the linear part has a negative determinant */
#define ORR_GPU_INSTANCE_SKINNED 2u
#define ORR_GPU_INSTANCE_VISIBLE 4u  /* the snapshot's visible flag */
#define ORR_GPU_INSTANCE_CASTS_SHADOWS 8u /* the snapshot's casts_shadows flag */
#define ORR_GPU_INSTANCE_TELEPORT 16u /* in an uploaded record only: the slot's earlier pose is not this
                                         instance's way here (a new instance, or a teleport); the scatter
                                         clears it */

/* orr_gpu_motion.flags */
#define ORR_GPU_MOTION_ROTATES 1u /* both poses are a rotation times a positive scale per axis: rotation
                                     and scale blend (else the linear part is the current one) */
#define ORR_GPU_MOTION_JOINTS 2u  /* its joint range held the earlier palette where it is now: the joints'
                                     earlier rows (the joint motion buffer, binding 12) blend too */
#define ORR_GPU_NO_TICK 0xffffffffu /* orr_gpu_motion.tick of a slot with no motion */
#define ORR_GPU_VIEW_NO_BLEND 0xfffffffeu /* orr_gpu_view.origin_lo.w (uint bits) of a frame that does not
                                             interpolate: a tick that no motion holds (motion ticks are the
                                             snapshot's modulo this) */

/* orr_gpu_material.alpha_mode (orr_alpha_mode) */
#define ORR_GPU_ALPHA_OPAQUE 0u
#define ORR_GPU_ALPHA_MASK 1u
#define ORR_GPU_ALPHA_BLEND 2u

/* orr_gpu_material.flags */
#define ORR_GPU_MATERIAL_DOUBLE_SIDED 1u
#define ORR_GPU_MATERIAL_UNLIT 2u
#define ORR_GPU_MATERIAL_FUR 4u /* shades fur (orr_material.shading): its fur draws thin by its noise */

/* Texture slots of a material (orr_gpu_material.texture, .uv_transform; bit k of .textures and
 * .texcoords is slot k) */
#define ORR_GPU_TEXTURE_BASE_COLOR 0u
#define ORR_GPU_TEXTURE_METALLIC_ROUGHNESS 1u
#define ORR_GPU_TEXTURE_NORMAL 2u
#define ORR_GPU_TEXTURE_OCCLUSION 3u
#define ORR_GPU_TEXTURE_EMISSIVE 4u
#define ORR_GPU_TEXTURE_UV_SLOTS 5u  /* the slots above: each with its texcoord set and transform */
#define ORR_GPU_TEXTURE_FUR_NOISE 5u /* a fur material's noise (orr_fur.noise): texcoord set 0 x the draw's
                                        density, no transform */
#define ORR_GPU_TEXTURE_SLOTS 6u

/* Texture array index 0 holds a 1x1 white image: a slot without a texture samples it. */
#define ORR_GPU_WHITE_TEXTURE 0u
#define ORR_GPU_NO_MORPH 0xffffffffu

/* orr_gpu_light.type */
#define ORR_GPU_LIGHT_DIRECTIONAL 0u /* illuminance in lux along .direction */
#define ORR_GPU_LIGHT_POINT 1u       /* intensity in candela from .position */
#define ORR_GPU_LIGHT_SPOT 2u        /* a point light within the cone around .direction */

/* A light's shadow records (orr_gpu_light.shadow) in the shadow buffer, which the fragment shaders read
 * as vec4 rows: ORR_GPU_SHADOW_ROWS rows each (an orr_gpu_shadow), one per layer of the light's maps: a
 * directional light's cascades (nearest first), a spot light's one map, a point light's six cube faces
 * looking along +X, -X, +Y, -Y, +Z, -Z (a receiver reads the face whose axis is the largest component of
 * its direction from the light). */
#define ORR_GPU_SHADOW_ROWS 5u

/* orr_gpu_view.params.w */
#define ORR_GPU_TONE_PBR_NEUTRAL 0u /* Khronos PBR Neutral */
#define ORR_GPU_TONE_NONE 1u        /* the exposed value, clamped by the colour target */

ORR_GPU_STRUCT(orr_gpu_instance) {
    float linear[9];          /* 3x3 linear part of the world matrix, column-major (scale included) */
    float t_hi[3];            /* translation, high floats: (float)t */
    float t_lo[3];            /* translation, low floats: (float)(t - t_hi); t_hi + t_lo = t to ~2^-48 */
    ORR_GPU_UINT joint_offset; /* into the snapshot's joints (3 float rows each in the joint buffer) */
    ORR_GPU_UINT joint_count;  /* 0 = not skinned */
    ORR_GPU_UINT flags;        /* ORR_GPU_INSTANCE_* */
    ORR_GPU_UINT layers;       /* the snapshot's layer bits */
    ORR_GPU_UINT weight_offset; /* its morph weights in the weight buffer (the snapshot's weight offset);
                                   ORR_GPU_NO_MORPH: the mesh's default weights (in the morph buffer) */
};

/* 96 bytes per instance slot, beside its record: where the instance was before its record last changed,
 * and at which tick that change came. Written by the scatter (gpu_scene.c) from the record it replaces,
 * so that a frame between ticks uploads nothing per instance. A vertex stage whose view has a lag
 * (orr_gpu_view.origin_hi.w > 0) and whose tick (origin_lo.w, uint bits) is the motion's draws the
 * instance at the blend: translation linear (high and low parts apart, relative to the view origin),
 * rotation by normalised quaternion, scale linear. */
ORR_GPU_STRUCT(orr_gpu_motion) {
    float rotation[4];         /* the earlier pose: unit quaternion (x, y, z, w) */
    float scale[3];            /* its column lengths */
    ORR_GPU_UINT tick;         /* (uint32) the snapshot tick of the change; ORR_GPU_NO_TICK = none */
    float t_hi[3];             /* its translation, high floats */
    ORR_GPU_UINT flags;        /* ORR_GPU_MOTION_* */
    float t_lo[3];             /* its translation, low floats */
    ORR_GPU_UINT reserved;
    float now_rotation[4];     /* the current record's, decomposed likewise */
    float now_scale[3];
    ORR_GPU_UINT reserved2;
};

ORR_GPU_STRUCT(orr_gpu_material) {
    float base_color[4];       /* linear RGBA factor */
    float emissive[3];         /* linear, KHR_materials_emissive_strength applied */
    float alpha_cutoff;        /* ORR_GPU_ALPHA_MASK: discarded below */
    float metallic;
    float roughness;
    float normal_scale;        /* normalTexture.scale */
    float occlusion_strength;  /* occlusionTexture.strength */
    ORR_GPU_UINT alpha_mode;   /* ORR_GPU_ALPHA_* */
    ORR_GPU_UINT flags;        /* ORR_GPU_MATERIAL_* */
    ORR_GPU_UINT textures;     /* bit per slot: the slot has a texture (a normal map is applied only then) */
    ORR_GPU_UINT texcoords;    /* bit per slot: it reads texcoord set 1 (else set 0) */
    ORR_GPU_UINT texture[6];   /* per slot: its index in the texture array (ORR_GPU_WHITE_TEXTURE = none);
                                  with per-material sets the set's binding k is slot k instead */
    ORR_GPU_UINT reserved[2];
    float uv_transform[30];    /* per slot below ORR_GPU_TEXTURE_UV_SLOTS, KHR_texture_transform as a 2x3
                                  matrix (six floats, columns: x axis, y axis, offset) */
    float fur_length;          /* ORR_GPU_MATERIAL_FUR: orr_fur.shell_length (the culled boxes grow by it;
                                  a fur draw's own values come in its orr_gpu_shell) */
    ORR_GPU_UINT reserved2;
};

ORR_GPU_STRUCT(orr_gpu_record) {
    ORR_GPU_UINT instance; /* instance slot */
    ORR_GPU_UINT material; /* material slot */
};

/* orr_gpu_shell.flags */
#define ORR_GPU_SHELL_FUR 1u /* a fur draw: shells offset along the normal and thinned by the noise */

/* The push constant of a draw on the shell path (vertex and fragment stages): per record, the instance
 * and material a record would name, then an instanced draw of shell_count instances, so that
 * gl_InstanceIndex is the shell index i. Shell i sits at height h = i / (shell_count - 1) (0 when
 * shell_count is 1), offset by h x shell_length along the world-space normal; a fur draw keeps a
 * fragment whose noise value v (the red channel of the material's noise at texcoords0 x density)
 * satisfies v >= thinning x h. A plain surface on the shell path is one shell of length 0. */
ORR_GPU_STRUCT(orr_gpu_shell) {
    ORR_GPU_UINT instance;    /* instance slot */
    ORR_GPU_UINT material;    /* material slot */
    ORR_GPU_UINT shell_count; /* >= 1 */
    float shell_length;       /* metres, at h = 1 */
    float density;            /* noise repeats per texcoord unit */
    float thinning;           /* 0..1 */
    ORR_GPU_UINT flags;       /* ORR_GPU_SHELL_* */
    ORR_GPU_UINT reserved;
};

ORR_GPU_STRUCT(orr_gpu_view) {
    ORR_GPU_MAT4(view);        /* world-minus-origin -> camera: rotation only */
    ORR_GPU_MAT4(proj);        /* camera -> clip: reversed Z, infinite far */
    ORR_GPU_VEC4(origin_hi);   /* view origin, high floats; w: the snapshot's lag (0: no interpolation) */
    ORR_GPU_VEC4(origin_lo);   /* view origin, low floats; w (uint bits): the snapshot's tick modulo
                                  ORR_GPU_VIEW_NO_BLEND, which orr_gpu_motion.tick is compared with, or
                                  ORR_GPU_VIEW_NO_BLEND when the lag is 0 */
    ORR_GPU_VEC4(sky);         /* rgb: the ambient radiance from above (+Y); w: exposure */
    ORR_GPU_VEC4(ground);      /* rgb: the ambient radiance from below (-Y); w: vertex capture
                                  (orr_renderer_desc.vertex_capture): vertices per instance slot in the
                                  capture buffer, as uint bits (0: no capture) */
    ORR_GPU_UVEC4(params);     /* x: first record of this view in the view-data buffer (in records),
                                  y: first light in the light buffer (in lights), z: light count,
                                  w: ORR_GPU_TONE_* */
    ORR_GPU_VEC4(shadow_params); /* the view's shadow settings (its lights' records: orr_gpu_light.shadow):
                                    x: depth bias (texels), y: normal offset (texels), z: 1 / map size,
                                    w: filter taps per side */
};

ORR_GPU_STRUCT(orr_gpu_light) {
    float position[3];         /* point and spot: relative to the view origin */
    ORR_GPU_UINT type;         /* ORR_GPU_LIGHT_* */
    float direction[3];        /* unit: the way the light shines (its -Z) */
    float range;               /* point and spot: 0 = infinite */
    float color[3];            /* linear */
    float intensity;           /* lux (directional) or candela (point, spot) */
    float cos_inner, cos_outer; /* spot: full intensity inside inner, none outside outer */
    ORR_GPU_UINT shadow;       /* its first shadow record's row in the shadow buffer + 1; 0: it casts no
                                  shadow in this view */
    ORR_GPU_UINT shadow_count; /* its records: the cascades (directional), 1 (spot) or 6 (point) */
};

/* One layer of a light's shadow maps (a shadow view), as the receivers read it. */
ORR_GPU_STRUCT(orr_gpu_shadow) {
    ORR_GPU_MAT4(matrix);      /* world-minus-origin -> the map's clip space (x, y in -1..1, depth 1
                                  nearest the light) */
    float depth_end;           /* a cascade: the camera depth (metres along its forward) it ends at */
    float texel;               /* a cascade: the world size of one texel (metres); spot and point: that
                                  size per metre of distance along the map's axis */
    ORR_GPU_UINT layer;        /* its layer of the shadow map array */
    ORR_GPU_UINT reserved;
};

/* The header of a morph-targeted primitive in the morph buffer (one vec4 of uints) at vec4 index h;
 * its default weights (the mesh's) follow at h + 1, four to a vec4, then its deltas at
 * d = h + 1 + ceil(target_count / 4): for target t and vertex v of the primitive (v = the pool vertex
 * index - first_vertex), three vec4 at d + (t x vertex_count + v) x 3: position, normal, tangent (xyz). */
ORR_GPU_STRUCT(orr_gpu_morph) {
    ORR_GPU_UINT target_count;
    ORR_GPU_UINT vertex_count;
    ORR_GPU_UINT first_vertex; /* the primitive's first vertex in the geometry pool */
    ORR_GPU_UINT reserved;
};

/* The cull: items per workgroup of the count and compact stages (one per thread), and the visibility
 * words of one block. */
#define ORR_GPU_CULL_BLOCK 256u
#define ORR_GPU_CULL_THREADS 256u
#define ORR_GPU_CULL_WORDS 8u
/* Levels of detail a mesh may have (ORR_MESH_MAX_LODS), and the cull's count of them after its two
 * totals: per level the draws (instance-primitives) and the triangles (two words, low then high). */
#define ORR_GPU_LODS 8u
#define ORR_GPU_CULL_LOD_WORDS (3u * ORR_GPU_LODS)
/* And after those the instances the cull counted, each once by its first item (ORR_GPU_ITEM_LEAD): those
 * the view may show (visible, in its layers and its visibility range), of those the ones in its frustum,
 * and of those the ones the depth pyramid does not hide (a view without occlusion: the same); then each
 * block's three, which the scan stage sums into them. */
#define ORR_GPU_CULL_INSTANCE_WORDS 3u
/* orr_gpu_draw_item.batch: the item is its instance's first of the cull (it counts the instance) */
#define ORR_GPU_ITEM_LEAD 0x80000000u
/* The cull's stages (its specialization constant 0) */
#define ORR_GPU_CULL_COUNT 0u    /* per block: visibility bits and the block's count */
#define ORR_GPU_CULL_SCAN 1u     /* one workgroup: exclusive prefix of the block counts, and the total */
#define ORR_GPU_CULL_COMPACT 2u  /* per block: the visible items' records, packed in item order */
#define ORR_GPU_CULL_COMMANDS 3u /* per batch: its indirect command (instance count and first instance) */

ORR_GPU_STRUCT(orr_gpu_draw_item) {
    ORR_GPU_UINT instance; /* instance slot */
    ORR_GPU_UINT material; /* material slot */
    ORR_GPU_UINT batch;    /* index into the scene's batches, | ORR_GPU_ITEM_LEAD for an instance's first */
};

ORR_GPU_STRUCT(orr_gpu_batch) {
    ORR_GPU_UINT first;         /* its items in the scene: [first, first + count) */
    ORR_GPU_UINT count;
    ORR_GPU_UINT index_count;   /* the mesh primitive in the geometry pool */
    ORR_GPU_UINT first_index;
    ORR_GPU_UINT vertex_offset; /* int32 as bits */
    ORR_GPU_UINT lod;           /* its level of detail (orr_draw_batch.lod) */
    float bounds_min[3];        /* the mesh's local bounds */
    float bounds_max[3];
    float lod_error;            /* its level's error and the next level's (< 0: none), mesh-local */
    float lod_next;
};

ORR_GPU_STRUCT(orr_gpu_cull) {
    ORR_GPU_VEC4_ARRAY(planes, 5); /* left, right, bottom, top, near, in world-minus-origin space:
                                      dot(xyz, p) + w >= 0 inside */
    ORR_GPU_VEC4(origin_hi);       /* w: the lag, as orr_gpu_view's (instances are tested where they */
    ORR_GPU_VEC4(origin_lo);       /* are drawn between ticks); w: the tick, likewise */
    ORR_GPU_UVEC4(sizes);   /* x: items to cull, y: their batches, z: blocks, w: layer mask */
    ORR_GPU_UVEC4(scene);   /* x: first item, y: first batch (in the scene-data buffer, in their units) */
    ORR_GPU_UVEC4(regions); /* in the view-data buffer, in uints: x visibility bits, y block counts,
                               z first record (in records), w first command */
    ORR_GPU_UVEC4(extra);   /* x: the total's uint in the view-data buffer, y: the batches' uint, z: instance
                               flags an item must also have (ORR_GPU_INSTANCE_CASTS_SHADOWS for a shadow
                               view, 0 for a camera view), w: 1 + the first uint of the view's bits of
                               instances outside their visibility range (by instance slot), 0 = none */
    ORR_GPU_VEC4(lod);      /* levels of detail (orr_draw_lod_view): x the error allowed per metre of
                               distance, or in all (orthographic), < 0 = level 0 only; y 1 perspective,
                               0 orthographic */
    ORR_GPU_UVEC4(order);   /* x: 1 + the first uint of the view's bits of batches whose visible items are
                               listed last item first (orr_draw_visible.last_first), 0 = none; yzw unused */
};

/* ---- occlusion culling (shaders/occlusion.glsl, shaders/pyramid.comp, gpu_occlusion.c) ---- */
/* A view's occlusion buffer, in uints: a header (unused), then a visibility bit per item of its cull
 * (the frame before's, set by phase 2), ORR_GPU_CULL_WORDS per block. */
#define ORR_GPU_OCCLUSION_HEADER 4u
/* The depth pyramid: 8 x 8 threads a workgroup; at most this many levels (level 0 is half the view). */
#define ORR_GPU_PYRAMID_THREADS 8u
#define ORR_GPU_PYRAMID_MAX_LEVELS 15u

/* The per-view uniform block of the occlusion test (set 1 of the cull's occlusion pipelines). Phase 1
 * keeps the items visible the frame before (and in the frustum), phase 2 the items in the frustum that
 * the depth pyramid does not hide (a pipeline each: cull.comp built with ORR_CULL_OCCLUSION 1 or 2). */
ORR_GPU_STRUCT(orr_gpu_occlusion) {
    ORR_GPU_MAT4(clip);   /* world minus the view origin -> clip space (reversed Z), binary64 rounded */
    ORR_GPU_UVEC4(sizes); /* x: unused, y: pyramid levels, z, w: the view's size
                             in pixels; level l of the pyramid is ceil(z / 2^(l+1)) x ceil(w / 2^(l+1)) texels,
                             each the farthest (smallest) depth of the pixels it covers */
};

/* ---- the meshlet strategy ---- */
/* Threads of a task workgroup (one meshlet each), of a mesh workgroup, and of the compute stages. */
#define ORR_GPU_MESHLET_TASK_THREADS 32u
#define ORR_GPU_MESHLET_MESH_THREADS 32u
#define ORR_GPU_MESHLET_THREADS 256u
/* The compute stages (specialization constant 0 of meshlet.comp) */
#define ORR_GPU_MESHLET_TASKS 0u  /* mesh shaders: per task command its workgroup count; per draw the sent counts */
#define ORR_GPU_MESHLET_EXPAND 1u /* fallback: per slot (record x meshlet) an indexed command, culled or not */
/* orr_gpu_meshlet_view.sizes.z: ORR_MESHLET_CULL_FRUSTUM, ORR_MESHLET_CULL_CONE (draw.h) */
#define ORR_GPU_MESHLET_CULL_FRUSTUM 1u
#define ORR_GPU_MESHLET_CULL_CONE 2u
/* orr_gpu_meshlet_draw.flags */
#define ORR_GPU_MESHLET_CONE 1u      /* single-sided material: the cone test applies (to similar poses) */
#define ORR_GPU_MESHLET_INDEXED 2u   /* drawn by the indexed path; bits 8..15: its orr_meshlet_indexed reason */
#define ORR_GPU_MESHLET_SKIP 4u      /* another payload's batch, drawn by its adapter: neither drawn nor counted */
/* The view's counters in the meshlet data buffer, in uints (64-bit ones as low, high) */
#define ORR_GPU_MESHLET_COUNT_SENT 0u              /* meshlets sent (64-bit) */
#define ORR_GPU_MESHLET_COUNT_KEPT 2u              /* meshlets kept (64-bit) */
#define ORR_GPU_MESHLET_COUNT_TRIANGLES_SENT 4u    /* (64-bit) */
#define ORR_GPU_MESHLET_COUNT_TRIANGLES_KEPT 6u    /* (64-bit) */
#define ORR_GPU_MESHLET_COUNT_TRIANGLES_INDEXED 8u /* (64-bit) */
#define ORR_GPU_MESHLET_COUNT_INDEXED 10u          /* records drawn indexed, a uint per orr_meshlet_indexed reason */
#define ORR_GPU_MESHLET_COUNTERS 16u
/* ORR_MESHLET_MAX_VERTICES and ORR_MESHLET_MAX_TRIANGLES (assets.h), for the mesh shader's outputs */
#define ORR_GPU_MESHLET_MAX_VERTICES 64
#define ORR_GPU_MESHLET_MAX_TRIANGLES 124

/* One resident meshlet. */
ORR_GPU_STRUCT(orr_gpu_meshlet) {
    ORR_GPU_UINT vertex_offset;   /* its first vertex entry in the pool (entries are primitive-local indices) */
    ORR_GPU_UINT triangle_offset; /* its first triangle word in the pool (3 bytes a triangle, little end first) */
    ORR_GPU_UINT counts;          /* vertex count | triangle count << 8 */
    ORR_GPU_UINT first_index;     /* its triangles as indices [first_index, + 3 x triangles) of its primitive */
};

/* The culling bounds of a meshlet: orr_meshlet_bounds, as floats. */
ORR_GPU_STRUCT(orr_gpu_meshlet_bounds) {
    float center[3];
    float radius;
    float cone_apex[3];
    float cone_cutoff;
    float cone_axis[3];
    float reserved;
};

/* Per indexed command of a meshlet view (its opaque batches, then its blended ranges, as the view's
 * commands): how the meshlet strategy draws it. */
ORR_GPU_STRUCT(orr_gpu_meshlet_draw) {
    ORR_GPU_UINT command;       /* its indexed command: index among the view's commands */
    ORR_GPU_UINT meshlet_first; /* its primitive's meshlets in the pool: [meshlet_first, + meshlet_count) */
    ORR_GPU_UINT meshlet_count;
    ORR_GPU_UINT flags;         /* ORR_GPU_MESHLET_CONE, _INDEXED */
    ORR_GPU_UINT first;         /* fallback: its first slot; mesh shaders: its first task command */
    ORR_GPU_UINT slots;         /* fallback: its slots (records x meshlets, 1 when indexed) */
    ORR_GPU_UINT triangles;     /* of its primitive */
    ORR_GPU_UINT chunks;        /* task workgroups per record: meshlets / ORR_GPU_MESHLET_TASK_THREADS, rounded up */
};

/* A task command: task workgroups [group_base, + the limit) of draw `draw` (record = group / chunks). */
ORR_GPU_STRUCT(orr_gpu_meshlet_task) {
    ORR_GPU_UINT draw;       /* index among the view's orr_gpu_meshlet_draw */
    ORR_GPU_UINT group_base;
};

/* The per-view uniform block of the meshlet stages (compute, task). */
ORR_GPU_STRUCT(orr_gpu_meshlet_view) {
    ORR_GPU_VEC4_ARRAY(planes, 5); /* left, right, bottom, top, near, unit normals, in world-minus-origin
                                      space: dot(xyz, p) + w >= 0 inside */
    ORR_GPU_VEC4(origin_hi);       /* w: the lag, as orr_gpu_view's */
    ORR_GPU_VEC4(origin_lo);       /* w: the tick, likewise (an instance drawn blended keeps its meshlets) */
    ORR_GPU_VEC4(forward);         /* xyz: the camera's unit forward; w: 1 orthographic, 0 perspective (the
                                      camera is at the origin) */
    ORR_GPU_UVEC4(sizes);          /* x: draws, y: task commands (mesh shaders) or slots (fallback),
                                      z: ORR_MESHLET_CULL_* flags, w: the view block's first record (params.x) */
    ORR_GPU_UVEC4(regions);        /* x: first draw (in the frame buffer, in orr_gpu_meshlet_draw), y: first task
                                      command (there, in orr_gpu_meshlet_task), z: the view's first indexed
                                      command (in the view-data buffer, in uints), w: the output's first uint (in
                                      the meshlet data buffer: task commands or slots) */
    ORR_GPU_UVEC4(extra);          /* x: the counters' first uint (meshlet data), y: task workgroups per task
                                      command at most */
};

#if defined(__STDC__) || defined(__cplusplus)
#ifndef __cplusplus
_Static_assert(sizeof(orr_gpu_instance) == 80, "instance records are 80 bytes");
_Static_assert(sizeof(orr_gpu_motion) == 96, "motion records are 96 bytes");
_Static_assert(sizeof(orr_gpu_material) == 224, "material records are 224 bytes");
_Static_assert(sizeof(orr_gpu_light) == 64, "lights are 64 bytes");
_Static_assert(sizeof(orr_gpu_morph) == 16, "morph headers are 16 bytes");
_Static_assert(sizeof(orr_gpu_record) == 8, "draw records are 8 bytes");
_Static_assert(sizeof(orr_gpu_shell) == 32, "the shell push constant is 32 bytes");
_Static_assert(sizeof(orr_gpu_view) == 224, "view block is 224 bytes");
_Static_assert(sizeof(orr_gpu_shadow) == 80, "shadow records are 80 bytes");
_Static_assert(sizeof(orr_gpu_draw_item) == 12, "draw items are 12 bytes");
_Static_assert(sizeof(orr_gpu_batch) == 56, "batches are 56 bytes");
_Static_assert(sizeof(orr_gpu_cull) == 208, "cull block is 208 bytes");
_Static_assert(sizeof(orr_gpu_occlusion) == 80, "occlusion block is 80 bytes");
_Static_assert(sizeof(orr_gpu_meshlet) == 16, "meshlets are 16 bytes");
_Static_assert(sizeof(orr_gpu_meshlet_bounds) == 48, "meshlet bounds are 48 bytes");
_Static_assert(sizeof(orr_gpu_meshlet_draw) == 32, "meshlet draws are 32 bytes");
_Static_assert(sizeof(orr_gpu_meshlet_task) == 8, "task commands are 8 bytes");
_Static_assert(sizeof(orr_gpu_meshlet_view) == 176, "meshlet view block is 176 bytes");
#endif
#endif

#endif /* ORRERY_GPU_SHARED_H */
