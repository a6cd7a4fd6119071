/* The renderer's state: the struct every room of the gpu module keeps its part in, and the types of
 * those parts. It declares no functions: each room's are in its own header, and a file includes the
 * headers of the rooms it calls, never one above it (scripts/check_gpu_rooms.py checks it).
 *
 * The rooms, lowest first (a room calls only rooms listed before it):
 *   gpu_space.c          the allocator of ranges (free list) the memory blocks and pools place with
 *   gpu_error.c          the last error, VkResult names, the ORRI_VK / ORRI_TRY checks
 *   gpu_memory.c         device memory: blocks per memory type and kind, placement in them; host arrays
 *   gpu_device.c         the Vulkan instance (orr_vulkan_instance), validation messengers, device
 *                        choice, features (the mesh shaders), queue
 *   gpu_resource.c       buffers, images, barriers, deferred destruction
 *   gpu_upload.c         staging through the frame's host buffer; pools grown with their contents
 *   gpu_pipeline.c       the pipeline cache, shader modules, the mesh pipelines keyed by their state
 *   gpu_shader.c         GLSL compiled at run time (glslang) and SPIR-V reflected (SPIRV-Cross); no
 *                        renderer state
 *   gpu_meshlet_pool.c   residency: each resident mesh's meshlets
 *   gpu_geometry.c       residency: the geometry pool (vertices, indices, morph targets)
 *   gpu_texture.c        residency: textures, mip chains, samplers, the texture array or sets
 *   gpu_material.c       residency: material slots and their records
 *   gpu_scene.c          scene buffers: instance slots and records, joints, morph weights; the end of a
 *                        frame (commit, abort) for everything resident
 *   gpu_light.c          each view's lights, relative to its origin
 *   gpu_draws.c          the retained draw scenes, their GPU copies, each view's CPU cull and regions
 *   gpu_cull.c           the GPU cull's compute passes
 *   gpu_shell.c          strategy: the shell path (the shell strategy, the fur adapter)
 *   gpu_indexed.c        strategies: direct, batched, indirect
 *   gpu_meshlet.c        strategy: meshlets (task and mesh shaders, or the expanded fallback)
 *   gpu_baseline.c       the floor (orr_renderer_desc.baseline_gpu): the views' visible records drawn
 *                        again by the leanest pipeline into scratch images, timed apart
 *   gpu_technique_graph.c  the host's techniques: the shapes of a list, its checking, its resources
 *                        resolved and its running order found (no Vulkan object made)
 *   gpu_technique_build.c  a technique's shaders checked against its desc, its layouts and pipeline
 *   gpu_technique_record.c a frame's technique commands with their barriers, and the frame graph's text
 *   gpu_technique.c      the lists: set whole, their ids, transients at the target's size, hot reload
 *   gpu_pick.c           picks: an id pass after the view's passes in the frames that ask, answered
 *                        from host memory once the frame completes
 *   gpu_debug_draw.c     debug drawing: the host's per-frame lines and the built-in ones, relative to
 *                        each view's origin, drawn inside its passes
 *   gpu_texture_target.c texture targets: which ones a frame samples, their order, their layouts
 *   gpu_target_image.c   a target's images at its size
 *   gpu_surface.c        surface targets: the swapchain
 *   gpu_target.c         targets and views: handles, checks, lifetimes
 *   gpu_view.c           a view's place on its target and its camera, per frame
 *   gpu_library.c        the asset library bound, by handle
 *   gpu_shadow.c         shadows: each shadowed light's shadow views per view (shadow views culled on the
 *                        GPU, drawn depth-only into one depth array), sampled by the mesh shaders
 *   gpu_frame.c          the frame: residency, plan, record, submit, commit; readback, finish
 *   gpu_renderer.c       the renderer's creation and destruction
 *   gpu_png.c            orr_gpu_write_png
 * A frame makes resident first (meshes, materials, textures), then plans from what is resident: the
 * planners (orri_draws_plan, the strategies' plan_view) create or retire no texture, sampler or
 * material. */
#ifndef ORRERY_GPU_STATE_H
#define ORRERY_GPU_STATE_H

#include <orrery/gpu.h>
#include <orrery/gpu_shared.h>
#include <vulkan/vulkan.h>

#include <stdatomic.h>
#include <string.h>

#include "core/internal.h"

#define ORRI_COLOR_FORMAT VK_FORMAT_R8G8B8A8_SRGB
#define ORRI_DEPTH_FORMAT VK_FORMAT_D32_SFLOAT
/* Mesh pipeline keys (orri_pipeline_key): alpha mode (opaque, mask, blend) x double-sided; per sample
 * count (1, 2, 4, 8). */
#define ORRI_PIPELINE_KEYS 6
#define ORRI_SAMPLE_COUNTS 4
/* What a mesh pipeline's vertex and fragment stages carry (shaders/variant.glsl reads the same bits):
 * each key's pipeline is made per mask its batches need (orri_pipeline_features), the full one (every
 * bit) from the full shaders and the others from the lean variants the build compiled. */
#define ORRI_FEATURE_TEXCOORDS 1u /* the material shows a texture: texcoords and their transforms */
#define ORRI_FEATURE_TANGENTS 2u  /* it shows a normal texture: tangents (with texcoords) */
#define ORRI_FEATURE_COLORS 4u    /* the primitive has vertex colours */
#define ORRI_FEATURE_SKIN 8u      /* the primitive has joint weights */
#define ORRI_FEATURE_MORPH 16u    /* the primitive has morph targets */
#define ORRI_FEATURES_ALL 31u
#define ORRI_FEATURE_MASKS 32
#define ORRI_FRAGMENT_MASKS 8 /* the fragment stage reads the first three */

/* Timestamps of a frame slot: the frame's start and end, the end of its floor (gpu_baseline.c). */
#define ORRI_QUERIES_PER_FRAME 6
/* Frames the CPU may record ahead of the GPU. */
#define ORRI_FRAMES_IN_FLIGHT 2
/* Offsets inside the per-frame buffer are aligned to this (covers every min*OffsetAlignment we meet;
 * raised at creation when the device asks for more). */
#define ORRI_FRAME_ALIGN 256
/* Interleaved vertex of the geometry pool (byte offsets): position 3 floats, normal 3 floats, tangent
 * 4 floats (w: handedness; generated where the mesh has none), texcoord sets 0 and 1 (2 floats each),
 * colour 4 floats, joint weights 4 floats, joints 4 uint16, and the vec4 index of its primitive's
 * morph header in the morph buffer (ORR_GPU_NO_MORPH = none). */
