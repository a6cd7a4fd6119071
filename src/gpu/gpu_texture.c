/* Textures: residency by texture id (uploaded the first frame a material needs it, mipmaps made with
 * blits), one descriptor set per texture (set 1, bound per batch: a fixed array indexed in the shader
 * needs dynamic indexing, which lavapipe lacks), a cache of samplers, and a 1x1 white texture bound
 * for untextured materials (multiplying by exactly 1.0 changes nothing). */
#include "gpu/gpu_internal.h"

#include <string.h>

#define SETS_PER_POOL 64u

static uint32_t sampler_key(const orr_sampler *s)
{
    uint32_t mag = s->mag_filter == ORR_FILTER_NEAREST, min = s->min_filter == ORR_FILTER_NEAREST;
    uint32_t ws = (uint32_t)s->wrap_s <= ORR_WRAP_MIRROR ? (uint32_t)s->wrap_s : 0;
    uint32_t wt = (uint32_t)s->wrap_t <= ORR_WRAP_MIRROR ? (uint32_t)s->wrap_t : 0;
    return (((mag * 2 + min) * 2 + (s->mipmaps ? 1u : 0u)) * 3 + ws) * 3 + wt;
}

static VkSamplerAddressMode wrap_mode(orr_wrap w)
{
    switch (w) {
    case ORR_WRAP_CLAMP: return VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    case ORR_WRAP_MIRROR: return VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT;
    default: return VK_SAMPLER_ADDRESS_MODE_REPEAT;
    }
}

static orr_result get_sampler(orr_renderer *r, const orr_sampler *s, VkSampler *out)
{
    orri_textures *tx = &r->textures;
    uint32_t key = sampler_key(s);
    if (!tx->samplers[key]) {
        VkSamplerCreateInfo si = {
            .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
            .magFilter = s->mag_filter == ORR_FILTER_NEAREST ? VK_FILTER_NEAREST : VK_FILTER_LINEAR,
            .minFilter = s->min_filter == ORR_FILTER_NEAREST ? VK_FILTER_NEAREST : VK_FILTER_LINEAR,
            /* orr_sampler keeps no mipmap mode (glTF's NEAREST_MIPMAP_LINEAR arrives as min nearest +
             * mipmaps): blend between levels always, the common choice and the smoother one */
            .mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR,
            .addressModeU = wrap_mode(s->wrap_s),
            .addressModeV = wrap_mode(s->wrap_t),
            .addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT,
            .minLod = 0.0f,
            .maxLod = s->mipmaps ? VK_LOD_CLAMP_NONE : 0.0f,
        };
        ORRI_VK(r, vkCreateSampler(r->device, &si, NULL, &tx->samplers[key]));
    }
    *out = tx->samplers[key];
    return ORR_OK;
}

static orr_result alloc_set(orr_renderer *r, VkDescriptorSet *set, VkDescriptorPool *pool)
{
    orri_textures *tx = &r->textures;
    VkDescriptorSetAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, .descriptorSetCount = 1, .pSetLayouts = &tx->layout};
    /* newest pool first; a full (or fragmented) pool answers with an error and the next is tried */
    for (uint32_t i = tx->pool_count; i-- > 0;) {
        ai.descriptorPool = tx->pools[i];
        if (vkAllocateDescriptorSets(r->device, &ai, set) == VK_SUCCESS) {
            *pool = tx->pools[i];
            return ORR_OK;
        }
    }
    if (!ORRI_GROW(&r->allocator, tx->pools, tx->pool_capacity, tx->pool_count + 1))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for texture descriptor pools");
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, SETS_PER_POOL};
    VkDescriptorPoolCreateInfo pi = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT,
        .maxSets = SETS_PER_POOL,
        .poolSizeCount = 1,
        .pPoolSizes = &size,
    };
    VkDescriptorPool fresh;
    ORRI_VK(r, vkCreateDescriptorPool(r->device, &pi, NULL, &fresh));
    tx->pools[tx->pool_count++] = fresh;
    ai.descriptorPool = fresh;
    ORRI_VK(r, vkAllocateDescriptorSets(r->device, &ai, set));
    *pool = fresh;
    return ORR_OK;
}

