/* Meshlet culling: the per-meshlet frustum and normal-cone test that a task shader and the fallback
 * mirror, and the CPU reference of the meshlet strategy (which meshlets each surface draw of a view
 * sends, and which of them survive). The contracts are in orrery/draw.h. */
#include "core/internal.h"
#include "draw/draw_internal.h"

#include <math.h>
#include <orrery/draw.h>
#include <string.h>

/* ---- the test ---------------------------------------------------------------------------------- */

void orr_draw_meshlet_view_init(const orr_draw_view *view, uint32_t flags, orr_meshlet_view *out)
{
    ORRI_ASSERT(view && out, "orr_draw_meshlet_view_init: view and out are required");
    *out = (orr_meshlet_view){.origin = view->origin, .flags = flags};
    double raw[5][4];
    orri_draw_frustum_planes(view, raw);
    for (int p = 0; p < 5; p++) {
        double len = sqrt(raw[p][0] * raw[p][0] + raw[p][1] * raw[p][1] + raw[p][2] * raw[p][2]);
        if (len > 0.0 && isfinite(len)) {
            for (int i = 0; i < 4; i++) out->planes[p][i] = raw[p][i] / len;
        } else { /* a degenerate plane culls nothing */
            out->planes[p][0] = out->planes[p][1] = out->planes[p][2] = 0.0;
            out->planes[p][3] = 1.0;
        }
    }
    orr_mat4d inv;
    if (!orr_mat4d_inverse_affine(&view->view, &inv)) orr_mat4d_identity(&inv);
    out->camera = (orr_vec3d){inv.m[12], inv.m[13], inv.m[14]};
    out->forward = orr_vec3d_normalize((orr_vec3d){-inv.m[8], -inv.m[9], -inv.m[10]});
    out->orthographic = view->proj.m[11] == 0.0 && view->proj.m[15] != 0.0;
}

/* The Gram matrix of the linear part's columns: g[i][j] = dot(column i, column j). */
static void gram(const orr_affine3d *a, double g[3][3])
{
    const double *m = a->m;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            g[i][j] = m[i * 3] * m[j * 3] + m[i * 3 + 1] * m[j * 3 + 1] + m[i * 3 + 2] * m[j * 3 + 2];
}

bool orr_draw_meshlet_pose_similar(const orr_affine3d *world)
{
    double g[3][3];
    gram(world, g);
    double s2 = (g[0][0] + g[1][1] + g[2][2]) / 3.0;
    if (!(s2 > 0.0) || !isfinite(s2)) return false;
    double tol = 1e-6 * s2;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (fabs(g[i][j] - (i == j ? s2 : 0.0)) > tol) return false;
    return true;
}

void orr_draw_meshlet_instance_init(const orr_meshlet_view *view, const orr_affine3d *world, bool double_sided,
                               orr_meshlet_instance *out)
{
    ORRI_ASSERT(view && world && out, "orr_draw_meshlet_instance_init: view, world and out are required");
    out->pose = *world;
    out->pose.m[9] -= view->origin.x;
    out->pose.m[10] -= view->origin.y;
    out->pose.m[11] -= view->origin.z;
    /* The spectral norm of L is the square root of the largest eigenvalue of L^T L, which no row sum of
     * |L^T L| is below (Gershgorin); for orthogonal columns (rotation and scales) the two are equal. */
    double g[3][3], largest = 0.0;
    gram(world, g);
    for (int i = 0; i < 3; i++) {
        double row = fabs(g[i][0]) + fabs(g[i][1]) + fabs(g[i][2]);
        largest = row > largest ? row : largest;
    }
    out->radius_scale = isfinite(largest) ? sqrt(largest) : INFINITY;
    out->cone = (view->flags & ORR_MESHLET_CULL_CONE) && !double_sided && orr_draw_meshlet_pose_similar(world);
}

