/* Resources: buffers and images placed by the sub-allocator (gpu_memory.c), barriers, and their
 * deferred destruction (a queue of what the frames in flight may still use). */
#include "gpu/gpu_resource.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_memory.h"

#include <string.h>

/* A memory block of its own: where the driver requires one, or prefers one for a resource of 1 MiB or
 * more (smaller ones share blocks: a small allocation of its own is what the best-practices layer
 * warns about, and what drivers allow few of). */
static bool dedicated(const VkMemoryDedicatedRequirements *dr, VkDeviceSize size)
{
    return dr->requiresDedicatedAllocation || (dr->prefersDedicatedAllocation && size >= ((VkDeviceSize)1 << 20));
}

orr_result orri_buffer_create(orr_renderer *r, VkDeviceSize size, VkBufferUsageFlags usage, bool host,
                              const char *what, orri_buffer *out)
{
    memset(out, 0, sizeof *out);
    r->objects_epoch++;
    if (size == 0) size = 16;
    VkBufferCreateInfo bi = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = size,
        .usage = usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    VkResult res = vkCreateBuffer(r->device, &bi, NULL, &out->buffer);
    if (res != VK_SUCCESS)
        return orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkCreateBuffer (%s) failed: %s", what, orri_vk_result_name(res));
    VkMemoryDedicatedRequirements dr = {.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
    VkMemoryRequirements2 req = {.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, .pNext = &dr};
    VkBufferMemoryRequirementsInfo2 ri = {.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2, .buffer = out->buffer};
    vkGetBufferMemoryRequirements2(r->device, &ri, &req);
    orri_memory_request mr = {.requirements = req.memoryRequirements,
                              .kind = host ? ORRI_MEMORY_HOST : ORRI_MEMORY_DEVICE_LINEAR,
                              .dedicated = dedicated(&dr, req.memoryRequirements.size),
                              .buffer = out->buffer,
                              .what = what};
    orr_result rc = orri_memory_alloc(r, &mr, &out->memory, &out->map);
    if (rc == ORR_OK) {
        res = vkBindBufferMemory(r->device, out->buffer, orri_memory_handle(r, &out->memory), out->memory.offset);
        if (res != VK_SUCCESS)
            rc = orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkBindBufferMemory (%s) failed: %s", what, orri_vk_result_name(res));
    }
    if (rc != ORR_OK) {
        orri_buffer_destroy(r, out);
        return rc;
    }
    out->size = size;
    return ORR_OK;
}

void orri_buffer_destroy(orr_renderer *r, orri_buffer *b)
{
    if (b->buffer) r->objects_epoch++;
    if (b->buffer) vkDestroyBuffer(r->device, b->buffer, NULL);
    orri_memory_free(r, &b->memory);
    memset(b, 0, sizeof *b);
}

orr_result orri_image_create(orr_renderer *r, uint32_t width, uint32_t height, VkFormat format,
                             VkImageUsageFlags usage, VkImageAspectFlags aspect, const char *what, orri_image *out)
{
    return orri_image_create_desc(r, &(orri_image_desc){.width = width, .height = height, .format = format,
                                                         .usage = usage, .aspect = aspect, .what = what},
                                  out);
}

orr_result orri_image_create_levels(orr_renderer *r, uint32_t width, uint32_t height, uint32_t levels, VkFormat format,
                                    VkImageUsageFlags usage, VkImageAspectFlags aspect, const char *what,
                                    orri_image *out)
{
    return orri_image_create_desc(r, &(orri_image_desc){.width = width, .height = height, .levels = levels,
                                                         .format = format, .usage = usage, .aspect = aspect, .what = what},
                                  out);
}

static VkImageCreateInfo image_info(const orri_image_desc *d)
{
    return (VkImageCreateInfo){
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .imageType = VK_IMAGE_TYPE_2D,
        .format = d->format,
        .extent = {d->width, d->height, 1},
        .mipLevels = d->levels ? d->levels : 1,
        .arrayLayers = d->layers ? d->layers : 1,
        .samples = d->samples ? d->samples : VK_SAMPLE_COUNT_1_BIT,
        .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = d->usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
    };
}

void orri_image_requirements(orr_renderer *r, const orri_image_desc *d, VkMemoryRequirements *out)
{
    VkImageCreateInfo ii = image_info(d);
    VkDeviceImageMemoryRequirements info = {.sType = VK_STRUCTURE_TYPE_DEVICE_IMAGE_MEMORY_REQUIREMENTS,
                                            .pCreateInfo = &ii};
    VkMemoryRequirements2 req = {.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2};
    vkGetDeviceImageMemoryRequirements(r->device, &info, &req);
    *out = req.memoryRequirements;
}

orr_result orri_image_create_desc(orr_renderer *r, const orri_image_desc *d, orri_image *out)
{
    r->objects_epoch++;
    memset(out, 0, sizeof *out);
    uint32_t levels = d->levels ? d->levels : 1;
    VkSampleCountFlagBits samples = d->samples ? d->samples : VK_SAMPLE_COUNT_1_BIT;
    VkImageCreateInfo ii = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .imageType = VK_IMAGE_TYPE_2D,
        .format = d->format,
        .extent = {d->width, d->height, 1},
        .mipLevels = levels,
        .arrayLayers = d->layers ? d->layers : 1,
        .samples = samples,
        .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = d->usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
    };
    VkResult res = vkCreateImage(r->device, &ii, NULL, &out->image);
    if (res != VK_SUCCESS)
        return orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkCreateImage (%s, %ux%u) failed: %s", d->what, d->width, d->height,
                             orri_vk_result_name(res));
    VkMemoryDedicatedRequirements dr = {.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
    VkMemoryRequirements2 req = {.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, .pNext = &dr};
    VkImageMemoryRequirementsInfo2 ri = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2, .image = out->image};
    vkGetImageMemoryRequirements2(r->device, &ri, &req);
    orri_memory_request mr = {.requirements = req.memoryRequirements,
                              .kind = ORRI_MEMORY_DEVICE_OPTIMAL,
                              .dedicated = dedicated(&dr, req.memoryRequirements.size),
                              .image = out->image,
                              .what = d->what};
    orr_result rc = d->memory ? ORR_OK : orri_memory_alloc(r, &mr, &out->memory, NULL);
    const orri_allocation *mem = d->memory ? d->memory : &out->memory;
    if (rc == ORR_OK && d->memory && req.memoryRequirements.size > d->memory->size)
        rc = orri_gpu_fail(r, ORR_ERROR_VULKAN, "%s: %llu bytes of memory given for an image that needs %llu",
                           d->what, (unsigned long long)d->memory->size,
                           (unsigned long long)req.memoryRequirements.size);
    if (rc == ORR_OK) {
        res = vkBindImageMemory(r->device, out->image, orri_memory_handle(r, mem), mem->offset);
        if (res != VK_SUCCESS)
            rc = orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkBindImageMemory (%s) failed: %s", d->what, orri_vk_result_name(res));
    }
    if (rc == ORR_OK) {
        VkImageViewCreateInfo vi = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
            .image = out->image,
            .viewType = d->layers ? VK_IMAGE_VIEW_TYPE_2D_ARRAY : VK_IMAGE_VIEW_TYPE_2D,
            .format = d->format,
            .subresourceRange = {d->aspect, 0, levels, 0, d->layers ? d->layers : 1},
        };
        res = vkCreateImageView(r->device, &vi, NULL, &out->view);
        if (res != VK_SUCCESS)
            rc = orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkCreateImageView (%s) failed: %s", d->what, orri_vk_result_name(res));
    }
    if (rc != ORR_OK) {
        orri_image_destroy(r, out);
        return rc;
    }
    out->width = d->width;
    out->height = d->height;
    out->levels = levels;
    out->samples = samples;
    return ORR_OK;
}