static void write_set(orr_renderer *r, VkDescriptorSet set, VkImageView view, VkSampler sampler)
{
    VkDescriptorImageInfo ii = {sampler, view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    VkWriteDescriptorSet w = {
        .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
        .dstSet = set,
        .dstBinding = 0,
        .descriptorCount = 1,
        .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
        .pImageInfo = &ii,
    };
    vkUpdateDescriptorSets(r->device, 1, &w, 0, NULL);
}

static void barrier_levels(VkCommandBuffer cmd, VkImage image, uint32_t base, uint32_t count, VkPipelineStageFlags2 ss,
                           VkAccessFlags2 sa, VkPipelineStageFlags2 ds, VkAccessFlags2 da, VkImageLayout from,
                           VkImageLayout to)
{
    VkImageMemoryBarrier2 b = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
        .srcStageMask = ss,
        .srcAccessMask = sa,
        .dstStageMask = ds,
        .dstAccessMask = da,
        .oldLayout = from,
        .newLayout = to,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .image = image,
        .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, base, count, 0, 1},
    };
    VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = 1, .pImageMemoryBarriers = &b};
    vkCmdPipelineBarrier2(cmd, &di);
}

/* Copies `rgba` (staged at `src`) into level 0 and fills the other levels with linear blits. */
static void record_upload(VkCommandBuffer cmd, VkBuffer staging, VkDeviceSize src, const orri_image *img)
{
    barrier_levels(cmd, img->image, 0, img->levels, VK_PIPELINE_STAGE_2_NONE, 0, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                   VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    VkBufferImageCopy copy = {
        .bufferOffset = src,
        .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
        .imageExtent = {img->width, img->height, 1},
    };
    vkCmdCopyBufferToImage(cmd, staging, img->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copy);
    for (uint32_t i = 1; i < img->levels; i++) {
        barrier_levels(cmd, img->image, i - 1, 1, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                       VK_PIPELINE_STAGE_2_BLIT_BIT, VK_ACCESS_2_TRANSFER_READ_BIT,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        int32_t sw = (int32_t)(img->width >> (i - 1)), sh = (int32_t)(img->height >> (i - 1));
        int32_t dw = (int32_t)(img->width >> i), dh = (int32_t)(img->height >> i);
        VkImageBlit blit = {
            .srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, i - 1, 0, 1},
            .srcOffsets = {{0, 0, 0}, {sw ? sw : 1, sh ? sh : 1, 1}},
            .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, i, 0, 1},
            .dstOffsets = {{0, 0, 0}, {dw ? dw : 1, dh ? dh : 1, 1}},
        };
        vkCmdBlitImage(cmd, img->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, img->image,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, VK_FILTER_LINEAR);
    }
    if (img->levels > 1)
        barrier_levels(cmd, img->image, 0, img->levels - 1, VK_PIPELINE_STAGE_2_BLIT_BIT, VK_ACCESS_2_TRANSFER_READ_BIT,
                       VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT,
                       VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    barrier_levels(cmd, img->image, img->levels - 1, 1, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                   VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                   VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                   VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
}

static bool can_blit(const orr_renderer *r, VkFormat format)
{
    VkFormatProperties fp;
    vkGetPhysicalDeviceFormatProperties(r->physical, format, &fp);
    VkFormatFeatureFlags need = VK_FORMAT_FEATURE_BLIT_SRC_BIT | VK_FORMAT_FEATURE_BLIT_DST_BIT |
                                VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT;
    return (fp.optimalTilingFeatures & need) == need;
}

orr_result orri_textures_init(orr_renderer *r)
{
    orri_textures *tx = &r->textures;
    VkDescriptorSetLayoutBinding b = {0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo li = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = 1, .pBindings = &b};
    ORRI_VK(r, vkCreateDescriptorSetLayout(r->device, &li, NULL, &tx->layout));
    tx->blit[0] = can_blit(r, VK_FORMAT_R8G8B8A8_UNORM);
    tx->blit[1] = can_blit(r, VK_FORMAT_R8G8B8A8_SRGB);
    return ORR_OK;
}

/* The white texture, uploaded once with its own command buffer at creation. */
orr_result orri_textures_create_white(orr_renderer *r)
{
    orri_textures *tx = &r->textures;
    ORRI_TRY(orri_image_create_levels(r, 1, 1, 1, VK_FORMAT_R8G8B8A8_UNORM,
                                      VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                      VK_IMAGE_ASPECT_COLOR_BIT, "white texture", &tx->white));
    orr_sampler nearest = {.mag_filter = ORR_FILTER_NEAREST, .min_filter = ORR_FILTER_NEAREST};
    VkSampler sampler = VK_NULL_HANDLE;
    ORRI_TRY(get_sampler(r, &nearest, &sampler));
    ORRI_TRY(alloc_set(r, &tx->white_set, &tx->white_pool));
    write_set(r, tx->white_set, tx->white.view, sampler);

    orri_buffer staging;
    ORRI_TRY(orri_buffer_create(r, 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true, "white texture staging", &staging));
    memset(staging.map, 0xff, 4);
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkCommandBufferAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = r->command_pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    VkResult res = vkAllocateCommandBuffers(r->device, &ai, &cmd);
    VkCommandBufferBeginInfo bi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    if (res == VK_SUCCESS) res = vkBeginCommandBuffer(cmd, &bi);
    if (res == VK_SUCCESS) {
        record_upload(cmd, staging.buffer, 0, &tx->white);
        res = vkEndCommandBuffer(cmd);
    }
    if (res == VK_SUCCESS) {
        VkCommandBufferSubmitInfo ci = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cmd};
        VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .commandBufferInfoCount = 1, .pCommandBufferInfos = &ci};
        res = vkQueueSubmit2(r->queue, 1, &si, VK_NULL_HANDLE);
    }
    if (res == VK_SUCCESS) res = vkQueueWaitIdle(r->queue);
    if (cmd) vkFreeCommandBuffers(r->device, r->command_pool, 1, &cmd);
    orri_buffer_destroy(r, &staging);
    if (res != VK_SUCCESS)
        return orri_gpu_fail(r, ORR_ERROR_VULKAN, "uploading the white texture failed: %s", orri_vk_result_name(res));
    return ORR_OK;
}

