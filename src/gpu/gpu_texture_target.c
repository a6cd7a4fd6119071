/* Texture targets: targets whose colour image materials sample (orr_target_desc.texture_key, read
 * through the library's target textures, orr_assets_add_target_texture).
 *
 * Binding. A target texture is resident (gpu_texture.c) while a live texture target has its key, and
 * shows that target's sampled image (see Images). Whenever a texture target is made, remade at another size or
 * destroyed, the textures showing it are released and every material is looked at again at the next
 * frame (orri_materials.stale), so that material records, the texture array's elements and the
 * per-material sets show the new image, or white.
 *
 * Order. Per frame, from the draw scenes (every batch's material, the layers of its visible items):
 * the material slots that sample a target texture (reads). A view samples the texture targets of the
 * reads whose layers meet its layer mask. From the frame's target, a depth-first search over "its views
 * sample" gives the texture targets to draw, each once, every one after those it samples; reaching a
 * target that is still being searched is a cycle (a target sampling itself is the shortest), which is
 * refused before anything is recorded. Frustum culling is not looked at: a texture target is drawn
 * whenever an instance that samples it is visible in a view's layers, so that its pixels never depend
 * on where a camera looks this frame.
 *
 * Images. A texture target draws into its colour image like any target (one clear, its views, their
 * resolves), which is then copied into a second image, the one its target textures show. That one
 * is never an attachment: no draw can see it being written, whatever the descriptors a draw has
 * bound show (the texture array shows every resident texture to every draw; a view's GPU cull may
 * leave a batch with no instance, but its descriptors are bound and seen by the draw all the same).
 * Outside the copy it is SHADER_READ_ONLY_OPTIMAL: a new one is cleared to the target's clear colour
 * and made readable by the first frame recorded after it was made, and each copy waits for the
 * fragment shader reads before it (this frame's and earlier ones') and comes before those after it. */
#include "gpu/gpu_texture_target.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_resource.h"
#include "gpu/gpu_texture.h"

#include <string.h>

enum { NOT_SEEN = 0, ON_STACK = 1, ORDERED = 2 };

orr_result orri_texture_target_changed(orr_renderer *r, orri_target *t)
{
    r->materials.stale = true;
    t->fresh = true;
    return orri_textures_release_target(r, (uint32_t)(t - r->targets));
}

void orri_texture_targets_mark_used(orr_renderer *r)
{
    if (!r->texture_targets.live) return;
    for (uint32_t i = 0; i < r->view_capacity; i++) {
        const orri_view *v = &r->views[i];
        if (!v->alive) continue;
        const orri_target *t = &r->targets[v->desc.target.index];
        if (t->alive && t->desc.texture_key) r->draws[v->desc.order].used = true;
    }
}

void orri_texture_targets_fini(orr_renderer *r)
{
    orri_texture_targets *tt = &r->texture_targets;
    orri_free(&r->allocator, tt->reads, sizeof *tt->reads * tt->read_capacity);
    orri_free(&r->allocator, tt->batch_reads, sizeof *tt->batch_reads * tt->batch_read_capacity);
    orri_free(&r->allocator, tt->order, sizeof *tt->order * tt->order_capacity);
    orri_free(&r->allocator, tt->state, sizeof *tt->state * tt->state_capacity);
    orri_free(&r->allocator, tt->visits, sizeof *tt->visits * tt->visit_capacity);
    orri_free(&r->allocator, tt->edges, sizeof *tt->edges * tt->edge_capacity);
    orri_free(&r->allocator, tt->views, sizeof *tt->views * tt->views_capacity);
    orri_free(&r->allocator, tt->warned, sizeof *tt->warned * tt->warned_capacity);
    memset(tt, 0, sizeof *tt);
}

/* ---- what the frame samples ------------------------------------------------------------------ */

/* The texture of slot `slot` (ORR_GPU_TEXTURE_*): a glTF slot's, or a fur material's noise. */
static orr_texture_id slot_texture(const orr_material *m, uint32_t slot)
{
    switch (slot) {
    case ORR_GPU_TEXTURE_BASE_COLOR: return m->base_color_texture.texture;
    case ORR_GPU_TEXTURE_METALLIC_ROUGHNESS: return m->metallic_roughness_texture.texture;
    case ORR_GPU_TEXTURE_NORMAL: return m->normal_texture.texture;
    case ORR_GPU_TEXTURE_OCCLUSION: return m->occlusion_texture.texture;
    case ORR_GPU_TEXTURE_EMISSIVE: return m->emissive_texture.texture;
    default: return m->shading == ORR_SHADING_FUR ? m->fur.noise : (orr_texture_id){0, 0};
    }
}

