/* The gpu module's internals, shared by its files:
 *   gpu_device.c  the Vulkan instance (orr_vulkan_instance: shared, or the renderer's own), validation
 *                 messengers, device choice, buffers and images, deferred destruction
 *   gpu_memory.c  the sub-allocator: device-memory blocks per memory type and kind, placement in them
 *   gpu_space.c   the allocator of ranges (free list) that the sub-allocator and the pools place with
 *   gpu_scene.c   geometry pool (residency by mesh id, space reused through gpu_space.c; vertices,
 *                 indices, morph targets), instance slots and their records (only the snapshot's
 *                 changed ones go up), joints, materials
 *   gpu_texture.c textures: residency by texture id, mip chains, samplers, the texture array or the
 *                 per-material sets
 *   gpu_texture_target.c texture targets: which ones a frame samples, the order they are drawn in
 *                 (cycles refused), their layouts between frames
 *   gpu_pipeline.c the pipeline cache and the mesh pipelines keyed by their state
 *   gpu_light.c   each view's lights, relative to its origin
 *   gpu_draws.c   the retained draw scenes (one per draw order in use) and their GPU copies, each
 *                 view's cull (the GPU's compute pass, or the draw module's CPU cull) and the draws
 *                 each strategy records from it
 *   gpu_shell.c   the shell path: the shell strategy's per-record draws and the fur adapter's shell
 *                 draws in the custom pass (push constants, instance count = shells), their pipelines
 *   gpu_meshlet.c the meshlet strategy: meshlet residency, per view its draws, the compute stages,
 *                 the task and mesh pipelines, the fallback's expanded commands, its GPU counters
 *   gpu_render.c  library bindings, targets, views, pipelines, the frame (plan, record, submit),
 *                 readback, timestamps
 *   gpu_png.c     orr_write_png
 */
#ifndef ORRERY_GPU_INTERNAL_H
#define ORRERY_GPU_INTERNAL_H

#include <orrery/gpu.h>
#include <orrery/gpu_shared.h>
#include <vulkan/vulkan.h>

#include <stdatomic.h>

#include "core/internal.h"

#define ORRI_COLOR_FORMAT VK_FORMAT_R8G8B8A8_SRGB
#define ORRI_DEPTH_FORMAT VK_FORMAT_D32_SFLOAT
/* Mesh pipeline keys (orri_pipeline_key): alpha mode (opaque, mask, blend) x double-sided; per sample
 * count (1, 2, 4, 8). */
#define ORRI_PIPELINE_KEYS 6
#define ORRI_SAMPLE_COUNTS 4

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

typedef struct orri_memory_request {
    VkMemoryRequirements requirements;
    orri_memory_kind kind;
    bool dedicated;   /* the driver prefers or requires a dedicated allocation */
    VkBuffer buffer;  /* the resource, named in the dedicated allocation */
    VkImage image;
    const char *what; /* for messages */
} orri_memory_request;

/* Places a resource; *map (NULL-able) is its host pointer in host memory. */
orr_result orri_memory_alloc(orr_renderer *r, const orri_memory_request *req, orri_allocation *out, void **map);
void orri_memory_free(orr_renderer *r, orri_allocation *a); /* zeroes *a; a zero allocation is a no-op */
VkDeviceMemory orri_memory_handle(const orr_renderer *r, const orri_allocation *a);
uint32_t orri_memory_allocations(const orr_renderer *r);
void orri_memory_fini(orr_renderer *r); /* after every resource is gone */

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
} orri_resident_primitive;

/* Residency of one mesh id index (the generation tells a reused index apart). */
typedef struct orri_resident_mesh {
    uint32_t generation; /* 0 = not resident */
    uint32_t primitive_count;
    orri_resident_primitive *primitives;
} orri_resident_mesh;

#include "gpu/gpu_meshlet.h" /* the meshlet strategy's types */

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
    uint32_t slot_capacity;      /* of id_of_slot and slot_index; >= slots.count */
    orri_buffer buffer;          /* device-local storage buffer */
    orri_record_upload *upload;  /* this frame: the records that go up (snapshot index and slot) */
    uint32_t upload_count, upload_capacity;
    bool upload_all;             /* this frame writes every slot's record (the buffer is new, or the
                                    snapshot is taken whole) */
    VkDeviceSize scatter_slots, scatter_records; /* this frame's changed records in the frame buffer: their
                                                    slots, then the records (scattered by a dispatch) */
    uint32_t scatter_count;
    bool flipped;                /* an upload of this frame turned a record's handedness over */
} orri_instances;

/* The snapshot's joint palettes, at its joint offsets (three vec4 rows each), kept across frames: a
 * frame uploads the changed instances' ranges only. */
typedef struct orri_joints {
    orri_buffer buffer;
    uint32_t *upload;      /* this frame: snapshot indices of skinned instances whose ranges go up */
    uint32_t upload_count, upload_capacity;
    bool upload_all;
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
} orri_draws;

