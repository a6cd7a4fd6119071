/* Occlusion culling on the GPU, in two phases, per view.
 *
 * An occluding view keeps, from frame to frame, a visibility bit per item of its cull (the surfaces
 * before the transparent pass) and a depth pyramid at its size. Each frame:
 *   phase 1  the cull (orri_cull_record_view, count stage of shaders/cull.comp with occlusion.glsl) keeps
 *            the items in the frustum that were visible the frame before; they are drawn with the view's
 *            own pipelines into its depth alone (no colour attachment bound);
 *   pyramid  shaders/pyramid.comp: level 0 is half the view's size rounded up, each texel the farthest
 *            depth of the 2 x 2 pixels under it, each level the same of the one below, down to 1 x 1;
 *   phase 2  the cull keeps the items in the frustum whose box the pyramid does not hide, and writes
 *            them as the next frame's bits; the view's draw then draws them, loading phase 1's depth.
 * Why phase 2 draws everything it keeps, not only what phase 1 did not: the view's draw is then the
 * same draws in the same order as without occlusion, less surfaces that cannot reach a pixel (every
 * fragment of a hidden item lies behind depth that phase 2 draws again), so the image is the same
 * bytes, ties between surfaces at equal depth included; phase 1's depth only lets its fragments stop
 * early. A first frame (or new bits) draws nothing in phase 1: nothing is hidden, all is drawn.
 * Each view has its own pyramid and bits: views that share nothing share no occlusion state. */
#include "gpu/gpu_occlusion.h"
#include "gpu/gpu_cull.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_indexed.h"
#include "gpu/gpu_pipeline.h"
#include "gpu/gpu_resource.h"
#include "gpu/gpu_technique.h"
#include "gpu/gpu_upload.h"

#include <string.h>

extern const uint32_t orri_spv_pyramid_comp[];
extern const size_t orri_spv_pyramid_comp_size;

#define PYRAMID_FORMAT VK_FORMAT_R32_SFLOAT
#define SETS_PER_SLOT (1u + ORR_GPU_PYRAMID_MAX_LEVELS) /* the cull's set 1, then one per level */

typedef struct orri_occlusion_view {
    orri_buffer words;            /* counters, then a bit per item */
    uint32_t items;               /* the items its bits are for */
    const orri_draws *draws;      /* and their scene */
    bool zero;                    /* its bits are new: zeroed by this frame's uploads */
    orri_image pyramid;           /* levels x R32 float, level 0 a power of two per side at least half the
                                     view's (so that its levels hold the halvings rounded up: the
                                     texels past those are never written nor read) */
    bool pyramid_fresh;           /* made this frame: its layout set by this frame's uploads */
    VkImageView levels[ORR_GPU_PYRAMID_MAX_LEVELS];
    uint32_t level_count, view_width, view_height; /* and the view size it is for */
    VkDescriptorPool pool;        /* its own: the sets below */
    VkDescriptorSet sets[ORRI_FRAMES_IN_FLIGHT][SETS_PER_SLOT];
} orri_occlusion_view;

orr_result orri_occlusion_init(orr_renderer *r)
{
    orri_occlusion *o = &r->occlusion;
    VkDescriptorSetLayoutBinding cb[3] = {
        {0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {2, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
    };
    VkDescriptorSetLayoutCreateInfo li = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = 3, .pBindings = cb};
    ORRI_VK(r, vkCreateDescriptorSetLayout(r->device, &li, NULL, &o->cull_layout));
    VkDescriptorSetLayoutBinding pb[2] = {
        {0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
    };
    li.bindingCount = 2;
    li.pBindings = pb;
    ORRI_VK(r, vkCreateDescriptorSetLayout(r->device, &li, NULL, &o->pyramid_layout));
    VkPushConstantRange push = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 32};
    VkPipelineLayoutCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                     .pSetLayouts = &o->pyramid_layout, .pushConstantRangeCount = 1,
                                     .pPushConstantRanges = &push};
    ORRI_VK(r, vkCreatePipelineLayout(r->device, &pi, NULL, &o->pyramid_pipeline_layout));
    VkSamplerCreateInfo si = {
        .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
        .magFilter = VK_FILTER_NEAREST,
        .minFilter = VK_FILTER_NEAREST,
        .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
        .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .maxLod = VK_LOD_CLAMP_NONE,
    };
    ORRI_VK(r, vkCreateSampler(r->device, &si, NULL, &o->sampler));
    return orri_compute_pipelines(r, orri_spv_pyramid_comp, orri_spv_pyramid_comp_size, o->pyramid_pipeline_layout,
                                  NULL, 1, "depth pyramid", &o->pyramid);
}