static const char *slot_name(uint32_t slot)
{
    static const char *const names[ORR_GPU_TEXTURE_SLOTS] = {"base colour", "metallic-roughness", "normal",
                                                             "occlusion", "emissive", "fur noise"};
    return slot < ORR_GPU_TEXTURE_SLOTS ? names[slot] : "?";
}

/* The read of `material`'s slot `slot` (one per material slot, whatever its batches): its index. */
static orr_result add_read(orr_renderer *r, const orri_target_read *read, uint32_t *index)
{
    orri_texture_targets *tt = &r->texture_targets;
    for (uint32_t k = 0; k < tt->read_count; k++)
        if (orr_id_eq(tt->reads[k].material, read->material) && tt->reads[k].slot == read->slot) {
            *index = k;
            return ORR_OK;
        }
    if (!ORRI_GROW(&r->allocator, tt->reads, tt->read_capacity, tt->read_count + 1))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for texture target reads");
    *index = tt->read_count;
    tt->reads[tt->read_count++] = *read;
    return ORR_OK;
}

/* Which batches of scene `sc` sample which target textures: looked at again only when the scene was
 * rebuilt or the library changed (a material edited), so that a frame's cost does not grow with the
 * batches that sample none. */
static orr_result find_reads(orr_renderer *r, const orr_draw_scene *sc, const orr_assets *assets)
{
    orri_texture_targets *tt = &r->texture_targets;
    tt->read_count = tt->batch_read_count = 0;
    tt->reads_known = false;
    for (uint32_t b = 0; b < sc->batch_count; b++) {
        const orr_draw_batch *batch = &sc->batches[b];
        const orr_material *mat = orr_assets_try_get_material(assets, batch->material);
        if (!mat) continue;
        for (uint32_t k = 0; k < ORR_GPU_TEXTURE_SLOTS; k++) {
            orr_texture_id id = slot_texture(mat, k);
            const orr_texture *tex = orr_id_is_none(id) ? NULL : orr_assets_try_get_texture(assets, id);
            if (!tex || !tex->target_key) continue;
            orri_target_read read = {.key = tex->target_key, .texture = id, .material = batch->material, .slot = k};
            uint32_t index = 0;
            ORRI_TRY(add_read(r, &read, &index));
            if (!ORRI_GROW(&r->allocator, tt->batch_reads, tt->batch_read_capacity, tt->batch_read_count + 1))
                return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for texture target reads");
            tt->batch_reads[tt->batch_read_count++] = (orri_batch_read){b, index};
        }
    }
    tt->reads_known = true;
    return ORR_OK;
}

/* The reads of the frame, from a built draw scene (every scene has the same batches, in its order):
 * which material slots, the layers of the visible instances that draw them, and the target each
 * samples now. */
static orr_result collect_reads(orr_renderer *r, const orr_snapshot *s, const orr_assets *assets)
{
    orri_texture_targets *tt = &r->texture_targets;
    int order = -1;
    for (int o = 0; o < 2 && order < 0; o++)
        if (r->draws[o].used && r->draws[o].built) order = o;
    if (order < 0) {
        tt->read_count = tt->batch_read_count = 0;
        tt->reads_known = false;
        return ORR_OK;
    }
    const orri_draws *d = &r->draws[order];
    uint64_t revision = orr_assets_revision(assets);
    if (!tt->reads_known || d->upload || tt->reads_order != (uint32_t)order || tt->reads_revision != revision) {
        ORRI_TRY(find_reads(r, &d->scene, assets));
        tt->reads_order = (uint32_t)order;
        tt->reads_revision = revision;
    }
    for (uint32_t k = 0; k < tt->read_count; k++) {
        orri_target_read *rd = &tt->reads[k];
        rd->layers = 0;
        orri_target *t = orri_texture_target_find(r, rd->key);
        rd->target = t ? (uint32_t)(t - r->targets) : UINT32_MAX;
    }
    for (uint32_t k = 0; k < tt->batch_read_count; k++) {
        const orr_draw_batch *batch = &d->scene.batches[tt->batch_reads[k].batch];
        orri_target_read *rd = &tt->reads[tt->batch_reads[k].read];
        for (uint32_t i = batch->first; i < batch->first + batch->count && rd->layers != ORR_LAYERS_ALL; i++) {
            const orr_render_instance *in = &s->instances[d->scene.items[i]];
            if (in->visible) rd->layers |= in->layers;
        }
    }
    return ORR_OK;
}

