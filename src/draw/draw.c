/* The prepared draw protocol for one view: cull, draw list with offsets, ranges, surface draws, sort by
 * pass, skin tables, batches. Bad data is dropped at the step that finds it and counted. */
#include "core/internal.h"

#include <math.h>
#include <orrery/draw.h>
#include <stdlib.h>
#include <string.h>

const char *orr_drop_name(orr_drop drop)
{
    static const char *const names[ORR_DROP_COUNT] = {
        "stale_handle", "missing_mesh", "primitive_range", "material_range",
        "mixed_range",  "skin_range",   "material_mode",   "capacity",
    };
    return (unsigned)drop < ORR_DROP_COUNT ? names[drop] : "unknown";
}

void orr_draw_list_init(orr_draw_list *list, const orr_allocator *allocator)
{
    *list = (orr_draw_list){.allocator = orri_allocator_or_default(allocator)};
}

void orr_draw_list_fini(orr_draw_list *list)
{
    if (!list) return;
    const orr_allocator *a = &list->allocator;
    orri_free(a, list->draws, (size_t)list->draw_capacity * sizeof *list->draws);
    orri_free(a, list->batches, (size_t)list->batch_capacity * sizeof *list->batches);
    orri_free(a, list->skin_ranges, (size_t)list->skin_range_capacity * sizeof *list->skin_ranges);
    orri_free(a, list->joints, (size_t)list->joint_capacity * sizeof *list->joints);
    orri_free(a, list->offsets, (size_t)list->offset_capacity * sizeof *list->offsets);
    orr_allocator keep = list->allocator;
    *list = (orr_draw_list){.allocator = keep};
}

/* ---- culling ----------------------------------------------------------------------------- */

typedef struct frustum {
    double planes[5][4]; /* left, right, bottom, top, near: dot(p, (x, y, z, 1)) >= 0 inside */
} frustum;

static void frustum_from(const orr_mat4d *clip, frustum *f)
{
    const double *m = clip->m;
    for (int i = 0; i < 4; i++) {
        double row0 = m[i * 4 + 0], row1 = m[i * 4 + 1], row2 = m[i * 4 + 2], row3 = m[i * 4 + 3];
        f->planes[0][i] = row3 + row0;
        f->planes[1][i] = row3 - row0;
        f->planes[2][i] = row3 + row1;
        f->planes[3][i] = row3 - row1;
        f->planes[4][i] = row3 - row2; /* reversed Z: depth <= 1 in front of the near plane */
    }
}

static bool box_outside(const frustum *f, orr_aabbd b)
{
    for (int p = 0; p < 5; p++) {
        const double *pl = f->planes[p];
        /* the box corner furthest along the plane normal */
        double x = pl[0] >= 0 ? b.max.x : b.min.x, y = pl[1] >= 0 ? b.max.y : b.min.y,
               z = pl[2] >= 0 ? b.max.z : b.min.z;
        if (pl[0] * x + pl[1] * y + pl[2] * z + pl[3] < 0) return true;
    }
    return false;
}

/* ---- sorting ----------------------------------------------------------------------------- */

static int cmp_u32(uint32_t a, uint32_t b) { return (a > b) - (a < b); }

static int cmp_hierarchy(const void *pa, const void *pb)
{
    const orr_surface_draw *a = pa, *b = pb;
    int c = cmp_u32(a->pass, b->pass);
    if (c) return c;
    if (a->pass == ORR_PASS_TRANSPARENT && a->depth != b->depth) return a->depth > b->depth ? -1 : 1;
    return cmp_u32(a->sequence, b->sequence);
}

static int cmp_mesh(const void *pa, const void *pb)
{
    const orr_surface_draw *a = pa, *b = pb;
    int c = cmp_u32(a->pass, b->pass);
    if (c) return c;
    if (a->pass == ORR_PASS_TRANSPARENT && a->depth != b->depth) return a->depth > b->depth ? -1 : 1;
    if ((c = cmp_u32(a->payload, b->payload))) return c;
    if ((c = cmp_u32(a->skinned, b->skinned))) return c;
    if ((c = cmp_u32(a->mesh.index, b->mesh.index))) return c;
    if ((c = cmp_u32(a->primitive, b->primitive))) return c;
    if ((c = cmp_u32(a->material.index, b->material.index))) return c;
    if ((c = cmp_u32(a->instance, b->instance))) return c;
    return cmp_u32(a->sequence, b->sequence);
}