typedef struct orri_view {
    uint32_t generation;
    bool alive;
    orr_view_desc desc;
    uint32_t base_width, base_height; /* the target's size when desc was given: desc.viewport is scaled
                                         from it to the target's size now */
    orri_image depth;
    orr_draw_visible visible;   /* its CPU cull (everything, or the transparent items of a GPU cull) */
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
    uint64_t gpu_visible_frame; /* the renderer frame number of that cull */
    orri_shell_view shell;      /* the shell path (gpu_shell.c) */
    orri_meshlet_view meshlet;  /* the meshlet strategy's share (gpu_meshlet.c) */
} orri_view;

/* A GPU-culled view of a frame slot's frame: where its counts land in the slot's frame buffer. */
typedef struct orri_feedback {
    uint32_t view, generation;
    VkDeviceSize offset;
    uint64_t frame_number;
} orri_feedback;

typedef struct orri_frame {
    VkCommandPool pool;  /* its own: reset whole when the frame is recorded again */
    VkCommandBuffer cmd; /* the frame's uploads (recorded every frame) */
    /* The frame's culls and views: kept, and submitted again, while what it was recorded from (draw_key)
     * stays the same (see draw_commands_key in gpu_render.c). */
    VkCommandPool draw_pool;
    VkCommandBuffer draw_cmd;
    uint8_t *draw_key;
    size_t draw_key_size, draw_key_capacity;
    bool draw_valid;       /* draw_cmd holds a recording of draw_key */
    uint32_t draw_calls;   /* that recording's */
    VkFence fence;
    VkDescriptorSet set, cull_set, scatter_set;
    orri_buffer data; /* host-visible: staging for uploads, view blocks, records, indirect commands */
    VkDeviceSize data_used;
    VkDeviceSize peak;     /* the most data_used in recent frames (the buffer shrinks towards it) */
    uint32_t small_frames; /* frames in a row that used far less than the buffer */
    uint64_t frame_number; /* the frame recorded here last (0 = none) */
    uint64_t stats_frame;  /* that frame's orr_render_stats.frame */
    bool timed;            /* its timestamps were written */
    orri_feedback *feedback; /* its GPU-culled views */
    uint32_t feedback_count, feedback_capacity;
} orri_frame;

struct orr_renderer {
    orr_allocator allocator;
    uint32_t alive; /* ORRI_ALIVE until destroyed */
    orr_logger logger;
    uint32_t mip_threads;     /* orr_renderer_desc.threads, resolved */
    orr_workers *mip_workers; /* orr_renderer_desc.workers */
    orr_error error;
    _Atomic uint32_t validation_messages; /* heard by its messenger (on any thread that uses its instance) */
    uint8_t *draw_key;      /* this frame's draw-commands key, built before it is compared with the slot's */
    size_t draw_key_capacity;
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
    VkShaderModule mesh_vs, mesh_fs;
    VkPipeline pipelines[ORRI_SAMPLE_COUNTS][ORRI_PIPELINE_KEYS]; /* built when first needed */
    VkPipeline shell_pipelines[ORRI_SAMPLE_COUNTS][2][ORRI_PIPELINE_KEYS]; /* the shell path: [plain, fur] (gpu_shell.c) */
    VkPipeline pipeline_cull[4]; /* the cull: one pipeline per stage */
    VkPipeline pipeline_scatter;
    VkQueryPool queries;    /* two timestamps per frame slot */

    orri_frame frames[ORRI_FRAMES_IN_FLIGHT];
    uint64_t frame_number; /* frames submitted so far; the frame being recorded is frame_number + 1 */
    double last_gpu_ms;    /* of the latest frame known complete; -1 = none */
    uint64_t last_gpu_frame;        /* its orr_render_stats.frame */
    uint64_t last_gpu_frame_number; /* its renderer frame number */
    orr_render_stats last_stats;

    orri_garbage *garbage;
    uint32_t garbage_count, garbage_capacity;

    /* the bound library and what is kept for it */
    orr_handle_pool library_pool;
    orr_library_id library;
    const orr_assets *library_assets; /* only to catch a call that passes another library (debug assert) */
    uint64_t applied_frame;  /* the snapshot frame the instance records are of (0 = none: take whole) */
    uint64_t layout_version; /* the snapshot layout the draw scenes were built for */
    orri_geometry geometry;
    orri_instances instances;
    orri_joints joints;
    orri_weights weights;
    bool vertex_capture;      /* orr_renderer_desc.vertex_capture (the device stores from vertex shaders) */
    orri_capture capture;
    orri_materials materials;
    orri_textures textures;
    orri_draws draws[2];      /* by orr_draw_order */
    orri_meshlets meshlets;   /* the meshlet strategy (gpu_meshlet.c) */
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
    orri_texture_targets texture_targets;
};

