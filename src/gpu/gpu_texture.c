/* Textures: residency by texture id (uploaded the first frame a material needs it), mip chains built
 * on the CPU in linear space, a cache of samplers, and the way materials reach them (set 1), chosen at
 * device creation:
 *   array  where the device indexes arrays of sampled images dynamically: one array of combined image
 *          samplers, texture id index i at element i + 1 and a 1x1 white image at element 0, indexed by
 *          the material record's slots (uniform per draw). One descriptor set per frame slot, bound once
 *          per view: the texture is not part of a batch's drawing state, so an indirect pass is one
 *          multi-draw whatever the textures. A set is written only between its frame's fence and its
 *          recording (the texture elements that changed since, kept per frame slot).
 *   sets   otherwise (lavapipe): a descriptor set per material with its five slots (white where a slot
 *          has none), bound per batch; a material whose textures change gets a new set, the old one
 *          retired after the frames in flight.
 * A target texture (orr_texture.target_key) shows the colour image of the renderer's texture target
 * with its key (gpu_texture_target.c): resident while that target lives, with the target's image (not
 * its own, never uploaded), released when the target goes or is remade; white without one.
 * Mip levels: each level from the one above by a 2x2 box (clamped at odd edges); sRGB texels are
 * decoded to linear first and encoded again, linear ones (normal, metallic-roughness, occlusion maps)
 * averaged as they are. Done here rather than with blits, so that every device gets the same levels. */
#include "gpu/gpu_texture.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_resource.h"
#include "gpu/gpu_upload.h"

#include <math.h>
#include <string.h>

#define SETS_PER_POOL 64u
#define MAX_ARRAY_SLOTS 16384u

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
        r->objects_epoch++;
        ORRI_VK(r, vkCreateSampler(r->device, &si, NULL, &tx->samplers[key]));
    }
    *out = tx->samplers[key];
    return ORR_OK;
}

/* ---- descriptor sets ----------------------------------------------------------------------- */

static orr_result alloc_set(orr_renderer *r, VkDescriptorSet *set, VkDescriptorPool *pool)
{
    orri_textures *tx = &r->textures;
    r->objects_epoch++;
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
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, SETS_PER_POOL * ORR_GPU_TEXTURE_SLOTS};
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

/* ---- mip chains ------------------------------------------------------------------------------ */

static uint32_t levels_of(uint32_t w, uint32_t h)
{
    uint32_t m = w > h ? w : h, levels = 1;
    while (m > 1) {
        m >>= 1;
        levels++;
    }
    return levels;
}

static uint32_t level_dim(uint32_t d, uint32_t level)
{
    uint32_t v = d >> level;
    return v ? v : 1;
}

/* Bytes of every level of a w x h RGBA8 image with `levels` levels. */
static uint64_t chain_bytes(uint32_t w, uint32_t h, uint32_t levels)
{
    uint64_t n = 0;
    for (uint32_t l = 0; l < levels; l++) n += (uint64_t)level_dim(w, l) * level_dim(h, l) * 4;
    return n;
}

static uint8_t encode_srgb_exact(float linear)
{
    float c = linear <= 0.0f ? 0.0f : linear >= 1.0f ? 1.0f : linear;
    float s = c <= 0.0031308f ? c * 12.92f : 1.055f * powf(c, 1.0f / 2.4f) - 0.055f;
    return (uint8_t)(s * 255.0f + 0.5f);
}

/* Through the table of ORRI_SRGB_STEPS linear steps (each sRGB level spans 19 or more of them). */
static uint8_t encode_srgb(const orri_textures *tx, float linear)
{
    float c = linear <= 0.0f ? 0.0f : linear >= 1.0f ? 1.0f : linear;
    return tx->linear_to_srgb[(uint32_t)(c * (float)(ORRI_SRGB_STEPS - 1) + 0.5f)];
}

/* Rows [y_begin, y_end) of level `dst` (dw x dh) from `src` (sw x sh): each texel the mean of its 2x2
 * footprint, clamped at the edges of an odd or 1-wide level; colour channels of sRGB images averaged in
 * linear. */
