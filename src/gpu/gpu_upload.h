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
/* Makes the pool buffer hold `need` units of `unit` bytes, copying the `committed` ones earlier frames
 * wrote; the old buffer goes to *replaced (retired at commit, the pool again at abort). */
orr_result orri_pool_reserve(orr_renderer *r, orri_upload *up, orri_buffer *buf, orri_buffer *replaced,
                             uint64_t committed, uint64_t need, uint64_t unit, VkBufferUsageFlags usage,
                             const char *what);

#endif