/* ---- errors (gpu_device.c) ---- */
const char *orri_vk_result_name(VkResult r);
/* Sets the renderer's last error and returns `code`. */
orr_result orri_gpu_fail(orr_renderer *r, orr_result code, const char *fmt, ...) ORRI_PRINTF(3, 4);
/* Checks a VkResult: on failure the message names the call. */
#define ORRI_VK(r, call)                                                                            \
    do {                                                                                           \
        VkResult vk_result_ = (call);                                                              \
        if (vk_result_ != VK_SUCCESS)                                                              \
            return orri_gpu_fail((r), ORR_ERROR_VULKAN, "%s failed: %s", #call,                    \
                                 orri_vk_result_name(vk_result_));                                 \
    } while (0)
/* For paths that cannot return a result (destroy, clean-up after a first error): a failure is logged
 * (ORR_LOG_ERROR), and the last error, which names the first failure, is left alone. */
#define ORRI_VK_LOG(r, call)                                                                        \
    do {                                                                                           \
        VkResult vk_result_ = (call);                                                              \
        if (vk_result_ != VK_SUCCESS)                                                              \
            orri_log(&(r)->logger, ORR_LOG_ERROR, "gpu: %s failed: %s", #call,                     \
                     orri_vk_result_name(vk_result_));                                             \
    } while (0)
#define ORRI_TRY(expr)                                                                              \
    do {                                                                                           \
        orr_result try_result_ = (expr);                                                           \
        if (try_result_ != ORR_OK) return try_result_;                                             \
    } while (0)

/* ---- device, memory, deferred destruction (gpu_device.c) ---- */
orr_result orri_device_create(orr_renderer *r, const orr_renderer_desc *desc);
void orri_device_destroy(orr_renderer *r);
/* host: host-visible, coherent and persistently mapped; otherwise device-local. */
orr_result orri_buffer_create(orr_renderer *r, VkDeviceSize size, VkBufferUsageFlags usage, bool host,
                              const char *what, orri_buffer *out);
void orri_buffer_destroy(orr_renderer *r, orri_buffer *b);
orr_result orri_image_create(orr_renderer *r, uint32_t width, uint32_t height, VkFormat format,
                             VkImageUsageFlags usage, VkImageAspectFlags aspect, const char *what, orri_image *out);
orr_result orri_image_create_levels(orr_renderer *r, uint32_t width, uint32_t height, uint32_t levels, VkFormat format,
                                    VkImageUsageFlags usage, VkImageAspectFlags aspect, const char *what,
                                    orri_image *out);
typedef struct orri_image_desc {
    uint32_t width, height;
    uint32_t levels;               /* 0 = 1 */
    VkSampleCountFlagBits samples; /* 0 = 1 */
    VkFormat format;
    VkImageUsageFlags usage;
    VkImageAspectFlags aspect;
    const char *what;
} orri_image_desc;
orr_result orri_image_create_desc(orr_renderer *r, const orri_image_desc *desc, orri_image *out);
void orri_image_destroy(orr_renderer *r, orri_image *img);
/* One pipeline barrier: an image's layout and accesses (layer 0, mip levels 0 .. levels - 1, or 1), or
 * memory. */
void orri_barrier_levels(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, uint32_t levels,
                         VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage,
                         VkAccessFlags2 dst_access, VkImageLayout from, VkImageLayout to);
void orri_barrier_image(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, VkPipelineStageFlags2 src_stage,
                        VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access,
                        VkImageLayout from, VkImageLayout to);
void orri_barrier_memory(VkCommandBuffer cmd, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                         VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access);
/* Hands a resource to the deferred-destruction queue (the struct is zeroed). */
orr_result orri_retire_buffer(orr_renderer *r, orri_buffer *b, uint64_t last_use);
orr_result orri_retire_image(orr_renderer *r, orri_image *img, uint64_t last_use);
orr_result orri_retire_set(orr_renderer *r, VkDescriptorPool pool, VkDescriptorSet set, uint64_t last_use);
/* Makes room in the queue for `count` more retirements, which then cannot fail. */
orr_result orri_garbage_reserve(orr_renderer *r, uint32_t count);
/* Destroys what no frame up to `completed` still uses. */
void orri_collect_garbage(orr_renderer *r, uint64_t completed);

/* ---- scene buffers (gpu_scene.c) ---- */
void orri_scene_init(orr_renderer *r);
void orri_scene_fini(orr_renderer *r);
/* Forgets everything kept for the bound library (a new binding starts from nothing); GPU buffers are
 * retired after the frames in flight. */
void orri_scene_release(orr_renderer *r);
/* Everything the frame uploads is described by these copies, recorded in order into `cmd`. Recording
 * marks nothing done: a frame ends in exactly one of
 *   orri_scene_commit + orri_textures_commit  after its vkQueueSubmit2 succeeded: pending meshes and
 *                                             textures are resident, dirty records clean, a grown
 *                                             geometry pool's old buffer retired after `frame_number`;
 *   orri_scene_abort                          on any failure (before or after recording began): a
 *                                             grown pool goes back to its old buffer; pending meshes
 *                                             and textures stay pending, and the renderer takes the
 *                                             next snapshot whole (its records, joints and scenes). */