static uint32_t view_mask(const orri_view *v) { return v->desc.layer_mask ? v->desc.layer_mask : ORR_LAYERS_ALL; }

/* Pushes target `t` onto the search: its edges (the texture targets its views sample, each once) after
 * the ones of the targets below it. */
static orr_result push_visit(orr_renderer *r, uint32_t depth, uint32_t t)
{
    orri_texture_targets *tt = &r->texture_targets;
    if (!ORRI_GROW(&r->allocator, tt->visits, tt->visit_capacity, depth + 1))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory ordering texture targets");
    uint32_t begin = depth ? tt->visits[depth - 1].edge_end : 0, end = begin;
    for (uint32_t i = 0; i < r->view_capacity; i++) {
        const orri_view *v = &r->views[i];
        if (!v->alive || v->desc.target.index != t) continue;
        for (uint32_t k = 0; k < tt->read_count; k++) {
            const orri_target_read *rd = &tt->reads[k];
            if (rd->target == UINT32_MAX || !(rd->layers & view_mask(v))) continue;
            bool known = false;
            for (uint32_t e = begin; e < end && !known; e++) known = tt->edges[e].target == rd->target;
            if (known) continue;
            if (!ORRI_GROW(&r->allocator, tt->edges, tt->edge_capacity, end + 1))
                return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory ordering texture targets");
            tt->edges[end++] = (orri_target_edge){rd->target, i, k};
        }
    }
    tt->visits[depth] = (orri_target_visit){t, begin, end, begin};
    tt->state[t] = ON_STACK;
    return ORR_OK;
}

/* "'name' (key K)" or "key K", into buf. */
static const char *target_label(const orri_target *t, char *buf, size_t cap)
{
    if (t->name && t->name[0])
        snprintf(buf, cap, "'%s' (key %llu)", t->name, (unsigned long long)t->desc.texture_key);
    else
        snprintf(buf, cap, "key %llu", (unsigned long long)t->desc.texture_key);
    return buf;
}

/* One edge of a refused cycle: "target X's view in slot N draws material M, whose SLOT texture 'T'
 * shows Y". */
static void describe_edge(orr_renderer *r, const orr_assets *assets, uint32_t from, const orri_target_edge *e,
                          char *buf, size_t cap)
{
    const orri_target_read *rd = &r->texture_targets.reads[e->read];
    const orr_texture *tex = orr_assets_try_get_texture(assets, rd->texture);
    char a[160], b[160];
    snprintf(buf, cap, "%s's view in slot %u draws material %u, whose %s texture '%s' shows %s",
             target_label(&r->targets[from], a, sizeof a), r->views[e->view].desc.slot, rd->material.index,
             slot_name(rd->slot), tex && tex->name ? tex->name : "", target_label(&r->targets[e->target], b, sizeof b));
}

/* The search found edge `e` of visit `depth` back to a target on the stack: the message names the
 * targets of the cycle and each material that closes a step of it. */
static orr_result refuse_cycle(orr_renderer *r, const orr_assets *assets, uint32_t depth, const orri_target_edge *e)
{
    orri_texture_targets *tt = &r->texture_targets;
    char label[160], step[512], msg[1536];
    if (e->target == tt->visits[depth].target) {
        describe_edge(r, assets, e->target, e, step, sizeof step);
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT,
                             "orr_renderer_render: texture target %s reads itself: %s (keep those instances out of "
                             "the view with orr_view_desc.layer_mask)",
                             target_label(&r->targets[e->target], label, sizeof label), step);
    }
    uint32_t first = depth;
    while (first > 0 && tt->visits[first].target != e->target) first--;
    size_t len = (size_t)snprintf(msg, sizeof msg, "orr_renderer_render: texture targets sample each other in a cycle:");
    for (uint32_t d = first; d <= depth && len < sizeof msg; d++) {
        const orri_target_edge *step_edge = d < depth ? &tt->edges[tt->visits[d].next - 1] : e;
        describe_edge(r, assets, tt->visits[d].target, step_edge, step, sizeof step);
        int w = snprintf(msg + len, sizeof msg - len, "%s %s", d > first ? ";" : "", step);
        if (w > 0) len += (size_t)w;
    }
    return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s", msg);
}

