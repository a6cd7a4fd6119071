/* glTF's MSFT_lod, built: a node whose MSFT_lod names coarser levels' nodes draws one mesh whose levels
 * of detail (orr_mesh_desc.lod_given) are those nodes' meshes, so that each view picks an instance's
 * level by projected error as it does for simplified levels (the GPU cull and the CPU reference alike).
 *
 * The merged mesh: primitive i holds the vertices of every level's primitive i one after another (read
 * from the meshes the build made of them), level 0's indices, and each coarser level's indices moved to
 * its vertices. Levels that cannot be one mesh's (other primitive counts, topologies, materials or
 * vertex streams, morph targets, skins, instancing, children, another transform than the node's) are
 * not merged: the node draws its own mesh, and a warning names the node, the level and why.
 *
 * Each level's error (orr_mesh.lod_error), from extras.MSFT_screencoverage where it gives a value for
 * each switch: coverage c[l - 1] (the smallest share of the screen level l - 1 is shown at) is read as
 * the share of the view's height that the projected diameter D x P / 2d of the finest level's bounding
 * sphere covers (D its diameter, P the projection's vertical scale, d the distance to the sphere, as
 * orr_draw_lod_pick measures it), and level l gets the error D / (c[l - 1] x ORRI_LOD_REFERENCE_HEIGHT):
 * with lod_pixels 1 on a view of that height, level l shows once that share is at most c[l - 1] (on
 * other heights and thresholds the switch moves as any level's does: with height x lod_pixels / 1080). A last
 * value past the levels (nothing drawn below it) is not honoured: a warning says so and the coarsest
 * level draws at any size. Without a value for each switch, the errors are measured from the levels'
 * geometry (orr_mesh_desc.lod_errors NULL). */
#include "core/internal.h"
#include "scene/gltf_build_internal.h"

#include <stdio.h>
#include <string.h>

/* The view height, in pixels, at which MSFT_screencoverage's shares are honoured exactly with
 * lod_pixels 1 (a 1080p view: the common case). */
#define ORRI_LOD_REFERENCE_HEIGHT 1080.0

static bool same_transform(const orri_gltf_node *a, const orri_gltf_node *b)
{
    if (a->has_matrix != b->has_matrix) return false;
    if (a->has_matrix) return !memcmp(a->matrix.m, b->matrix.m, sizeof a->matrix.m);
    return a->t.x == b->t.x && a->t.y == b->t.y && a->t.z == b->t.z && a->s.x == b->s.x && a->s.y == b->s.y &&
           a->s.z == b->s.z && a->r.x == b->r.x && a->r.y == b->r.y && a->r.z == b->r.z && a->r.w == b->r.w;
}

/* Why node ni's levels cannot be one mesh's (into why), or false when they can. levels[0..count) are
 * the meshes of the node and of its MSFT_lod ids. */