typedef struct orri_upload {
    VkCommandBuffer cmd;
    orri_frame *frame;
    uint64_t frame_number;
    uint64_t bytes;      /* uploaded this frame: the scene (meshes, textures, records, joints, materials, draw
                            scenes) */
    uint64_t view_bytes; /* and the views' per-frame records and commands from the CPU */
} orri_upload;
/* Reserves `size` bytes of the frame buffer (aligned); fails only when the frame was sized wrongly. */
orr_result orri_frame_alloc(orr_renderer *r, orri_frame *frame, VkDeviceSize size, VkDeviceSize *offset);
/* Copies `size` bytes of the frame buffer at `src` into `dst` at `dst_offset` (counted as uploaded). */
void orri_upload_copy(orri_upload *up, VkDeviceSize src, VkBuffer dst, VkDeviceSize dst_offset, VkDeviceSize size);
/* Each plan step adds to *stage the frame-buffer bytes its upload takes (with alignment slack).
 * `whole`: the snapshot is taken whole; otherwise only its changed and removed instances are looked at. */
/* Residency: plans pool space for every mesh the instances `scan` names use that is not resident yet,
 * and releases meshes the library removed (r->geometry.released). */
typedef enum orri_scan {
    ORRI_SCAN_NONE = 0, /* no instance can name a new mesh (the layout did not change) */
    ORRI_SCAN_CHANGED,  /* the snapshot's changed instances */
    ORRI_SCAN_ALL,      /* every instance (the snapshot is taken whole) */
} orri_scan;
orr_result orri_geometry_plan(orr_renderer *r, const orr_snapshot *s, const orr_assets *assets, orri_scan scan,
                              uint64_t *stage);
/* Grows the pool when needed (copying what it held) and uploads the planned meshes. */
orr_result orri_geometry_upload(orr_renderer *r, const orr_assets *assets, orri_upload *up);
const orri_resident_primitive *orri_geometry_find(const orr_renderer *r, orr_mesh_id mesh, uint32_t primitive);
/* Instance slots (freed for removed instances first, then given to new ones lowest first) and the
 * records to upload; joints likewise. */
orr_result orri_instances_plan(orr_renderer *r, const orr_snapshot *s, bool whole, uint64_t *stage);
orr_result orri_instances_upload(orr_renderer *r, const orr_snapshot *s, orri_upload *up);
/* The dispatch that writes the changed records into their slots (after the uploads, before anything
 * reads the instance buffer), with its barrier. */
void orri_instances_scatter(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f);
orr_result orri_scene_create_pipelines(orr_renderer *r);
uint32_t orri_instances_slot(const orr_renderer *r, uint32_t instance_id); /* UINT32_MAX when absent */
orr_result orri_joints_plan(orr_renderer *r, const orr_snapshot *s, bool whole, uint64_t *stage);
orr_result orri_joints_upload(orr_renderer *r, const orr_snapshot *s, orri_upload *up);
/* The morph weights likewise, each changed instance's range only when it differs from what the buffer
 * holds. */
orr_result orri_weights_plan(orr_renderer *r, const orr_snapshot *s, bool whole, uint64_t *stage);
orr_result orri_weights_upload(orr_renderer *r, const orr_snapshot *s, orri_upload *up);
/* Materials: a draw scene names `id`; refreshes its record (and asks for its textures) when its
 * revision changed. */
orr_result orri_materials_touch(orr_renderer *r, const orr_assets *assets, orr_material_id id);
/* Every material the scene's batches name, touched (before its batch states are resolved). */
orr_result orri_materials_touch_scene(orr_renderer *r, const orr_assets *assets, const orr_draw_scene *scene);
/* After the library changed (orr_assets_revision): refreshes every material slot in use; *restate is
 * set when a material's drawing state (alpha mode, sides, its descriptor set) changed. */
orr_result orri_materials_refresh(orr_renderer *r, const orr_assets *assets, bool *restate);
uint64_t orri_materials_plan(orr_renderer *r); /* staging bytes */
/* The set a batch of material `id` binds (set 1): its own, or VK_NULL_HANDLE with the texture array. */
VkDescriptorSet orri_materials_set(const orr_renderer *r, orr_material_id id);
orr_result orri_materials_upload(orr_renderer *r, orri_upload *up);
/* Before the submit: room for what orri_scene_commit retires, so that a submitted frame's commit
 * cannot fail. */
orr_result orri_scene_reserve_commit(orr_renderer *r);
void orri_scene_commit(orr_renderer *r, uint64_t frame_number);
void orri_scene_abort(orr_renderer *r);
/* A buffer with room for `size` bytes: the old one is retired (after the frames in flight) and a new
 * one made when it is smaller. Its contents are not kept. */
orr_result orri_buffer_ensure(orr_renderer *r, orri_buffer *b, VkDeviceSize size, VkBufferUsageFlags usage,
                              const char *what, bool *fresh);