void orri_occlusion_fini(orr_renderer *r)
{
    orri_occlusion *o = &r->occlusion;
    if (!r->device) return;
    for (int k = 0; k < 2; k++)
        if (o->count[k]) vkDestroyPipeline(r->device, o->count[k], NULL);
    if (o->pyramid) vkDestroyPipeline(r->device, o->pyramid, NULL);
    if (o->sampler) vkDestroySampler(r->device, o->sampler, NULL);
    if (o->pyramid_pipeline_layout) vkDestroyPipelineLayout(r->device, o->pyramid_pipeline_layout, NULL);
    if (o->pyramid_layout) vkDestroyDescriptorSetLayout(r->device, o->pyramid_layout, NULL);
    if (o->cull_layout) vkDestroyDescriptorSetLayout(r->device, o->cull_layout, NULL);
    memset(o, 0, sizeof *o);
}

/* The pyramid's level views and image, retired (a level view alone goes as an image with no image). */
static orr_result retire_pyramid(orr_renderer *r, orri_occlusion_view *ov, uint64_t last_use)
{
    for (uint32_t l = 0; l < ov->level_count; l++) {
        orri_image level = {.view = ov->levels[l]};
        ORRI_TRY(orri_retire_image(r, &level, last_use));
        ov->levels[l] = VK_NULL_HANDLE;
    }
    ov->level_count = 0;
    return orri_retire_image(r, &ov->pyramid, last_use);
}

void orri_occlusion_view_release(orr_renderer *r, orri_view *v, bool now)
{
    orri_occlusion_view *ov = v->occlusion;
    if (!ov) return;
    uint64_t last = now ? 0 : r->frame_number;
    (void)retire_pyramid(r, ov, last);
    (void)orri_retire_buffer(r, &ov->words, last);
    (void)orri_retire_pool(r, ov->pool, last);
    orri_free(&r->allocator, ov, sizeof *ov);
    v->occlusion = NULL;
    v->occluding = false;
}

/* Levels of a view of w x h: level 0 is half of it (rounded up), down to 1 x 1. */
static uint32_t level_count(uint32_t w, uint32_t h)
{
    uint32_t n = 1;
    for (w = (w + 1) / 2, h = (h + 1) / 2; w > 1 || h > 1; n++) w = (w + 1) / 2, h = (h + 1) / 2;
    return n;
}

static orr_result make_pyramid(orr_renderer *r, orri_occlusion_view *ov, uint32_t w, uint32_t h, uint32_t levels)
{
    ORRI_TRY(retire_pyramid(r, ov, r->frame_number));
    uint32_t pw = 1, ph = 1;
    while (pw < (w + 1) / 2) pw *= 2;
    while (ph < (h + 1) / 2) ph *= 2;
    ORRI_TRY(orri_image_create_desc(r,
                                    &(orri_image_desc){.width = pw, .height = ph, .levels = levels,
                                                       .format = PYRAMID_FORMAT,
                                                       .usage = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
                                                       .aspect = VK_IMAGE_ASPECT_COLOR_BIT, .what = "depth pyramid"},
                                    &ov->pyramid));
    for (uint32_t l = 0; l < levels; l++) {
        VkImageViewCreateInfo vi = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
            .image = ov->pyramid.image,
            .viewType = VK_IMAGE_VIEW_TYPE_2D,
            .format = PYRAMID_FORMAT,
            .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, l, 1, 0, 1},
        };
        ORRI_VK(r, vkCreateImageView(r->device, &vi, NULL, &ov->levels[l]));
        ov->level_count = l + 1;
    }
    ov->view_width = w;
    ov->view_height = h;
    ov->pyramid_fresh = true;
    return ORR_OK;
}