#define ORRI_VERTEX_POSITION 0
#define ORRI_VERTEX_NORMAL 12
#define ORRI_VERTEX_TANGENT 24
#define ORRI_VERTEX_UV0 40
#define ORRI_VERTEX_UV1 48
#define ORRI_VERTEX_COLOR 56
#define ORRI_VERTEX_WEIGHTS 72
#define ORRI_VERTEX_JOINTS 88
#define ORRI_VERTEX_MORPH 96
#define ORRI_VERTEX_BYTES 100
/* The morph buffer is handed out in vec4s (orr_gpu_morph headers, weights, deltas). */
#define ORRI_MORPH_UNIT 16

/* Where a buffer or image lives: a range of a block of the sub-allocator (gpu_memory.c). */
typedef struct orri_allocation {
    uint32_t block;      /* index + 1 into renderer.mem.blocks; 0 = none */
    VkDeviceSize offset; /* in the block */
    VkDeviceSize size;
} orri_allocation;

/* A buffer; `map` is non-NULL for host-visible ones (persistently mapped). */
typedef struct orri_buffer {
    VkBuffer buffer;
    orri_allocation memory;
    VkDeviceSize size;
    void *map;
} orri_buffer;

typedef struct orri_image {
    VkImage image;
    VkImageView view;
    orri_allocation memory;
    uint32_t width, height, levels;
    VkSampleCountFlagBits samples;
} orri_image;

#include "gpu/gpu_space.h" /* orri_space, the allocator of ranges */

/* ---- device memory (gpu_memory.c) ---- */
typedef enum orri_memory_kind {
    ORRI_MEMORY_DEVICE_LINEAR = 0, /* device-local buffers */
    ORRI_MEMORY_DEVICE_OPTIMAL,    /* device-local images (optimal tiling) */
    ORRI_MEMORY_HOST,              /* host-visible, coherent, mapped buffers */
} orri_memory_kind;

/* One vkAllocateMemory: resources of one memory type and kind placed in it. */
typedef struct orri_block {
    VkDeviceMemory memory; /* VK_NULL_HANDLE = a free slot */
    VkDeviceSize size;
    void *map;             /* host blocks: mapped for their lifetime */
    orri_space space;      /* bytes */
    uint32_t type;         /* memory type index */
    orri_memory_kind kind;
    bool dedicated;        /* one resource alone */
    uint32_t resources;    /* placed and not freed */
} orri_block;

typedef struct orri_memory {
    orri_block *blocks;
    uint32_t block_count, block_capacity;
    uint32_t allocations; /* live vkAllocateMemory calls */
} orri_memory;

/* Something to destroy once the GPU has finished every frame up to `last_use`. */
typedef struct orri_garbage {
    uint64_t last_use; /* frame number (renderer.frame_number) of the last frame that may use it */
    orri_buffer buffer;
    orri_image image;
    VkDescriptorPool pool; /* with set: a descriptor set to free back to its pool */
    VkDescriptorSet set;
} orri_garbage;

/* Where a resident mesh primitive lives in the pool. */
typedef struct orri_resident_primitive {
    uint32_t first_index;
    uint32_t index_count;
    int32_t vertex_offset;
    uint32_t vertex_count;
    uint32_t morph_at;    /* its header in the morph buffer (vec4 index); ORR_GPU_NO_MORPH = none */
    uint32_t morph_units; /* vec4s it holds there */
    uint32_t lod_index_count; /* its levels of detail's indices, after index_count in the pool */
} orri_resident_primitive;

/* Residency of one mesh id index (the generation tells a reused index apart). */
typedef struct orri_resident_mesh {
    uint32_t generation; /* 0 = not resident */
    uint32_t primitive_count;
    orri_resident_primitive *primitives;
} orri_resident_mesh;

/* ---- the meshlet strategy's state (gpu_meshlet.c, gpu_meshlet_pool.c) ---- */
/* One mesh id index's meshlets in the pool (the generation tells a reused index apart). */
typedef struct orri_meshlet_mesh {
    uint32_t generation;                 /* 0 = none resident */
    uint32_t first, count;               /* meshlets (descriptors and bounds) */
    uint32_t vertex_first, vertex_count; /* vertex entries */
    uint32_t word_first, word_count;     /* triangle words */
} orri_meshlet_mesh;

/* The pool's spaces and buffers. */
enum { ORRI_MESHLET_SPACE_MESHLETS = 0, ORRI_MESHLET_SPACE_VERTICES, ORRI_MESHLET_SPACE_WORDS, ORRI_MESHLET_SPACES };
enum { ORRI_MESHLET_BUFFER_MESHLETS = 0, ORRI_MESHLET_BUFFER_BOUNDS, ORRI_MESHLET_BUFFER_VERTICES,
       ORRI_MESHLET_BUFFER_WORDS, ORRI_MESHLET_BUFFERS };

/* A meshlet view of a frame slot's frame: where its counters land in the slot's frame buffer. */
typedef struct orri_meshlet_feedback {
    uint32_t view, generation;
    VkDeviceSize offset;
    uint64_t frame_number;
} orri_meshlet_feedback;

typedef struct orri_meshlets {
    bool supported;            /* the device has what the task and mesh shaders need */
    bool mesh_shaders;         /* the strategy draws with them (supported, not forced off) */
    uint32_t max_task_groups;  /* task workgroups one task command may launch */
    PFN_vkCmdDrawMeshTasksIndirectEXT draw_mesh_tasks_indirect;
    PFN_vkCmdDrawMeshTasksEXT draw_mesh_tasks; /* the host's mesh techniques (gpu_technique_mesh.c) */
    /* the device's limits a host's task and mesh shaders are checked against */
    uint32_t max_mesh_vertices, max_mesh_primitives, max_mesh_invocations, max_task_invocations;
    uint32_t max_task_total, max_mesh_total; /* workgroups (x*y*z) one draw of the first stage may launch */
    /* residency */
    orri_buffer buffers[ORRI_MESHLET_BUFFERS];  /* device-local; the vertex entries' and words' in uints */
    orri_buffer replaced[ORRI_MESHLET_BUFFERS]; /* grown away from this frame (retired at commit) */
    orri_space spaces[ORRI_MESHLET_SPACES];
    uint64_t committed[ORRI_MESHLET_SPACES];    /* units the buffers hold from submitted frames */
    orri_meshlet_mesh *meshes;                  /* by mesh id index */
    uint32_t mesh_capacity;
    /* pipelines */
    VkDescriptorSetLayout set_layout;          /* set 2 of the mesh pipelines, set 0 of the compute stages */
    VkPipelineLayout compute_layout, graphics_layout;
    VkDescriptorPool pool;
    VkDescriptorSet sets[ORRI_FRAMES_IN_FLIGHT];
    VkPipeline compute[2];                     /* ORR_GPU_MESHLET_TASKS, ORR_GPU_MESHLET_EXPAND */
    VkShaderModule task, mesh;
    VkPipeline pipelines[ORRI_SAMPLE_COUNTS][ORRI_PIPELINE_KEYS]; /* task + mesh + the mesh fragment shader */
    /* per frame */
    orri_buffer data;                          /* every meshlet view's counters and task commands or slots */
    bool any;                                  /* this frame has a meshlet view */
    bool ran;                                  /* and its compute stage was recorded (there is something to
                                                  draw): the views draw and their counters are copied */
    orri_meshlet_feedback *feedback[ORRI_FRAMES_IN_FLIGHT];
    uint32_t feedback_count[ORRI_FRAMES_IN_FLIGHT], feedback_capacity[ORRI_FRAMES_IN_FLIGHT];
} orri_meshlets;

