/* The shell path: draws whose instance and material come from a push constant (orr_gpu_shell) and whose
 * instance count is a number of shells, so that the vertex shader's gl_InstanceIndex is the shell index.
 *
 *   the shell strategy (ORR_STRATEGY_SHELL)  every plain surface of the view, one record at a time: its
 *                                            instance slot and material slot pushed, then one shell
 *                                            (a plain surface has no fur to spread shells over)
 *   the fur adapter (every strategy)         the custom pass's fur surfaces (orr_draw_fur_collect*):
 *                                            per fur draw its slots and fur values pushed, then
 *                                            shell_count shells: the view's orr_view_desc.shells when
 *                                            set, else the draw's own (the instance's sidecar entry
 *                                            over its material's)
 *
 * A view culled on the CPU hands the fur adapter its whole cull; a GPU-culled view (the GPU writes the
 * records and counts of everything before the transparent pass, fur included, and draws none of the
 * fur from them) has its payload items culled here on the CPU, so that the CPU knows each fur draw.
 * Fur pipelines: a key's alpha (opaque or mask; a blended fur material draws opaque shells, which are
 * depth-written and thin by discarding) and sides, with the fragment shader's FUR constant. */
#include "gpu/gpu_shell.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_geometry.h"
#include "gpu/gpu_material.h"
#include "gpu/gpu_pipeline.h"
#include "gpu/gpu_scene.h"

#include <string.h>

static const VkShaderStageFlags PUSH_STAGES = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;

VkPipeline orri_shell_pipeline(const orr_renderer *r, uint32_t key, VkSampleCountFlagBits samples, bool fur)
{
    return r->shell_pipelines[orri_samples_index(samples)][fur ? 1 : 0][key];
}

static orr_result ensure_pipeline(orr_renderer *r, uint32_t key, VkSampleCountFlagBits samples, bool fur)
{
    VkPipeline *p = &r->shell_pipelines[orri_samples_index(samples)][fur ? 1 : 0][key];
    if (*p) return ORR_OK;
    return orri_pipeline_create(r, key, samples, (orri_pipeline_variant){.shell = true, .fur = fur}, p);
}

void orri_shell_fini(orr_renderer *r)
{
    for (uint32_t s = 0; s < ORRI_SAMPLE_COUNTS; s++)
        for (uint32_t f = 0; f < 2; f++)
            for (uint32_t k = 0; k < ORRI_PIPELINE_KEYS; k++)
                if (r->shell_pipelines[s][f][k]) vkDestroyPipeline(r->device, r->shell_pipelines[s][f][k], NULL);
    memset(r->shell_pipelines, 0, sizeof r->shell_pipelines);
}

void orri_shell_view_fini(orr_renderer *r, orri_view *v)
{
    orri_shell_view *sh = &v->shell;
    if (sh->ready) {
        orr_draw_visible_fini(&sh->payloads);
        orr_draw_fur_list_fini(&sh->fur);
    }
    orri_free(&r->allocator, sh->push, (size_t)sh->push_capacity * sizeof *sh->push);
    orri_free(&r->allocator, sh->batches, (size_t)sh->batch_capacity * sizeof *sh->batches);
    orri_free(&r->allocator, sh->slots, (size_t)sh->slot_capacity * sizeof *sh->slots);
    memset(sh, 0, sizeof *sh);
}

/* The drawing state of a fur batch: its pipeline key (opaque or mask shells), sides, texture set and
 * pool range. */
static orri_batch_state fur_state(orr_renderer *r, const orr_assets *assets, const orr_fur_batch *b)
{
    const orr_material *mat = orr_assets_try_get_material(assets, b->material);
    const orri_resident_primitive *rp = orri_geometry_find(r, b->mesh, b->primitive);
    bool two = mat && mat->double_sided;
    return (orri_batch_state){
        .pipeline = orri_pipeline_key(mat && mat->alpha_mode == ORR_ALPHA_MASK ? ORR_PASS_CUTOUT : ORR_PASS_OPAQUE, two),
        .cull = two ? VK_CULL_MODE_NONE : b->mirrored ? VK_CULL_MODE_FRONT_BIT : VK_CULL_MODE_BACK_BIT,
        .texture = orri_materials_set(r, b->material),
        .index_count = rp ? rp->index_count : 0,
        .first_index = rp ? rp->first_index : 0,
        .vertex_offset = rp ? rp->vertex_offset : 0,
        .resident = rp != NULL,
    };
}