static void release_texture(orr_renderer *r, orri_resident_texture *t, uint64_t last_use)
{
    orri_retire_image(r, &t->image, last_use);
    if (t->set) orri_retire_set(r, t->pool, t->set, last_use);
    memset(t, 0, sizeof *t);
}

void orri_textures_release(orr_renderer *r, uint64_t last_use)
{
    orri_textures *tx = &r->textures;
    for (uint32_t i = 0; i < tx->capacity; i++)
        if (tx->items[i].generation) release_texture(r, &tx->items[i], last_use);
    tx->pending_count = 0;
}

orr_result orri_textures_request(orr_renderer *r, const orr_assets *assets, orr_texture_id id)
{
    orri_textures *tx = &r->textures;
    if (ORR_ID_IS_NONE(id)) return ORR_OK;
    const orr_texture *src = orr_assets_get_texture(assets, id);
    if (!src || !src->rgba8 || !src->width || !src->height) return ORR_OK; /* drawn untextured */
    if (id.index < tx->capacity && tx->items[id.index].generation == id.generation) return ORR_OK;
    if (id.index >= tx->capacity) {
        uint32_t cap = tx->capacity;
        if (!ORRI_GROW(&r->allocator, tx->items, cap, id.index + 1))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for texture residency");
        tx->capacity = cap;
    }
    if (!ORRI_GROW(&r->allocator, tx->pending, tx->pending_capacity, tx->pending_count + 1))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for texture residency");
    orri_resident_texture *t = &tx->items[id.index];
    release_texture(r, t, r->frame_number); /* an older texture at this index */
    bool srgb = src->color_space == ORR_COLOR_SPACE_SRGB;
    VkFormat format = srgb ? VK_FORMAT_R8G8B8A8_SRGB : VK_FORMAT_R8G8B8A8_UNORM;
    uint32_t levels = 1;
    if (src->sampler.mipmaps && tx->blit[srgb ? 1 : 0]) {
        uint32_t m = src->width > src->height ? src->width : src->height;
        while (m > 1) {
            m >>= 1;
            levels++;
        }
    }
    orr_sampler sampler_desc = src->sampler;
    if (levels == 1) sampler_desc.mipmaps = false;
    VkSampler sampler = VK_NULL_HANDLE;
    ORRI_TRY(get_sampler(r, &sampler_desc, &sampler));
    ORRI_TRY(orri_image_create_levels(r, src->width, src->height, levels, format,
                                      VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                          VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                      VK_IMAGE_ASPECT_COLOR_BIT, "texture", &t->image));
    orr_result rc = alloc_set(r, &t->set, &t->pool);
    if (rc != ORR_OK) {
        orri_image_destroy(r, &t->image);
        return rc;
    }
    write_set(r, t->set, t->image.view, sampler);
    t->generation = id.generation;
    tx->pending[tx->pending_count++] = id;
    return ORR_OK;
}