/* The floor of a frame (gpu_baseline.c): made only with orr_renderer_desc.baseline_gpu. */
typedef struct orri_baseline {
    bool enabled;
    VkShaderModule vs, fs;
    VkPipeline pipelines[ORRI_SAMPLE_COUNTS]; /* made when first needed */
    orri_image color, depth;                  /* scratch attachments: never read, never shown */
} orri_baseline;

/* A view's share (in orri_view). */
typedef struct orri_meshlet_view {
    bool active;                  /* this frame draws it with the meshlet strategy */
    orr_gpu_meshlet_draw *draws;  /* per command of the view, as uploaded */
    uint32_t draw_count, draw_capacity;
    orr_gpu_meshlet_task *tasks;  /* mesh shaders: the task commands */
    uint32_t task_count, task_capacity;
    uint32_t slot_count;          /* fallback: its slots */
    VkDeviceSize block_offset, draws_offset, tasks_offset, feedback_offset; /* in the frame buffer */
    VkDeviceSize data_at, out_at; /* in the meshlet data buffer: counters, then task commands or slots */
    /* what its latest completed frame counted */
    uint64_t counted_frame;       /* renderer frame number; 0 = none yet */
    uint64_t sent, kept, triangles_sent, triangles_kept, triangles_indexed;
    uint32_t indexed[ORR_MESHLET_INDEXED_COUNT];
} orri_meshlet_view;

/* The geometry pool: each resident mesh once, one vertex and one index buffer, growable; space of
 * released meshes is reused. */
typedef struct orri_geometry {
    orri_buffer vertices, indices, morphs; /* device-local; morphs: targets of morphed primitives */
    orri_space vertex_space, index_space, morph_space; /* in vertices, indices and vec4s, this frame's
                                                          plans included */
    uint64_t vertex_committed, index_committed, morph_committed; /* units the buffers hold from earlier
                                                                    (submitted) frames */
    orri_buffer replaced_vertices, replaced_indices, replaced_morphs; /* pools this frame grew away from:
                                                                         retired at commit, the pool
                                                                         again at abort */
    orr_mesh_id *pending;             /* meshes planned for upload, not yet in a submitted frame, in
                                         snapshot order */
    uint32_t pending_count, pending_capacity;
    orri_resident_mesh *meshes;       /* by mesh id index */
    uint32_t mesh_capacity;
    bool released;                    /* this frame released a mesh (its draws must go) */
    uint64_t removals;                /* the library's removal count last looked at */
} orri_geometry;

/* Instance slots keyed by snapshot instance id (lowest free first). Records live on the GPU only: a
 * frame writes the changed instances' records straight into its staging buffer. */
/* A changed record of this frame: where it is in the snapshot and the slot it goes to (found while
 * planning, so that writing the records does not look the slot up again at a random place). */
typedef struct orri_record_upload {
    uint32_t index, slot;
} orri_record_upload;

#define ORRI_SLOT_BITS 30u
#define ORRI_SLOT_MASK ((1u << ORRI_SLOT_BITS) - 1u)

typedef struct orri_instances {
    orr_handle_pool slots;
    uint32_t *slot_of_id;        /* instance id -> slot + 1 (0 = none) in the low ORRI_SLOT_BITS, and above them
                                    the handedness its record has (0, 1 mirrored, 2 none yet; a flip re-sorts
                                    the draws): what a changed instance looks up, in one place */
    uint32_t id_capacity;
    uint32_t *id_of_slot;        /* slot -> instance id */
    uint32_t *slot_index;        /* per slot: the snapshot index of its instance (after a frame that took
                                    the snapshot whole; kept current for every upload_all frame) */
    orr_entity *entity_of_slot;  /* slot -> the entity its record was last written for (picks) */
    uint64_t *slot_since;        /* slot -> the renderer frame from which it holds that entity and id */
    uint32_t slot_capacity;      /* of id_of_slot, slot_index, entity_of_slot and slot_since; >= slots.count */
    orri_buffer buffer;          /* device-local storage buffer */
    orri_buffer motion;          /* per slot its orr_gpu_motion (written by the scatter; none after a
                                    frame that writes every record) */
    uint32_t tick;               /* this frame's snapshot tick (orri_motion_tick): the scatter's motion tick */
    orri_record_upload *upload;  /* this frame: the records that go up (snapshot index and slot) */
    uint32_t upload_count, upload_capacity;
    bool upload_all;             /* this frame writes every slot's record (the buffer is new, or the
                                    snapshot is taken whole) */
    VkDeviceSize scatter_slots, scatter_records; /* this frame's changed records in the frame buffer: their
                                                    slots, then the records (scattered by a dispatch) */
    uint32_t scatter_count;
    bool flipped;                /* an upload of this frame turned a record's handedness over */
} orri_instances;

/* A light's or camera's pose across ticks (gpu_motion.c), by entity: the pose it holds and the one it
 * held before it last changed, with the tick of that change. */
typedef struct orri_pose_motion {
    orr_entity entity;
    uint64_t tick;       /* of the change; UINT64_MAX: none seen */
    orr_affine3d now, before;
} orri_pose_motion;

typedef struct orri_pose_motions {
    orri_pose_motion *items; /* in the order of the snapshot last seen */
    uint32_t count, capacity;
    orri_pose_motion *spare; /* the next frame's, built from items */
    uint32_t spare_capacity;
} orri_pose_motions;