orr_meshlet_verdict orr_draw_meshlet_classify(const orr_meshlet_view *view, const orr_meshlet_instance *inst,
                                         const orr_meshlet_bounds *b)
{
    const orr_affine3d *pose = &inst->pose;
    if (view->flags & ORR_MESHLET_CULL_FRUSTUM) {
        orr_vec3d c = orr_affine3d_transform_point(pose, (orr_vec3d){b->center[0], b->center[1], b->center[2]});
        double r = (double)b->radius * inst->radius_scale;
        for (int p = 0; p < 5; p++) {
            const double *pl = view->planes[p];
            if (pl[0] * c.x + pl[1] * c.y + pl[2] * c.z + pl[3] < -r) return ORR_MESHLET_FRUSTUM_CULLED;
        }
    }
    if (inst->cone && (view->flags & ORR_MESHLET_CULL_CONE) && b->cone_cutoff < 1.0f) {
        const double *m = pose->m;
        double ax = b->cone_axis[0], ay = b->cone_axis[1], az = b->cone_axis[2];
        orr_vec3d axis = orr_vec3d_normalize((orr_vec3d){m[0] * ax + m[3] * ay + m[6] * az, m[1] * ax + m[4] * ay + m[7] * az,
                                                         m[2] * ax + m[5] * ay + m[8] * az});
        double cutoff = b->cone_cutoff;
        if (view->orthographic) {
            if (orr_vec3d_dot(view->forward, axis) >= cutoff) return ORR_MESHLET_CONE_CULLED;
        } else {
            orr_vec3d apex = orr_affine3d_transform_point(pose, (orr_vec3d){b->cone_apex[0], b->cone_apex[1], b->cone_apex[2]});
            orr_vec3d d = orr_vec3d_sub(apex, view->camera);
            double len = orr_vec3d_length(d);
            if (len > 0.0 && orr_vec3d_dot(d, axis) >= cutoff * len) return ORR_MESHLET_CONE_CULLED;
        }
    }
    return ORR_MESHLET_VISIBLE;
}

/* ---- the CPU reference of the strategy ------------------------------------------------------------ */

void orr_draw_meshlet_list_init(orr_meshlet_list *list, const orr_allocator *allocator)
{
    *list = (orr_meshlet_list){.allocator = orri_allocator_or_default(allocator)};
}

void orr_draw_meshlet_list_fini(orr_meshlet_list *list)
{
    if (!list) return;
    orri_free(&list->allocator, list->draws, (size_t)list->draw_capacity * sizeof *list->draws);
    orri_free(&list->allocator, list->visible, (size_t)list->visible_capacity * sizeof *list->visible);
    orr_allocator keep = list->allocator;
    *list = (orr_meshlet_list){.allocator = keep};
}

static void reset(orr_meshlet_list *out)
{
    out->draw_count = out->visible_count = 0;
    memset(&out->stats, 0, sizeof out->stats);
}