/* ---- draws (gpu_draws.c) ---- */
void orri_draws_fini(orr_renderer *r);
void orri_draws_release(orr_renderer *r); /* another library: the scenes are rebuilt from nothing */
/* The scenes the target's views use, rebuilt (on the CPU only) when the layout changed, or `rebuild`
 * (the snapshot is taken whole, or a material's drawing state changed): those are marked fresh. */
orr_result orri_draws_build(orr_renderer *r, const orr_snapshot *s, const orr_assets *assets, bool rebuild);
/* After the fresh scenes' materials are resident (orri_materials_touch_scene): their batch states
 * resolved from what is resident; adds their upload to *stage. Creates or retires no texture, sampler
 * or material: planning only reads what residency made. */
orr_result orri_draws_plan(orr_renderer *r, const orr_assets *assets, uint64_t *stage);
/* Per view (camera already set): its cull on the CPU (the whole view, or only its transparent items
 * when the GPU culls the rest), its regions in the view-data buffer; adds its staging to *stage. */
orr_result orri_draws_plan_view(orr_renderer *r, orri_view *v, const orr_snapshot *s, const orr_draw_view *dv,
                                uint64_t *stage);
/* Lays the regions of every view of the frame out in the view-data buffer (grown when needed). */
orr_result orri_draws_layout(orr_renderer *r, const uint32_t *views, uint32_t view_count);
/* Uploads: the rebuilt scenes' items and batches, each view's CPU-culled records and commands, and
 * its cull block (orr_gpu_cull, GPU-culled views). */
orr_result orri_draws_upload(orr_renderer *r, const orr_snapshot *s, orri_upload *up, const uint32_t *views,
                             uint32_t view_count, const orr_draw_view *dvs);
/* The GPU culls of the frame (compute), with the barriers that order them after the uploads and before
 * the draws; feedback copied into the frame buffer. */
void orri_draws_cull(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const uint32_t *views, uint32_t view_count);
/* Records one view's passes with its strategy (inside its rendering). */
/* Two batch states drawn with the same bound state (pipeline, cull mode, texture set). */
bool orri_same_state(const orri_batch_state *a, const orri_batch_state *b);
/* The view's next run of scene batches before the transparent pass, from *b on: batches of one state
 * that draw meshes, each pass apart (the custom pass's fur batches are the fur adapter's: skipped), with
 * something visible where the CPU culled the view. Returns false when there is none; else the run is
 * [*b, *e). */
bool orri_draws_next_run(const orri_view *v, uint32_t *b, uint32_t *e);
void orri_draws_record(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, orri_view *v, uint32_t *draw_calls);
/* The view's visible counts for the stats: CPU-culled ones from their cull, GPU-culled ones from their
 * latest completed frame. */
void orri_draws_stats(const orr_renderer *r, const orri_view *v, orr_render_stats *st);
orr_result orri_draws_create_pipeline(orr_renderer *r);

/* ---- the shell path (gpu_shell.c) ---- */
/* Per view, after its cull (orri_draws_plan_view): the fur draws of its custom pass (for a GPU-culled
 * view, its payload items culled here first) with their push constants and batch states, the shell
 * strategy's instance slots, and the pipelines they need. */
orr_result orri_shell_plan_view(orr_renderer *r, orri_view *v, const orr_snapshot *s, const orr_assets *assets,
                                const orr_draw_view *dv);
/* The shell strategy's draws of ranges [0, count) of the view's cull (one state: already bound): per
 * visible item, its push constant and one shell. */
void orri_shell_record_ranges(orr_renderer *r, VkCommandBuffer cmd, const orri_view *v, const orr_draw_range *ranges,
                              uint32_t count, uint32_t *draw_calls);
/* The fur draws of the view's custom pass, each with its batch's state bound (the caller's bound state
 * is then unknown). */
void orri_shell_record_fur(orr_renderer *r, VkCommandBuffer cmd, orri_view *v, uint32_t *draw_calls);
/* The shell-path pipeline of a key (made by orri_shell_plan_view). */
VkPipeline orri_shell_pipeline(const orr_renderer *r, uint32_t key, VkSampleCountFlagBits samples, bool fur);
void orri_shell_stats(const orri_view *v, orr_render_stats *st);
void orri_shell_view_fini(orr_renderer *r, orri_view *v);
void orri_shell_fini(orr_renderer *r); /* the pipelines */

/* ---- pipelines (gpu_pipeline.c) ---- */
/* The key of a batch of pass `pass` (orr_pass) whose material is (or is not) double-sided. */
uint32_t orri_pipeline_key(uint32_t pass, bool double_sided);
/* Which mesh pipeline of a key: the record path (mesh pipelines), or the shell path (push constant,
 * gl_InstanceIndex the shell index), with fur's thinning or without. */