/* An instance record's pose as the CPU cull needs it between ticks (gpu_motion.c): its translation in
 * binary64, its linear part as the record holds it (binary32). 64 bytes. */
typedef struct orri_held_pose {
    double t[3];
    float linear[9];
    uint32_t reserved;
} orri_held_pose;

/* An instance whose record changed at the tick of orri_motions.moving_tick: the pose its record held
 * before (what the scatter keeps in the slot's orr_gpu_motion). */
typedef struct orri_instance_motion {
    uint32_t slot, id;
    orri_held_pose before;
} orri_instance_motion;

typedef struct orri_motions {
    orri_pose_motions lights, cameras;
    orr_render_light *blended_lights;   /* the drawn snapshot's, between ticks */
    uint32_t blended_light_capacity;
    orr_render_camera *blended_cameras;
    uint32_t blended_camera_capacity;
    /* Instances between ticks, for the CPU cull (orr_draw_motion), as the GPU's motion records say: */
    orri_held_pose *held;          /* per slot: the pose its record holds */
    uint32_t held_capacity;
    uint32_t *moving_at;           /* per slot: 1 + its entry in `moving`, 0 none */
    uint32_t moving_at_capacity;
    orri_instance_motion *moving;  /* the slots whose record changed at moving_tick (no jump) */
    uint32_t moving_count, moving_capacity;
    uint32_t moving_tick;          /* (orri_motion_tick) */
    uint64_t moving_version;       /* bumps when `moving` changes */
    /* ...and by snapshot index, for the draw module (rebuilt when `moving` or the layout changes) */
    uint32_t *entry_of;            /* per snapshot instance: 1 + its entry, 0 none */
    uint32_t entry_of_capacity;
    uint32_t *indices;             /* per entry: its snapshot index (UINT32_MAX: none), to clear entry_of */
    orr_draw_blend *blends;        /* per entry: its two poses made ready to blend */
    uint32_t indices_capacity, blends_capacity, built_count;
    uint64_t built_version, built_layout;
    bool built;
    orr_draw_motion draw;
    float view_lag, view_tick;     /* this frame's, as the views' blocks hold them (orri_motion_view) */
} orri_motions;

/* A snapshot tick as motion records and view blocks hold it: 32 bits, never ORR_GPU_VIEW_NO_BLEND or
 * ORR_GPU_NO_TICK. */
static inline uint32_t orri_motion_tick(uint64_t tick)
{
    return (uint32_t)(tick % ORR_GPU_VIEW_NO_BLEND);
}

/* What a view's blocks (orr_gpu_view, orr_gpu_cull: origin_hi.w and origin_lo.w) say of the snapshot's
 * lag: the lag and the tick its instances blend at, or 0 and ORR_GPU_VIEW_NO_BLEND (no instance blends)
 * at lag 0. */
static inline void orri_motion_view(float snapshot_lag, uint64_t snapshot_tick, float *lag, float *tick_bits)
{
    bool blends = snapshot_lag > 0.0f && snapshot_lag <= 1.0f;
    uint32_t tick = blends ? orri_motion_tick(snapshot_tick) : ORR_GPU_VIEW_NO_BLEND;
    *lag = blends ? snapshot_lag : 0.0f;
    memcpy(tick_bits, &tick, sizeof tick);
}

/* The snapshot's joint palettes, at its joint offsets (three vec4 rows each), kept across frames: a
 * frame uploads the changed instances' ranges only. */
typedef struct orri_joints {
    orri_buffer buffer;
    orri_buffer before;    /* as large: each changed range's rows as they were before the frame wrote it
                              (copied on the GPU first), blended between ticks (ORR_GPU_MOTION_JOINTS) */
    uint32_t *upload;      /* this frame: snapshot indices of skinned instances whose ranges go up */
    VkDeviceSize *staged_at; /* and where each range lies in the frame buffer (as large as upload) */
    VkBufferCopy *keep;    /* and its copy into `before` (as large as upload) */
    uint32_t upload_count, upload_capacity;
    bool upload_all;
    bool mirror;           /* a buffer is new this frame: `before` becomes a copy of `buffer` after the
                              uploads (no joint blends: earlier rows are gone) */
    bool kept;             /* this frame kept the earlier rows of every range it writes (the scatter
                              may mark joint motions) */
} orri_joints;

/* The snapshot's morph weights, at its weight offsets (floats), kept across frames, and a copy of what
 * the GPU holds: a frame uploads the ranges of changed instances whose weights differ from it. */
typedef struct orri_weights {
    orri_buffer buffer;
    float *held;           /* what the buffer holds (NaN where nothing was written) */
    uint32_t held_count, held_capacity;
    uint32_t *upload;      /* this frame: snapshot indices of instances whose weights go up */
    uint32_t upload_count, upload_capacity;
    bool upload_all;
} orri_weights;

/* The test mode orr_renderer_desc.vertex_capture: a host-visible buffer that the capture variant of the
 * mesh vertex shader fills, per instance slot, with each drawn vertex's world position (NaN where none
 * was drawn this frame), `per_slot` pool vertices a slot. */
typedef struct orri_capture {
    orri_buffer buffer;
    uint32_t per_slot, slots;
} orri_capture;

/* Without the texture array: a descriptor set showing five textures (white where one is none),
 * shared by every material that shows the same ones (so that their batches share drawing state). */
typedef struct orri_texture_set {
    orr_texture_id shown[ORR_GPU_TEXTURE_SLOTS]; /* resident ones only; none = white */
    VkImageView views[ORR_GPU_TEXTURE_SLOTS];    /* what they showed when it was written (a target
                                                    texture's view changes with its target's image) */
    VkDescriptorSet set;                         /* VK_NULL_HANDLE = a free entry */
    VkDescriptorPool pool;
    uint32_t refs;                               /* materials showing it (the white one: never 0) */
} orri_texture_set;

typedef struct orri_materials {
    orr_gpu_material *records; /* CPU copy, by material id index */
    uint64_t *revision;        /* per slot: the uploaded revision + 1 (0 = never uploaded) */
    uint32_t *generation;      /* per slot: the id generation uploaded */
    uint8_t *dirty;            /* per slot: the record is not yet in a submitted frame */
    uint32_t *sets;            /* per slot (no texture array): its texture set entry + 1 (0 = none) */
    uint32_t capacity;
    uint32_t count;            /* slots in use: 1 + the highest index seen */
    uint32_t dirty_count;
    orri_buffer buffer;
    bool gpu_realloc;
    uint64_t assets_revision;  /* the library's revision last looked at */
    bool stale;                /* texture targets came, went or were remade: every slot is looked at again */
} orri_materials;

