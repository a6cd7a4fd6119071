/* The GPU cull (shaders/cull.comp): its compute pipelines and, per frame, the dispatches of every
 * GPU-culled view with the barriers that order them after the uploads and before the draws. */
#include "gpu/gpu_cull.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_pipeline.h"
#include "gpu/gpu_resource.h"

#include <string.h>

extern const uint32_t orri_spv_cull_comp[];
extern const size_t orri_spv_cull_comp_size;
extern const uint32_t orri_spv_cull_comp_occlusion1[];
extern const size_t orri_spv_cull_comp_occlusion1_size;
extern const uint32_t orri_spv_cull_comp_occlusion2[];
extern const size_t orri_spv_cull_comp_occlusion2_size;

static uint32_t blocks_of(uint32_t items) { return (items + ORR_GPU_CULL_BLOCK - 1) / ORR_GPU_CULL_BLOCK; }

orr_result orri_cull_create_pipeline(orr_renderer *r)
{
    VkDescriptorSetLayoutBinding b[7]; /* binding 6: the instances' motions (between ticks) */
    for (uint32_t i = 0; i < 7; i++)
        b[i] = (VkDescriptorSetLayoutBinding){i, i == 0 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                              1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo li = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = 7, .pBindings = b};
    ORRI_VK(r, vkCreateDescriptorSetLayout(r->device, &li, NULL, &r->cull_layout));
    /* set 1: an occluding view's (gpu_occlusion.c), read by the occlusion count stage only */
    VkDescriptorSetLayout sets[2] = {r->cull_layout, r->occlusion.cull_layout};
    VkPipelineLayoutCreateInfo pi = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 2,
        .pSetLayouts = sets,
    };
    ORRI_VK(r, vkCreatePipelineLayout(r->device, &pi, NULL, &r->cull_pipeline_layout));
    static const uint32_t stages[4] = {ORR_GPU_CULL_COUNT, ORR_GPU_CULL_SCAN, ORR_GPU_CULL_COMPACT, ORR_GPU_CULL_COMMANDS};
    ORRI_TRY(orri_compute_pipelines(r, orri_spv_cull_comp, orri_spv_cull_comp_size, r->cull_pipeline_layout, stages, 4,
                                    "cull", r->pipeline_cull));
    ORRI_TRY(orri_compute_pipelines(r, orri_spv_cull_comp_occlusion1, orri_spv_cull_comp_occlusion1_size,
                                    r->cull_pipeline_layout, stages, 1, "cull occlusion 1", &r->occlusion.count[0]));
    return orri_compute_pipelines(r, orri_spv_cull_comp_occlusion2, orri_spv_cull_comp_occlusion2_size,
                                  r->cull_pipeline_layout, stages, 1, "cull occlusion 2", &r->occlusion.count[1]);
}

static void write_cull_set(orr_renderer *r, const orri_frame *f)
{
    VkDescriptorBufferInfo infos[7] = {
        {f->data.buffer, 0, sizeof(orr_gpu_cull)},
        {r->instances.buffer.buffer, 0, VK_WHOLE_SIZE},
        {r->scene_items.buffer, 0, VK_WHOLE_SIZE},
        {r->scene_batches.buffer, 0, VK_WHOLE_SIZE},
        {r->view_data.buffer, 0, VK_WHOLE_SIZE},
        {r->view_data.buffer, 0, VK_WHOLE_SIZE},
        {r->instances.motion.buffer, 0, VK_WHOLE_SIZE},
    };
    VkWriteDescriptorSet w[7];
    for (uint32_t i = 0; i < 7; i++)
        w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = f->cull_set,
                                      .dstBinding = i, .descriptorCount = 1,
                                      .descriptorType = i == 0 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC
                                                               : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                      .pBufferInfo = &infos[i]};
    vkUpdateDescriptorSets(r->device, 7, w, 0, NULL);
}