static orr_result make_view_state(orr_renderer *r, orri_view *v)
{
    orri_occlusion_view *ov = orri_alloc(&r->allocator, sizeof *ov);
    if (!ov) return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for a view's occlusion state");
    memset(ov, 0, sizeof *ov);
    v->occlusion = ov;
    const uint32_t n = ORRI_FRAMES_IN_FLIGHT;
    VkDescriptorPoolSize sizes[4] = {
        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, n},
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, n},
        {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, n * SETS_PER_SLOT},
        {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, n * ORR_GPU_PYRAMID_MAX_LEVELS},
    };
    VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = n * SETS_PER_SLOT, .poolSizeCount = 4, .pPoolSizes = sizes};
    ORRI_VK(r, vkCreateDescriptorPool(r->device, &pi, NULL, &ov->pool));
    r->objects_epoch++;
    for (uint32_t s = 0; s < n; s++) {
        VkDescriptorSetLayout layouts[SETS_PER_SLOT];
        layouts[0] = r->occlusion.cull_layout;
        for (uint32_t l = 1; l < SETS_PER_SLOT; l++) layouts[l] = r->occlusion.pyramid_layout;
        VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                          .descriptorPool = ov->pool, .descriptorSetCount = SETS_PER_SLOT,
                                          .pSetLayouts = layouts};
        ORRI_VK(r, vkAllocateDescriptorSets(r->device, &ai, ov->sets[s]));
    }
    return ORR_OK;
}

orr_result orri_occlusion_plan(orr_renderer *r, const uint32_t *views, uint32_t view_count, uint64_t *stage)
{
    for (uint32_t k = 0; k < view_count; k++) {
        orri_view *v = &r->views[views[k]];
        const orr_draw_scene *sc = &v->draws->scene;
        uint32_t items = sc->pass_items[ORR_PASS_TRANSPARENT];
        uint32_t levels = level_count(v->rect.width, v->rect.height);
        /* What it needs (orr_view_desc.occlusion says why): the GPU cull drawn indirect, one sample, no
         * host technique around the view's draw, and a pyramid of at most the levels it may have. */
        v->occluding = v->desc.occlusion && v->gpu_cull && v->desc.strategy == ORR_STRATEGY_INDIRECT &&
                       !v->meshlet.active && v->samples == VK_SAMPLE_COUNT_1_BIT && items > 0 &&
                       !orri_techniques_active(r, v->desc.target.index) && levels <= ORR_GPU_PYRAMID_MAX_LEVELS;
        if (!v->occluding) continue;
        if (!v->occlusion) ORRI_TRY(make_view_state(r, v));
        orri_occlusion_view *ov = v->occlusion;
        if (ov->view_width != v->rect.width || ov->view_height != v->rect.height)
            ORRI_TRY(make_pyramid(r, ov, v->rect.width, v->rect.height, levels));
        /* New bits for a new scene (its items are others): zeroed, so that phase 1 draws nothing. */
        VkDeviceSize bytes = (ORR_GPU_OCCLUSION_HEADER + (VkDeviceSize)(items + ORR_GPU_CULL_BLOCK - 1) /
                                                             ORR_GPU_CULL_BLOCK * ORR_GPU_CULL_WORDS) * 4;
        bool fresh = false;
        ORRI_TRY(orri_buffer_ensure(r, &ov->words, bytes,
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                        VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                    "occlusion bits", &fresh));
        ov->zero = fresh || v->draws->upload || ov->items != items || ov->draws != v->draws;
        ov->items = items;
        ov->draws = v->draws;
        *stage += sizeof(orr_gpu_occlusion) + 4 + 2 * r->frame_align; /* its block, its feedback */
    }
    return ORR_OK;
}