static orr_pass pass_of(orr_alpha_mode mode)
{
    switch (mode) {
    case ORR_ALPHA_MASK: return ORR_PASS_CUTOUT;
    case ORR_ALPHA_BLEND: return ORR_PASS_TRANSPARENT;
    default: return ORR_PASS_OPAQUE;
    }
}

/* ---- the protocol ------------------------------------------------------------------------ */

static orr_result oom(void) { return ORR_ERROR_OUT_OF_MEMORY; }

/* Step 1: one draw per mesh primitive of every visible input; offsets[i]..offsets[i+1] are input i's. */
static orr_result collect(orr_draw_list *list, const orr_snapshot *s, const orr_assets *assets,
                          const orr_draw_view *view)
{
    orr_draw_stats *st = &list->stats;
    orr_mat4d clip;
    orr_mat4d_mul(&view->proj, &view->view, &clip);
    frustum f;
    frustum_from(&clip, &f);
    if (!ORRI_GROW(&list->allocator, list->offsets, list->offset_capacity, s->instance_count + 1)) return oom();
    list->offsets[0] = 0;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const orr_render_instance *in = &s->instances[i];
        list->offsets[i + 1] = list->draw_count;
        st->inputs++;
        if (!in->visible) {
            st->hidden++;
            continue;
        }
        if (!(in->layers & view->layer_mask)) {
            st->layer_masked++;
            continue;
        }
        if (ORR_ID_IS_NONE(in->mesh)) {
            st->dropped[ORR_DROP_MISSING_MESH]++;
            continue;
        }
        const orr_mesh *mesh = orr_assets_get_mesh(assets, in->mesh);
        if (!mesh) {
            st->dropped[ORR_DROP_STALE_HANDLE]++;
            continue;
        }
        if (in->joint_count && (in->joint_offset > s->joint_count || in->joint_count > s->joint_count - in->joint_offset)) {
            st->dropped[ORR_DROP_SKIN_RANGE]++;
            continue;
        }
        /* World box relative to the view origin: subtract in binary64 before anything is a float. */
        orr_mat4d rel = in->world;
        rel.m[12] -= view->origin.x;
        rel.m[13] -= view->origin.y;
        rel.m[14] -= view->origin.z;
        orr_aabbd box = orr_aabbd_transform(&rel, mesh->bounds);
        if (view->cull && box_outside(&f, box)) {
            st->culled++;
            continue;
        }
        orr_vec3d centre = orr_mat4d_transform_point(&view->view, orr_vec3d_scale(orr_vec3d_add(box.min, box.max), 0.5));
        bool emitted = false;
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            const orr_primitive *prim = &mesh->primitives[p];
            orr_material_id mat_id = prim->material;
            if (p < ORR_MATERIAL_SLOTS && !ORR_ID_IS_NONE(in->materials[p])) mat_id = in->materials[p];
            const orr_material *mat = orr_assets_get_material(assets, mat_id);
            if (!mat) {
                st->dropped[ORR_DROP_MATERIAL_RANGE]++;
                continue;
            }
            if (prim->topology != ORR_TOPOLOGY_TRIANGLES || prim->index_count < 3) {
                st->dropped[ORR_DROP_MATERIAL_MODE]++;
                continue;
            }
            if (!ORRI_GROW(&list->allocator, list->draws, list->draw_capacity, list->draw_count + 1)) return oom();
            uint32_t k = list->draw_count++;
            list->draws[k] = (orr_surface_draw){
                .instance = i,
                .instance_id = in->id,
                .mesh = in->mesh,
                .primitive = p,
                .material = mat_id,
                .sequence = k,
                .skin_table = UINT32_MAX,
                .depth = (float)-centre.z,
                .pass = (uint8_t)pass_of(mat->alpha_mode),
                .payload = ORR_PAYLOAD_MESH,
                .skinned = in->joint_count > 0,
                .casts_shadows = in->casts_shadows,
                .bounds = {{(float)box.min.x, (float)box.min.y, (float)box.min.z},
                           {(float)box.max.x, (float)box.max.y, (float)box.max.z}},
            };
            emitted = true;
        }
        list->offsets[i + 1] = list->draw_count;
        if (emitted) st->visible++;
    }
    return ORR_OK;
}