static void downsample(const orri_textures *tx, const uint8_t *src, uint32_t sw, uint32_t sh, uint8_t *dst, uint32_t dw,
                       uint32_t y_begin, uint32_t y_end, bool srgb)
{
    for (uint32_t y = y_begin; y < y_end; y++) {
        uint32_t y0 = 2 * y < sh ? 2 * y : sh - 1, y1 = 2 * y + 1 < sh ? 2 * y + 1 : sh - 1;
        for (uint32_t x = 0; x < dw; x++) {
            uint32_t x0 = 2 * x < sw ? 2 * x : sw - 1, x1 = 2 * x + 1 < sw ? 2 * x + 1 : sw - 1;
            const uint8_t *p[4] = {src + ((size_t)y0 * sw + x0) * 4, src + ((size_t)y0 * sw + x1) * 4,
                                   src + ((size_t)y1 * sw + x0) * 4, src + ((size_t)y1 * sw + x1) * 4};
            uint8_t *o = dst + ((size_t)y * dw + x) * 4;
            for (int c = 0; c < 4; c++) {
                if (srgb && c < 3) {
                    float sum = tx->srgb_to_linear[p[0][c]] + tx->srgb_to_linear[p[1][c]] + tx->srgb_to_linear[p[2][c]] +
                                tx->srgb_to_linear[p[3][c]];
                    o[c] = encode_srgb(tx, sum * 0.25f);
                } else {
                    o[c] = (uint8_t)((p[0][c] + p[1][c] + p[2][c] + p[3][c] + 2) / 4);
                }
            }
        }
    }
}

/* A chain in bands: level 1 (three quarters of the work) in bands of rows, each from its own rows of
 * level 0, all at once across the textures; then each texture's smaller levels from its level 1. */
typedef struct mip_ctx {
    const orri_textures *tx;
    const orri_mip_job *jobs;
    uint32_t band_rows;
} mip_ctx;

static uint32_t bands_of(const orri_mip_job *j, uint32_t band_rows)
{
    uint32_t dh = level_dim(j->height, 1);
    return j->out && j->levels > 1 ? dh / band_rows + (dh % band_rows != 0) : 0;
}

static void level1_band(void *ctx, uint32_t i)
{
    const mip_ctx *c = ctx;
    const orri_mip_job *j = c->jobs;
    for (uint32_t n; i >= (n = bands_of(j, c->band_rows)); j++) i -= n; /* its texture: few in a frame */
    uint32_t dh = level_dim(j->height, 1), y = i * c->band_rows;
    downsample(c->tx, j->level0, j->width, j->height, j->out, level_dim(j->width, 1), y,
               dh - y < c->band_rows ? dh : y + c->band_rows, j->srgb);
}

static void lower_levels(void *ctx, uint32_t k)
{
    const mip_ctx *c = ctx;
    const orri_mip_job *j = &c->jobs[k];
    if (!j->out) return;
    const uint8_t *above = j->out;
    for (uint32_t l = 2; l < j->levels; l++) {
        uint32_t sw = level_dim(j->width, l - 1), sh = level_dim(j->height, l - 1);
        uint8_t *level = (uint8_t *)above + (size_t)sw * sh * 4;
        downsample(c->tx, above, sw, sh, level, level_dim(j->width, l), 0, level_dim(j->height, l), j->srgb);
        above = level;
    }
}

void orri_mip_build(const orri_textures *tx, const orri_mip_job *jobs, uint32_t count, uint32_t band_rows,
                    uint32_t threads, orr_workers *workers)
{
    mip_ctx c = {tx, jobs, band_rows ? band_rows : ORRI_MIP_BAND_ROWS};
    uint64_t bands = 0;
    for (uint32_t k = 0; k < count; k++) bands += bands_of(&jobs[k], c.band_rows);
    ORRI_ASSERT(bands <= UINT32_MAX, "orri_mip_build: %llu bands", (unsigned long long)bands);
    orri_pool_run(workers, threads, (uint32_t)bands, level1_band, &c);
    orri_pool_run(workers, threads, count, lower_levels, &c);
}

/* ---- uploads ------------------------------------------------------------------------------- */

/* Copies every level (staged one after the other at `src`) into the image, then makes it readable by
 * the fragment shader. */
