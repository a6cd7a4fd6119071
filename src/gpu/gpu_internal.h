/* The gpu module's internals, shared by its files:
 *   gpu_device.c  instance, validation messenger, device choice, memory, buffers, deferred destruction
 *   gpu_scene.c   geometry pool (residency by mesh id), instance slots and records, material slots
 *   gpu_texture.c base colour textures: residency by texture id, mipmaps, samplers, per-texture sets
 *   gpu_render.c  targets, views, pipelines, the frame (uploads, views, strategies), readback
 *   gpu_png.c     orr_write_png
 */
#ifndef ORRERY_GPU_INTERNAL_H
#define ORRERY_GPU_INTERNAL_H

#include <orrery/gpu.h>
#include <orrery/gpu_shared.h>
#include <vulkan/vulkan.h>

#include "core/internal.h"

/* Frames the CPU may record ahead of the GPU. */
#define ORRI_FRAMES_IN_FLIGHT 2
/* Offsets inside the per-frame buffer are aligned to this (covers every min*OffsetAlignment we meet;
 * raised at creation when the device asks for more). */
#define ORRI_FRAME_ALIGN 256
/* Interleaved vertex of the geometry pool (byte offsets): position 3 floats (0), normal 3 floats (12),
 * colour 4 floats (24), texcoord0 2 floats (40), joint weights 4 floats (48), joints 4 uint16 (64). */
#define ORRI_VERTEX_BYTES 72

/* A buffer with its own memory; `map` is non-NULL for host-visible ones. */
typedef struct orri_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    void *map;
} orri_buffer;

typedef struct orri_image {
    VkImage image;
    VkImageView view;
    VkDeviceMemory memory;
    uint32_t width, height, levels;
} orri_image;

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
} orri_resident_primitive;

/* Residency of one mesh id index (the generation tells a reused index apart). */
typedef struct orri_resident_mesh {
    uint32_t generation; /* 0 = not resident */
    uint32_t primitive_count;
    orri_resident_primitive *primitives;
} orri_resident_mesh;

/* The geometry pool: each resident mesh once, one vertex and one index buffer, growable. */
typedef struct orri_geometry {
    orri_buffer vertices, indices; /* device-local */
    uint64_t vertex_used, index_used; /* bytes, including what this frame plans to upload */
    uint64_t vertex_committed, index_committed; /* bytes written by earlier (submitted) frames */
    orri_buffer replaced_vertices, replaced_indices; /* pools this frame grew away from: retired at commit,
                                                        the pool again at abort */
    orr_mesh_id *pending;             /* meshes planned for upload, not yet in a submitted frame, in
                                         snapshot order */
    uint32_t pending_count, pending_capacity;
    orri_resident_mesh *meshes;       /* by mesh id index */
    uint32_t mesh_capacity;
    const orr_assets *assets;         /* the library the residency belongs to */
} orri_geometry;

/* Instance slots keyed by snapshot instance id (lowest free first), with a CPU copy of the records
 * so that only changed ranges are uploaded. */
typedef struct orri_instances {
    orr_handle_pool slots;
    uint32_t *slot_generation;   /* per slot index: the handle's generation */
    uint32_t *slot_owner;        /* per slot: instance id */
    uint64_t *slot_seen;         /* per slot: the last frame number that named it */
    orr_gpu_instance *records;   /* CPU copy of the GPU buffer */
    uint8_t *dirty;              /* per slot: the record is not yet in a submitted frame */
    uint32_t capacity;           /* slots the arrays (and the GPU buffer) hold; >= slots.count */
    orri_buffer buffer;          /* device-local storage buffer */
    bool gpu_realloc;            /* the buffer is too small: a new one is made and every slot uploaded */
    /* id -> slot + 1, open addressing with linear probing; 0 = empty */
    uint32_t *map_keys, *map_values;
    uint32_t map_capacity, map_count;
} orri_instances;

