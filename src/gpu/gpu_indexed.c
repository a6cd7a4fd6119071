/* The indexed strategies: direct (one draw per record), batched (one instanced draw per batch) and
 * indirect (one multi-draw indirect per run of batches of one pipeline state), all from the records
 * and commands of the view's cull; the shell strategy's ranges and the fur adapter's draws are the
 * shell path's (gpu_shell.c). */
#include "gpu/gpu_indexed.h"
#include "gpu/gpu_draws.h"
#include "gpu/gpu_pipeline.h"
#include "gpu/gpu_shell.h"
#include "gpu/gpu_texture.h"

#define COMMAND_BYTES sizeof(VkDrawIndexedIndirectCommand)

typedef struct draw_state {
    uint32_t pipeline; /* key; UINT32_MAX = none bound */
    uint32_t features; /* which of the key's pipelines */
    int cull;
    VkDescriptorSet texture;
    VkSampleCountFlagBits samples; /* the target's: which of the key's pipelines */
    bool shell;                    /* the shell strategy's pipelines (push constants) */
} draw_state;

static void set_state(orr_renderer *r, VkCommandBuffer cmd, const orri_batch_state *st, draw_state *bound)
{
    if (st->pipeline != bound->pipeline || st->features != bound->features) {
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS,
                          bound->shell ? orri_shell_pipeline(r, st->pipeline, bound->samples, false)
                                       : orri_pipeline_get(r, st->pipeline, st->features, bound->samples));
        bound->pipeline = st->pipeline;
        bound->features = st->features;
    }
    if ((int)st->cull != bound->cull) {
        vkCmdSetCullMode(cmd, st->cull);
        bound->cull = (int)st->cull;
    }
    if (st->texture && st->texture != bound->texture) {
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->pipeline_layout, 1, 1, &st->texture, 0, NULL);
        bound->texture = st->texture;
    }
}

/* The draws of commands [first, first + count) (all of one pipeline state; `ranges` are theirs when the
 * CPU culled the view) with the view's strategy. */
static void draw_commands(orr_renderer *r, VkCommandBuffer cmd, const orri_view *v, orr_strategy strategy,
                          const orr_draw_range *ranges, uint32_t first, uint32_t count, uint32_t *draw_calls)
{
    if (strategy == ORR_STRATEGY_INDIRECT) {
        uint32_t max = r->multi_draw_indirect ? r->properties.limits.maxDrawIndirectCount : 1;
        for (uint32_t done = 0; done < count;) {
            uint32_t n = count - done < max ? count - done : max;
            vkCmdDrawIndexedIndirect(cmd, r->view_data.buffer, v->commands_at + (VkDeviceSize)(first + done) * COMMAND_BYTES,
                                     n, COMMAND_BYTES);
            (*draw_calls)++;
            done += n;
        }
        return;
    }
    /* Batched, direct and shell need the counts: CPU-culled views only (ORR_CULL_GPU is indirect only). */
    if (strategy == ORR_STRATEGY_SHELL) {
        orri_shell_record_ranges(r, cmd, v, ranges, count, draw_calls);
        return;
    }
    for (uint32_t k = 0; k < count; k++) {
        const orr_draw_range *rg = &ranges[k];
        const orri_batch_state *st = &v->draws->state[rg->batch]; /* its own primitive */
        if (!rg->count || !st->resident) continue;
        if (strategy == ORR_STRATEGY_BATCHED) {
            vkCmdDrawIndexed(cmd, st->index_count, rg->count, st->first_index, st->vertex_offset, rg->first);
            (*draw_calls)++;
        } else {
            for (uint32_t i = 0; i < rg->count; i++) {
                vkCmdDrawIndexed(cmd, st->index_count, 1, st->first_index, st->vertex_offset, rg->first + i);
                (*draw_calls)++;
            }
        }
    }
}