static void record_upload(VkCommandBuffer cmd, VkBuffer staging, VkDeviceSize src, const orri_image *img)
{
    orri_barrier_levels(cmd, img->image, VK_IMAGE_ASPECT_COLOR_BIT, img->levels, VK_PIPELINE_STAGE_2_NONE, 0,
                        VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    VkBufferImageCopy copies[32];
    VkDeviceSize at = src;
    for (uint32_t l = 0; l < img->levels && l < 32; l++) {
        uint32_t w = level_dim(img->width, l), h = level_dim(img->height, l);
        copies[l] = (VkBufferImageCopy){
            .bufferOffset = at,
            .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l, 0, 1},
            .imageExtent = {w, h, 1},
        };
        at += (VkDeviceSize)w * h * 4;
    }
    vkCmdCopyBufferToImage(cmd, staging, img->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, img->levels, copies);
    /* SHADER_READ rather than its sync2 subset SHADER_SAMPLED_READ: the best-practices layer expects
     * the former with SHADER_READ_ONLY_OPTIMAL */
    orri_barrier_levels(cmd, img->image, VK_IMAGE_ASPECT_COLOR_BIT, img->levels, VK_PIPELINE_STAGE_2_COPY_BIT,
                        VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                        VK_ACCESS_2_SHADER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                        VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
}

/* ---- the texture array --------------------------------------------------------------------- */

/* Element `slot` of every frame slot's set is rewritten before that set's next use. */
static orr_result mark_slot(orr_renderer *r, uint32_t slot)
{
    orri_textures *tx = &r->textures;
    for (uint32_t f = 0; f < ORRI_FRAMES_IN_FLIGHT; f++) {
        if (!ORRI_GROW(&r->allocator, tx->dirty[f], tx->dirty_capacity[f], tx->dirty_count[f] + 1))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for texture array updates");
        tx->dirty[f][tx->dirty_count[f]++] = slot;
    }
    return ORR_OK;
}

/* What element `slot` shows now: its resident texture, or white. */
static VkDescriptorImageInfo slot_info(const orri_textures *tx, uint32_t slot)
{
    uint32_t index = slot - 1;
    if (slot > 0 && index < tx->capacity && tx->items[index].generation && tx->items[index].image.view)
        return (VkDescriptorImageInfo){tx->items[index].sampler, tx->items[index].image.view,
                                       VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    return (VkDescriptorImageInfo){tx->white_sampler, tx->white.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
}

static orr_result create_array(orr_renderer *r)
{
    orri_textures *tx = &r->textures;
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, tx->slots * ORRI_FRAMES_IN_FLIGHT};
    VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = ORRI_FRAMES_IN_FLIGHT, .poolSizeCount = 1, .pPoolSizes = &size};
    ORRI_VK(r, vkCreateDescriptorPool(r->device, &pi, NULL, &tx->array_pool));
    VkDescriptorSetLayout layouts[ORRI_FRAMES_IN_FLIGHT];
    for (uint32_t f = 0; f < ORRI_FRAMES_IN_FLIGHT; f++) layouts[f] = tx->layout;
    VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = tx->array_pool, .descriptorSetCount = ORRI_FRAMES_IN_FLIGHT,
                                      .pSetLayouts = layouts};
    ORRI_VK(r, vkAllocateDescriptorSets(r->device, &ai, tx->frame_sets));
    /* every element valid from the start: white */
    VkDescriptorImageInfo *infos = orri_alloc(&r->allocator, sizeof *infos * tx->slots);
    if (!infos) return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory writing the texture array");
    for (uint32_t i = 0; i < tx->slots; i++) infos[i] = slot_info(tx, 0);
    VkWriteDescriptorSet w[ORRI_FRAMES_IN_FLIGHT];
    for (uint32_t f = 0; f < ORRI_FRAMES_IN_FLIGHT; f++)
        w[f] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = tx->frame_sets[f],
                                      .descriptorCount = tx->slots,
                                      .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, .pImageInfo = infos};
    vkUpdateDescriptorSets(r->device, ORRI_FRAMES_IN_FLIGHT, w, 0, NULL);
    r->objects_epoch++; /* the frames' texture arrays were rewritten whole */
    orri_free(&r->allocator, infos, sizeof *infos * tx->slots);
    return ORR_OK;
}

void orri_textures_write_frame(orr_renderer *r, uint32_t frame_slot)
{
    orri_textures *tx = &r->textures;
    if (!tx->array) return;
    uint32_t n = tx->dirty_count[frame_slot];
    for (uint32_t k = 0; k < n; k++) { /* repeats write the same element twice: harmless, and rare */
        uint32_t slot = tx->dirty[frame_slot][k];
        VkDescriptorImageInfo info = slot_info(tx, slot);
        VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = tx->frame_sets[frame_slot],
                                  .dstArrayElement = slot, .descriptorCount = 1,
                                  .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, .pImageInfo = &info};
        vkUpdateDescriptorSets(r->device, 1, &w, 0, NULL);
    }
    tx->dirty_count[frame_slot] = 0;
}

