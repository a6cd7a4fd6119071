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

/* ---- the caller's levels (orr_mesh_desc.lod_given) ---------------------------------------------- */

const char *orri_assets_given_lods_misuse(const orr_mesh_desc *desc, uint32_t *primitive)
{
    *primitive = UINT32_MAX;
    uint32_t given = desc->lod_given;
    if (given > ORR_MESH_MAX_LODS) return "lod_given is above ORR_MESH_MAX_LODS";
    if (given > 1 && desc->lod_levels) return "lod_given and lod_levels both set (levels made twice)";
    for (uint32_t l = 0; given > 1 && desc->lod_errors && l < given; l++) {
        float e = desc->lod_errors[l], prev = l ? desc->lod_errors[l - 1] : 0.0f;
        if (!isfinite(e) || e < prev || (l == 0 && e != 0.0f))
            return "lod_errors must be finite, 0 first and non-decreasing";
    }
    for (uint32_t i = 0; i < desc->primitive_count; i++) {
        const orr_primitive_desc *d = &desc->primitives[i];
        *primitive = i;
        if (!d->lod_indices) {
            for (uint32_t l = 1; l < ORR_MESH_MAX_LODS; l++)
                if (d->lod_index_counts[l]) return "lod_index_counts without lod_indices";
            continue;
        }
        if (given < 2) return "lod_indices without lod_given";
        if (d->topology != ORR_TOPOLOGY_TRIANGLES || !d->indices)
            return "lod_indices on a primitive that is not an indexed triangle list";
        if (!d->normals && !d->packed_normals.data)
            return "lod_indices on a primitive without normals (flat ones would split its vertices)";
        uint64_t total = 0;
        for (uint32_t l = 1; l < ORR_MESH_MAX_LODS; l++) {
            uint32_t n = d->lod_index_counts[l];
            if (l >= given && n) return "lod_index_counts past lod_given";
            if (n % 3) return "a level's index count is not a multiple of 3";
            total += n;
        }
        if (total + d->index_count > UINT32_MAX) return "more than 2^32 indices over its levels";
        for (uint64_t k = 0; k < total; k++)
            if (d->lod_indices[k] >= d->vertex_count) return "a level's index is past the primitive's vertices";
    }
    *primitive = UINT32_MAX;
    return NULL;
}

/* The box of the positions that indices [0, n) name (empty when n is 0). */
static orr_aabbf indexed_box(const float *pos, const uint32_t *idx, uint32_t n)
{
    orr_aabbf b = orr_aabbf_empty();
    for (uint32_t k = 0; k < n; k++) b = orr_aabbf_grow(b, pos + (size_t)idx[k] * 3, 1);
    return b;
}

/* How far level l of primitive p (its indices idx, n of them) lies from level 0, in local units: the
 * error meshoptimizer's simplifier reaches when it takes level 0 down to as many triangles (the sloppy
 * one where the careful one stops short of them: an unwelded mesh), and at least how far its box departs
 * from level 0's. */
static orr_result estimate_error(orr_assets *a, const orr_primitive *p, const float *pos, const uint32_t *idx, uint32_t n,
                                 float *out)
{
    uint32_t corners = p->index_count - p->index_count % 3;
    float e = 0.0f;
    if (n < corners) {
        uint32_t *scratch = alloc_raw(a, (size_t)corners * 4);
        if (!scratch) return ORR_ERROR_OUT_OF_MEMORY;
        size_t target = n < 3 ? 3 : n;
        size_t got = meshopt_simplify(scratch, p->indices, corners, pos, p->vertex_count, 12, target, 1.0f, 0, &e);
        if (got > target + target / 4 + 3)
            meshopt_simplifySloppy(scratch, p->indices, corners, pos, p->vertex_count, 12, target, 1.0f, &e);
        orri_free(&a->allocator, scratch, (size_t)corners * 4);
        e *= meshopt_simplifyScale(pos, p->vertex_count, 12);
    }
    orr_aabbf b0 = indexed_box(pos, p->indices, corners), bl = indexed_box(pos, idx, n);
    if (n && corners) {
        const float d[6] = {b0.min.x - bl.min.x, b0.min.y - bl.min.y, b0.min.z - bl.min.z,
                            b0.max.x - bl.max.x, b0.max.y - bl.max.y, b0.max.z - bl.max.z};
        for (int k = 0; k < 6; k++) e = fmaxf(e, fabsf(d[k]));
    }
    *out = e;
    return ORR_OK;
}

orr_result orri_assets_given_lods(orr_assets *a, orr_mesh *m, const orr_mesh_desc *desc)
{
    uint32_t given = desc->lod_given;
    float err[ORR_MESH_MAX_LODS] = {0};
    float *unpacked = NULL;
    size_t unpacked_bytes = 0;
    orr_result r = ORR_OK;
    m->lod_count = given;
    for (uint32_t i = 0; i < m->primitive_count && r == ORR_OK; i++) {
        orr_primitive *p = &m->primitives[i];
        const orr_primitive_desc *d = &desc->primitives[i];
        p->lods[0] = (orr_primitive_lod){0, p->index_count, 0, 0};
        if (!d->lod_indices) {
            for (uint32_t l = 1; l < ORR_MESH_MAX_LODS; l++) p->lods[l] = p->lods[0];
            continue;
        }
        uint32_t total = 0;
        for (uint32_t l = 1; l < given; l++) total += d->lod_index_counts[l];
        if (total) {
            p->lod_indices = alloc_raw(a, (size_t)total * 4);
            if (!p->lod_indices) {
                r = ORR_ERROR_OUT_OF_MEMORY;
                break;
            }
            memcpy(p->lod_indices, d->lod_indices, (size_t)total * 4);
            p->lod_index_count = total;
        }
        const float *pos = p->positions;
        if (!desc->lod_errors && !pos) { /* packed positions: floats for the simplifier */
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
        uint32_t at = 0;
        for (uint32_t l = 1; l < given && r == ORR_OK; l++) {
            uint32_t n = d->lod_index_counts[l];
            p->lods[l] = (orr_primitive_lod){p->index_count + at, n, 0, 0};
            float e = 0.0f;
            if (!desc->lod_errors) r = estimate_error(a, p, pos, p->lod_indices + at, n, &e);
            err[l] = fmaxf(err[l], e);
            at += n;
        }
        for (uint32_t l = given; l < ORR_MESH_MAX_LODS; l++) p->lods[l] = p->lods[given - 1];
    }
    orri_free(&a->allocator, unpacked, unpacked_bytes);
    memset(m->lod_error, 0, sizeof m->lod_error);
    for (uint32_t l = 1; l < given; l++)
        m->lod_error[l] = desc->lod_errors ? desc->lod_errors[l] : fmaxf(err[l], m->lod_error[l - 1]);
    for (uint32_t l = 0; l < given; l++) {
        m->lod_triangles[l] = 0;
        for (uint32_t i = 0; i < m->primitive_count; i++)
            if (m->primitives[i].topology == ORR_TOPOLOGY_TRIANGLES)
                m->lod_triangles[l] += m->primitives[i].lods[l].index_count / 3;
    }
    return r;
}