/* A resident texture: its image (with its mip chain) and sampler. */
typedef struct orri_resident_texture {
    uint32_t generation; /* 0 = not resident */
    orri_image image;    /* a target texture's: its target's sampled image, not owned */
    VkSampler sampler;
    uint32_t target;     /* a target texture: index + 1 of the texture target it shows; 0 = own image */
} orri_resident_texture;

#define ORRI_SRGB_STEPS 65536 /* linear [0, 1] in steps of 1/65535: every sRGB level spans 19 or more */
#define ORRI_SAMPLER_KINDS 72 /* mag 2 x min 2 x mipmaps 2 x wrap s 3 x wrap t 3 */

typedef struct orri_textures {
    bool array;                        /* one texture array (else a descriptor set per material) */
    uint32_t slots;                    /* set 1's descriptors: the array's elements (white at 0, texture id
                                          index i at i + 1), or ORR_GPU_TEXTURE_SLOTS per material */
    VkDescriptorSetLayout layout;      /* set 1 */
    VkDescriptorPool array_pool;
    VkDescriptorSet frame_sets[ORRI_FRAMES_IN_FLIGHT]; /* the array, one per frame slot */
    uint32_t *dirty[ORRI_FRAMES_IN_FLIGHT];            /* elements to rewrite before that set is used */
    uint32_t dirty_count[ORRI_FRAMES_IN_FLIGHT], dirty_capacity[ORRI_FRAMES_IN_FLIGHT];
    bool overflow_logged;
    orri_resident_texture *items;      /* by texture id index */
    uint32_t capacity;
    orr_texture_id *pending;           /* created, not uploaded by a submitted frame yet (layout UNDEFINED) */
    uint32_t pending_count, pending_capacity;
    uint64_t removals;                 /* the library's removal count last looked at */
    VkDescriptorPool *pools;           /* per-material sets */
    uint32_t pool_count, pool_capacity;
    VkSampler samplers[ORRI_SAMPLER_KINDS];
    orri_image white;                  /* sampled where a slot has no texture */
    VkSampler white_sampler;
    orri_texture_set *sets;            /* without the array: entry 0 is all white (materials not known) */
    uint32_t set_count, set_capacity;
    float srgb_to_linear[256];
    uint8_t linear_to_srgb[ORRI_SRGB_STEPS]; /* mip levels: encoding without a pow per texel */
} orri_textures;

typedef struct orri_surface orri_surface;
typedef struct orri_target {
    uint32_t generation;
    bool alive;
    orr_target_desc desc;  /* width and height: the colour image's size now */
    VkSampleCountFlagBits samples;
    orri_image color;      /* single-sampled (offscreen targets): what is read back, the views' resolve
                              target when multisampled */
    orri_image msaa;       /* samples > 1: what the views draw into, resolved into the colour image (or
                              the swapchain image); made with the colour image's size */
    orri_buffer readback[ORRI_FRAMES_IN_FLIGHT]; /* host-visible, width x height x 4, made when first asked */
    bool readback_bgra[ORRI_FRAMES_IN_FLIGHT];    /* the slot's copy came from a B8G8R8A8 swapchain image */
    bool read_last;                               /* the last frame was read back */
    bool minimised;                               /* resized to 0 x 0 (surface targets) */
    uint64_t last_frame;                          /* renderer frame number of the last render; 0 = none */
    uint32_t last_slot;                           /* frame slot of that render */
    orri_surface *surface;                        /* surface targets: the swapchain (gpu_surface.c) */
    char *name;                                   /* desc.name, copied (NULL = none) */
    /* texture targets (desc.texture_key) */
    orri_image sampled;                           /* what materials sample: the colour image copied once
                                                     its views are drawn; never an attachment, always
                                                     SHADER_READ_ONLY_OPTIMAL outside that copy */
    bool fresh;                                   /* `sampled` is new: no submitted frame has put it in
                                                     that layout yet (the next frame does) */
    bool initialising;                            /* the frame being recorded does */
} orri_target;

/* A target a frame draws, in drawing order: the texture targets its views sample, then itself. */
typedef struct orri_frame_target {
    uint32_t target;                /* index into renderer.targets */
    uint32_t first_view, view_count; /* its views in renderer.view_order */
} orri_frame_target;

/* What one material slot of the frame's draw scenes samples of a texture target. */
typedef struct orri_target_read {
    uint64_t key;             /* of its target texture */
    orr_texture_id texture;
    orr_material_id material;
    uint32_t slot;            /* ORR_GPU_TEXTURE_* */
    uint32_t layers;          /* of the visible instances that draw the material */
    uint32_t target;          /* the live texture target with the key: index, or UINT32_MAX */
} orri_target_read;

/* A texture target that a target's view samples (the search for the drawing order). */
typedef struct orri_target_edge {
    uint32_t target; /* the one sampled */
    uint32_t view;   /* index of the view that draws the material */
    uint32_t read;   /* into reads: the material slot */
} orri_target_edge;

typedef struct orri_target_visit {
    uint32_t target;
    uint32_t edge_begin, edge_end, next; /* its edges in edges[], the next to follow */
} orri_target_visit;

/* A scene batch whose material samples a target texture: reads[read] is that material slot. */
typedef struct orri_batch_read {
    uint32_t batch, read;
} orri_batch_read;

typedef struct orri_texture_targets {
    uint32_t live;                 /* texture targets alive */
    orri_target_read *reads;       /* per material slot of the draw scene that samples a target texture
                                      (layers and target: this frame's) */
    uint32_t read_count, read_capacity;
    orri_batch_read *batch_reads;  /* the batches that draw them */
    uint32_t batch_read_count, batch_read_capacity;
    bool reads_known;              /* reads and batch_reads are those of the scene of reads_order as built,
                                      with the library at reads_revision */
    uint32_t reads_order;
    uint64_t reads_revision;
    orri_frame_target *order;      /* this frame's targets in drawing order, its own last */
    uint32_t order_count, order_capacity;
    uint8_t *state;                /* per target index: 0 not seen, 1 on the visit stack, 2 ordered */
    uint32_t state_capacity;
    orri_target_visit *visits;
    uint32_t visit_capacity;
    orri_target_edge *edges;
    uint32_t edge_capacity;
    uint32_t *views;               /* scratch: the frame's view order being built */
    uint32_t views_capacity;
    orr_texture_id *warned;        /* target textures whose missing target was logged (once each) */
    uint32_t warned_count, warned_capacity;
} orri_texture_targets;