void orri_textures_bind_frame(const orr_renderer *r, VkCommandBuffer cmd, uint32_t frame_slot)
{
    const orri_textures *tx = &r->textures;
    if (!tx->array) return;
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->pipeline_layout, 1, 1, &tx->frame_sets[frame_slot],
                            0, NULL);
}

/* ---- lifetime ------------------------------------------------------------------------------ */

orr_result orri_textures_init(orr_renderer *r, bool prefer_sets)
{
    orri_textures *tx = &r->textures;
    for (int i = 0; i < 256; i++) {
        float c = (float)i / 255.0f;
        tx->srgb_to_linear[i] = c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
    }
    for (uint32_t i = 0; i < ORRI_SRGB_STEPS; i++) tx->linear_to_srgb[i] = encode_srgb_exact((float)i / (ORRI_SRGB_STEPS - 1));
    const VkPhysicalDeviceLimits *lim = &r->properties.limits;
    uint32_t slots = lim->maxPerStageDescriptorSamplers;
    if (lim->maxPerStageDescriptorSampledImages < slots) slots = lim->maxPerStageDescriptorSampledImages;
    if (lim->maxDescriptorSetSamplers < slots) slots = lim->maxDescriptorSetSamplers;
    if (lim->maxDescriptorSetSampledImages < slots) slots = lim->maxDescriptorSetSampledImages;
    if (slots > MAX_ARRAY_SLOTS) slots = MAX_ARRAY_SLOTS;
    /* an array worth having: room for a scene's textures besides the white one */
    tx->array = r->sampled_image_dynamic_indexing && !prefer_sets && slots >= 256;
    tx->slots = tx->array ? slots : ORR_GPU_TEXTURE_SLOTS;
    VkDescriptorSetLayoutBinding b = {0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, tx->slots, VK_SHADER_STAGE_FRAGMENT_BIT,
                                      NULL};
    VkDescriptorSetLayoutCreateInfo li = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = 1, .pBindings = &b};
    ORRI_VK(r, vkCreateDescriptorSetLayout(r->device, &li, NULL, &tx->layout));
    return ORR_OK;
}

/* The white texture, uploaded once with its own command buffer at creation; then the array. */
orr_result orri_textures_create_white(orr_renderer *r)
{
    orri_textures *tx = &r->textures;
    ORRI_TRY(orri_image_create_levels(r, 1, 1, 1, VK_FORMAT_R8G8B8A8_UNORM,
                                      VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                      VK_IMAGE_ASPECT_COLOR_BIT, "white texture", &tx->white));
    orr_sampler nearest = {.mag_filter = ORR_FILTER_NEAREST, .min_filter = ORR_FILTER_NEAREST};
    ORRI_TRY(get_sampler(r, &nearest, &tx->white_sampler));

    orri_buffer staging;
    ORRI_TRY(orri_buffer_create(r, 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true, "white texture staging", &staging));
    memset(staging.map, 0xff, 4);
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkCommandBufferAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = r->frames[0].pool,
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
    if (cmd) vkFreeCommandBuffers(r->device, r->frames[0].pool, 1, &cmd);
    orri_buffer_destroy(r, &staging);
    if (res != VK_SUCCESS)
        return orri_gpu_fail(r, ORR_ERROR_VULKAN, "uploading the white texture failed: %s", orri_vk_result_name(res));
    if (tx->array) return create_array(r);
    const orr_texture_id none[ORR_GPU_TEXTURE_SLOTS] = {{0, 0}};
    uint32_t white = 0;
    return orri_textures_get_set(r, none, &white); /* entry 0, never put */
}

static orr_result release_texture(orr_renderer *r, uint32_t index, uint64_t last_use)
{
    orri_textures *tx = &r->textures;
    orri_resident_texture *t = &tx->items[index];
    bool had = t->generation != 0;
    if (!t->target) orri_retire_image(r, &t->image, last_use); /* a target's image is the target's */
    memset(t, 0, sizeof *t);
    /* the array's element goes back to white before either frame set is used again */
    if (had && tx->array && index + 1 < tx->slots) return mark_slot(r, index + 1);
    return ORR_OK;
}

void orri_textures_release(orr_renderer *r, uint64_t last_use)
{
    orri_textures *tx = &r->textures;
    for (uint32_t i = 0; i < tx->capacity; i++)
        if (tx->items[i].generation) (void)release_texture(r, i, last_use); /* out of memory: see mark_slot */
    tx->pending_count = 0;
    tx->removals = 0;
}

