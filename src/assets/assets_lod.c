/* Levels of detail of a mesh (orr_mesh_desc.lod_levels): meshoptimizer's simplifier, run from level 0
 * for each level so that each level's error is measured against the full mesh, not accumulated. */
#include "assets/assets_internal.h"

#include <math.h>
#include <meshoptimizer.h>
#include <string.h>

/* A level that keeps more than this fraction of the previous one's triangles is not worth a level: the
 * primitive repeats its last one from there on. */
#define ORRI_LOD_MIN_CUT 0.9

static bool lod_reducible(const orr_primitive *p)
{
    return p->topology == ORR_TOPOLOGY_TRIANGLES && p->index_count >= 6;
}

/* The levels of one primitive: appended to *out (grown as needed), their relative errors in err[]. */
static orr_result primitive_levels(orr_assets *a, orr_primitive *p, uint32_t levels, float ratio, const float *pos,
                                   float scale, float err[ORR_MESH_MAX_LODS], uint32_t *made)
{
    uint32_t corners = p->index_count - p->index_count % 3;
    size_t cap = (size_t)corners * levels; /* the worst case, trimmed below */
    uint32_t *out = alloc_raw(a, cap * 4);
    if (!out) return ORR_ERROR_OUT_OF_MEMORY;
    uint32_t used = 0, prev = corners;
    double aim = corners;
    *made = 1;
    for (uint32_t l = 1; l <= levels; l++) {
        aim *= ratio;
        size_t target = (size_t)(aim / 3.0) * 3;
        if (target < 3) target = 3;
        float e = 0.0f;
        /* target_error 1: the whole extent may be given up; the triangle target is what stops it */
        size_t n = meshopt_simplify(out + used, p->indices, corners, pos, p->vertex_count, 12, target, 1.0f, 0, &e);
        if (n < 3 || (double)n > ORRI_LOD_MIN_CUT * prev) break;
        p->lods[l] = (orr_primitive_lod){.first_index = p->index_count + used, .index_count = (uint32_t)n};
        err[l] = e * scale;
        used += (uint32_t)n;
        prev = (uint32_t)n;
        *made = l + 1;
    }
    if (!used) {
        orri_free(&a->allocator, out, cap * 4);
        return ORR_OK;
    }
    uint32_t *kept = orri_realloc(&a->allocator, out, cap * 4, (size_t)used * 4);
    if (!kept) {
        orri_free(&a->allocator, out, cap * 4);
        return ORR_ERROR_OUT_OF_MEMORY;
    }
    p->lod_indices = kept;
    p->lod_index_count = used;
    return ORR_OK;
}

orr_result orri_assets_build_lods(orr_assets *a, orr_mesh *m, uint32_t levels, float ratio)
{
    m->lod_count = 1;
    memset(m->lod_error, 0, sizeof m->lod_error);
    for (uint32_t i = 0; i < m->primitive_count; i++)
        m->primitives[i].lods[0] = (orr_primitive_lod){0, m->primitives[i].index_count, 0, 0};
    if (levels > ORR_MESH_MAX_LODS - 1) levels = ORR_MESH_MAX_LODS - 1;
    if (!(ratio > 0.0f && ratio < 1.0f)) ratio = 0.25f;
    float *unpacked = NULL;
    size_t unpacked_bytes = 0;
    orr_result r = ORR_OK;
    for (uint32_t i = 0; levels && r == ORR_OK && i < m->primitive_count; i++) {
        orr_primitive *p = &m->primitives[i];
        if (!lod_reducible(p)) continue;
        const float *pos = p->positions;
        if (!pos) { /* packed positions: floats for the simplifier */
            orri_free(&a->allocator, unpacked, unpacked_bytes);
            unpacked_bytes = (size_t)p->vertex_count * 12;
            unpacked = alloc_raw(a, unpacked_bytes);
            if (!unpacked) {
                r = ORR_ERROR_OUT_OF_MEMORY;
                break;
            }
            orr_primitive_read_positions(p, 0, p->vertex_count, unpacked);
            pos = unpacked;
        }
        float err[ORR_MESH_MAX_LODS] = {0};
        float scale = meshopt_simplifyScale(pos, p->vertex_count, 12);
        uint32_t made = 1;
        r = primitive_levels(a, p, levels, ratio, pos, scale, err, &made);
        for (uint32_t l = 1; l < made; l++) m->lod_error[l] = fmaxf(m->lod_error[l], err[l]);
        /* a primitive that stopped early keeps its last level's error for the levels it repeats */
        for (uint32_t l = made; l < ORR_MESH_MAX_LODS; l++) m->lod_error[l] = fmaxf(m->lod_error[l], err[made - 1]);
        if (made > m->lod_count) m->lod_count = made;
        for (uint32_t l = made; l < ORR_MESH_MAX_LODS; l++) p->lods[l] = p->lods[made - 1];
    }
    orri_free(&a->allocator, unpacked, unpacked_bytes);
    for (uint32_t i = 0; i < m->primitive_count; i++) { /* non-triangle primitives repeat level 0 */
        orr_primitive *p = &m->primitives[i];
        if (!p->lod_indices)
            for (uint32_t l = 1; l < ORR_MESH_MAX_LODS; l++) p->lods[l] = p->lods[0];
    }
    for (uint32_t l = 1; l < ORR_MESH_MAX_LODS; l++) m->lod_error[l] = fmaxf(m->lod_error[l], m->lod_error[l - 1]);
    for (uint32_t l = m->lod_count; l < ORR_MESH_MAX_LODS; l++) m->lod_error[l] = 0.0f;
    for (uint32_t l = 0; l < m->lod_count; l++) {
        m->lod_triangles[l] = 0;
        for (uint32_t i = 0; i < m->primitive_count; i++)
            if (m->primitives[i].topology == ORR_TOPOLOGY_TRIANGLES)
                m->lod_triangles[l] += m->primitives[i].lods[l].index_count / 3;
    }
    return r;
}