typedef struct orri_materials {
    orr_gpu_material *records; /* CPU copy, by material id index */
    uint64_t *revision;        /* per slot: the uploaded revision + 1 (0 = never uploaded) */
    uint32_t *generation;      /* per slot: the id generation uploaded */
    uint8_t *dirty;            /* per slot: the record is not yet in a submitted frame */
    uint32_t capacity;
    uint32_t count;            /* slots in use: 1 + the highest index seen */
    orri_buffer buffer;
    bool gpu_realloc;
} orri_materials;

/* A resident texture: its image (with mipmaps) and its descriptor set (set 1). */
typedef struct orri_resident_texture {
    uint32_t generation; /* 0 = not resident */
    orri_image image;
    VkDescriptorSet set;
    VkDescriptorPool pool;
} orri_resident_texture;

#define ORRI_SAMPLER_KINDS 72 /* mag 2 x min 2 x mipmaps 2 x wrap s 3 x wrap t 3 */

typedef struct orri_textures {
    VkDescriptorSetLayout layout;      /* set 1: one combined image sampler */
    orri_resident_texture *items;      /* by texture id index */
    uint32_t capacity;
    orr_texture_id *pending;           /* created, not uploaded by a submitted frame yet (layout UNDEFINED) */
    uint32_t pending_count, pending_capacity;
    VkDescriptorPool *pools;
    uint32_t pool_count, pool_capacity;
    VkSampler samplers[ORRI_SAMPLER_KINDS];
    orri_image white;                  /* bound for untextured materials */
    VkDescriptorSet white_set;
    VkDescriptorPool white_pool;
    bool blit[2];                      /* linear blits (mipmaps) for UNORM, SRGB */
} orri_textures;

typedef struct orri_target {
    uint32_t generation;
    bool alive;
    orr_target_desc desc;
    orri_image color;
    orri_buffer readback[ORRI_FRAMES_IN_FLIGHT]; /* host-visible, width x height x 4 */
    uint64_t last_frame;                          /* renderer frame number of the last render; 0 = none */
    uint32_t last_slot;                           /* frame slot of that render */
} orri_target;

typedef struct orri_view {
    uint32_t generation;
    bool alive;
    orr_view_desc desc;
    orri_image depth;
    orr_draw_list list;
    /* filled while a frame is prepared */
    orr_viewport rect;
    VkDeviceSize ubo_offset, record_offset, indirect_offset;
    bool prepared;
} orri_view;

typedef struct orri_frame {
    VkCommandBuffer cmd;
    VkFence fence;
    VkDescriptorSet set;
    orri_buffer data; /* host-visible: staging for uploads, view blocks, records, indirect commands */
    VkDeviceSize data_used;
    uint64_t frame_number; /* the frame recorded here last (0 = none) */
} orri_frame;

struct orr_renderer {
    orr_allocator allocator;
    orr_logger logger;
    orr_error error;
    uint32_t validation_messages;

    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical;
    VkPhysicalDeviceProperties properties;
    VkPhysicalDeviceMemoryProperties memory;
    VkDevice device;
    uint32_t queue_family;
    VkQueue queue;
    bool multi_draw_indirect;
    VkDeviceSize frame_align;

    VkCommandPool command_pool;
    VkDescriptorSetLayout set_layout;
    VkDescriptorPool descriptor_pool;
    VkPipelineLayout pipeline_layout;
    VkPipeline pipeline_opaque, pipeline_blend;

    orri_frame frames[ORRI_FRAMES_IN_FLIGHT];
    uint64_t frame_number; /* frames submitted so far; the frame being recorded is frame_number + 1 */

    orri_garbage *garbage;
    uint32_t garbage_count, garbage_capacity;

    orri_geometry geometry;
    orri_instances instances;
    orri_materials materials;
    orri_textures textures;