orr_result orri_textures_release_removed(orr_renderer *r, const orr_assets *assets)
{
    orri_textures *tx = &r->textures;
    uint64_t removals = orr_assets_removals(assets);
    if (removals == tx->removals) return ORR_OK;
    tx->removals = removals;
    for (uint32_t i = 0; i < tx->capacity; i++) {
        orri_resident_texture *t = &tx->items[i];
        if (!t->generation || orr_assets_try_get_texture(assets, (orr_texture_id){i, t->generation})) continue;
        uint32_t kept = 0; /* not uploaded by any frame yet: nothing will */
        for (uint32_t k = 0; k < tx->pending_count; k++)
            if (tx->pending[k].index != i) tx->pending[kept++] = tx->pending[k];
        tx->pending_count = kept;
        ORRI_TRY(release_texture(r, i, r->frame_number));
    }
    return ORR_OK;
}

static bool usable(const orr_texture *src) { return src && src->rgba8 && src->width && src->height; }

/* Room for texture `id` in the residency table (and in the array: false, logged once, when it lies
 * beyond it; the materials that name it then draw as if untextured). */
static orr_result make_room(orr_renderer *r, orr_texture_id id, bool *fits)
{
    orri_textures *tx = &r->textures;
    *fits = false;
    if (tx->array && id.index + 1 >= tx->slots) {
        if (!tx->overflow_logged)
            orri_log(&r->logger, ORR_LOG_WARNING,
                     "gpu: texture %u is beyond this device's texture array of %u; materials draw it as white",
                     id.index, tx->slots - 1);
        tx->overflow_logged = true;
        return ORR_OK;
    }
    if (id.index >= tx->capacity) {
        uint32_t cap = tx->capacity;
        if (!ORRI_GROW(&r->allocator, tx->items, cap, id.index + 1))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for texture residency");
        tx->capacity = cap;
    }
    *fits = true;
    return ORR_OK;
}

/* A target texture: its texture target's colour image while that target lives (remade: the new one),
 * else nothing (white). */
static orr_result request_target(orr_renderer *r, orr_texture_id id, const orr_texture *src)
{
    orri_textures *tx = &r->textures;
    const orri_target *t = orri_texture_target_find(r, src->target_key);
    if (t && !t->sampled.view) t = NULL; /* its image could not be remade: white */
    bool held = id.index < tx->capacity && tx->items[id.index].generation == id.generation;
    if (!t) return held ? release_texture(r, id.index, r->frame_number) : ORR_OK;
    uint32_t target = (uint32_t)(t - r->targets) + 1;
    if (held && tx->items[id.index].target == target && tx->items[id.index].image.view == t->sampled.view) return ORR_OK;
    bool fits;
    ORRI_TRY(make_room(r, id, &fits));
    if (!fits) return ORR_OK;
    ORRI_TRY(release_texture(r, id.index, r->frame_number)); /* an older texture at this index */
    orri_resident_texture *item = &tx->items[id.index];
    orr_sampler sampler_desc = src->sampler;
    sampler_desc.mipmaps = false; /* one level */
    ORRI_TRY(get_sampler(r, &sampler_desc, &item->sampler));
    if (tx->array) ORRI_TRY(mark_slot(r, id.index + 1));
    item->image = t->sampled;
    item->target = target;
    item->generation = id.generation;
    return ORR_OK;
}

orri_target *orri_texture_target_find(orr_renderer *r, uint64_t key)
{
    if (!key || !r->texture_targets.live) return NULL;
    for (uint32_t i = 0; i < r->target_capacity; i++)
        if (r->targets[i].alive && r->targets[i].desc.texture_key == key) return &r->targets[i];
    return NULL;
}

orr_result orri_textures_release_target(orr_renderer *r, uint32_t target)
{
    orri_textures *tx = &r->textures;
    for (uint32_t i = 0; i < tx->capacity; i++)
        if (tx->items[i].generation && tx->items[i].target == target + 1) ORRI_TRY(release_texture(r, i, r->frame_number));
    return ORR_OK;
}

