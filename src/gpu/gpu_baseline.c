/* The floor of a frame: how long the device takes to draw the frame's visible instances with the
 * leanest pipeline that can draw them, measured in the same frame, so that the frame's GPU time can
 * be read against what the device can do (orr_render_stats.baseline_gpu_ms).
 *
 * After the frame's work (and its end timestamp), each view's visible records are drawn again, from
 * the same records and indirect commands the view drew with (every strategy's cull writes both), as
 * one multi-draw indirect per view: a vertex stage that reads the pool position and the instance's
 * translation (shaders/baseline.vert), a constant colour, depth tested and written, back faces culled.
 * They go to scratch attachments of their own, so the frame's image is untouched. A barrier first
 * makes the floor wait for the frame's work, so that the two never overlap and the floor's time is
 * its end timestamp less the frame's. */
#include "gpu/gpu_baseline.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_pipeline.h"
#include "gpu/gpu_resource.h"

extern const uint32_t orri_spv_baseline_vert[];
extern const size_t orri_spv_baseline_vert_size;
extern const uint32_t orri_spv_baseline_frag[];
extern const size_t orri_spv_baseline_frag_size;

#define COMMAND_BYTES sizeof(VkDrawIndexedIndirectCommand)

orr_result orri_baseline_init(orr_renderer *r, bool enabled)
{
    orri_baseline *b = &r->baseline;
    b->enabled = enabled;
    if (!enabled) return ORR_OK;
    ORRI_TRY(orri_shader_module(r, orri_spv_baseline_vert, orri_spv_baseline_vert_size, &b->vs));
    return orri_shader_module(r, orri_spv_baseline_frag, orri_spv_baseline_frag_size, &b->fs);
}

void orri_baseline_fini(orr_renderer *r)
{
    orri_baseline *b = &r->baseline;
    for (uint32_t s = 0; s < ORRI_SAMPLE_COUNTS; s++)
        if (b->pipelines[s]) vkDestroyPipeline(r->device, b->pipelines[s], NULL);
    if (b->vs) vkDestroyShaderModule(r->device, b->vs, NULL);
    if (b->fs) vkDestroyShaderModule(r->device, b->fs, NULL);
    orri_image_destroy(r, &b->color);
    orri_image_destroy(r, &b->depth);
    *b = (orri_baseline){0};
}

static orr_result create_pipeline(orr_renderer *r, VkSampleCountFlagBits samples, VkPipeline *out)
{
    orri_baseline *b = &r->baseline;
    VkVertexInputAttributeDescription position = {0, 0, VK_FORMAT_R32G32B32_SFLOAT, ORRI_VERTEX_POSITION};
    VkFormat color = ORRI_COLOR_FORMAT;
    orri_graphics_desc desc = {
        .stages = {{.stage = VK_SHADER_STAGE_VERTEX_BIT, .module = b->vs},
                   {.stage = VK_SHADER_STAGE_FRAGMENT_BIT, .module = b->fs}},
        .stage_count = 2,
        .layout = r->pipeline_layout, /* the views' set 0, bound as they bind it */
        .vertex_stride = ORRI_VERTEX_BYTES,
        .attributes = &position,
        .attribute_count = 1,
        .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
        .color_formats = &color,
        .color_count = 1,
        .depth_format = ORRI_DEPTH_FORMAT,
        .samples = samples,
        .depth_test = true,
        .depth_write = true,
        .depth_compare = VK_COMPARE_OP_GREATER_OR_EQUAL, /* reversed Z, as the views */
        .cull = VK_CULL_MODE_BACK_BIT,
        .front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE,
    };
    ORRI_TRY(orri_graphics_pipeline(r, &desc, out, "baseline pipeline (%u samples)", (unsigned)samples));
    r->pipeline_count++;
    return ORR_OK;
}