/* What a batch is drawn with: recorded draws change state only between batches that differ. */
typedef struct orri_batch_state {
    uint32_t pipeline;        /* its key (orri_pipeline_key): the pipeline is the target's sample count's */
    uint32_t features;        /* ORRI_FEATURE_*: which of the key's pipelines (orri_pipeline_features) */
    VkCullModeFlags cull;     /* back, none (double-sided) or front (mirrored instances) */
    VkDescriptorSet texture;  /* its material's set; VK_NULL_HANDLE with the texture array */
    uint32_t index_count, first_index;
    int32_t vertex_offset;
    bool resident;            /* the primitive has pool space (else its draws are skipped, counted) */
} orri_batch_state;

/* A view's shell path for one frame (gpu_shell.c): its fur draws, and with the shell strategy the
 * instance slot of each visible item. */
typedef struct orri_shell_view {
    bool ready;                 /* the lists below are initialised */
    orr_draw_visible payloads;  /* a GPU-culled view: its payload items, culled on the CPU */
    orr_fur_list fur;           /* the fur adapter's draws and batches */
    orr_gpu_shell *push;        /* per fur draw: its push constant */
    uint32_t push_capacity;
    orri_batch_state *batches;  /* per fur batch: its drawing state (key of the fur pipelines) */
    uint32_t batch_capacity;
    uint32_t *slots;            /* shell strategy: the instance slot of each of visible.items */
    uint32_t slot_capacity;
    uint32_t draws;             /* fur draws recorded this frame (resident ones) */
    uint64_t shells;            /* and their shells */
} orri_shell_view;

/* A retained draw scene (one per draw order that a view uses) and its GPU copy. */
typedef struct orri_draws {
    orr_draw_scene scene;
    bool built;                 /* the scene is the snapshot's current layout */
    bool fresh;                 /* rebuilt this frame: its materials to make resident, its states to resolve */
    bool used;                  /* a view of this frame draws it */
    orri_batch_state *state;    /* per scene batch */
    uint32_t state_capacity;
    uint32_t pipeline_keys;     /* bit per pipeline key its batches use */
    uint32_t item_base, batch_base; /* where its items and batches start in the scene buffers */
    bool upload;                /* this frame uploads its items and batches */
    uint64_t builds;            /* how many times the scene was built: what a view's kept cull was of */
} orri_draws;

typedef struct orri_view {
    uint32_t generation;
    bool alive;
    orr_view_desc desc;
    uint32_t base_width, base_height; /* the target's size when desc was given: desc.viewport is scaled
                                         from it to the target's size now */
    orri_image depth;
    orr_draw_visible visible;   /* its CPU cull (everything, or the transparent items of a GPU cull) */
    /* what `visible` was culled from (orri_draws_plan_view keeps it while none of it changed) */
    bool cull_kept;             /* the fields below are set */
    bool cull_gpu;              /* its gpu_cull then */
    const orri_draws *cull_draws; /* its scene then, and that scene's builds */
    uint64_t cull_builds;
    uint64_t cull_epoch;        /* renderer.instances_epoch then */
    orr_draw_view cull_view;    /* its draw view then (no motion, no ranges) */
    orr_draw_ranges ranges;     /* its visibility ranges' verdicts, kept for the hysteresis */
    bool ranged;                /* this frame its scene has instances with a range */
    VkDeviceSize range_at;      /* a GPU-culled ranged view's bits by instance slot, in the view-data buffer */
    VkDeviceSize order_at;      /* a GPU-culled view's bits of batches listed last first (there too) */
    /* filled while a frame is planned */
    orr_viewport rect;          /* where it draws: its viewport, or the part of it a camera's aspect fills */
    VkSampleCountFlagBits samples; /* its target's */
    bool gpu_cull;
    orri_draws *draws;          /* the scene it draws */
    VkDeviceSize ubo_offset, cull_offset, feedback_offset; /* in the frame buffer */
    uint32_t staged_command_first, staged_command_count;   /* the commands the CPU writes */
    /* its regions in the view-data buffer (bytes) */
    VkDeviceSize records_at, commands_at, words_at;
    uint32_t record_capacity, command_count;
    uint32_t gpu_visible;       /* what its latest completed GPU cull found: visible items */
    uint32_t gpu_batches;       /* and batches with one */
    uint32_t gpu_lod_surfaces[ORR_MESH_MAX_LODS]; /* and its draws at each level of detail */
    uint64_t gpu_lod_triangles[ORR_MESH_MAX_LODS]; /* and their triangles */
    uint32_t gpu_instances[ORR_GPU_CULL_INSTANCE_WORDS]; /* and the instances it may show, of those in its
                                                            frustum, of those not occluded */
    /* occlusion culling (gpu_occlusion.c) */
    bool occluding;             /* this frame: desc.occlusion and a view that can (see orr_view_desc) */
    VkDeviceSize occlusion_offset; /* its occlusion block in the frame buffer */
    struct orri_occlusion_view *occlusion; /* its pyramid and visibility bits; NULL until it first occludes */
    uint64_t gpu_visible_frame; /* the renderer frame number of that cull */
    orri_shell_view shell;      /* the shell path (gpu_shell.c) */
    orri_meshlet_view meshlet;  /* the meshlet strategy's share (gpu_meshlet.c) */
} orri_view;

/* Whether a view of these settings is culled on the GPU (orri_view.gpu_cull each frame; a mesh
 * technique's registration asks the same). */
static inline bool orri_view_culls_on_gpu(const orr_view_desc *d)
{
    return d->cull == ORR_CULL_GPU ||
           (d->cull == ORR_CULL_AUTO && (d->strategy == ORR_STRATEGY_INDIRECT || d->strategy == ORR_STRATEGY_MESHLET));
}

/* One shadow view of a frame (a cascade, spot map or cube face of a camera view's shadowed light): its
 * block, its cull and its regions in the view-data buffer, laid out and culled like a camera view's
 * (gpu_shadow.c). */
typedef struct orri_shadow_view {
    uint32_t view;              /* the camera view's index in renderer.views */
    uint32_t layer;             /* its layer of the shadow map array */
    orr_gpu_shadow receiver;    /* what the camera view's surfaces read of it */
    orri_draws *draws;          /* the camera view's scene */
    orr_gpu_view gpu;           /* its block: light rotation and projection, the camera view's origin */
    orr_gpu_cull cull;          /* its cull block (regions filled once laid out) */
    orr_mat4d clip;             /* binary64: world minus `origin` -> the map's clip space (debug drawing) */
    orr_vec3d origin;           /* the camera view's binary64 origin */
    uint32_t cascade;           /* its index among its light's shadow views (cascade, cube face) */
    VkDeviceSize ubo_offset, cull_offset;            /* in the frame buffer */
    VkDeviceSize words_at, records_at, commands_at;  /* in the view-data buffer */
} orri_shadow_view;