static bool unmergeable(const orri_gltf_bctx *b, uint32_t ni, const orr_mesh *const *levels, uint32_t count, char *why,
                        size_t size)
{
    const orri_gltf_doc *d = b->doc;
    const orri_gltf_node *n = &d->nodes[ni];
    if (n->skin >= 0) return snprintf(why, size, "the node is skinned"), true;
    const orr_mesh *m0 = levels[0];
    uint64_t vertices[64] = {0};
    for (uint32_t l = 0; l < count; l++) {
        uint32_t li = l ? n->lod_ids[l - 1] : ni;
        const orri_gltf_node *ln = &d->nodes[li];
        const orr_mesh *m = levels[l];
        if (l) {
            if (ln->skin >= 0) return snprintf(why, size, "level %u (nodes[%u]) is skinned", l, li), true;
            if (ln->instance_count)
                return snprintf(why, size, "level %u (nodes[%u]) has EXT_mesh_gpu_instancing", l, li), true;
            if (ln->child_count)
                return snprintf(why, size, "level %u (nodes[%u]) has children, which its level would not draw", l, li), true;
            if (!same_transform(n, ln))
                return snprintf(why, size, "level %u (nodes[%u]) has another transform than the node", l, li), true;
        }
        if (!m) return snprintf(why, size, "level %u (meshes[%d]) was not built", l, ln->mesh), true;
        if (m0->primitive_count > 64) return snprintf(why, size, "level 0 has more than 64 primitives"), true;
        if (m->primitive_count != m0->primitive_count)
            return snprintf(why, size, "level %u (meshes[%d]) has %u primitives, level 0 (meshes[%d]) %u", l, ln->mesh,
                            m->primitive_count, n->mesh, m0->primitive_count),
                   true;
        for (uint32_t p = 0; p < m->primitive_count; p++) {
            const orr_primitive *q = &m->primitives[p], *q0 = &m0->primitives[p];
            if (q->topology != ORR_TOPOLOGY_TRIANGLES)
                return snprintf(why, size, "meshes[%d].primitives[%u] (level %u) is not triangles", ln->mesh, p, l), true;
            if (!orr_id_eq(q->material, q0->material))
                return snprintf(why, size, "meshes[%d].primitives[%u] (level %u) has another material than level 0's", ln->mesh, p, l),
                       true;
            if (q->target_count || q->joints || q->weights)
                return snprintf(why, size, "meshes[%d].primitives[%u] (level %u) has morph targets or skinning", ln->mesh, p, l),
                       true;
            if (!q->tangents != !q0->tangents || !q->texcoords0 != !q0->texcoords0 || !q->texcoords1 != !q0->texcoords1 ||
                !q->colors != !q0->colors)
                return snprintf(why, size,
                                "meshes[%d].primitives[%u] (level %u) has other vertex streams (tangents, texture "
                                "coordinates, colors) than level 0's",
                                ln->mesh, p, l),
                       true;
            vertices[p] += q->vertex_count;
            if (vertices[p] > UINT32_MAX)
                return snprintf(why, size, "primitive %u would hold more than 2^32 vertices over its levels", p), true;
        }
    }
    return false;
}

/* Whether nodes a and b name the same meshes as levels, with the same coverages (then they share one
 * merged mesh, as nodes that share a mesh share one). */
static bool same_levels(const orri_gltf_doc *d, uint32_t a, uint32_t b)
{
    const orri_gltf_node *na = &d->nodes[a], *nb = &d->nodes[b];
    if (na->mesh != nb->mesh || na->lod_count != nb->lod_count || !na->lod_coverage != !nb->lod_coverage) return false;
    for (uint32_t k = 0; k < na->lod_count; k++)
        if (d->nodes[na->lod_ids[k]].mesh != d->nodes[nb->lod_ids[k]].mesh) return false;
    const cJSON *x = na->lod_coverage ? na->lod_coverage->child : NULL, *y = nb->lod_coverage ? nb->lod_coverage->child : NULL;
    for (; x && y; x = x->next, y = y->next)
        if (x->valuedouble != y->valuedouble) return false;
    return !x && !y;
}

/* Levels kept (at most count) and their errors from the node's coverages; 0 errors = measure them. */
static uint32_t coverage_errors(orri_gltf_bctx *b, uint32_t ni, const orr_mesh *m0, uint32_t count, float *errors,
                                bool *given)
{
    const orri_gltf_node *n = &b->doc->nodes[ni];
    *given = false;
    uint32_t values = n->lod_coverage ? (uint32_t)cJSON_GetArraySize(n->lod_coverage) : 0;
    if (!values) return count;
    if (values < count - 1) {
        orri_gltf_bwarn(b, "nodes[%u].extras.MSFT_screencoverage: %u values for %u switches between levels: the levels' "
                           "errors are measured from their geometry instead",
                        ni, values, count - 1);
        return count;
    }
    if (values > count - 1) {
        orri_gltf_bwarn(b, "nodes[%u].extras.MSFT_screencoverage[%u]: nothing is drawn below %g of the screen: not honoured, "
                           "the coarsest level draws at any size",
                        ni, count - 1, cJSON_GetArrayItem(n->lod_coverage, (int)(count - 1))->valuedouble);
    }
    double diameter = 2.0 * m0->sphere_radius;
    errors[0] = 0.0f;
    uint32_t kept = 1;
    const cJSON *c = n->lod_coverage->child;
    for (uint32_t l = 1; l < count; l++, c = c->next) {
        if (!(c->valuedouble > 0.0)) {
            orri_gltf_bwarn(b, "nodes[%u].extras.MSFT_screencoverage[%u]: 0: the levels past it are never shown, and not "
                               "kept",
                            ni, l - 1);
            break;
        }
        float e = (float)(diameter / (c->valuedouble * ORRI_LOD_REFERENCE_HEIGHT));
        errors[l] = e > errors[l - 1] ? e : errors[l - 1];
        kept = l + 1;
    }
    *given = true;
    return kept;
}