/* One surface draw: its path, and on the meshlet path its survivors. */
static orr_result cull_draw(orr_meshlet_list *out, const orr_meshlet_view *mv, const orr_snapshot *s,
                            const orr_assets *assets, uint32_t draw, uint32_t instance, orr_mesh_id mesh_id,
                            uint32_t primitive, orr_material_id material, bool skinned)
{
    orr_meshlet_stats *st = &out->stats;
    const orr_mesh *mesh = orr_assets_try_get_mesh(assets, mesh_id);
    if (!mesh || primitive >= mesh->primitive_count || instance >= s->instance_count) {
        st->stale++;
        return ORR_OK;
    }
    const orr_primitive *prim = &mesh->primitives[primitive];
    if (!ORRI_GROW(&out->allocator, out->draws, out->draw_capacity, out->draw_count + 1)) return ORR_ERROR_OUT_OF_MEMORY;
    uint32_t tris = prim->index_count / 3;
    orr_meshlet_draw *d = &out->draws[out->draw_count++];
    *d = (orr_meshlet_draw){.draw = draw, .instance = instance, .mesh = mesh_id, .primitive = primitive,
                            .material = material, .meshlet_offset = prim->meshlet_offset, .first = out->visible_count};
    st->draws++;
    bool has_meshlets = prim->meshlet_count && mesh->meshlet_bounds &&
                        prim->meshlet_offset + (uint64_t)prim->meshlet_count <= mesh->meshlet_count;
    if (skinned || !has_meshlets) {
        d->path = skinned ? ORR_MESHLET_PATH_SKINNED : ORR_MESHLET_PATH_NO_MESHLETS;
        d->triangles_sent = d->triangles_kept = tris;
        if (skinned) st->indexed_skinned++;
        else st->indexed_no_meshlets++;
        st->triangles_indexed += tris;
        return ORR_OK;
    }
    /* a material that is gone is taken as double-sided: the cone test is then never wrongly applied */
    const orr_material *mat = orr_assets_try_get_material(assets, material);
    orr_meshlet_instance inst;
    orr_draw_meshlet_instance_init(mv, &s->instances[instance].world, !mat || mat->double_sided, &inst);
    d->path = ORR_MESHLET_PATH_MESHLETS;
    d->meshlet_count = prim->meshlet_count;
    d->cone = inst.cone;
    st->meshlet_draws++;
    if (!inst.cone) st->cone_skipped++;
    if (!ORRI_GROW(&out->allocator, out->visible, out->visible_capacity, out->visible_count + prim->meshlet_count)) {
        out->draw_count--; /* the visible array did not grow: take the draw back */
        return ORR_ERROR_OUT_OF_MEMORY;
    }
    for (uint32_t k = prim->meshlet_offset; k < prim->meshlet_offset + prim->meshlet_count; k++) {
        uint32_t t = mesh->meshlets[k].triangle_count;
        d->triangles_sent += t;
        switch (orr_draw_meshlet_classify(mv, &inst, &mesh->meshlet_bounds[k])) {
        case ORR_MESHLET_VISIBLE:
            out->visible[out->visible_count++] = k;
            d->count++;
            d->triangles_kept += t;
            break;
        case ORR_MESHLET_FRUSTUM_CULLED: st->frustum_culled++; break;
        case ORR_MESHLET_CONE_CULLED: st->cone_culled++; break;
        }
    }
    st->meshlets_sent += d->meshlet_count;
    st->meshlets_kept += d->count;
    st->triangles_sent += d->triangles_sent;
    st->triangles_kept += d->triangles_kept;
    return ORR_OK;
}

orr_result orr_draw_meshlet_cull_list(orr_meshlet_list *out, const orr_draw_list *list, const orr_snapshot *s,
                                 const orr_assets *assets, const orr_draw_view *view, uint32_t flags)
{
    ORRI_REQUIRE(out && list && s && assets && view, NULL, "orr_draw_meshlet_cull_list: every argument is required");
    reset(out);
    orr_meshlet_view mv;
    orr_draw_meshlet_view_init(view, flags, &mv);
    for (uint32_t k = 0; k < list->draw_count; k++) {
        const orr_surface_draw *d = &list->draws[k];
        if (d->payload != ORR_PAYLOAD_MESH) continue;
        orr_result r = cull_draw(out, &mv, s, assets, k, d->instance, d->mesh, d->primitive, d->material, d->skinned);
        if (r != ORR_OK) return r;
    }
    return ORR_OK;
}

orr_result orr_draw_meshlet_cull_visible(orr_meshlet_list *out, const orr_draw_scene *scene, const orr_draw_visible *v,
                                    const orr_snapshot *s, const orr_assets *assets, const orr_draw_view *view,
                                    uint32_t flags)
{
    ORRI_REQUIRE(out && scene && v && s && assets && view, NULL, "orr_draw_meshlet_cull_visible: every argument is required");
    reset(out);
    orr_meshlet_view mv;
    orr_draw_meshlet_view_init(view, flags, &mv);
    for (uint32_t g = 0; g < v->range_count; g++) {
        const orr_draw_range *range = &v->ranges[g];
        if (range->batch >= scene->batch_count) continue;
        const orr_draw_batch *b = &scene->batches[range->batch];
        if (b->payload != ORR_PAYLOAD_MESH) continue;
        for (uint32_t i = range->first; i < range->first + range->count; i++) {
            orr_result r = cull_draw(out, &mv, s, assets, i, v->items[i], b->mesh, b->primitive, b->material, b->skinned);
            if (r != ORR_OK) return r;
        }
    }
    return ORR_OK;
}
