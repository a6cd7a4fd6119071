/* The technique mesh room (gpu_technique_mesh.h): a mesh technique's checks and draws. */
#include "gpu/gpu_technique_mesh.h"
#include "gpu/gpu_indexed.h"
#include "gpu/gpu_resource.h"
#include "gpu/gpu_shader.h"
#include "gpu/gpu_technique_graph.h"

/* Workgroups of one dimension a draw may launch on every device (maxTaskWorkGroupCount and
 * maxMeshWorkGroupCount are at least this): a longer run is dispatched in parts. */
#define GROUPS_PER_DRAW 65535u

static bool given(const orr_shader_desc *sh) { return sh->glsl || sh->spirv; }

bool orri_technique_is_mesh(const orr_technique_desc *d)
{
    return d->kind == ORR_TECHNIQUE_SCENE && (given(&d->scene.mesh) || given(&d->scene.task));
}

uint32_t orri_technique_mesh_push(const orr_technique_desc *d)
{
    return d->push_constant_size + (d->scene.mesh_dispatch == ORR_MESH_PER_RECORD ? 4u : 0u);
}

orr_result orri_technique_mesh_check_desc(orr_renderer *r, const orr_technique_desc *d)
{
    const char *n = d->name;
    const orr_technique_scene *sc = &d->scene;
    if (!given(&sc->mesh))
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                     "technique '%s': a task shader without a mesh shader (scene.mesh)", n);
    if (given(&sc->vertex))
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                     "technique '%s': both a vertex shader and a mesh shader; a mesh technique's mesh "
                                     "shader takes the vertex stage's place (give one of the two)", n);
    if ((unsigned)sc->mesh_dispatch > ORR_MESH_FIXED)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': mesh_dispatch %d is no "
                                     "orr_mesh_dispatch", n, (int)sc->mesh_dispatch);
    if (sc->topology != ORR_TECHNIQUE_FILLED)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                     "technique '%s': a mesh technique's primitives are its mesh shader's (points, "
                                     "lines or triangles): its topology stays ORR_TECHNIQUE_FILLED", n);
    if (sc->strategy != ORR_TECHNIQUE_STRATEGY_VIEW)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                     "technique '%s': a mesh technique dispatches its own workgroups: its strategy "
                                     "stays ORR_TECHNIQUE_STRATEGY_VIEW", n);
    if (sc->mesh_dispatch == ORR_MESH_PER_RECORD && d->push_constant_size + 4 > ORR_TECHNIQUE_MAX_PUSH)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                     "technique '%s': push_constant_size %u leaves no room for the uint a dispatch "
                                     "per record adds (at most %d)", n, d->push_constant_size,
                                     ORR_TECHNIQUE_MAX_PUSH - 4);
    if (sc->mesh_dispatch == ORR_MESH_FIXED) {
        for (int k = 0; k < 3; k++)
            if (sc->mesh_groups[k] < 1 || sc->mesh_groups[k] > GROUPS_PER_DRAW)
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                             "technique '%s': mesh_groups[%d] is %u, not in 1..%u", n, k,
                                             sc->mesh_groups[k], GROUPS_PER_DRAW);
        return ORR_OK;
    }
    /* per record: the records the CPU's cull keeps (a view culled on the GPU keeps its own) */
    const orri_view *v = &r->views[d->view.index]; /* alive: the plan checked it */
    if (orri_view_culls_on_gpu(&v->desc))
        return orri_technique_refuse(r, ORR_ERROR_UNSUPPORTED,
                                     "technique '%s': view %u is culled on the GPU (its strategy or cull), which "
                                     "alone knows the records it keeps: a mesh technique dispatched per record "
                                     "needs a view culled on the CPU (orr_view_desc.cull = ORR_CULL_CPU), or "
                                     "ORR_MESH_FIXED", n, d->view.index);
    return ORR_OK;
}