/* A light that casts shadows in a camera view of a frame: its shadow views. */
typedef struct orri_shadow_light {
    uint32_t frame_view;        /* the camera view's place in the frame's view order */
    uint32_t light;             /* its index among the view's lights (orri_lights_write's order) */
    uint32_t first, count;      /* its shadow views: renderer.shadows.views[first .. first + count) */
    uint32_t faces;             /* a point light's: bit f where cube face f has one of them (the others
                                   hold nothing the view sees lit); 0 for the other kinds */
} orri_shadow_light;

typedef struct orri_shadows {
    orri_shadow_view *views;    /* this frame's */
    uint32_t count, capacity;
    orri_shadow_light *lights;  /* this frame's, by camera view in frame order */
    uint32_t light_count, light_capacity;
    uint32_t over;              /* lights that would cast in a view but were past its max_lights */
    orri_image map;             /* the depth array every shadow view draws a layer of (1 x 1 when none) */
    VkImageView *layer_views;   /* one per layer: the shadow views' attachments */
    uint32_t size, layers;      /* the map's */
    bool defined;               /* the map has been written (cleared or drawn) since it was made: a frame
                                   without shadow views then samples it as it is, with no barrier */
    VkSampler sampler;          /* comparison, read by gathers (shade.glsl) */
    VkPipeline pipeline;        /* depth only, made when first needed */
    VkPipeline mask_pipeline;   /* the cut-out casters': depth, their cut fragments discarded (made when
                                   a frame's shadow views first have some) */
    bool depth_clamp;           /* the device clamps depth: casters nearer the light than a cascade's box
                                   are drawn at its near plane */
    VkDeviceSize counts_at;     /* this frame's: where its shadow views' counts of drawn instances land
                                   in the frame buffer */
    uint32_t casters;           /* the instances that the shadow views of the latest completed frame drew
                                   (the GPU's counts, summed) */
    uint64_t casters_frame;     /* that frame's number */
} orri_shadows;

/* What every occluding view shares (gpu_occlusion.c): the layouts, the pyramid's pipeline and sampler,
 * the cull's count stage with the occlusion test (gpu_cull.c). */
typedef struct orri_occlusion {
    VkDescriptorSetLayout cull_layout;    /* set 1 of the cull: block, visibility bits, pyramid */
    VkDescriptorSetLayout pyramid_layout; /* a level's source and destination */
    VkPipelineLayout pyramid_pipeline_layout;
    VkPipeline pyramid;
    VkPipeline count[2];                  /* the cull's count stage of phase 1 and of phase 2 */
    VkSampler sampler;                    /* nearest, read with texelFetch */
} orri_occlusion;

/* A GPU-culled view of a frame slot's frame: where its counts land in the slot's frame buffer. */
/* What a GPU cull leaves for the CPU (in the frame buffer): the visible items, the batches with one,
 * per level of detail the draws, then the triangles (two words each: ORR_GPU_CULL_LOD_WORDS), and the
 * instance counts (ORR_GPU_CULL_INSTANCE_WORDS). */
#define ORRI_CULL_FEEDBACK_BYTES (8u + 4u * ORR_GPU_CULL_LOD_WORDS + 4u * ORR_GPU_CULL_INSTANCE_WORDS)

typedef struct orri_feedback {
    uint32_t view, generation;
    VkDeviceSize offset;
    uint64_t frame_number;
} orri_feedback;

typedef struct orri_frame {
    VkCommandPool pool;  /* its own: reset whole when the frame's uploads are recorded again */
    VkCommandBuffer cmd; /* the frame's uploads: recorded when the frame uploads anything but copies, or
                            copies other than those of its last recording (see orri_upload_begin) */
    struct orri_upload_op *upload_ops; /* the copies cmd holds, when it holds nothing else (upload_valid) */
    uint32_t upload_op_count, upload_op_capacity;
    bool upload_valid;     /* cmd holds its head and upload_ops alone, recorded at upload_epoch */
    uint64_t upload_epoch; /* renderer.objects_epoch then */
    /* The frame's culls and views: kept, and submitted again, while what it was recorded from (draw_key)
     * stays the same (see draw_commands_key in gpu_frame.c). */
    VkCommandPool draw_pool;
    VkCommandBuffer draw_cmd;
    uint8_t *draw_key;
    size_t draw_key_size, draw_key_capacity;
    bool draw_valid;       /* draw_cmd holds a recording of draw_key */
    uint32_t draw_calls;   /* that recording's */
    bool draw_baseline;    /* that recording ends with the floor (orri_baseline) */
    VkFence fence;
    VkDescriptorSet set, cull_set, scatter_set;
    orri_buffer data; /* host-visible: staging for uploads, view blocks, records, indirect commands */
    VkDeviceSize data_used;
    VkDeviceSize peak;     /* the most data_used in recent frames (the buffer shrinks towards it) */
    uint32_t small_frames; /* frames in a row that used far less than the buffer */
    uint64_t frame_number; /* the frame recorded here last (0 = none) */
    uint64_t stats_frame;  /* that frame's orr_render_stats.frame */
    bool timed;            /* its timestamps were written */
    bool baseline_timed;   /* and its floor's (orri_baseline) */
    bool shadows_timed;    /* and its shadow views' (it drew some) */
    VkDeviceSize shadow_counts_at; /* its shadow views' counts of drawn instances, in its frame buffer */
    uint32_t shadow_counts;        /* how many (its shadow views) */
    orri_feedback *feedback; /* its GPU-culled views */
    uint32_t feedback_count, feedback_capacity;
} orri_frame;

struct orr_renderer {
    orr_allocator allocator;
    uint32_t alive; /* ORRI_ALIVE until destroyed */
    orr_logger logger;
    uint32_t mip_threads;     /* orr_renderer_desc.threads, resolved: the mip chains' and the per-frame passes' */
    orr_workers *mip_workers; /* orr_renderer_desc.workers */
    orr_workers *own_workers; /* started by orri_pass_threads when the host gave none (kept until destroy) */
    orr_error error;
    _Atomic uint32_t validation_messages; /* heard by its messenger (on any thread that uses its instance) */
    uint8_t *draw_key;      /* this frame's draw-commands key, built before it is compared with the slot's */
    size_t draw_key_capacity;
    struct orri_upload_op *upload_ops; /* this frame's copies, listed until a command needs the buffer */
    uint32_t upload_op_capacity;
    uint64_t objects_epoch; /* bumps whenever a Vulkan object that a recorded command buffer may name (a
                               buffer, image, pipeline, sampler, descriptor set) is made or destroyed,
                               or a frame's texture array is rewritten whole */