typedef struct orri_pipeline_variant {
    bool shell;
    bool fur;
    bool meshlets; /* the meshlet strategy's task and mesh shaders (its layout) instead of the vertex shader */
} orri_pipeline_variant;
orr_result orri_pipeline_create(orr_renderer *r, uint32_t key, VkSampleCountFlagBits samples, orri_pipeline_variant variant,
                                VkPipeline *out);
uint32_t orri_samples_index(VkSampleCountFlagBits samples); /* 1, 2, 4, 8 -> 0..3 */
orr_result orri_shader_module(orr_renderer *r, const uint32_t *code, size_t size, VkShaderModule *out);
/* `count` compute pipelines of one SPIR-V module with `layout`, pipeline k with specialization constant 0
 * = stages[k] (stages NULL: one pipeline, no specialization); the module is not kept. */
orr_result orri_compute_pipelines(orr_renderer *r, const uint32_t *code, size_t size, VkPipelineLayout layout,
                                  const uint32_t *stages, uint32_t count, const char *what, VkPipeline *out);
/* The cache and shader modules (after the layouts and the texture path are known). */
orr_result orri_pipelines_init(orr_renderer *r);
/* Builds the pipelines of the keys in the mask (bit per key) for `samples` that do not exist yet. */
orr_result orri_pipelines_ensure(orr_renderer *r, uint32_t keys, VkSampleCountFlagBits samples);
VkPipeline orri_pipeline_get(const orr_renderer *r, uint32_t key, VkSampleCountFlagBits samples);
void orri_pipelines_fini(orr_renderer *r);

/* ---- lights (gpu_light.c) ---- */
/* How many lights view `v` gets of the snapshot `s` (staging: that many orr_gpu_light). */
uint32_t orri_lights_count(const orr_view_desc *v, const orr_snapshot *s);
/* Writes them into the frame buffer, positions relative to `origin` (in binary64 first); *first is
 * the first one's index in the frame buffer taken as an array of orr_gpu_light. */
orr_result orri_lights_write(orr_renderer *r, orri_frame *f, const orr_view_desc *v, const orr_snapshot *s,
                             orr_vec3d origin, uint32_t *first, uint32_t *count);

/* ---- textures (gpu_texture.c) ---- */
/* prefer_sets: per-material sets even where the array would do (orr_renderer_desc.texture_sets). */
orr_result orri_textures_init(orr_renderer *r, bool prefer_sets);
orr_result orri_textures_create_white(orr_renderer *r); /* after the command pools exist */
void orri_textures_fini(orr_renderer *r);
/* A material names `id`: creates its image now (and marks its array element), uploads it in this
 * frame's upload step. A stale id or one without pixels: nothing (the slot samples white). */
orr_result orri_textures_request(orr_renderer *r, const orr_assets *assets, orr_texture_id id);
/* Textures the library removed go (after the frames in flight); their elements become white. */
orr_result orri_textures_release_removed(orr_renderer *r, const orr_assets *assets);
bool orri_textures_resident(const orr_renderer *r, orr_texture_id id);
/* The array element a material slot samples `id` at: id.index + 1, or ORR_GPU_WHITE_TEXTURE (no array,
 * or not resident). */
uint32_t orri_textures_index(const orr_renderer *r, orr_texture_id id);
uint64_t orri_textures_plan(const orr_renderer *r, const orr_assets *assets); /* staging bytes */
/* One texture's levels below the first: `levels` in all of a width x height RGBA8 image, levels 1.. one
 * after the other at `out` (NULL: nothing to build); `staged`: where the upload places the whole chain. */
typedef struct orri_mip_job {
    const uint8_t *level0;
    uint32_t width, height, levels;
    bool srgb;
    uint8_t *out, *staged;
} orri_mip_job;
#define ORRI_MIP_BAND_ROWS 32                 /* rows of level 1 a job builds */
#define ORRI_STAGE_PIECE ((size_t)1 << 20)    /* bytes a job copies into the staging buffer */
#define ORRI_UPLOAD_SHARED_BYTES (4u << 20)   /* texture bytes a frame stages from which its threads share them */
/* Builds them on `threads` threads of `workers` (NULL: started for each of its two runs), in bands of
 * band_rows rows of level 1 (0: ORRI_MIP_BAND_ROWS): the same bytes at any thread count and band
 * height. */
void orri_mip_build(const orri_textures *tx, const orri_mip_job *jobs, uint32_t count, uint32_t band_rows,
                    uint32_t threads, orr_workers *workers);
/* Copies each chain (level 0, then `out`) to `staged` (NULL: not staged), in pieces on `threads` threads
 * of `workers`. */
void orri_mip_stage(const orri_mip_job *jobs, uint32_t count, uint32_t threads, orr_workers *workers);
orr_result orri_textures_upload(orr_renderer *r, const orr_assets *assets, orri_upload *up);
void orri_textures_commit(orr_renderer *r); /* the pending textures were submitted; nothing to abort */
void orri_textures_release(orr_renderer *r, uint64_t last_use); /* another asset library */
/* Target textures showing target index `target` are released (their elements white). */
orr_result orri_textures_release_target(orr_renderer *r, uint32_t target);
/* Without the array: the entry of the set showing `ids` (none where one is not resident), made when
 * no material shows them yet; a reference for the caller, dropped with orri_textures_put_set (the last
 * one retires the set after the frames in flight). */