orr_result orri_textures_request(orr_renderer *r, const orr_assets *assets, orr_texture_id id)
{
    orri_textures *tx = &r->textures;
    if (orr_id_is_none(id)) return ORR_OK;
    const orr_texture *src = orr_assets_try_get_texture(assets, id);
    if (src && src->target_key) return request_target(r, id, src);
    if (!usable(src)) return ORR_OK; /* drawn as white */
    if (id.index < tx->capacity && tx->items[id.index].generation == id.generation) return ORR_OK;
    bool fits;
    ORRI_TRY(make_room(r, id, &fits));
    if (!fits) return ORR_OK;
    if (!ORRI_GROW(&r->allocator, tx->pending, tx->pending_capacity, tx->pending_count + 1))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for texture residency");
    ORRI_TRY(release_texture(r, id.index, r->frame_number)); /* an older texture at this index */
    orri_resident_texture *t = &tx->items[id.index];
    bool srgb = src->color_space == ORR_COLOR_SPACE_SRGB;
    uint32_t levels = src->sampler.mipmaps ? levels_of(src->width, src->height) : 1;
    orr_sampler sampler_desc = src->sampler;
    if (levels == 1) sampler_desc.mipmaps = false;
    ORRI_TRY(get_sampler(r, &sampler_desc, &t->sampler));
    ORRI_TRY(orri_image_create_levels(r, src->width, src->height, levels,
                                      srgb ? VK_FORMAT_R8G8B8A8_SRGB : VK_FORMAT_R8G8B8A8_UNORM,
                                      VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                      VK_IMAGE_ASPECT_COLOR_BIT, "texture", &t->image));
    if (tx->array) {
        orr_result rc = mark_slot(r, id.index + 1);
        if (rc != ORR_OK) {
            orri_image_destroy(r, &t->image);
            return rc;
        }
    }
    t->generation = id.generation;
    tx->pending[tx->pending_count++] = id;
    return ORR_OK;
}

bool orri_textures_resident(const orr_renderer *r, orr_texture_id id)
{
    const orri_textures *tx = &r->textures;
    return !orr_id_is_none(id) && id.index < tx->capacity && tx->items[id.index].generation == id.generation &&
           (!tx->array || id.index + 1 < tx->slots);
}

uint32_t orri_textures_index(const orr_renderer *r, orr_texture_id id)
{
    return r->textures.array && orri_textures_resident(r, id) ? id.index + 1 : ORR_GPU_WHITE_TEXTURE;
}

uint64_t orri_textures_plan(const orr_renderer *r, const orr_assets *assets)
{
    const orri_textures *tx = &r->textures;
    uint64_t bytes = 0;
    for (uint32_t k = 0; k < tx->pending_count; k++) {
        const orr_texture *src = orr_assets_try_get_texture(assets, tx->pending[k]);
        const orri_resident_texture *t = &tx->items[tx->pending[k].index];
        if (src) bytes += chain_bytes(src->width, src->height, t->image.levels ? t->image.levels : 1) + r->frame_align;
    }
    return bytes;
}

/* Bytes of the levels below the first. */
static size_t below_bytes(uint32_t w, uint32_t h, uint32_t levels)
{
    return (size_t)(chain_bytes(w, h, levels) - (uint64_t)w * h * 4);
}

/* The pending texture k's pixels, when it is still the texture its image was made for. */
static const orr_texture *upload_source(const orri_textures *tx, const orr_assets *assets, uint32_t k)
{
    orr_texture_id id = tx->pending[k];
    const orr_texture *src = orr_assets_try_get_texture(assets, id);
    const orri_resident_texture *t = &tx->items[id.index];
    return usable(src) && t->generation == id.generation && t->image.width == src->width &&
                   t->image.height == src->height ? src : NULL;
}

/* The chains' bytes into the staging buffer, in pieces of ORRI_STAGE_PIECE: piece i of the job whose
 * pieces it falls in, from its level 0 and the levels below (a piece may take from both). */
static size_t staged_bytes(const orri_mip_job *j) { return j->staged ? (size_t)chain_bytes(j->width, j->height, j->levels) : 0; }

static size_t pieces_of(size_t bytes) { return bytes / ORRI_STAGE_PIECE + (bytes % ORRI_STAGE_PIECE != 0); }

static void stage_piece(void *ctx, uint32_t i)
{
    const orri_mip_job *j = ctx;
    for (size_t n; i >= (n = pieces_of(staged_bytes(j))); j++) i -= (uint32_t)n; /* its job: few in a frame */
    size_t bytes = staged_bytes(j), level0 = (size_t)j->width * j->height * 4, at = (size_t)i * ORRI_STAGE_PIECE;
    size_t end = bytes - at < ORRI_STAGE_PIECE ? bytes : at + ORRI_STAGE_PIECE;
    if (at < level0) memcpy(j->staged + at, j->level0 + at, (end < level0 ? end : level0) - at);
    if (end > level0) {
        size_t from = at > level0 ? at : level0;
        memcpy(j->staged + from, j->out + (from - level0), end - from);
    }
}