/* Appends target `t` and its views (by slot, then index) to the frame's order. */
static orr_result append_target(orr_renderer *r, uint32_t t, uint32_t *count)
{
    orri_texture_targets *tt = &r->texture_targets;
    if (!ORRI_GROW(&r->allocator, tt->order, tt->order_capacity, tt->order_count + 1))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory ordering texture targets");
    orri_frame_target *ft = &tt->order[tt->order_count++];
    *ft = (orri_frame_target){t, *count, 0};
    for (uint32_t i = 0; i < r->view_capacity; i++) {
        if (!r->views[i].alive || r->views[i].desc.target.index != t) continue;
        if (!ORRI_GROW(&r->allocator, tt->views, tt->views_capacity, *count + 1))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory ordering texture target views");
        uint32_t k = (*count)++;
        while (k > ft->first_view && r->views[tt->views[k - 1]].desc.slot > r->views[i].desc.slot) {
            tt->views[k] = tt->views[k - 1];
            k--;
        }
        tt->views[k] = i;
        ft->view_count++;
    }
    return ORR_OK;
}

/* A read whose texture has no target here, seen by one of the frame's views: logged once per texture
 * (until it is bound again). */
static void warn_unbound(orr_renderer *r, const orr_assets *assets, const orri_target_read *rd)
{
    orri_texture_targets *tt = &r->texture_targets;
    for (uint32_t k = 0; k < tt->warned_count; k++)
        if (orr_id_eq(tt->warned[k], rd->texture)) return;
    if (!ORRI_GROW(&r->allocator, tt->warned, tt->warned_capacity, tt->warned_count + 1)) return; /* no log then */
    tt->warned[tt->warned_count++] = rd->texture;
    const orr_texture *tex = orr_assets_try_get_texture(assets, rd->texture);
    orri_log(&r->logger, ORR_LOG_WARNING,
             "gpu: target texture '%s' (material %u, %s) shows texture target key %llu, which this renderer does "
             "not have (not made yet, or destroyed): it samples white",
             tex && tex->name ? tex->name : "", rd->material.index, slot_name(rd->slot), (unsigned long long)rd->key);
}

static void forget_warning(orri_texture_targets *tt, orr_texture_id texture)
{
    for (uint32_t k = 0; k < tt->warned_count; k++)
        if (orr_id_eq(tt->warned[k], texture)) {
            tt->warned[k] = tt->warned[--tt->warned_count];
            return;
        }
}

/* Fallbacks: reads without a target that a view of the frame draws. */
static void count_fallbacks(orr_renderer *r, const orr_assets *assets, orr_render_stats *stats)
{
    orri_texture_targets *tt = &r->texture_targets;
    for (uint32_t k = 0; k < tt->read_count; k++) {
        const orri_target_read *rd = &tt->reads[k];
        if (rd->target != UINT32_MAX) {
            if (tt->warned_count) forget_warning(tt, rd->texture);
            continue;
        }
        bool drawn = false;
        for (uint32_t f = 0; f < tt->order_count && !drawn; f++)
            for (uint32_t v = 0; v < tt->order[f].view_count && !drawn; v++)
                drawn = (rd->layers & view_mask(&r->views[tt->views[tt->order[f].first_view + v]])) != 0;
        if (!drawn) continue;
        stats->views.texture_target_fallbacks++;
        warn_unbound(r, assets, rd);
    }
}