orr_result orri_technique_mesh_check_stage(orr_renderer *r, const orr_technique_desc *d, uint32_t stage,
                                           const orri_shader_io *io, const char *sname, bool first)
{
    const char *n = d->name;
    const char *what = stage == ORRI_SHADER_TASK ? "task" : "mesh";
    if (io->sampled_count)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                     "technique '%s': %s samples '%s' (set %u, binding %u); a %s shader samples "
                                     "nothing (the textures and the reads are the fragment stage's)",
                                     n, sname, io->sampled[0].name, io->sampled[0].set, io->sampled[0].binding, what);
    uint32_t whole = orri_technique_mesh_push(d);
    bool per_record = d->scene.mesh_dispatch == ORR_MESH_PER_RECORD;
    if (first && per_record && io->push_size != whole)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                     "technique '%s': %s has a push constant block of %u bytes; its %s stage, "
                                     "dispatched per record, declares %u (push_constant_size %u, then the uint of "
                                     "the run's first record)",
                                     n, sname, io->push_size, what, whole, d->push_constant_size);
    if (io->push_size && io->push_size != whole && io->push_size != d->push_constant_size)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                     "technique '%s': %s has a push constant block of %u bytes, the technique "
                                     "declares %u%s",
                                     n, sname, io->push_size, d->push_constant_size,
                                     per_record ? " (+ 4 with the first record's uint)" : "");
    const orri_meshlets *ml = &r->meshlets;
    if (!ml->mesh_shaders) return ORR_OK; /* the device's limits are unknown: refused after the shaders */
    uint32_t invocations = io->local_size[0] * io->local_size[1] * io->local_size[2];
    uint32_t max_invocations = stage == ORRI_SHADER_TASK ? ml->max_task_invocations : ml->max_mesh_invocations;
    if (invocations > max_invocations)
        return orri_technique_refuse(r, ORR_ERROR_UNSUPPORTED,
                                     "technique '%s': %s has workgroups of %u invocations; the device's %s "
                                     "workgroups have at most %u", n, sname, invocations, what, max_invocations);
    if (stage == ORRI_SHADER_MESH &&
        (io->mesh_vertices > ml->max_mesh_vertices || io->mesh_primitives > ml->max_mesh_primitives))
        return orri_technique_refuse(r, ORR_ERROR_UNSUPPORTED,
                                     "technique '%s': %s outputs up to %u vertices and %u primitives; the device's "
                                     "mesh shaders output at most %u and %u", n, sname, io->mesh_vertices,
                                     io->mesh_primitives, ml->max_mesh_vertices, ml->max_mesh_primitives);
    if (first && !per_record) { /* the fixed count launches this stage's workgroups */
        const uint32_t *g = d->scene.mesh_groups;
        uint64_t total = (uint64_t)g[0] * g[1] * g[2];
        uint32_t max_total = stage == ORRI_SHADER_TASK ? ml->max_task_total : ml->max_mesh_total;
        if (total > max_total)
            return orri_technique_refuse(r, ORR_ERROR_UNSUPPORTED,
                                         "technique '%s': mesh_groups %u x %u x %u is %llu %s workgroups; the "
                                         "device's draws launch at most %u", n, g[0], g[1], g[2],
                                         (unsigned long long)total, what, max_total);
    }
    return ORR_OK;
}

orr_result orri_technique_mesh_device(orr_renderer *r, const orr_technique_desc *d)
{
    if (r->meshlets.mesh_shaders) return ORR_OK;
    return orri_technique_refuse(r, ORR_ERROR_UNSUPPORTED,
                                 "technique '%s': a mesh technique needs mesh shaders, which this renderer does not "
                                 "use (%s%s)", d->name, r->properties.deviceName,
                                 r->meshlets.supported ? ": turned off by orr_renderer_desc.meshlet_fallback"
                                                       : " has no VK_EXT_mesh_shader with task and mesh shaders");
}

/* ---- draws ----------------------------------------------------------------------------------- */

void orri_technique_mesh_barrier(VkCommandBuffer cmd)
{
    orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_TASK_SHADER_BIT_EXT | VK_PIPELINE_STAGE_2_MESH_SHADER_BIT_EXT,
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_UNIFORM_READ_BIT);
}

typedef struct mesh_state {
    int cull;
    VkDescriptorSet texture;
} mesh_state;

/* Workgroups for `count` records from position `first` of the view's records, batch `batch`'s state
 * (its cull mode when the material's, its texture set) bound first. */