void orri_cull_record(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const uint32_t *views, uint32_t view_count)
{
    bool any = r->shadows.count > 0; /* shadow views are always culled here */
    /* (the occluding views are culled apart: orri_cull_record_view) */
    bool set = any;
    for (uint32_t k = 0; k < view_count; k++) {
        set = set || r->views[views[k]].gpu_cull;
        any = any || (r->views[views[k]].gpu_cull && !r->views[views[k]].occluding);
    }
    if (set) write_cull_set(r, f);
    if (!any) return;
    /* The uploads (instances, scene items, the views' staged parts) before the cull reads them. */
    orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT |
                            VK_ACCESS_2_UNIFORM_READ_BIT);
    for (uint32_t st = 0; st < 4; st++) {
        /* Each stage for every view, then one barrier: the views' regions do not overlap. */
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->pipeline_cull[st]);
        for (uint32_t k = 0; k < view_count; k++) {
            const orri_view *v = &r->views[views[k]];
            if (!v->gpu_cull || v->occluding) continue;
            const orr_draw_scene *sc = &v->draws->scene;
            uint32_t items = sc->pass_items[ORR_PASS_TRANSPARENT], batches = sc->pass_batches[ORR_PASS_TRANSPARENT];
            uint32_t groups = st == 1 ? 1 : st == 3 ? (batches + ORR_GPU_CULL_THREADS - 1) / ORR_GPU_CULL_THREADS
                                                    : blocks_of(items);
            if (!groups) continue;
            uint32_t dyn = (uint32_t)v->cull_offset;
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->cull_pipeline_layout, 0, 1, &f->cull_set, 1, &dyn);
            vkCmdDispatch(cmd, groups, 1, 1);
        }
        for (uint32_t k = 0; k < r->shadows.count; k++) { /* the shadow views (gpu_shadow.c) */
            const orri_shadow_view *sv = &r->shadows.views[k];
            uint32_t items = sv->cull.sizes[0], batches = sv->cull.sizes[1];
            uint32_t groups = st == 1 ? 1 : st == 3 ? (batches + ORR_GPU_CULL_THREADS - 1) / ORR_GPU_CULL_THREADS
                                                    : blocks_of(items);
            if (!groups) continue;
            uint32_t dyn = (uint32_t)sv->cull_offset;
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->cull_pipeline_layout, 0, 1, &f->cull_set, 1, &dyn);
            vkCmdDispatch(cmd, groups, 1, 1);
        }
        orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                            VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT |
                                (st == 3 ? VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT |
                                               VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT
                                         : 0),
                            VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT |
                                (st == 3 ? VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_TRANSFER_READ_BIT : 0));
    }
    /* What the GPU found, for the stats once the frame completed. */
    for (uint32_t k = 0; k < view_count; k++) {
        const orri_view *v = &r->views[views[k]];
        if (!v->gpu_cull || v->occluding) continue;
        uint32_t blocks = blocks_of(v->draws->scene.pass_items[ORR_PASS_TRANSPARENT]);
        VkBufferCopy region = {v->words_at + (VkDeviceSize)blocks * (ORR_GPU_CULL_WORDS + 1u) * 4, v->feedback_offset,
                               ORRI_CULL_FEEDBACK_BYTES};
        vkCmdCopyBuffer(cmd, r->view_data.buffer, f->data.buffer, 1, &region);
    }
    orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_HOST_BIT,
                        VK_ACCESS_2_HOST_READ_BIT);
}

void orri_cull_record_view(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const orri_view *v,
                           const orri_cull_occlusion *occ)
{
    /* What came before: the uploads, and the draws that read this view's records and commands. */
    orri_barrier_memory(cmd,
                        VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT | VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT |
                            VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT |
                            VK_ACCESS_2_UNIFORM_READ_BIT);
    /* (the frame's cull set was written by orri_cull_record, before anything bound it) */
    const orr_draw_scene *sc = &v->draws->scene;
    uint32_t items = sc->pass_items[ORR_PASS_TRANSPARENT], batches = sc->pass_batches[ORR_PASS_TRANSPARENT];
    uint32_t dyn = (uint32_t)v->cull_offset;
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->cull_pipeline_layout, 0, 1, &f->cull_set, 1, &dyn);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->cull_pipeline_layout, 1, 1, &occ->set, 1,
                            &occ->offset);
    for (uint32_t st = 0; st < 4; st++) {
        uint32_t groups = st == 1 ? 1 : st == 3 ? (batches + ORR_GPU_CULL_THREADS - 1) / ORR_GPU_CULL_THREADS
                                                : blocks_of(items);
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                          st == 0 ? r->occlusion.count[occ->phase - 1] : r->pipeline_cull[st]);
        if (groups) vkCmdDispatch(cmd, groups, 1, 1);
        orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                            VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT |
                                (st == 3 ? VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT |
                                               VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT
                                         : 0),
                            VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT |
                                (st == 3 ? VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_TRANSFER_READ_BIT : 0));
    }
}

void orri_cull_record_feedback(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const orri_view *v)
{
    /* What the GPU found, for the stats once the frame completed (as orri_cull_record copies it). */
    uint32_t items = v->draws->scene.pass_items[ORR_PASS_TRANSPARENT];
    VkBufferCopy region = {v->words_at + (VkDeviceSize)blocks_of(items) * (ORR_GPU_CULL_WORDS + 1u) * 4,
                           v->feedback_offset, ORRI_CULL_FEEDBACK_BYTES};
    vkCmdCopyBuffer(cmd, r->view_data.buffer, f->data.buffer, 1, &region);
}