orr_result orri_texture_targets_plan(orr_renderer *r, const orr_snapshot *s, const orr_assets *assets, uint32_t main,
                                     uint32_t *view_count, orr_render_stats *stats)
{
    orri_texture_targets *tt = &r->texture_targets;
    tt->order_count = 0;
    ORRI_TRY(collect_reads(r, s, assets));
    if (!tt->read_count) { /* the common case: the frame's target alone, its views as collected */
        if (!ORRI_GROW(&r->allocator, tt->order, tt->order_capacity, 1))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory ordering texture targets");
        tt->order[tt->order_count++] = (orri_frame_target){main, 0, *view_count};
        return ORR_OK;
    }
    if (!ORRI_GROW(&r->allocator, tt->state, tt->state_capacity, r->target_capacity))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory ordering texture targets");
    memset(tt->state, NOT_SEEN, r->target_capacity);
    uint32_t views = 0, depth = 0;
    ORRI_TRY(push_visit(r, 0, main));
    for (;;) {
        orri_target_visit *top = &tt->visits[depth];
        if (top->next < top->edge_end) {
            const orri_target_edge *e = &tt->edges[top->next++];
            if (tt->state[e->target] == ORDERED) continue;
            if (tt->state[e->target] == ON_STACK) return refuse_cycle(r, assets, depth, e);
            ORRI_TRY(push_visit(r, depth + 1, e->target));
            depth++;
            continue;
        }
        /* every target it samples is ordered: it comes next (the frame's own target last) */
        tt->state[top->target] = ORDERED;
        ORRI_TRY(append_target(r, top->target, &views));
        if (depth == 0) break;
        depth--;
    }
    count_fallbacks(r, assets, stats);
    if (!ORRI_GROW(&r->allocator, r->view_order, r->view_order_capacity, views))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory ordering views");
    memcpy(r->view_order, tt->views, sizeof *r->view_order * views);
    *view_count = views;
    return ORR_OK;
}

/* ---- recording ------------------------------------------------------------------------------- */

static void clear_to(VkCommandBuffer cmd, VkImage image, const float color[4])
{
    VkClearColorValue clear;
    memcpy(clear.float32, color, sizeof clear.float32);
    VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdClearColorImage(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &clear, 1, &range);
}

void orri_texture_targets_record_init(orr_renderer *r, VkCommandBuffer cmd)
{
    if (!r->texture_targets.live) return;
    for (uint32_t i = 0; i < r->target_capacity; i++) {
        orri_target *t = &r->targets[i];
        if (!t->alive || !t->desc.texture_key || !t->fresh || !t->sampled.image) continue; /* (a failed remake) */
        t->initialising = true;
        orri_barrier_image(cmd, t->sampled.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_NONE, 0,
                           VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        clear_to(cmd, t->sampled.image, t->desc.clear_color);
        /* SHADER_READ rather than SHADER_SAMPLED_READ: what the best-practices layer expects with
         * SHADER_READ_ONLY_OPTIMAL */
        orri_barrier_image(cmd, t->sampled.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_CLEAR_BIT,
                           VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                           VK_ACCESS_2_SHADER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                           VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    }
}

void orri_texture_targets_record_publish(orr_renderer *r, VkCommandBuffer cmd, orri_target *t, orri_buffer *readback)
{
    (void)r;
    /* the views' writes (resolves included) before the copy; the fragment shader reads of the sampled
     * image so far (this frame's and earlier ones') before it is overwritten */
    orri_barrier_image(cmd, t->color.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                       VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                       VK_ACCESS_2_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                       VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    orri_barrier_image(cmd, t->sampled.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, 0,
                       VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    VkImageSubresourceLayers layers = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    VkImageCopy copy = {.srcSubresource = layers, .dstSubresource = layers, .extent = {t->desc.width, t->desc.height, 1}};
    vkCmdCopyImage(cmd, t->color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, t->sampled.image,
                   VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copy);
    orri_barrier_image(cmd, t->sampled.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                       VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                       VK_ACCESS_2_SHADER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                       VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    if (readback) { /* the colour image is a copy source already */
        VkBufferImageCopy out = {.imageSubresource = layers, .imageExtent = {t->desc.width, t->desc.height, 1}};
        vkCmdCopyImageToBuffer(cmd, t->color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback->buffer, 1, &out);
    }
}

void orri_texture_targets_commit(orr_renderer *r)
{
    if (!r->texture_targets.live) return;
    for (uint32_t i = 0; i < r->target_capacity; i++) {
        orri_target *t = &r->targets[i];
        if (!t->initialising) continue;
        t->fresh = false;
        t->initialising = false;
    }
}