orr_result orri_textures_get_set(orr_renderer *r, const orr_texture_id ids[ORR_GPU_TEXTURE_SLOTS], uint32_t *entry);
void orri_textures_put_set(orr_renderer *r, uint32_t entry);
VkDescriptorSet orri_textures_set(const orr_renderer *r, uint32_t entry); /* entry 0: all white */
/* Whether set `entry` shows `ids` as they are resident now (the same images). */
bool orri_textures_set_shows(const orr_renderer *r, uint32_t entry, const orr_texture_id ids[ORR_GPU_TEXTURE_SLOTS]);
/* The array: before frame slot `frame_slot` records, its set's changed elements are written; inside a
 * view's rendering, the set is bound once (both do nothing without the array). */
void orri_textures_write_frame(orr_renderer *r, uint32_t frame_slot);
void orri_textures_bind_frame(const orr_renderer *r, VkCommandBuffer cmd, uint32_t frame_slot);

/* ---- texture targets (gpu_texture_target.c) ---- */
/* The live texture target with `key`, or NULL. */
orri_target *orri_texture_target_find(orr_renderer *r, uint64_t key);
/* A texture target was made (`t` alive), remade at another size, or is about to go: target textures
 * showing it are released (white in the texture array before either frame set is used again) and
 * every material is looked at again at the next frame. */
orr_result orri_texture_target_changed(orr_renderer *r, orri_target *t);
/* Before the draw scenes are planned: the draw orders the texture targets' views use are marked used. */
void orri_texture_targets_mark_used(orr_renderer *r);
/* After them, with renderer.view_order holding the views of the frame's target `main` (count views):
 * the texture targets the frame samples, in drawing order (texture_targets.order, `main` last), their
 * views put before main's in view_order (*view_count grows), the fallbacks counted into `stats`. A
 * texture target that would sample itself, directly or through others: ORR_ERROR_INVALID_ARGUMENT
 * naming them and the material. */
orr_result orri_texture_targets_plan(orr_renderer *r, const orr_snapshot *s, const orr_assets *assets, uint32_t main,
                                     uint32_t *view_count, orr_render_stats *stats);
/* Before the frame's first target is cleared: texture targets whose sampled image is new are
 * cleared there and made readable, so that every image a descriptor can show is valid. */
void orri_texture_targets_record_init(orr_renderer *r, VkCommandBuffer cmd);
/* After a texture target's views: its colour image copied into its sampled image, which is then
 * readable by the fragment shaders of what follows; with `readback`, its pixels into that too. */
void orri_texture_targets_record_publish(orr_renderer *r, VkCommandBuffer cmd, orri_target *t, orri_buffer *readback);
/* The frame was submitted: the images it initialised or drew are readable from now on. */
void orri_texture_targets_commit(orr_renderer *r);
void orri_texture_targets_fini(orr_renderer *r);

/* ---- targets (gpu_render.c) and surface targets (gpu_surface.c) ---- */
/* Remakes the target's colour image at a new size (the old one retired after the frames in flight);
 * readback buffers are remade when next asked for. */
orr_result orri_target_set_size(orr_renderer *r, orri_target *t, uint32_t width, uint32_t height);
/* Makes t->surface: checks presentation support, picks format and mode, makes the first swapchain
 * (and sizes the target to it). The surface is destroyed on failure. */
orr_result orri_surface_create(orr_renderer *r, orri_target *t, VkSurfaceKHR surface, uint32_t width, uint32_t height,
                               orr_present_mode mode);
/* Before the frame is planned, its slot's fence waited for: remakes a stale swapchain, then acquires
 * an image. *draw is false when there is nothing to draw into (minimised). */
orr_result orri_surface_acquire(orr_renderer *r, orri_target *t, uint32_t slot, bool *draw);
/* Copies the target's colour (in COLOR_ATTACHMENT_OPTIMAL) to the acquired image and readies it for
 * presenting; with `readback`, the presented image's bytes into it as well. */
void orri_surface_record(orr_renderer *r, orri_target *t, VkCommandBuffer cmd, uint32_t slot, orri_buffer *readback);
/* The semaphores of the frame's submit: wait for the acquire, signal the present. */
void orri_surface_semaphores(const orri_target *t, uint32_t slot, VkSemaphoreSubmitInfo *wait, VkSemaphoreSubmitInfo *signal);
/* After the submit: queues the present. An out-of-date or suboptimal swapchain is remade next frame. */
orr_result orri_surface_present(orr_renderer *r, orri_target *t);
/* The frame failed after its acquire: the acquire's semaphore is consumed and the swapchain remade. */
void orri_surface_abort(orr_renderer *r, orri_target *t, uint32_t slot);
/* The size the host says the window has now (0 x 0: minimised): the swapchain is remade next frame. */
void orri_surface_resize(orri_target *t, uint32_t width, uint32_t height);
uint32_t orri_surface_swapchains(const orri_target *t);
/* Waits for the queue, then destroys the swapchain, its semaphores and the surface. */
void orri_surface_destroy(orr_renderer *r, orri_target *t);

