/* The built-in techniques room (gpu_technique_builtin.h): the forward passes as entries of each view's
 * technique list, and the frame graph's text. */
#include "gpu/gpu_technique_builtin.h"
#include "gpu/gpu_debug_draw.h"
#include "gpu/gpu_indexed.h"
#include "gpu/gpu_meshlet.h"
#include "gpu/gpu_occlusion.h"
#include "gpu/gpu_resource.h"
#include "gpu/gpu_technique.h"
#include "gpu/gpu_technique_record.h"

#include <orrery/technique.h>

/* A built-in technique: one orr_pass of the view, drawn by its strategy. */
typedef struct builtin {
    const char *name; /* in the frame graph */
    const char *what;
    bool depth_write;
} builtin;

static const builtin builtins[ORR_PASS_COUNT] = {
    [ORR_PASS_OPAQUE] = {"opaque", "built-in", true},
    [ORR_PASS_CUTOUT] = {"cutout", "built-in, alpha mask", true},
    [ORR_PASS_CUSTOM] = {"custom", "built-in, its meshes, then the fur adapter's shells", true},
    [ORR_PASS_TRANSPARENT] = {"blended", "built-in, back to front", false},
};

/* Built-in passes [first, end) of view v in one rendering: the target's colour loaded (its samples,
 * resolved over the view's area, on a multisampled target), the depth cleared unless `written` (then
 * loaded) and stored when `keep` or a technique samples it; an occluding view's first phase before its
 * first pass; the view's debug lines after its last. */
static void record_passes(orr_renderer *r, VkCommandBuffer cmd, uint32_t slot, const orri_target *t, uint32_t view,
                          uint32_t first, uint32_t end, bool written, bool keep, uint32_t *draw_calls)
{
    orri_view *v = &r->views[view];
    orri_frame *f = &r->frames[slot];
    VkRect2D area = {{(int32_t)v->rect.x, (int32_t)v->rect.y}, {v->rect.width, v->rect.height}};
    VkRenderingAttachmentInfo color = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = t->color.view,
        .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
    };
    if (t->msaa.image) {
        /* Multisampled: the views draw into the samples (kept for the next view, which may overlap)
         * and each resolves its own area into the target's image. */
        color.imageView = t->msaa.view;
        color.resolveMode = VK_RESOLVE_MODE_AVERAGE_BIT;
        color.resolveImageView = t->color.view;
        color.resolveImageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    }
    VkRenderingAttachmentInfo depth = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = v->depth.view,
        .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
        .loadOp = written ? VK_ATTACHMENT_LOAD_OP_LOAD : VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = keep || orri_techniques_read_depth(r, view) ? VK_ATTACHMENT_STORE_OP_STORE
                                                               : VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .clearValue = {.depthStencil = {0.0f, 0}}, /* reversed Z: 0 is infinitely far */
    };
    VkRenderingInfo ri = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
        .renderArea = area,
        .layerCount = 1,
        .colorAttachmentCount = 1,
        .pColorAttachments = &color,
        .pDepthAttachment = &depth,
    };
    if (first == 0 && v->occluding) { /* its first phase, pyramid and second cull: the passes load that depth */
        VkAttachmentStoreOp store = depth.storeOp;
        depth.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
        orri_occlusion_record_view(r, cmd, f, v, &ri, draw_calls);
        depth.loadOp = VK_ATTACHMENT_LOAD_OP_LOAD;
        depth.storeOp = store;
    }
    vkCmdBeginRendering(cmd, &ri);
    VkViewport viewport = {(float)v->rect.x, (float)v->rect.y, (float)v->rect.width, (float)v->rect.height, 0.0f, 1.0f};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &area);
    if (v->meshlet.active) orri_meshlets_record(r, cmd, f, v, first, end, draw_calls);
    else orri_indexed_record(r, cmd, f, v, first, end, draw_calls);
    if (end == ORR_PASS_COUNT) orri_debug_record(r, cmd, slot, view, draw_calls); /* frames with lines only */
    vkCmdEndRendering(cmd);
}

/* What was written of the colour and depth before is read and written next. */
static void attachments_barrier(VkCommandBuffer cmd)
{
    orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                        VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT |
                            VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                        VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT |
                            VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                            VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
}

/* The end of the span of built-in passes from `first`: the next pass with a technique placed before it. */
static uint32_t span_end(const orr_renderer *r, uint32_t target, uint32_t view, uint32_t first)
{
    uint32_t end = first + 1;
    while (end < ORR_PASS_COUNT && !orri_techniques_placed_at(r, target, view, end)) end++;
    return end;
}

void orri_builtin_record_view(orr_renderer *r, VkCommandBuffer cmd, uint32_t slot, uint32_t target, uint32_t view,
                              const struct orri_tech_frame *fr, uint32_t *draw_calls)
{
    const orri_target *t = &r->targets[target];
    bool replaced = orri_techniques_replace_view(r, target, view);
    bool written = false; /* something in the list wrote the colour and depth */
    for (uint32_t at = 0;;) {
        written |= orri_techniques_record_at(r, cmd, slot, target, view, at, written, fr, draw_calls);
        if (at == ORR_PASS_COUNT) break;
        uint32_t end = span_end(r, target, view, at);
        if (!replaced) {
            if (written) attachments_barrier(cmd);
            record_passes(r, cmd, slot, t, view, at, end, written, end < ORR_PASS_COUNT, draw_calls);
            written = true;
        }
        at = end;
    }
}

size_t orr_renderer_describe_techniques(orr_renderer *r, orr_target_id target, char *text, size_t size)
{
    if (text && size) text[0] = '\0';
    if (!r || !orr_handle_pool_is_alive(&r->target_pool, (orr_handle){target.index, target.generation})) return 0;
    orri_text out = {text, text ? size : 0, 0};
    orri_text_say(&out, "target %u: each view's list (its built-in passes and the scene techniques among them), "
                        "then the techniques after the views\n", target.index);
    /* the target's views by slot, then index, as the frame records them (a description: no frame's cost) */
    for (uint64_t last = 0, key = 0;; last = key + 1) {
        uint32_t next = UINT32_MAX;
        for (uint32_t i = 0; i < r->view_capacity; i++) {
            const orri_view *v = &r->views[i];
            uint64_t k = (uint64_t)v->desc.slot << 32 | i;
            if (!v->alive || !orr_id_eq(v->desc.target, target) || k < last) continue;
            if (next == UINT32_MAX || k < key) next = i, key = k;
        }
        if (next == UINT32_MAX) break;
        const orri_view *v = &r->views[next];
        orri_text_say(&out, "view %u (slot %u, %s strategy):\n", next, v->desc.slot,
                      orr_strategy_name(v->desc.strategy));
        bool replaced = orri_techniques_replace_view(r, target.index, next);
        for (uint32_t at = 0; at <= ORR_PASS_COUNT; at++) {
            orri_techniques_describe_at(r, target.index, next, at, &out);
            if (at == ORR_PASS_COUNT) break;
            if (replaced) {
                if (!at) orri_text_say(&out, "  (its built-in passes: drawn by a technique after the views)\n");
                continue;
            }
            const builtin *b = &builtins[at];
            orri_text_say(&out, "  pass %s (%s)  writes color  %s depth@view%u\n", b->name, b->what,
                          b->depth_write ? "depth test+write" : "depth test", next);
        }
    }
    orri_techniques_describe_list(r, target.index, &out);
    return out.len;
}