void orri_mip_stage(const orri_mip_job *jobs, uint32_t count, uint32_t threads, orr_workers *workers)
{
    uint64_t pieces = 0;
    for (uint32_t k = 0; k < count; k++) pieces += pieces_of(staged_bytes(&jobs[k]));
    ORRI_ASSERT(pieces <= UINT32_MAX, "orri_mip_stage: %llu pieces", (unsigned long long)pieces);
    orri_pool_run(workers, threads, (uint32_t)pieces, stage_piece, (void *)jobs);
}

orr_result orri_textures_upload(orr_renderer *r, const orr_assets *assets, orri_upload *up)
{
    orri_textures *tx = &r->textures;
    uint32_t n = tx->pending_count;
    if (!n) return ORR_OK;
    /* every pending texture's levels below the first are made in host memory (the staging buffer may
     * be write-combined: never read back from it), all at once on the workers; then the chains are
     * placed in the staging buffer and their copies recorded in order, and their bytes copied there
     * on the workers again */
    orri_mip_job *jobs = orri_alloc(&r->allocator, (size_t)n * sizeof *jobs);
    if (!jobs) return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory building mipmaps");
    orr_result rc = ORR_OK;
    uint64_t staged = 0;
    for (uint32_t k = 0; k < n && rc == ORR_OK; k++) {
        const orr_texture *src = upload_source(tx, assets, k);
        if (!src) continue;
        uint32_t levels = tx->items[tx->pending[k].index].image.levels;
        jobs[k] = (orri_mip_job){src->rgba8, src->width, src->height, levels, src->color_space == ORR_COLOR_SPACE_SRGB};
        staged += chain_bytes(src->width, src->height, levels);
        if (levels < 2) continue;
        jobs[k].out = r->allocator.realloc(r->allocator.user, NULL, 0, below_bytes(src->width, src->height, levels));
        if (!jobs[k].out) rc = orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory building mipmaps");
    }
    uint32_t threads = staged >= ORRI_UPLOAD_SHARED_BYTES ? r->mip_threads : 1;
    orr_workers *workers = r->mip_workers, *started = NULL;
    if (rc == ORR_OK && threads > 1 && !workers &&
        orr_workers_create(&(orr_workers_desc){.threads = threads, .allocator = r->allocator}, &started, NULL) == ORR_OK)
        workers = started; /* one start for every run here (else each would start its own) */
    if (rc == ORR_OK) orri_mip_build(tx, jobs, n, 0, threads, workers);
    for (uint32_t k = 0; k < n && rc == ORR_OK; k++) {
        if (!jobs[k].level0) continue;
        const orri_image *img = &tx->items[tx->pending[k].index].image;
        VkDeviceSize bytes = chain_bytes(img->width, img->height, img->levels), off;
        if ((rc = orri_frame_alloc(r, up->frame, bytes, &off)) != ORR_OK) break;
        if ((rc = orri_upload_begin(r, up)) != ORR_OK) break;
        jobs[k].staged = (uint8_t *)up->frame->data.map + off;
        record_upload(up->cmd, up->frame->data.buffer, off, img);
        up->bytes += bytes;
    }
    if (rc == ORR_OK) orri_mip_stage(jobs, n, threads, workers);
    orr_workers_destroy(started);
    for (uint32_t k = 0; k < n; k++)
        if (jobs[k].out) orri_free(&r->allocator, jobs[k].out, below_bytes(jobs[k].width, jobs[k].height, jobs[k].levels));
    orri_free(&r->allocator, jobs, (size_t)n * sizeof *jobs);
    return rc; /* the textures stay pending until orri_textures_commit */
}

void orri_textures_commit(orr_renderer *r) { r->textures.pending_count = 0; }

static orr_result new_set(orr_renderer *r, const orr_texture_id ids[ORR_GPU_TEXTURE_SLOTS], orri_texture_set *e)
{
    orri_textures *tx = &r->textures;
    ORRI_TRY(alloc_set(r, &e->set, &e->pool));
    VkDescriptorImageInfo infos[ORR_GPU_TEXTURE_SLOTS];
    for (uint32_t k = 0; k < ORR_GPU_TEXTURE_SLOTS; k++) {
        infos[k] = slot_info(tx, orr_id_is_none(ids[k]) ? 0 : ids[k].index + 1);
        e->views[k] = infos[k].imageView;
    }
    VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = e->set, .dstBinding = 0,
                              .descriptorCount = ORR_GPU_TEXTURE_SLOTS,
                              .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, .pImageInfo = infos};
    vkUpdateDescriptorSets(r->device, 1, &w, 0, NULL);
    memcpy(e->shown, ids, sizeof e->shown);
    return ORR_OK;
}