/* ---- the meshlet strategy (gpu_meshlet.c) ---- */
/* Device choice: whether `pd` has what the task and mesh shaders need (fills the limits when it has). */
bool orri_meshlets_query(orr_renderer *r, VkPhysicalDevice pd);
/* After vkCreateDevice (mesh shaders enabled or not): the entry points. */
orr_result orri_meshlets_device_ready(orr_renderer *r);
/* The stages the scene set (set 0) and the frame's barriers name for the mesh shading stages: task and
 * mesh when the strategy draws with them, else none. */
VkShaderStageFlags orri_meshlets_shader_stages(const orr_renderer *r);
VkPipelineStageFlags2 orri_meshlets_pipeline_stages(const orr_renderer *r);
/* Layouts, compute pipelines, shader modules and descriptor sets (after the scene layouts and the mesh
 * fragment shader exist). */
orr_result orri_meshlets_init(orr_renderer *r);
void orri_meshlets_fini(orr_renderer *r);
/* Residency, beside the geometry pool's (gpu_scene.c calls these): a mesh planned for upload gets pool
 * space for its meshlets (none when it has none; a mesh too large for the pool then draws indexed); its
 * staging bytes; a released mesh's space goes back; the upload of the pending meshes' meshlets; the
 * frame's end (commit or abort) and another library (release). */
void orri_meshlets_plan_mesh(orr_renderer *r, const orr_mesh *mesh, orr_mesh_id id);
uint64_t orri_meshlets_stage(const orr_renderer *r, const orr_mesh *mesh);
void orri_meshlets_release_mesh(orr_renderer *r, uint32_t mesh_index);
orr_result orri_meshlets_upload(orr_renderer *r, const orr_assets *assets, orri_upload *up);
uint64_t orri_meshlets_bytes(const orr_renderer *r); /* pool bytes in use */
uint32_t orri_meshlets_retirements(const orr_renderer *r); /* buffers orri_meshlets_commit retires */
void orri_meshlets_commit(orr_renderer *r, uint64_t frame_number);
void orri_meshlets_abort(orr_renderer *r);
void orri_meshlets_release(orr_renderer *r, uint64_t last_use);
/* Per view (after orri_draws_plan_view): its draws (and task commands), the pipelines it needs; adds
 * its staging to *stage. A view of another strategy is marked inactive. */
orr_result orri_meshlets_plan_view(orr_renderer *r, orri_view *v, const orr_snapshot *s, const orr_assets *assets,
                                   uint64_t *stage);
/* The meshlet data buffer's regions for the frame's meshlet views (grown when needed). */
orr_result orri_meshlets_layout(orr_renderer *r, const uint32_t *views, uint32_t view_count);
/* Each meshlet view's block and tables into the frame buffer. */
orr_result orri_meshlets_upload_views(orr_renderer *r, orri_upload *up, const uint32_t *views, uint32_t view_count,
                                      const orr_draw_view *dvs);
/* After the culls: the counters zeroed, the compute stage of every meshlet view, with the barriers that
 * order it after the uploads and culls and before the draws. */
void orri_meshlets_dispatch(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const uint32_t *views,
                            uint32_t view_count);
/* Records a meshlet view's passes (inside its rendering; instead of orri_draws_record). */
void orri_meshlets_record(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, orri_view *v, uint32_t *draw_calls);
/* After every view: the counters into the frame buffer, for the host once the frame completed. */
void orri_meshlets_feedback(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const uint32_t *views,
                            uint32_t view_count);
/* The frame was submitted: its views' counters are read when its fence has signalled (orri_meshlets_read). */
orr_result orri_meshlets_reserve_feedback(orr_renderer *r, orri_frame *f, uint32_t view_count);
void orri_meshlets_submitted(orr_renderer *r, orri_frame *f, uint64_t frame_number, const uint32_t *views,
                             uint32_t view_count);
void orri_meshlets_read(orr_renderer *r, orri_frame *f);
/* The view's counts for the stats (its latest completed frame's). */
void orri_meshlets_stats(const orr_renderer *r, const orri_view *v, orr_render_stats *st);
void orri_meshlets_view_release(orr_renderer *r, orri_view *v);
/* Exported from gpu_scene.c for the meshlet pool: a pool buffer grown to `need` units (see there). */
orr_result orri_pool_reserve(orr_renderer *r, orri_upload *up, orri_buffer *buf, orri_buffer *replaced,
                             uint64_t committed, uint64_t need, uint64_t unit, VkBufferUsageFlags usage,
                             const char *what);

#endif