orr_result orri_baseline_plan(orr_renderer *r, uint32_t width, uint32_t height, VkSampleCountFlagBits samples)
{
    orri_baseline *b = &r->baseline;
    if (!b->enabled) return ORR_OK;
    uint32_t s = orri_samples_index(samples);
    if (!b->pipelines[s]) ORRI_TRY(create_pipeline(r, samples, &b->pipelines[s]));
    if (b->color.image && b->color.width >= width && b->color.height >= height && b->color.samples == samples)
        return ORR_OK;
    if (b->color.width > width) width = b->color.width; /* never smaller than a target it served */
    if (b->color.height > height) height = b->color.height;
    ORRI_TRY(orri_retire_image(r, &b->color, r->frame_number));
    ORRI_TRY(orri_retire_image(r, &b->depth, r->frame_number));
    ORRI_TRY(orri_image_create_desc(r,
                                    &(orri_image_desc){.width = width, .height = height, .samples = samples,
                                                       .format = ORRI_COLOR_FORMAT,
                                                       .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
                                                       .aspect = VK_IMAGE_ASPECT_COLOR_BIT, .what = "baseline colour"},
                                    &b->color));
    return orri_image_create_desc(r,
                                  &(orri_image_desc){.width = width, .height = height, .samples = samples,
                                                     .format = ORRI_DEPTH_FORMAT,
                                                     .usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                                     .aspect = VK_IMAGE_ASPECT_DEPTH_BIT, .what = "baseline depth"},
                                  &b->depth);
}

bool orri_baseline_record(orr_renderer *r, VkCommandBuffer cmd, const orri_frame *f, const uint32_t *views,
                          uint32_t count, uint32_t query)
{
    orri_baseline *b = &r->baseline;
    if (!b->enabled || !b->color.image || !r->queries || !r->geometry.vertices.buffer) return false;
    /* The frame's work first, all of it: the floor starts where the frame's end timestamp stands. */
    VkPipelineStageFlags2 frame_stages =
        VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT |
        VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT;
    orri_barrier_memory(cmd, frame_stages, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_VERTEX_INPUT_BIT |
                            VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT,
                        VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    orri_barrier_image(cmd, b->color.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                       VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                       VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                       VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    VkDeviceSize zero = 0;
    uint32_t max = r->multi_draw_indirect ? r->properties.limits.maxDrawIndirectCount : 1;
    bool first = true;
    for (uint32_t k = 0; k < count; k++) {
        const orri_view *v = &r->views[views[k]];
        if (v->samples != b->color.samples || !v->command_count) continue;
        orri_barrier_image(cmd, b->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT,
                           VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                           VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                           VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                           VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                               VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                           VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL);
        VkRect2D area = {{(int32_t)v->rect.x, (int32_t)v->rect.y}, {v->rect.width, v->rect.height}};
        VkRenderingAttachmentInfo color = {
            .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
            .imageView = b->color.view,
            .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
            .loadOp = first ? VK_ATTACHMENT_LOAD_OP_CLEAR : VK_ATTACHMENT_LOAD_OP_LOAD,
            .storeOp = VK_ATTACHMENT_STORE_OP_STORE, /* as the views store theirs */
        };
        VkRenderingAttachmentInfo depth = {
            .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
            .imageView = b->depth.view,
            .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
            .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
            .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
            .clearValue = {.depthStencil = {0.0f, 0}},
        };
        VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = area, .layerCount = 1,
                              .colorAttachmentCount = 1, .pColorAttachments = &color, .pDepthAttachment = &depth};
        vkCmdBeginRendering(cmd, &ri);
        VkViewport viewport = {(float)v->rect.x, (float)v->rect.y, (float)v->rect.width, (float)v->rect.height, 0.0f, 1.0f};
        vkCmdSetViewport(cmd, 0, 1, &viewport);
        vkCmdSetScissor(cmd, 0, 1, &area);
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, b->pipelines[orri_samples_index(b->color.samples)]);
        vkCmdBindVertexBuffers(cmd, 0, 1, &r->geometry.vertices.buffer, &zero);
        vkCmdBindIndexBuffer(cmd, r->geometry.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
        uint32_t dyn_offset = (uint32_t)v->ubo_offset;
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->pipeline_layout, 0, 1, &f->set, 1, &dyn_offset);
        for (uint32_t done = 0; done < v->command_count;) {
            uint32_t n = v->command_count - done < max ? v->command_count - done : max;
            vkCmdDrawIndexedIndirect(cmd, r->view_data.buffer, v->commands_at + (VkDeviceSize)done * COMMAND_BYTES, n,
                                     COMMAND_BYTES);
            done += n;
        }
        vkCmdEndRendering(cmd);
        orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                            VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                            VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
        first = false;
    }
    vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT, r->queries, query);
    return true;
}