orr_result orri_occlusion_upload(orr_renderer *r, orri_upload *up, const uint32_t *views, uint32_t view_count,
                                 const orr_draw_view *draw_views)
{
    orri_frame *f = up->frame;
    for (uint32_t k = 0; k < view_count; k++) {
        orri_view *v = &r->views[views[k]];
        if (!v->occluding) continue;
        ORRI_TRY(orri_upload_begin(r, up)); /* its bits may be cleared, its pyramid laid out: commands */
        VkCommandBuffer cmd = up->cmd;
        orri_occlusion_view *ov = v->occlusion;
        orr_gpu_occlusion block;
        memset(&block, 0, sizeof block);
        orr_mat4d clip;
        orr_mat4d_mul(&draw_views[k].proj, &draw_views[k].view, &clip); /* world minus origin -> clip */
        for (int i = 0; i < 16; i++) block.clip[i] = (float)clip.m[i];
        block.sizes[1] = ov->level_count;
        block.sizes[2] = v->rect.width;
        block.sizes[3] = v->rect.height;
        ORRI_TRY(orri_frame_alloc(r, f, sizeof block, &v->occlusion_offset));
        memcpy((uint8_t *)f->data.map + v->occlusion_offset, &block, sizeof block);
        if (ov->zero) vkCmdFillBuffer(cmd, ov->words.buffer, 0, VK_WHOLE_SIZE, 0);
        ov->zero = false;
        /* a new pyramid in the layout its descriptors name from the first cull on (phase 1 binds it
         * before this frame's pyramid is built) */
        if (ov->pyramid_fresh)
            orri_barrier_levels(cmd, ov->pyramid.image, VK_IMAGE_ASPECT_COLOR_BIT, ov->level_count,
                                VK_PIPELINE_STAGE_2_NONE, 0, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, 0,
                                VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL);
        ov->pyramid_fresh = false;
    }
    return ORR_OK;
}

/* The slot's sets of an occluding view, written before anything of this recording binds them (the
 * slot's frame before is complete; the other slot has sets of its own). */
static void write_sets(orr_renderer *r, const orri_frame *f, const orri_view *v)
{
    const orri_occlusion_view *ov = v->occlusion;
    const VkDescriptorSet *sets = ov->sets[f - r->frames];
    VkDescriptorBufferInfo block = {f->data.buffer, 0, sizeof(orr_gpu_occlusion)};
    VkDescriptorBufferInfo words = {ov->words.buffer, 0, VK_WHOLE_SIZE};
    VkDescriptorImageInfo pyramid = {r->occlusion.sampler, ov->pyramid.view, VK_IMAGE_LAYOUT_GENERAL};
    VkDescriptorImageInfo src[ORR_GPU_PYRAMID_MAX_LEVELS], dst[ORR_GPU_PYRAMID_MAX_LEVELS];
    VkWriteDescriptorSet w[3 + 2 * ORR_GPU_PYRAMID_MAX_LEVELS];
    uint32_t n = 0;
    w[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = sets[0], .dstBinding = 0,
                                    .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC,
                                    .pBufferInfo = &block};
    w[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = sets[0], .dstBinding = 1,
                                    .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                    .pBufferInfo = &words};
    w[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = sets[0], .dstBinding = 2,
                                    .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                                    .pImageInfo = &pyramid};
    for (uint32_t l = 0; l < ov->level_count; l++) {
        src[l] = l ? (VkDescriptorImageInfo){r->occlusion.sampler, ov->levels[l - 1], VK_IMAGE_LAYOUT_GENERAL}
                   : (VkDescriptorImageInfo){r->occlusion.sampler, v->depth.view, VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL};
        dst[l] = (VkDescriptorImageInfo){VK_NULL_HANDLE, ov->levels[l], VK_IMAGE_LAYOUT_GENERAL};
        w[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = sets[1 + l],
                                        .dstBinding = 0, .descriptorCount = 1,
                                        .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                                        .pImageInfo = &src[l]};
        w[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = sets[1 + l],
                                        .dstBinding = 1, .descriptorCount = 1,
                                        .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, .pImageInfo = &dst[l]};
    }
    vkUpdateDescriptorSets(r->device, n, w, 0, NULL);
}

void orri_occlusion_record_culls(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const uint32_t *views,
                                 uint32_t view_count)
{
    for (uint32_t k = 0; k < view_count; k++)
        if (r->views[views[k]].occluding) write_sets(r, f, &r->views[views[k]]);
    for (uint32_t k = 0; k < view_count; k++) {
        const orri_view *v = &r->views[views[k]];
        if (!v->occluding) continue;
        orri_cull_occlusion occ = {v->occlusion->sets[f - r->frames][0], (uint32_t)v->occlusion_offset, 1};
        orri_cull_record_view(r, cmd, f, v, &occ);
    }
}