void orri_image_destroy(orr_renderer *r, orri_image *img)
{
    if (img->image) r->objects_epoch++;
    if (img->view) vkDestroyImageView(r->device, img->view, NULL);
    if (img->image) vkDestroyImage(r->device, img->image, NULL);
    orri_memory_free(r, &img->memory);
    memset(img, 0, sizeof *img);
}

void orri_barrier_levels(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, uint32_t levels,
                         VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage,
                         VkAccessFlags2 dst_access, VkImageLayout from, VkImageLayout to)
{
    VkImageMemoryBarrier2 b = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
        .srcStageMask = src_stage,
        .srcAccessMask = src_access,
        .dstStageMask = dst_stage,
        .dstAccessMask = dst_access,
        .oldLayout = from,
        .newLayout = to,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .image = image,
        .subresourceRange = {aspect, 0, levels, 0, 1},
    };
    VkDependencyInfo di = {
        .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = 1, .pImageMemoryBarriers = &b};
    vkCmdPipelineBarrier2(cmd, &di);
}

void orri_barrier_image(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, VkPipelineStageFlags2 src_stage,
                        VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access,
                        VkImageLayout from, VkImageLayout to)
{
    orri_barrier_levels(cmd, image, aspect, 1, src_stage, src_access, dst_stage, dst_access, from, to);
}