uint64_t orri_textures_plan(const orr_renderer *r, const orr_assets *assets)
{
    const orri_textures *tx = &r->textures;
    uint64_t bytes = 0;
    for (uint32_t k = 0; k < tx->pending_count; k++) {
        const orr_texture *src = orr_assets_get_texture(assets, tx->pending[k]);
        if (src) bytes += (uint64_t)src->width * src->height * 4 + r->frame_align;
    }
    return bytes;
}

orr_result orri_textures_upload(orr_renderer *r, const orr_assets *assets, orri_upload *up)
{
    orri_textures *tx = &r->textures;
    for (uint32_t k = 0; k < tx->pending_count; k++) {
        orr_texture_id id = tx->pending[k];
        const orr_texture *src = orr_assets_get_texture(assets, id);
        orri_resident_texture *t = &tx->items[id.index];
        if (!src || t->generation != id.generation || t->image.width != src->width || t->image.height != src->height)
            continue;
        VkDeviceSize bytes = (VkDeviceSize)src->width * src->height * 4, off;
        ORRI_TRY(orri_frame_alloc(r, up->frame, bytes, &off));
        memcpy((uint8_t *)up->frame->data.map + off, src->rgba8, bytes);
        record_upload(up->cmd, up->frame->data.buffer, off, &t->image);
        up->bytes += bytes;
    }
    return ORR_OK; /* the textures stay pending until orri_textures_commit */
}

void orri_textures_commit(orr_renderer *r) { r->textures.pending_count = 0; }

VkDescriptorSet orri_textures_set(const orr_renderer *r, const orr_assets *assets, orr_material_id material)
{
    const orri_textures *tx = &r->textures;
    const orr_material *m = orr_assets_get_material(assets, material);
    if (!m) return tx->white_set;
    orr_texture_id id = m->base_color_texture.texture;
    if (ORR_ID_IS_NONE(id) || id.index >= tx->capacity || tx->items[id.index].generation != id.generation)
        return tx->white_set;
    return tx->items[id.index].set;
}

void orri_textures_fini(orr_renderer *r)
{
    orri_textures *tx = &r->textures;
    for (uint32_t i = 0; i < tx->capacity; i++) {
        orri_image_destroy(r, &tx->items[i].image); /* sets go with their pools */
    }
    orri_image_destroy(r, &tx->white);
    for (uint32_t i = 0; i < tx->pool_count; i++) vkDestroyDescriptorPool(r->device, tx->pools[i], NULL);
    for (uint32_t i = 0; i < ORRI_SAMPLER_KINDS; i++)
        if (tx->samplers[i]) vkDestroySampler(r->device, tx->samplers[i], NULL);
    if (tx->layout) vkDestroyDescriptorSetLayout(r->device, tx->layout, NULL);
    orri_free(&r->allocator, tx->items, sizeof *tx->items * tx->capacity);
    orri_free(&r->allocator, tx->pending, sizeof *tx->pending * tx->pending_capacity);
    orri_free(&r->allocator, tx->pools, sizeof *tx->pools * tx->pool_capacity);
    memset(tx, 0, sizeof *tx);
}