orr_result orri_textures_get_set(orr_renderer *r, const orr_texture_id ids[ORR_GPU_TEXTURE_SLOTS], uint32_t *entry)
{
    orri_textures *tx = &r->textures;
    uint32_t free_entry = UINT32_MAX;
    for (uint32_t i = 0; i < tx->set_count; i++) { /* materials with textures are few */
        orri_texture_set *e = &tx->sets[i];
        if (!e->set) {
            if (free_entry == UINT32_MAX) free_entry = i;
            continue;
        }
        if (orri_textures_set_shows(r, i, ids)) {
            e->refs++;
            *entry = i;
            return ORR_OK;
        }
    }
    if (free_entry == UINT32_MAX) {
        if (!ORRI_GROW(&r->allocator, tx->sets, tx->set_capacity, tx->set_count + 1))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for material texture sets");
        free_entry = tx->set_count;
    }
    orri_texture_set *e = &tx->sets[free_entry];
    memset(e, 0, sizeof *e);
    ORRI_TRY(new_set(r, ids, e));
    if (free_entry == tx->set_count) tx->set_count++;
    e->refs = 1;
    *entry = free_entry;
    return ORR_OK;
}

void orri_textures_put_set(orr_renderer *r, uint32_t entry)
{
    orri_textures *tx = &r->textures;
    if (entry == 0 || entry >= tx->set_count || !tx->sets[entry].set) return; /* the white one stays */
    orri_texture_set *e = &tx->sets[entry];
    if (--e->refs) return;
    /* a retirement cannot fail for lack of room: it then waits for the GPU and frees now */
    (void)orri_retire_set(r, e->pool, e->set, r->frame_number);
    memset(e, 0, sizeof *e);
}

bool orri_textures_set_shows(const orr_renderer *r, uint32_t entry, const orr_texture_id ids[ORR_GPU_TEXTURE_SLOTS])
{
    const orri_textures *tx = &r->textures;
    if (entry >= tx->set_count || !tx->sets[entry].set) return false;
    const orri_texture_set *e = &tx->sets[entry];
    if (memcmp(e->shown, ids, sizeof e->shown) != 0) return false;
    for (uint32_t k = 0; k < ORR_GPU_TEXTURE_SLOTS; k++)
        if (slot_info(tx, orr_id_is_none(ids[k]) ? 0 : ids[k].index + 1).imageView != e->views[k]) return false;
    return true;
}

VkDescriptorSet orri_textures_set(const orr_renderer *r, uint32_t entry)
{
    const orri_textures *tx = &r->textures;
    return entry < tx->set_count ? tx->sets[entry].set : VK_NULL_HANDLE;
}

void orri_textures_fini(orr_renderer *r)
{
    orri_textures *tx = &r->textures;
    for (uint32_t i = 0; i < tx->capacity; i++) /* sets go with their pools; targets' images are theirs */
        if (!tx->items[i].target) orri_image_destroy(r, &tx->items[i].image);
    orri_image_destroy(r, &tx->white);
    for (uint32_t i = 0; i < tx->pool_count; i++) vkDestroyDescriptorPool(r->device, tx->pools[i], NULL);
    if (tx->array_pool) vkDestroyDescriptorPool(r->device, tx->array_pool, NULL);
    for (uint32_t i = 0; i < ORRI_SAMPLER_KINDS; i++)
        if (tx->samplers[i]) vkDestroySampler(r->device, tx->samplers[i], NULL);
    if (tx->layout) vkDestroyDescriptorSetLayout(r->device, tx->layout, NULL);
    orri_free(&r->allocator, tx->items, sizeof *tx->items * tx->capacity);
    orri_free(&r->allocator, tx->pending, sizeof *tx->pending * tx->pending_capacity);
    orri_free(&r->allocator, tx->pools, sizeof *tx->pools * tx->pool_capacity);
    orri_free(&r->allocator, tx->sets, sizeof *tx->sets * tx->set_capacity); /* the sets went with the pools */
    for (uint32_t f = 0; f < ORRI_FRAMES_IN_FLIGHT; f++)
        orri_free(&r->allocator, tx->dirty[f], sizeof *tx->dirty[f] * tx->dirty_capacity[f]);
    memset(tx, 0, sizeof *tx);
}