void orri_barrier_memory(VkCommandBuffer cmd, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                         VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access)
{
    VkMemoryBarrier2 b = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
                          .srcStageMask = src_stage,
                          .srcAccessMask = src_access,
                          .dstStageMask = dst_stage,
                          .dstAccessMask = dst_access};
    VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1, .pMemoryBarriers = &b};
    vkCmdPipelineBarrier2(cmd, &di);
}

static void destroy_garbage(orr_renderer *r, orri_garbage *g)
{
    orri_buffer_destroy(r, &g->buffer);
    orri_image_destroy(r, &g->image);
    if (g->set) {
        ORRI_VK_LOG(r, vkFreeDescriptorSets(r->device, g->pool, 1, &g->set));
        r->objects_epoch++;
    } else if (g->pool) { /* a whole pool */
        vkDestroyDescriptorPool(r->device, g->pool, NULL);
        r->objects_epoch++;
    }
    g->set = VK_NULL_HANDLE;
    g->pool = VK_NULL_HANDLE;
}

orr_result orri_garbage_reserve(orr_renderer *r, uint32_t count)
{
    if (!ORRI_GROW(&r->allocator, r->garbage, r->garbage_capacity, r->garbage_count + count))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for the deferred-destruction queue");
    return ORR_OK;
}

static orr_result retire(orr_renderer *r, orri_garbage g)
{
    if (g.last_use == 0 || !r->device) { /* never used by a submitted frame: destroy now */
        destroy_garbage(r, &g);
        return ORR_OK;
    }
    if (!ORRI_GROW(&r->allocator, r->garbage, r->garbage_capacity, r->garbage_count + 1)) {
        /* Out of memory for the queue: wait for the GPU instead of leaking. */
        ORRI_VK_LOG(r, vkDeviceWaitIdle(r->device));
        destroy_garbage(r, &g);
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for the deferred-destruction queue");
    }
    r->garbage[r->garbage_count++] = g;
    return ORR_OK;
}

orr_result orri_retire_buffer(orr_renderer *r, orri_buffer *b, uint64_t last_use)
{
    if (!b->buffer && !b->memory.block) return ORR_OK;
    orri_garbage g = {.last_use = last_use, .buffer = *b};
    memset(b, 0, sizeof *b);
    return retire(r, g);
}

orr_result orri_retire_image(orr_renderer *r, orri_image *img, uint64_t last_use)
{
    if (!img->image && !img->memory.block && !img->view) return ORR_OK; /* (a view alone may go too) */
    orri_garbage g = {.last_use = last_use, .image = *img};
    memset(img, 0, sizeof *img);
    return retire(r, g);
}

orr_result orri_retire_set(orr_renderer *r, VkDescriptorPool pool, VkDescriptorSet set, uint64_t last_use)
{
    if (!set) return ORR_OK;
    orri_garbage g = {.last_use = last_use, .pool = pool, .set = set};
    return retire(r, g);
}

orr_result orri_retire_pool(orr_renderer *r, VkDescriptorPool pool, uint64_t last_use)
{
    if (!pool) return ORR_OK;
    orri_garbage g = {.last_use = last_use, .pool = pool};
    return retire(r, g);
}

void orri_collect_garbage(orr_renderer *r, uint64_t completed)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < r->garbage_count; i++) {
        orri_garbage *g = &r->garbage[i];
        if (g->last_use <= completed) {
            destroy_garbage(r, g);
        } else {
            r->garbage[kept++] = *g;
        }
    }
    r->garbage_count = kept;
}

orr_result orri_buffer_ensure(orr_renderer *r, orri_buffer *b, VkDeviceSize size, VkBufferUsageFlags usage,
                              const char *what, bool *fresh)
{
    if (fresh) *fresh = false;
    if (b->buffer && b->size >= size) return ORR_OK;
    /* A quarter more than asked (growth stays geometric, the slack small: these buffers are per
     * instance), in 64 KiB steps. */
    VkDeviceSize cap = (size + size / 4 + 65535) / 65536 * 65536;
    ORRI_TRY(orri_retire_buffer(r, b, r->frame_number));
    ORRI_TRY(orri_buffer_create(r, cap, usage, false, what, b));
    if (fresh) *fresh = true;
    return ORR_OK;
}