    orr_vulkan_instance *vulkan; /* the host's (orr_renderer_desc.vulkan_instance), or its own */
    bool owns_instance;
    VkInstance instance;            /* vulkan's */
    VkDebugUtilsMessengerEXT messenger; /* its own, on the instance (validation) */
    VkPhysicalDevice physical;
    VkPhysicalDeviceProperties properties;
    VkPhysicalDeviceMemoryProperties memory;
    VkDevice device;
    uint32_t queue_family;
    VkQueue queue;
    bool multi_draw_indirect;
    bool sampled_image_dynamic_indexing; /* the device indexes sampled-image arrays (the texture array) */
    bool fill_mode_non_solid;            /* enabled where the device has it: techniques that draw edges */
    VkSampleCountFlags sample_counts;    /* colour and depth targets both support */
    bool timestamps;        /* the queue family writes timestamps */
    bool presentation;      /* surfaces and swapchains (the host asked for instance extensions) */
    VkDeviceSize frame_align;
    uint64_t gpu_bytes;     /* device memory held (every block) */
    orri_memory mem;

    VkDescriptorSetLayout set_layout, cull_layout, scatter_layout;
    VkDescriptorPool descriptor_pool;
    VkPipelineLayout pipeline_layout, cull_pipeline_layout, scatter_pipeline_layout;
    VkPipelineCache pipeline_cache; /* every pipeline is made through it */
    VkShaderModule mesh_vs, mesh_fs;  /* the full shaders */
    VkShaderModule lean_vs[ORRI_FEATURE_MASKS], lean_fs[ORRI_FRAGMENT_MASKS]; /* lean variants, made when first needed */
    VkPipeline pipelines[ORRI_SAMPLE_COUNTS][ORRI_PIPELINE_KEYS][ORRI_FEATURE_MASKS]; /* built when first needed */
    uint32_t pipeline_count;          /* graphics pipelines made for the scene's draws (orr_render_stats.pipelines) */
    VkPipeline shell_pipelines[ORRI_SAMPLE_COUNTS][2][ORRI_PIPELINE_KEYS]; /* the shell path: [plain, fur] (gpu_shell.c) */
    VkPipeline pipeline_cull[4]; /* the cull: one pipeline per stage */
    orri_occlusion occlusion;    /* occlusion culling (gpu_occlusion.c) */
    VkPipeline pipeline_scatter;
    VkQueryPool queries;    /* ORRI_QUERIES_PER_FRAME timestamps per frame slot: the frame's start and
                               end, the end of its floor (orri_baseline); the shadow views' start and
                               end, the end of the views drawn after them */

    orri_motions motions; /* lights and cameras between ticks (gpu_motion.c) */

    orri_frame frames[ORRI_FRAMES_IN_FLIGHT];
    uint64_t frame_number; /* frames submitted so far; the frame being recorded is frame_number + 1 */
    double last_gpu_ms;    /* of the latest frame known complete; -1 = none */
    double last_baseline_ms; /* its floor's; -1 = none */
    double last_shadow_ms;   /* its shadow views'; -1 = none (the frame drew none) */
    double last_views_ms;    /* its views' and techniques' after the shadow views */
    uint64_t last_gpu_frame;        /* its orr_render_stats.frame */
    uint64_t last_gpu_frame_number; /* its renderer frame number */
    orr_render_stats last_stats;

    orri_garbage *garbage;
    uint32_t garbage_count, garbage_capacity;

    /* the bound library and what is kept for it */
    orr_handle_pool library_pool;
    orr_library_id library;
    const orr_assets *library_assets; /* the bound library (NULL: none), borrowed while bound */
    uint64_t applied_frame;  /* the snapshot frame the instance records are of (0 = none: take whole) */
    uint64_t layout_version; /* the snapshot layout the draw scenes were built for */
    uint64_t instances_epoch; /* bumped by each frame whose snapshot may change an instance record (taken
                                 whole, or a delta with changed or removed ones): a view's cull of an
                                 unchanged scene and camera is kept while it stays */
    orri_geometry geometry;
    orri_instances instances;
    orri_joints joints;
    orri_weights weights;
    bool vertex_capture;      /* orr_renderer_desc.vertex_capture (the device stores from vertex shaders) */
    bool interpolate;         /* orr_renderer_desc.interpolate: poses held, lags drawn (gpu_motion.c) */
    orri_capture capture;
    orri_materials materials;
    orri_textures textures;
    orri_draws draws[2];      /* by orr_draw_order */
    orri_meshlets meshlets;   /* the meshlet strategy (gpu_meshlet.c) */
    orri_baseline baseline;   /* the floor (gpu_baseline.c) */
    orri_buffer scene_items, scene_batches; /* every built scene's orr_gpu_draw_item and orr_gpu_batch */
    orri_buffer view_data;    /* per frame, every view's regions: cull words, records, commands */

    orr_handle_pool target_pool;
    orri_target *targets;
    uint32_t target_capacity;
    orr_handle_pool view_pool;
    orri_view *views;
    uint32_t view_capacity;
    uint32_t *view_order; /* scratch: views of the frame, target by target (orri_frame_target), by slot */
    uint32_t view_order_capacity;
    struct orri_view_frame *view_frames; /* scratch: per view of the frame, its camera and GPU block */
    orr_draw_view *draw_views;           /* and its draw view (kept: no allocation per frame) */
    uint32_t view_frames_capacity, draw_views_capacity;
    orri_texture_targets texture_targets;
    struct orri_techniques *techniques; /* the host's techniques (gpu_technique.c); NULL until set */
    orri_shadows shadows;     /* gpu_shadow.c */
    struct orri_picks *picks;           /* the host's picks (gpu_pick.c); NULL until the first */
    struct orri_debug *debug;           /* debug drawing (gpu_debug_draw.c); NULL until first used */
};

/* Threads for a per-frame pass of `items` items (instance and joint records, draw-scene rebuilds, the
 * CPU cull; gpu_renderer.c): 1 (this thread alone, *workers NULL) below ORRI_PARALLEL_FROM items or with
 * orr_renderer_desc.threads 1; else the host's workers, or the renderer's own, started once and kept. */
uint32_t orri_pass_threads(orr_renderer *r, uint32_t items, orr_workers **workers);

#endif