void orri_indexed_record(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, orri_view *v, uint32_t first_pass,
                         uint32_t end_pass, uint32_t *draw_calls)
{
    const orri_draws *d = v->draws;
    const orr_draw_scene *sc = &d->scene;
    if (!sc->batch_count || !r->geometry.vertices.buffer) return;
    VkDeviceSize zero = 0;
    vkCmdBindVertexBuffers(cmd, 0, 1, &r->geometry.vertices.buffer, &zero);
    vkCmdBindIndexBuffer(cmd, r->geometry.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
    uint32_t dyn_offset = (uint32_t)v->ubo_offset;
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->pipeline_layout, 0, 1, &f->set, 1, &dyn_offset);
    orri_textures_bind_frame(r, cmd, (uint32_t)(f - r->frames)); /* the texture array: once per view */
    bool shell = v->desc.strategy == ORR_STRATEGY_SHELL;
    draw_state bound = {UINT32_MAX, 0, -1, VK_NULL_HANDLE, v->samples, shell};
    const orr_draw_visible *vis = &v->visible;
    /* Before the transparent pass: one command per scene batch of the passes, in runs of one state. */
    uint32_t stop = sc->pass_batches[end_pass];
    for (uint32_t b = sc->pass_batches[first_pass], e = 0; orri_draws_next_run(v, stop, &b, &e); b = e) {
        set_state(r, cmd, &d->state[b], &bound);
        draw_commands(r, cmd, v, v->desc.strategy, v->gpu_cull ? NULL : vis->ranges + b, b, e - b, draw_calls);
    }
    /* The custom pass's fur, on the shell path; then the state is the transparent pass's to set. */
    if (v->shell.fur.draw_count && first_pass <= ORR_PASS_CUSTOM && ORR_PASS_CUSTOM < end_pass) {
        orri_shell_record_fur(r, cmd, v, draw_calls);
        bound = (draw_state){UINT32_MAX, 0, -1, VK_NULL_HANDLE, v->samples, shell};
    }
    if (end_pass <= ORR_PASS_TRANSPARENT) return;
    /* Transparent: the view's ranges, back to front. */
    uint32_t first_command = v->command_count - (vis->range_count - vis->opaque_ranges);
    for (uint32_t g = vis->opaque_ranges; g < vis->range_count;) {
        const orri_batch_state *st = &d->state[vis->ranges[g].batch];
        uint32_t e = g + 1;
        while (e < vis->range_count && orri_same_state(&d->state[vis->ranges[e].batch], st)) e++;
        set_state(r, cmd, st, &bound);
        draw_commands(r, cmd, v, v->desc.strategy, vis->ranges + g, first_command + (g - vis->opaque_ranges), e - g,
                      draw_calls);
        g = e;
    }
}

void orri_indexed_record_opaque(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, orri_view *v, uint32_t *draw_calls)
{
    const orri_draws *d = v->draws;
    if (!d->scene.batch_count || !r->geometry.vertices.buffer) return;
    VkDeviceSize zero = 0;
    vkCmdBindVertexBuffers(cmd, 0, 1, &r->geometry.vertices.buffer, &zero);
    vkCmdBindIndexBuffer(cmd, r->geometry.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
    uint32_t dyn_offset = (uint32_t)v->ubo_offset;
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->pipeline_layout, 0, 1, &f->set, 1, &dyn_offset);
    orri_textures_bind_frame(r, cmd, (uint32_t)(f - r->frames));
    draw_state bound = {UINT32_MAX, 0, -1, VK_NULL_HANDLE, v->samples, false};
    for (uint32_t b = 0, e = 0; orri_draws_next_run(v, UINT32_MAX, &b, &e); b = e) {
        set_state(r, cmd, &d->state[b], &bound);
        draw_commands(r, cmd, v, ORR_STRATEGY_INDIRECT, NULL, b, e - b, draw_calls);
    }
}

/* The pass of scene batch b. */
static uint32_t batch_pass(const orr_draw_scene *sc, uint32_t b)
{
    uint32_t p = 0;
    while (p + 1 < ORR_PASS_COUNT && b >= sc->pass_batches[p + 1]) p++;
    return p;
}

/* A technique's sorted records (d->sorted): their batches' cull modes (when the material's) and texture
 * sets as they change, a draw per run of one batch at adjacent positions. */
