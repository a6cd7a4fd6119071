/* Resources (gpu_resource.c): buffers, images and barriers, and deferred destruction: what a frame in
 * flight may use is retired, and destroyed once the GPU finished every frame up to its last use. */
#ifndef ORRERY_GPU_RESOURCE_H
#define ORRERY_GPU_RESOURCE_H

#include "gpu/gpu_state.h"

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
    uint32_t layers;               /* 0 = 1; above 0 its view is a 2D array of them all */
    VkFormat format;
    VkImageUsageFlags usage;
    VkImageAspectFlags aspect;
    const char *what;
    const orri_allocation *memory; /* NULL: memory of its own; else bound at the start of this allocation,
                                      which the caller keeps (large enough: orri_image_requirements) and
                                      frees after the image; images with lifetimes apart may share one */
} orri_image_desc;
orr_result orri_image_create_desc(orr_renderer *r, const orri_image_desc *desc, orri_image *out);
/* What an image of `desc` needs of memory (no image made). */
void orri_image_requirements(orr_renderer *r, const orri_image_desc *desc, VkMemoryRequirements *out);
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
/* A descriptor pool, destroyed whole with its sets. */
orr_result orri_retire_pool(orr_renderer *r, VkDescriptorPool pool, uint64_t last_use);
/* Makes room in the queue for `count` more retirements, which then cannot fail. */
orr_result orri_garbage_reserve(orr_renderer *r, uint32_t count);
/* Destroys what no frame up to `completed` still uses. */
void orri_collect_garbage(orr_renderer *r, uint64_t completed);
/* A buffer with room for `size` bytes: the old one is retired (after the frames in flight) and a new
 * one made when it is smaller. Its contents are not kept. */
orr_result orri_buffer_ensure(orr_renderer *r, orri_buffer *b, VkDeviceSize size, VkBufferUsageFlags usage,
                              const char *what, bool *fresh);
#endif