static void dispatch_run(orr_renderer *r, VkCommandBuffer cmd, const orri_view *v, const orri_tech *t,
                         uint32_t batch, uint32_t first, uint32_t count, mesh_state *ms, uint32_t *draw_calls)
{
    const orri_batch_state *st = &v->draws->state[batch];
    if (!count || !st->resident) return; /* as the vertex path: a primitive without pool space is skipped */
    int want = t->cull >= 0 ? t->cull : (int)st->cull;
    if (want != ms->cull) {
        vkCmdSetCullMode(cmd, (VkCullModeFlags)want);
        ms->cull = want;
    }
    if (st->texture && st->texture != ms->texture) {
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, t->layout, 1, 1, &st->texture, 0, NULL);
        ms->texture = st->texture;
    }
    for (uint32_t done = 0; done < count;) {
        uint32_t n = count - done < GROUPS_PER_DRAW ? count - done : GROUPS_PER_DRAW, at = first + done;
        vkCmdPushConstants(cmd, t->layout, ORRI_TECH_MESH_PUSH_STAGES, t->push_size, 4, &at);
        r->meshlets.draw_mesh_tasks(cmd, n, 1, 1);
        (*draw_calls)++;
        done += n;
    }
}

/* The pass of scene batch b. */
static uint32_t batch_pass(const orr_draw_scene *sc, uint32_t b)
{
    uint32_t p = 0;
    while (p + 1 < ORR_PASS_COUNT && b >= sc->pass_batches[p + 1]) p++;
    return p;
}

void orri_technique_mesh_draw(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, uint32_t slot, const orri_view *v,
                              const orri_tech *t, const orri_sorted_record *sorted, uint32_t sorted_count,
                              uint32_t *draw_calls)
{
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, t->pipeline);
    uint32_t dyn_offset = (uint32_t)v->ubo_offset;
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, t->layout, 0, 1, &f->set, 1, &dyn_offset);
    if (r->textures.array)
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, t->layout, 1, 1, &r->textures.frame_sets[slot],
                                0, NULL);
    if (t->read_count)
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, t->layout, 2, 1, &t->sets[slot], 0, NULL);
    if (t->push_size) vkCmdPushConstants(cmd, t->layout, ORRI_TECH_MESH_PUSH_STAGES, 0, t->push_size, t->push);
    if (t->mesh_dispatch == ORR_MESH_FIXED) {
        vkCmdSetCullMode(cmd, t->cull >= 0 ? (VkCullModeFlags)t->cull : VK_CULL_MODE_NONE);
        r->meshlets.draw_mesh_tasks(cmd, t->mesh_groups[0], t->mesh_groups[1], t->mesh_groups[2]);
        (*draw_calls)++;
        return;
    }
    const orr_draw_scene *sc = &v->draws->scene;
    const orr_draw_visible *vis = &v->visible;
    if (!sc->batch_count) return;
    mesh_state ms = {-1, VK_NULL_HANDLE};
    if (sorted) { /* runs of one batch at adjacent positions */
        for (uint32_t k = 0, e; k < sorted_count; k = e) {
            const orri_sorted_record *head = &sorted[k];
            for (e = k + 1; e < sorted_count && sorted[e].batch == head->batch &&
                            sorted[e].position == head->position + (e - k);
                 e++) {}
            dispatch_run(r, cmd, v, t, head->batch, head->position, e - k, &ms, draw_calls);
        }
        return;
    }
    /* The view's ranges in its drawing order (one per batch before the blended pass, then the blended
     * ones back to front); a view culled on the GPU lists only its blended ones here. */
    for (uint32_t g = v->gpu_cull ? vis->opaque_ranges : 0; g < vis->range_count; g++) {
        const orr_draw_range *rg = &vis->ranges[g];
        uint32_t pass = g < vis->opaque_ranges ? batch_pass(sc, rg->batch) : ORR_PASS_TRANSPARENT;
        /* fur and other payloads are their adapters' (a technique never draws them) */
        if (!(t->passes & (1u << pass)) || sc->batches[rg->batch].payload != ORR_PAYLOAD_MESH) continue;
        dispatch_run(r, cmd, v, t, rg->batch, rg->first, rg->count, &ms, draw_calls);
    }
}