/* The merged mesh of node ni's levels (levels[0..count) its meshes) into *out. */
static orr_result merge(orri_gltf_bctx *b, uint32_t ni, const orr_mesh *const *levels, uint32_t count, orr_mesh_id *out)
{
    const orr_mesh *m0 = levels[0];
    float errors[ORR_MESH_MAX_LODS] = {0};
    bool given;
    count = coverage_errors(b, ni, m0, count, errors, &given);
    uint32_t pc = m0->primitive_count;
    orr_primitive_desc *pd = orri_gltf_balloc(b, pc ? pc : 1, sizeof *pd);
    if (!pd) return orri_gltf_oom_at(b, "nodes", ni);
    orr_result r = ORR_OK;
    uint64_t bytes = 0;
    for (uint32_t p = 0; p < pc && r == ORR_OK; p++) {
        const orr_primitive *q0 = &m0->primitives[p];
        uint32_t v = 0, lod_n = 0;
        for (uint32_t l = 0; l < count; l++) v += levels[l]->primitives[p].vertex_count;
        for (uint32_t l = 1; l < count; l++) lod_n += levels[l]->primitives[p].index_count;
        bytes += (uint64_t)v * (24 + (q0->tangents ? 16 : 0) + (q0->texcoords0 ? 8 : 0) + (q0->texcoords1 ? 8 : 0) +
                                (q0->colors ? 16 : 0)) + (uint64_t)lod_n * 4;
        char what[48];
        snprintf(what, sizeof what, "nodes[%u] (MSFT_lod)", ni);
        r = orri_gltf_spend(b, bytes, what);
        bytes = 0;
        if (r != ORR_OK) break;
        orr_primitive_desc *o = &pd[p];
        float *pos = orri_gltf_balloc(b, (size_t)v * 3, sizeof(float)), *nrm = orri_gltf_balloc(b, (size_t)v * 3, sizeof(float));
        float *tan = q0->tangents ? orri_gltf_balloc(b, (size_t)v * 4, sizeof(float)) : NULL;
        float *uv0 = q0->texcoords0 ? orri_gltf_balloc(b, (size_t)v * 2, sizeof(float)) : NULL;
        float *uv1 = q0->texcoords1 ? orri_gltf_balloc(b, (size_t)v * 2, sizeof(float)) : NULL;
        float *col = q0->colors ? orri_gltf_balloc(b, (size_t)v * 4, sizeof(float)) : NULL;
        uint32_t *lod = lod_n ? orri_gltf_balloc(b, lod_n, sizeof(uint32_t)) : NULL;
        *o = (orr_primitive_desc){.vertex_count = v, .positions = pos, .normals = nrm, .tangents = tan, .texcoords0 = uv0,
                                  .texcoords1 = uv1, .colors = col, .index_count = q0->index_count, .indices = q0->indices,
                                  .topology = ORR_TOPOLOGY_TRIANGLES, .material = q0->material, .lod_indices = lod};
        if ((v && (!pos || !nrm)) || (q0->tangents && v && !tan) || (q0->texcoords0 && v && !uv0) ||
            (q0->texcoords1 && v && !uv1) || (q0->colors && v && !col) || (lod_n && !lod)) {
            r = orri_gltf_oom_at(b, "nodes", ni);
            break;
        }
        uint32_t base = 0, at = 0;
        for (uint32_t l = 0; v && l < count; l++) { /* (no vertices: no streams, and no indices either) */
            const orr_primitive *q = &levels[l]->primitives[p];
            uint32_t n = q->vertex_count;
            orr_primitive_read_positions(q, 0, n, pos + (size_t)base * 3);
            orr_primitive_read_normals(q, 0, n, nrm + (size_t)base * 3);
            if (tan) memcpy(tan + (size_t)base * 4, q->tangents, (size_t)n * 16);
            if (uv0) memcpy(uv0 + (size_t)base * 2, q->texcoords0, (size_t)n * 8);
            if (uv1) memcpy(uv1 + (size_t)base * 2, q->texcoords1, (size_t)n * 8);
            if (col) memcpy(col + (size_t)base * 4, q->colors, (size_t)n * 16);
            if (l) { /* (a trailing incomplete triangle left out) */
                uint32_t corners = q->index_count - q->index_count % 3;
                for (uint32_t k = 0; k < corners; k++) lod[at + k] = q->indices[k] + base;
                o->lod_index_counts[l] = corners;
                at += corners;
            }
            base += n;
        }
    }
    if (r == ORR_OK) {
        char name[160];
        snprintf(name, sizeof name, "%s (MSFT_lod of nodes[%u])", m0->name ? m0->name : "", ni);
        orr_mesh_desc md = {.name = name,
                            .primitive_count = pc,
                            .primitives = pd,
                            .build_meshlets = b->options && b->options->build_meshlets,
                            .lod_given = count,
                            .lod_errors = given ? errors : NULL};
        r = orr_assets_add_mesh(b->assets, &md, out);
        if (r != ORR_OK) r = orri_gltf_from_assets(b, r, "nodes (MSFT_lod)");
    }
    for (uint32_t p = 0; p < pc; p++) {
        orri_gltf_bfree(b, (void *)pd[p].positions), orri_gltf_bfree(b, (void *)pd[p].normals);
        orri_gltf_bfree(b, (void *)pd[p].tangents), orri_gltf_bfree(b, (void *)pd[p].texcoords0);
        orri_gltf_bfree(b, (void *)pd[p].texcoords1), orri_gltf_bfree(b, (void *)pd[p].colors);
        orri_gltf_bfree(b, (void *)pd[p].lod_indices);
    }
    orri_gltf_bfree(b, pd);
    return r;
}