orr_result orri_shell_plan_view(orr_renderer *r, orri_view *v, const orr_snapshot *s, const orr_assets *assets,
                                const orr_draw_view *dv)
{
    orri_shell_view *sh = &v->shell;
    if (!sh->ready) {
        orr_draw_visible_init(&sh->payloads, &r->allocator);
        orr_draw_fur_list_init(&sh->fur, &r->allocator);
        sh->ready = true;
    }
    sh->draws = 0;
    sh->shells = 0;
    const orr_draw_scene *sc = &v->draws->scene;
    uint32_t view_index = (uint32_t)(v - r->views);
    /* The fur adapter, from the cull that saw the custom pass. */
    const orr_draw_visible *vis = &v->visible;
    bool furry = false;
    for (uint32_t b = sc->pass_batches[ORR_PASS_CUSTOM]; b < sc->pass_batches[ORR_PASS_TRANSPARENT] && !furry; b++)
        furry = sc->batches[b].payload == ORR_PAYLOAD_FUR;
    orr_result rc = ORR_OK;
    if (furry && v->gpu_cull) {
        rc = orr_draw_scene_cull_payloads(sc, s, dv, &sh->payloads);
        vis = &sh->payloads;
    }
    if (rc == ORR_OK) {
        if (furry) rc = orr_draw_fur_collect_visible(&sh->fur, sc, vis, s, assets);
        else sh->fur.draw_count = sh->fur.batch_count = 0;
    }
    if (rc != ORR_OK) return orri_gpu_fail(r, rc, "out of memory for the fur draws of view %u", view_index);
    const orr_fur_list *fl = &sh->fur;
    if (!ORRI_GROW(&r->allocator, sh->push, sh->push_capacity, fl->draw_count) ||
        !ORRI_GROW(&r->allocator, sh->batches, sh->batch_capacity, fl->batch_count))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for the fur draws of view %u", view_index);
    uint32_t shells = v->desc.shells; /* the view's count wins when set */
    for (uint32_t b = 0; b < fl->batch_count; b++) {
        const orr_fur_batch *fb = &fl->batches[b];
        orri_batch_state *st = &sh->batches[b];
        *st = fur_state(r, assets, fb);
        ORRI_TRY(ensure_pipeline(r, st->pipeline, v->samples, true));
        for (uint32_t k = fb->first; k < fb->first + fb->count; k++) {
            const orr_fur_draw *d = &fl->draws[k];
            sh->push[k] = (orr_gpu_shell){
                .instance = orri_instances_slot(r, d->instance_id),
                .material = d->material.index,
                .shell_count = shells ? shells : d->shell_count,
                .shell_length = d->shell_length,
                .density = d->density,
                .thinning = orr_id_is_none(d->noise) ? 0.0f : d->thinning,
                .flags = ORR_GPU_SHELL_FUR,
            };
            if (st->resident) {
                sh->draws++;
                sh->shells += sh->push[k].shell_count;
            }
        }
    }
    /* The shell strategy: each visible item's instance slot, and the plain pipelines of the scene's keys. */
    if (v->desc.strategy == ORR_STRATEGY_SHELL) {
        if (!ORRI_GROW(&r->allocator, sh->slots, sh->slot_capacity, sc->item_count))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for the shell records of view %u", view_index);
        for (uint32_t g = 0; g < v->visible.range_count; g++) {
            const orr_draw_range *rg = &v->visible.ranges[g];
            if (sc->batches[rg->batch].payload != ORR_PAYLOAD_MESH) continue; /* the adapter's */
            for (uint32_t i = rg->first; i < rg->first + rg->count; i++)
                sh->slots[i] = orri_instances_slot(r, s->instances[v->visible.items[i]].id);
        }
        for (uint32_t k = 0; k < ORRI_PIPELINE_KEYS; k++)
            if (v->draws->pipeline_keys & (1u << k)) ORRI_TRY(ensure_pipeline(r, k, v->samples, false));
    }
    return ORR_OK;
}

void orri_shell_record_ranges(orr_renderer *r, VkCommandBuffer cmd, const orri_view *v, const orr_draw_range *ranges,
                              uint32_t count, uint32_t *draw_calls)
{
    for (uint32_t g = 0; g < count; g++) {
        const orr_draw_range *rg = &ranges[g];
        const orri_batch_state *st = &v->draws->state[rg->batch];
        if (!rg->count || !st->resident) continue;
        orr_gpu_shell push = {.material = v->draws->scene.batches[rg->batch].material.index, .shell_count = 1};
        for (uint32_t i = rg->first; i < rg->first + rg->count; i++) {
            push.instance = v->shell.slots[i];
            vkCmdPushConstants(cmd, r->pipeline_layout, PUSH_STAGES, 0, sizeof push, &push);
            vkCmdDrawIndexed(cmd, st->index_count, 1, st->first_index, st->vertex_offset, 0);
            (*draw_calls)++;
        }
    }
}

void orri_shell_record_fur(orr_renderer *r, VkCommandBuffer cmd, orri_view *v, uint32_t *draw_calls)
{
    const orri_shell_view *sh = &v->shell;
    const orr_fur_list *fl = &sh->fur;
    uint32_t pipeline = UINT32_MAX;
    int cull = -1;
    VkDescriptorSet texture = VK_NULL_HANDLE;
    for (uint32_t b = 0; b < fl->batch_count; b++) {
        const orri_batch_state *st = &sh->batches[b];
        if (!st->resident) continue; /* counted with the scene's batch (capacity) */
        if (st->pipeline != pipeline) {
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, orri_shell_pipeline(r, st->pipeline, v->samples, true));
            pipeline = st->pipeline;
        }
        if ((int)st->cull != cull) {
            vkCmdSetCullMode(cmd, st->cull);
            cull = (int)st->cull;
        }
        if (st->texture && st->texture != texture) {
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->pipeline_layout, 1, 1, &st->texture, 0, NULL);
            texture = st->texture;
        }
        const orr_fur_batch *fb = &fl->batches[b];
        for (uint32_t k = fb->first; k < fb->first + fb->count; k++) {
            vkCmdPushConstants(cmd, r->pipeline_layout, PUSH_STAGES, 0, sizeof sh->push[k], &sh->push[k]);
            vkCmdDrawIndexed(cmd, st->index_count, sh->push[k].shell_count, st->first_index, st->vertex_offset, 0);
            (*draw_calls)++;
        }
    }
}

void orri_shell_stats(const orri_view *v, orr_render_stats *st)
{
    st->draws.fur_draws += v->shell.draws;
    st->draws.shells += v->shell.shells;
}