/* The pyramid from the view's depth (an attachment, written by phase 1), which is left an attachment. */
static void record_pyramid(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const orri_view *v)
{
    const orri_occlusion_view *ov = v->occlusion;
    const orri_occlusion *o = &r->occlusion;
    orri_barrier_image(cmd, v->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT,
                       VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                       VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                       VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                       VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL);
    /* the frame before's reads of the pyramid (its phase 2) are done: its content is not kept */
    orri_barrier_levels(cmd, ov->pyramid.image, VK_IMAGE_ASPECT_COLOR_BIT, ov->level_count,
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, 0, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o->pyramid);
    uint32_t sw = v->rect.width, sh = v->rect.height;
    for (uint32_t l = 0; l < ov->level_count; l++) {
        uint32_t dw = (sw + 1) / 2, dh = (sh + 1) / 2;
        int32_t push[8] = {l ? 0 : (int32_t)v->rect.x, l ? 0 : (int32_t)v->rect.y, (int32_t)sw, (int32_t)sh,
                           (int32_t)dw, (int32_t)dh, 0, 0};
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o->pyramid_pipeline_layout, 0, 1,
                                &ov->sets[f - r->frames][1 + l], 0, NULL);
        vkCmdPushConstants(cmd, o->pyramid_pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
        vkCmdDispatch(cmd, (dw + ORR_GPU_PYRAMID_THREADS - 1) / ORR_GPU_PYRAMID_THREADS,
                      (dh + ORR_GPU_PYRAMID_THREADS - 1) / ORR_GPU_PYRAMID_THREADS, 1);
        orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                            VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
        sw = dw, sh = dh;
    }
    orri_barrier_image(cmd, v->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, 0,
                       VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                       VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                       VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL);
}

void orri_occlusion_record_view(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, orri_view *v,
                                const VkRenderingInfo *rendering, uint32_t *draw_calls)
{
    /* phase 1: what was visible the frame before, into the depth only (no colour attachment bound: the
     * pipelines' colour writes are discarded, their depth is the view's draw's to the bit) */
    VkRenderingAttachmentInfo color = rendering->pColorAttachments[0];
    color.imageView = VK_NULL_HANDLE;
    color.resolveMode = VK_RESOLVE_MODE_NONE;
    color.resolveImageView = VK_NULL_HANDLE;
    VkRenderingInfo depth_only = *rendering;
    depth_only.pColorAttachments = &color;
    vkCmdBeginRendering(cmd, &depth_only);
    VkViewport viewport = {(float)v->rect.x, (float)v->rect.y, (float)v->rect.width, (float)v->rect.height, 0.0f, 1.0f};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &rendering->renderArea);
    orri_indexed_record_opaque(r, cmd, f, v, draw_calls);
    vkCmdEndRendering(cmd);
    record_pyramid(r, cmd, f, v);
    /* phase 2: everything in the frustum that the pyramid does not hide, drawn by the view's draw */
    orri_cull_occlusion occ = {v->occlusion->sets[f - r->frames][0], (uint32_t)v->occlusion_offset, 2};
    orri_cull_record_view(r, cmd, f, v, &occ);
}

void orri_occlusion_record_feedback(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const uint32_t *views,
                                    uint32_t view_count)
{
    bool any = false;
    for (uint32_t k = 0; k < view_count; k++) any = any || r->views[views[k]].occluding;
    if (!any) return;
    /* after the culls' writes and the draws' reads of the frame buffer (the views' lights) */
    orri_barrier_memory(cmd,
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                            VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                        VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT);
    for (uint32_t k = 0; k < view_count; k++) {
        const orri_view *v = &r->views[views[k]];
        if (!v->occluding) continue;
        orri_cull_record_feedback(r, cmd, f, v);
    }
    orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_HOST_BIT,
                        VK_ACCESS_2_HOST_READ_BIT);
}