static void draw_sorted(orr_renderer *r, VkCommandBuffer cmd, const orri_view *v, const orri_scene_draw *d, int *cull,
                        VkDescriptorSet *texture, uint32_t *draw_calls)
{
    (void)r;
    for (uint32_t k = 0, e; k < d->sorted_count; k = e) {
        const orri_sorted_record *first = &d->sorted[k];
        for (e = k + 1; e < d->sorted_count && d->sorted[e].batch == first->batch &&
                        d->sorted[e].position == first->position + (e - k);
             e++) {}
        const orri_batch_state *st = &v->draws->state[first->batch];
        if (!st->resident) continue;
        int want = d->cull >= 0 ? d->cull : (int)st->cull;
        if (want != *cull) {
            vkCmdSetCullMode(cmd, (VkCullModeFlags)want);
            *cull = want;
        }
        if (st->texture && st->texture != *texture) {
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, d->layout, 1, 1, &st->texture, 0, NULL);
            *texture = st->texture;
        }
        vkCmdDrawIndexed(cmd, st->index_count, e - k, st->first_index, st->vertex_offset, first->position);
        (*draw_calls)++;
    }
}

void orri_indexed_record_scene(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const orri_view *v,
                               const orri_scene_draw *d, uint32_t *draw_calls)
{
    const orri_draws *dr = v->draws;
    const orr_draw_scene *sc = &dr->scene;
    /* A meshlet view is culled on the GPU like an indirect one (its records and per-batch commands are
     * there whichever path draws its meshlets): drawn indirect here. */
    if (!sc->batch_count || !r->geometry.vertices.buffer) return;
    /* Only the GPU knows a GPU-culled view's counts: its indirect commands are the only way to draw it. */
    orr_strategy strategy = v->gpu_cull ? ORR_STRATEGY_INDIRECT : d->strategy;
    VkDeviceSize zero = 0;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, d->pipeline);
    vkCmdBindVertexBuffers(cmd, 0, 1, &r->geometry.vertices.buffer, &zero);
    vkCmdBindIndexBuffer(cmd, r->geometry.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
    uint32_t dyn_offset = (uint32_t)v->ubo_offset;
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, d->layout, 0, 1, &f->set, 1, &dyn_offset);
    if (r->textures.array)
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, d->layout, 1, 1,
                                &r->textures.frame_sets[f - r->frames], 0, NULL);
    if (d->reads) vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, d->layout, 2, 1, &d->reads, 0, NULL);
    if (d->push_size)
        vkCmdPushConstants(cmd, d->layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, d->push_size,
                           d->push);
    int cull = -1;
    VkDescriptorSet texture = VK_NULL_HANDLE;
    const orr_draw_visible *vis = &v->visible;
    if (d->sorted && !v->gpu_cull) { /* every record, in the technique's order */
        draw_sorted(r, cmd, v, d, &cull, &texture, draw_calls);
        return;
    }
    /* Runs of one state as the view draws them; the technique's pipeline is one, so what changes between
     * runs is the cull mode (when the material's) and a material's texture set. */
    for (int phase = 0; phase < 2; phase++) {
        uint32_t first_command = v->command_count - (vis->range_count - vis->opaque_ranges);
        bool transparent = phase == 1;
        if (transparent && !(d->passes & (1u << ORR_PASS_TRANSPARENT))) break;
        if (transparent && d->sorted) { /* the blended records of a GPU-culled view, in the technique's order */
            draw_sorted(r, cmd, v, d, &cull, &texture, draw_calls);
            break;
        }
        for (uint32_t b = 0, e = 0, g = vis->opaque_ranges;;) {
            const orri_batch_state *st;
            const orr_draw_range *ranges;
            uint32_t first, count;
            if (!transparent) {
                if (!orri_draws_next_run(v, UINT32_MAX, &b, &e)) break;
                st = &dr->state[b];
                ranges = v->gpu_cull ? NULL : vis->ranges + b;
                first = b, count = e - b;
                uint32_t pass = batch_pass(sc, b);
                b = e;
                if (!(d->passes & (1u << pass))) continue;
            } else {
                if (g >= vis->range_count) break;
                st = &dr->state[vis->ranges[g].batch];
                e = g + 1;
                while (e < vis->range_count && orri_same_state(&dr->state[vis->ranges[e].batch], st)) e++;
                ranges = vis->ranges + g;
                first = first_command + (g - vis->opaque_ranges), count = e - g;
                g = e;
            }
            int want = d->cull >= 0 ? d->cull : (int)st->cull;
            if (want != cull) {
                vkCmdSetCullMode(cmd, (VkCullModeFlags)want);
                cull = want;
            }
            if (st->texture && st->texture != texture) {
                vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, d->layout, 1, 1, &st->texture, 0, NULL);
                texture = st->texture;
            }
            draw_commands(r, cmd, v, strategy, ranges, first, count, draw_calls);
        }
    }
}