/* Step 2: each non-empty range must hold one instance, one payload kind and one source mesh. */
void orr_draw_check_ranges(orr_draw_list *list, uint32_t input_count)
{
    uint32_t write = 0;
    for (uint32_t i = 0; i < input_count; i++) {
        uint32_t begin = list->offsets[i], end = list->offsets[i + 1];
        bool mixed = false;
        for (uint32_t k = begin; k < end; k++) {
            const orr_surface_draw *d = &list->draws[k], *first = &list->draws[begin];
            if (d->instance != first->instance || d->payload != first->payload || !ORR_ID_EQ(d->mesh, first->mesh))
                mixed = true;
        }
        list->offsets[i] = write;
        if (mixed) {
            list->stats.dropped[ORR_DROP_MIXED_RANGE] += end - begin;
            continue;
        }
        for (uint32_t k = begin; k < end; k++) list->draws[write++] = list->draws[k];
    }
    list->offsets[input_count] = write;
    list->draw_count = write;
}

/* Step 5: a frame-local joint range per skinned draw. */
static orr_result skin_tables(orr_draw_list *list, const orr_snapshot *s)
{
    for (uint32_t k = 0; k < list->draw_count; k++) {
        orr_surface_draw *d = &list->draws[k];
        if (!d->skinned) continue;
        const orr_render_instance *in = &s->instances[d->instance];
        if (!ORRI_GROW(&list->allocator, list->skin_ranges, list->skin_range_capacity, list->skin_range_count + 1) ||
            !ORRI_GROW(&list->allocator, list->joints, list->joint_capacity, list->joint_count + in->joint_count))
            return oom();
        memcpy(list->joints + list->joint_count, s->joints + in->joint_offset, (size_t)in->joint_count * sizeof(orr_mat4d));
        list->skin_ranges[list->skin_range_count] = (orr_skin_range){list->joint_count, in->joint_count};
        d->skin_table = list->skin_range_count++;
        list->joint_count += in->joint_count;
    }
    return ORR_OK;
}

/* Step 6: runs of draws with one pass, mesh primitive and material (and skinning, which picks the
 * pipeline). */
static orr_result batches(orr_draw_list *list)
{
    for (uint32_t k = 0; k < list->draw_count; k++) {
        const orr_surface_draw *d = &list->draws[k];
        orr_draw_batch *last = list->batch_count ? &list->batches[list->batch_count - 1] : NULL;
        if (last && last->pass == d->pass && ORR_ID_EQ(last->mesh, d->mesh) && last->primitive == d->primitive &&
            ORR_ID_EQ(last->material, d->material) && list->draws[last->first].skinned == d->skinned) {
            last->count++;
            continue;
        }
        if (!ORRI_GROW(&list->allocator, list->batches, list->batch_capacity, list->batch_count + 1)) return oom();
        list->batches[list->batch_count++] = (orr_draw_batch){
            .first = k, .count = 1, .mesh = d->mesh, .primitive = d->primitive, .material = d->material, .pass = d->pass};
    }
    return ORR_OK;
}

orr_result orr_draw_prepare(orr_draw_list *list, const orr_snapshot *snapshot, const orr_assets *assets,
                            const orr_draw_view *view)
{
    ORRI_ASSERT(list && snapshot && assets && view, "orr_draw_prepare: every argument is required");
    list->draw_count = list->batch_count = list->skin_range_count = list->joint_count = 0;
    memset(&list->stats, 0, sizeof list->stats);
    memset(list->pass_begin, 0, sizeof list->pass_begin);

    orr_result r = collect(list, snapshot, assets, view);
    if (r != ORR_OK) return r;
    orr_draw_check_ranges(list, snapshot->instance_count);
    /* Step 3 is the surface draw records themselves; step 4 sorts them in place. */
    if (list->draw_count > 1) /* draws is NULL while a list has never held one */
        qsort(list->draws, list->draw_count, sizeof *list->draws,
              view->order == ORR_ORDER_MESH ? cmp_mesh : cmp_hierarchy);
    for (uint32_t p = 0, k = 0; p <= ORR_PASS_COUNT; p++) {
        while (k < list->draw_count && list->draws[k].pass < p) k++;
        list->pass_begin[p] = k;
    }
    list->pass_begin[ORR_PASS_COUNT] = list->draw_count;
    if ((r = skin_tables(list, snapshot)) != ORR_OK) return r;
    if ((r = batches(list)) != ORR_OK) return r;
    list->stats.surface_draws = list->draw_count;
    list->stats.batches = list->batch_count;
    return ORR_OK;
}