    orr_handle_pool target_pool;
    orri_target *targets;
    uint32_t target_capacity;
    orr_handle_pool view_pool;
    orri_view *views;
    uint32_t view_capacity;
    uint32_t *view_order; /* scratch: views of the target being rendered, by slot */
    uint32_t view_order_capacity;
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
void orri_image_destroy(orr_renderer *r, orri_image *img);
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
/* Everything the frame uploads is described by these copies, recorded in order into `cmd`. Recording
 * marks nothing done: a frame ends in exactly one of
 *   orri_scene_commit + orri_textures_commit  after its vkQueueSubmit2 succeeded: pending meshes and
 *                                             textures are resident, dirty records clean, a grown
 *                                             geometry pool's old buffer retired after `frame_number`;
 *   orri_scene_abort                          on any failure (before or after recording began): a
 *                                             grown pool goes back to its old buffer; everything stays
 *                                             marked, so the next frame uploads it again. */
typedef struct orri_upload {
    VkCommandBuffer cmd;
    orri_frame *frame;
    uint64_t frame_number;
    uint64_t bytes; /* uploaded this frame */
} orri_upload;
/* Reserves `size` bytes of the frame buffer (aligned); fails only when the frame was sized wrongly. */
orr_result orri_frame_alloc(orr_renderer *r, orri_frame *frame, VkDeviceSize size, VkDeviceSize *offset);
/* Each plan step adds to *stage the frame-buffer bytes its upload takes (with alignment slack). */
/* Residency: plans pool space for every mesh the snapshot names that is not resident yet. */
orr_result orri_geometry_plan(orr_renderer *r, const orr_snapshot *s, const orr_assets *assets, uint64_t *stage);
/* Grows the pool when needed (copying what it held) and uploads the planned meshes. */
orr_result orri_geometry_upload(orr_renderer *r, const orr_assets *assets, orri_upload *up);
const orri_resident_primitive *orri_geometry_find(const orr_renderer *r, orr_mesh_id mesh, uint32_t primitive);
/* Instance slots: frees slots of instances that left, assigns new ones lowest first, diffs the records. */
orr_result orri_instances_plan(orr_renderer *r, const orr_snapshot *s, uint64_t frame_number, uint64_t *stage);
orr_result orri_instances_upload(orr_renderer *r, orri_upload *up);
uint32_t orri_instances_slot(const orr_renderer *r, uint32_t instance_id); /* UINT32_MAX when absent */
/* Materials: a prepared draw names `id`; refreshes its record when its revision changed. */
orr_result orri_materials_touch(orr_renderer *r, const orr_assets *assets, orr_material_id id);
uint64_t orri_materials_plan(orr_renderer *r); /* staging bytes */
orr_result orri_materials_upload(orr_renderer *r, orri_upload *up);
/* Before the submit: room for what orri_scene_commit retires, so that a submitted frame's commit
 * cannot fail. */
orr_result orri_scene_reserve_commit(orr_renderer *r);
void orri_scene_commit(orr_renderer *r, uint64_t frame_number);
void orri_scene_abort(orr_renderer *r);

/* ---- textures (gpu_texture.c) ---- */
orr_result orri_textures_init(orr_renderer *r);
orr_result orri_textures_create_white(orr_renderer *r); /* after the command pool exists */
void orri_textures_fini(orr_renderer *r);
/* A material names `id`: creates its image and set now, uploads it in this frame's upload step. */
orr_result orri_textures_request(orr_renderer *r, const orr_assets *assets, orr_texture_id id);
uint64_t orri_textures_plan(const orr_renderer *r, const orr_assets *assets); /* staging bytes */
orr_result orri_textures_upload(orr_renderer *r, const orr_assets *assets, orri_upload *up);
void orri_textures_commit(orr_renderer *r); /* the pending textures were submitted; nothing to abort */
void orri_textures_release(orr_renderer *r, uint64_t last_use); /* another asset library */
/* The set to bind for a material: its base colour texture's, or the white one. */
VkDescriptorSet orri_textures_set(const orr_renderer *r, const orr_assets *assets, orr_material_id material);

#endif
