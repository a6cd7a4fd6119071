/* The fur adapter: the submission adapter of ORR_PAYLOAD_FUR. From a view's custom pass (prepared or
 * culled from a retained scene) it yields the fur draws with the parameters each is drawn with (the
 * material's orr_fur, overridden by the instance's sidecar entry) and their batches. Which surfaces are
 * fur, and the counted fallback of those without a sidecar entry, is decided by the protocol (draw.c). */
#include "core/internal.h"

#include <orrery/draw.h>
#include <string.h>

void orr_draw_fur_list_init(orr_fur_list *list, const orr_allocator *allocator)
{
    *list = (orr_fur_list){.allocator = orri_allocator_or_default(allocator)};
}

void orr_draw_fur_list_fini(orr_fur_list *list)
{
    if (!list) return;
    orri_free(&list->allocator, list->draws, (size_t)list->draw_capacity * sizeof *list->draws);
    orri_free(&list->allocator, list->batches, (size_t)list->batch_capacity * sizeof *list->batches);
    orr_allocator keep = list->allocator;
    *list = (orr_fur_list){.allocator = keep};
}

static void reset(orr_fur_list *out)
{
    out->draw_count = out->batch_count = 0;
    memset(&out->stats, 0, sizeof out->stats);
}

/* One fur surface: resolved and appended, or counted as stale when what it names is gone. */
static orr_result emit(orr_fur_list *out, const orr_snapshot *s, const orr_assets *assets, uint32_t draw,
                       uint32_t instance, orr_mesh_id mesh_id, uint32_t primitive, orr_material_id material,
                       uint8_t skinned, uint8_t mirrored)
{
    uint32_t e = instance < s->instance_count ? orr_draw_fur_entry(s, instance) : UINT32_MAX;
    const orr_material *mat = orr_assets_try_get_material(assets, material);
    const orr_mesh *mesh = orr_assets_try_get_mesh(assets, mesh_id);
    if (e == UINT32_MAX || !mat || mat->shading != ORR_SHADING_FUR || !orr_fur_valid(&mat->fur) || !mesh ||
        primitive >= mesh->primitive_count) {
        out->stats.stale++;
        return ORR_OK;
    }
    const orr_render_fur *side = &s->fur[e];
    orr_fur f = mat->fur;
    if (side->set & ORR_FUR_SET_SHELL_COUNT) f.shell_count = side->shell_count;
    if (side->set & ORR_FUR_SET_SHELL_LENGTH) f.shell_length = side->shell_length;
    if (side->set & ORR_FUR_SET_DENSITY) f.density = side->density;
    if (side->set & ORR_FUR_SET_THINNING) f.thinning = side->thinning;
    if (!ORRI_GROW(&out->allocator, out->draws, out->draw_capacity, out->draw_count + 1)) return ORR_ERROR_OUT_OF_MEMORY;
    uint32_t k = out->draw_count;
    orr_fur_batch *last = out->batch_count ? &out->batches[out->batch_count - 1] : NULL;
    if (!last || !orr_id_eq(last->mesh, mesh_id) || last->primitive != primitive || !orr_id_eq(last->material, material) ||
        last->skinned != skinned || last->mirrored != mirrored) {
        if (!ORRI_GROW(&out->allocator, out->batches, out->batch_capacity, out->batch_count + 1))
            return ORR_ERROR_OUT_OF_MEMORY;
        out->batches[out->batch_count++] = (orr_fur_batch){.first = k, .mesh = mesh_id, .primitive = primitive,
                                                           .material = material, .skinned = skinned, .mirrored = mirrored};
        last = &out->batches[out->batch_count - 1];
    }
    last->count++;
    out->draws[out->draw_count++] = (orr_fur_draw){
        .draw = draw,
        .instance = instance,
        .instance_id = s->instances[instance].id,
        .sidecar = e,
        .mesh = mesh_id,
        .primitive = primitive,
        .material = material,
        .shell_count = f.shell_count,
        .shell_length = f.shell_length,
        .density = f.density,
        .thinning = f.thinning,
        .noise = f.noise,
        .skinned = skinned,
        .mirrored = mirrored,
    };
    out->stats.draws++;
    out->stats.batches = out->batch_count;
    out->stats.shells += f.shell_count;
    out->stats.triangles += (uint64_t)f.shell_count * (mesh->primitives[primitive].index_count / 3);
    return ORR_OK;
}

orr_result orr_draw_fur_collect(orr_fur_list *out, const orr_draw_list *list, const orr_snapshot *s,
                                const orr_assets *assets)
{
    ORRI_REQUIRE(out && list && s && assets, NULL, "orr_draw_fur_collect: every argument is required");
    reset(out);
    for (uint32_t k = list->pass_begin[ORR_PASS_CUSTOM]; k < list->pass_begin[ORR_PASS_CUSTOM + 1]; k++) {
        const orr_surface_draw *d = &list->draws[k];
        if (d->payload != ORR_PAYLOAD_FUR) continue;
        orr_result r = emit(out, s, assets, k, d->instance, d->mesh, d->primitive, d->material, d->skinned, d->mirrored);
        if (r != ORR_OK) return r;
    }
    return ORR_OK;
}

orr_result orr_draw_fur_collect_visible(orr_fur_list *out, const orr_draw_scene *scene, const orr_draw_visible *v,
                                        const orr_snapshot *s, const orr_assets *assets)
{
    ORRI_REQUIRE(out && scene && v && s && assets, NULL, "orr_draw_fur_collect_visible: every argument is required");
    reset(out);
    for (uint32_t g = 0; g < v->range_count; g++) {
        const orr_draw_range *range = &v->ranges[g];
        if (range->batch >= scene->batch_count) continue;
        const orr_draw_batch *b = &scene->batches[range->batch];
        if (b->pass != ORR_PASS_CUSTOM || b->payload != ORR_PAYLOAD_FUR) continue;
        for (uint32_t i = range->first; i < range->first + range->count; i++) {
            orr_result r = emit(out, s, assets, i, v->items[i], b->mesh, b->primitive, b->material, b->skinned, b->mirrored);
            if (r != ORR_OK) return r;
        }
    }
    return ORR_OK;
}
