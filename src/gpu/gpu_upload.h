/* Staging (gpu_upload.c): what a frame uploads goes through its host buffer, in copies recorded in
 * order into its command buffer. */
#ifndef ORRERY_GPU_UPLOAD_H
#define ORRERY_GPU_UPLOAD_H

#include "gpu/gpu_state.h"

/* Everything the frame uploads is described by these copies, recorded in order into `cmd`. Recording
 * marks nothing done: a frame ends in exactly one of
 *   orri_scene_commit + orri_textures_commit  after its vkQueueSubmit2 succeeded: pending meshes and
 *                                             textures are resident, dirty records clean, a grown
 *                                             geometry pool's old buffer retired after `frame_number`;
 *   orri_scene_abort                          on any failure (before or after recording began): a
 *                                             grown pool goes back to its old buffer; pending meshes
 *                                             and textures stay pending, and the renderer takes the
 *                                             next snapshot whole (its records, joints and scenes). */
/* One copy out of the frame buffer, listed while the frame's command buffer is not begun. */
typedef struct orri_upload_op {
    VkDeviceSize src;
    VkBuffer dst;
    VkDeviceSize dst_offset, size;
} orri_upload_op;

/* The frame's command buffer is begun only when a command other than a copy out of the frame buffer
 * needs it (orri_upload_begin): until then the copies are listed (renderer.upload_ops), and a frame
 * whose list is the one the slot's buffer was last recorded with (nothing else in it, no Vulkan object
 * made or destroyed since) submits that recording again. A frame where nothing changed then records
 * no command at all: its uploads are the views' few copies, the same every frame. */
typedef struct orri_upload {
    orr_renderer *r;
    VkCommandBuffer cmd; /* VK_NULL_HANDLE until orri_upload_begin */
    orri_frame *frame;
    uint64_t frame_number;
    uint64_t bytes;      /* uploaded this frame: the scene (meshes, textures, records, joints, materials, draw
                            scenes) */
    uint64_t view_bytes; /* and the views' per-frame records and commands from the CPU */
    VkPipelineStageFlags2 before; /* the stages of earlier frames the head's barrier waits for */
    uint32_t op_count;   /* copies listed in renderer.upload_ops (while cmd is VK_NULL_HANDLE) */
    bool out_of_memory;  /* the list could not grow (the frame fails) */
} orri_upload;
/* Begins the frame's command buffer if it is not: its head (timestamp, the barrier after earlier
 * frames), then the copies listed so far. Every command other than orri_upload_copy's comes after it. */
orr_result orri_upload_begin(orr_renderer *r, orri_upload *up);
/* Reserves `size` bytes of the frame buffer (aligned); fails only when the frame was sized wrongly. */
orr_result orri_frame_alloc(orr_renderer *r, orri_frame *frame, VkDeviceSize size, VkDeviceSize *offset);
/* Copies `size` bytes of the frame buffer at `src` into `dst` at `dst_offset` (counted as uploaded):
 * recorded, or listed while the command buffer is not begun. */
void orri_upload_copy(orri_upload *up, VkDeviceSize src, VkBuffer dst, VkDeviceSize dst_offset, VkDeviceSize size);
/* Makes the pool buffer hold `need` units of `unit` bytes, copying the `committed` ones earlier frames
 * wrote; the old buffer goes to *replaced (retired at commit, the pool again at abort). */
orr_result orri_pool_reserve(orr_renderer *r, orri_upload *up, orri_buffer *buf, orri_buffer *replaced,
                             uint64_t committed, uint64_t need, uint64_t unit, VkBufferUsageFlags usage,
                             const char *what);

#endif