/* Whether node li is a scene's root or another node's child (then it draws as itself there too). */
static bool in_a_scene(const orri_gltf_doc *d, uint32_t li)
{
    if (d->nodes[li].parent >= 0) return true;
    for (uint32_t s = 0; s < d->scene_count; s++)
        for (uint32_t k = 0; k < d->scenes[s].node_count; k++)
            if (d->scenes[s].nodes[k] == li) return true;
    return !d->scene_count; /* without scenes, every root node shows */
}

orr_result orri_gltf_build_lods(orri_gltf_bctx *b)
{
    const orri_gltf_doc *d = b->doc;
    for (uint32_t ni = 0; ni < d->node_count; ni++) {
        const orri_gltf_node *n = &d->nodes[ni];
        if (!n->lod_count || n->mesh < 0) continue;
        for (uint32_t k = 0; k < n->lod_count; k++)
            if (in_a_scene(d, n->lod_ids[k]))
                orri_gltf_bwarn(b, "nodes[%u].extensions.MSFT_lod.ids[%u]: nodes[%u] is in a scene too: it draws there as itself "
                                   "as well as nodes[%u]'s level %u",
                                ni, k, n->lod_ids[k], ni, k + 1);
        bool shared = false;
        for (uint32_t nj = 0; nj < ni && !shared; nj++)
            if (!orr_id_is_none(b->lod_meshes[nj]) && same_levels(d, ni, nj)) {
                b->lod_meshes[ni] = b->lod_meshes[nj];
                shared = true;
            }
        if (shared) continue;
        const orr_mesh *levels[ORR_MESH_MAX_LODS] = {0};
        uint32_t count = n->lod_count + 1 < ORR_MESH_MAX_LODS ? n->lod_count + 1 : ORR_MESH_MAX_LODS; /* (checked) */
        for (uint32_t l = 0; l < count; l++) {
            int32_t mi = d->nodes[l ? n->lod_ids[l - 1] : ni].mesh;
            levels[l] = orr_id_is_none(b->meshes[mi]) ? NULL : orr_assets_try_get_mesh(b->assets, b->meshes[mi]);
        }
        char why[256];
        if (unmergeable(b, ni, levels, count, why, sizeof why)) {
            orri_gltf_bwarn(b, "nodes[%u].extensions.MSFT_lod: %s: its levels of detail are not drawn, the node draws its own mesh",
                            ni, why);
            continue;
        }
        orr_result r = merge(b, ni, levels, count, &b->lod_meshes[ni]);
        if (r != ORR_OK) return r;
    }
    return ORR_OK;
}
