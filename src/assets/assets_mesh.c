/* The asset library's meshes: primitives' streams (copied, taken over, or shared zeros), packed streams
 * and their readers, flat (unwelded) streams and morph targets, meshlets, and the passes of a large
 * primitive run in ranges on the worker pool. */
#include "core/internal.h"
#include "assets/assets_internal.h"

#include <limits.h>
#include <math.h>
#include <meshoptimizer.h>
#include <stdio.h>
#include <string.h>

/* ---- meshes ------------------------------------------------------------------------------ */

static void *shared_zeros(orr_assets *a, size_t bytes);

void *orr_assets_stream_alloc(orr_assets *a, size_t bytes) { return bytes ? alloc_raw(a, bytes) : NULL; }

void orr_assets_stream_free(orr_assets *a, void *stream, size_t bytes)
{
    if (stream) orri_free(&a->allocator, stream, bytes);
}

/* ---- packed streams ------------------------------------------------------------------------ */

uint32_t orr_packing_bytes(orr_packing packing)
{
    switch (packing) {
    case ORR_PACKING_U8: case ORR_PACKING_I8: case ORR_PACKING_U8_NORM: case ORR_PACKING_I8_NORM: return 4;
    case ORR_PACKING_U16: case ORR_PACKING_I16: case ORR_PACKING_U16_NORM: case ORR_PACKING_I16_NORM: return 8;
    default: return 0; /* ORR_PACKING_NONE, or not a packing */
    }
}

/* max(c, LO) / D in binary32 for the first three of each vertex's four components: the glTF loader's
 * conversion (a correctly rounded quotient of two exact floats). A block at a time: widened to 32 bits
 * (the padding dropped), then converted as one run of values, a loop the compiler vectorizes (with the
 * 4-in, 3-out shape in one loop it does not). */
#define ORRI_UNPACK(T, LO, D)                                                                            \
    for (uint32_t at = 0; at < count; at += 256) {                                                      \
        uint32_t m = count - at < 256 ? count - at : 256;                                                \
        for (uint32_t i = 0; i < m; i++)                                                                 \
            for (uint32_t k = 0; k < 3; k++) {                                                           \
                T t;                                                                                     \
                memcpy(&t, src + ((size_t)(first + at + i) * 4 + k) * sizeof(T), sizeof(T));            \
                wide[i * 3 + k] = t;                                                                     \
            }                                                                                            \
        float *restrict o = out + (size_t)at * 3;                                                        \
        for (uint32_t j = 0; j < m * 3; j++) {                                                           \
            int32_t v = wide[j];                                                                         \
            v = v < (LO) ? (LO) : v;                                                                     \
            o[j] = (float)v / (D);                                                                       \
        }                                                                                                \
    }

ORRI_WIDE static void packed_read(const orr_packed_stream *ps, uint32_t first, uint32_t count, float *restrict out)
{
    const uint8_t *src = ps->data;
    int32_t wide[256 * 3];
    switch (ps->packing) {
    case ORR_PACKING_U8: ORRI_UNPACK(uint8_t, 0, 1.0f) break;
    case ORR_PACKING_I8: ORRI_UNPACK(int8_t, INT32_MIN, 1.0f) break;
    case ORR_PACKING_U16: ORRI_UNPACK(uint16_t, 0, 1.0f) break;
    case ORR_PACKING_I16: ORRI_UNPACK(int16_t, INT32_MIN, 1.0f) break;
    case ORR_PACKING_U8_NORM: ORRI_UNPACK(uint8_t, 0, 255.0f) break;
    case ORR_PACKING_I8_NORM: ORRI_UNPACK(int8_t, -127, 127.0f) break;
    case ORR_PACKING_U16_NORM: ORRI_UNPACK(uint16_t, 0, 65535.0f) break;
    case ORR_PACKING_I16_NORM: ORRI_UNPACK(int16_t, -32767, 32767.0f) break;
    case ORR_PACKING_NONE: break; /* (refused when added) */
    }
}
#undef ORRI_UNPACK

/* (clones only static: clang's need every declaration alike) */
void orr_packed_stream_read(const orr_packed_stream *ps, uint32_t first, uint32_t count, float *out)
{
    packed_read(ps, first, count, out);
}

void orr_primitive_read_positions(const orr_primitive *p, uint32_t first, uint32_t count, float *out)
{
    ORRI_ASSERT(p && (out || !count) && first <= p->vertex_count && count <= p->vertex_count - first,
                "orr_primitive_read_positions: vertices %u..+%u of %u", first, count, p ? p->vertex_count : 0);
    if (p->positions) memcpy(out, p->positions + (size_t)first * 3, (size_t)count * 12);
    else orr_packed_stream_read(&p->packed_positions, first, count, out);
}

void orr_primitive_read_normals(const orr_primitive *p, uint32_t first, uint32_t count, float *out)
{
    ORRI_ASSERT(p && (out || !count) && first <= p->vertex_count && count <= p->vertex_count - first,
                "orr_primitive_read_normals: vertices %u..+%u of %u", first, count, p ? p->vertex_count : 0);
    if (p->normals) {
        memcpy(out, p->normals + (size_t)first * 3, (size_t)count * 12);
    } else {
        orr_packed_stream_read(&p->packed_normals, first, count, out);
        orri_normalize3(out, count);
    }
}

/* Bytes a vertex of a stored primitive's positions (normals) take: 12 as floats, else packed. */
static uint32_t position_bytes(const orr_primitive *p) { return p->positions ? 12 : orr_packing_bytes(p->packed_positions.packing); }
static uint32_t normal_bytes(const orr_primitive *p) { return p->normals ? 12 : orr_packing_bytes(p->packed_normals.packing); }

/* Positions [first, first + n) as floats: the primitive's own, or unpacked into `tmp` (n x 3 floats). */
static const float *positions_at(const orr_primitive *p, size_t first, size_t n, float *tmp)
{
    if (p->positions) return p->positions + first * 3;
    orr_packed_stream_read(&p->packed_positions, (uint32_t)first, (uint32_t)n, tmp);
    return tmp;
}
#define ORRI_UNPACK_BLOCK 1024u /* vertices unpacked at a time into a buffer on the stack (12 KB) */

/* The vertex streams of a desc and of the primitive made from it, with their ORR_OWN_* bits and sizes. */
typedef struct stream_ref {
    uint32_t bit, bytes_per_vertex;
    const void *src;
    void *dst;
} stream_ref;

static uint32_t stream_refs(const orr_primitive_desc *d, const orr_primitive *p, stream_ref out[8])
{
    const stream_ref r[8] = {
        d->positions ? (stream_ref){ORR_OWN_POSITIONS, 12, d->positions, p->positions}
                     : (stream_ref){ORR_OWN_POSITIONS, orr_packing_bytes(d->packed_positions.packing),
                                    d->packed_positions.data, (void *)p->packed_positions.data},
        d->normals ? (stream_ref){ORR_OWN_NORMALS, 12, d->normals, p->normals}
                   : (stream_ref){ORR_OWN_NORMALS, orr_packing_bytes(d->packed_normals.packing), d->packed_normals.data,
                                  (void *)p->packed_normals.data},
        {ORR_OWN_TANGENTS, 16, d->tangents, p->tangents},       {ORR_OWN_TEXCOORDS0, 8, d->texcoords0, p->texcoords0},
        {ORR_OWN_TEXCOORDS1, 8, d->texcoords1, p->texcoords1}, {ORR_OWN_COLORS, 16, d->colors, p->colors},
        {ORR_OWN_JOINTS, 8, d->joints, p->joints},              {ORR_OWN_WEIGHTS, 16, d->weights, p->weights},
    };
    memcpy(out, r, sizeof r);
    return 8;
}

static void *copy_of(orr_assets *a, const void *src, size_t bytes)
{
    void *dst = alloc_raw(a, bytes);
    if (dst) memcpy(dst, src, bytes);
    return dst;
}

/* A stream of the primitive: the desc's own when it is handed over, else a copy; NULL when absent. */
static void *take_or_copy(orr_assets *a, const orr_primitive_desc *d, uint32_t bit, const void *src, size_t bytes)
{
    if (!src) return NULL;
    return (d->owned & bit) ? (void *)src : copy_of(a, src, bytes);
}

/* A morph target's stream: a copy, or the shared zeros when absent. */
static void *copy_or_zeros(orr_assets *a, const void *src, size_t bytes)
{
    return src ? copy_of(a, src, bytes) : shared_zeros(a, bytes);
}

static bool is_shared(const orr_assets *a, const void *p)
{
    for (uint32_t i = 0; i < a->shared.count; i++) {
        const char *data = a->shared.items[i].data;
        if ((const char *)p >= data && (const char *)p < data + a->shared.items[i].bytes) return true;
    }
    return false;
}

/* A read-only block of at least `bytes` of zeros (the deltas of morph targets that move no stream). */
static void *shared_zeros(orr_assets *a, size_t bytes)
{
    if (a->zeros && a->zeros_bytes >= bytes) return a->zeros;
    size_t n = a->zeros_bytes * 2 > bytes ? a->zeros_bytes * 2 : bytes;
    n = (n + 15) & ~(size_t)15;
    if (n == 0) n = 16; /* never empty: is_shared must recognise a pointer to it (an empty stream's too) */
    if (!ORRI_VEC_RESERVE(&a->allocator, &a->shared, a->shared.count + 1)) return NULL;
    void *block = orri_alloc(&a->allocator, n);
    if (!block) return NULL;
    a->shared.items[a->shared.count++] = (struct shared_block){block, n};
    a->zeros = block;
    a->zeros_bytes = n;
    return block;
}

static void stream_free(orr_assets *a, void *p, size_t bytes)
{
    if (p && !is_shared(a, p)) orri_free(&a->allocator, p, bytes ? bytes : 1); /* as allocated: never 0 */
}

static void primitive_release(orr_assets *a, orr_primitive *p)
{
    size_t v = p->vertex_count;
    stream_free(a, p->positions ? (void *)p->positions : (void *)p->packed_positions.data, v * position_bytes(p));
    stream_free(a, p->normals ? (void *)p->normals : (void *)p->packed_normals.data, v * normal_bytes(p));
    stream_free(a, p->tangents, v * 16);
    stream_free(a, p->texcoords0, v * 8);
    stream_free(a, p->texcoords1, v * 8);
    stream_free(a, p->colors, v * 16);
    stream_free(a, p->weights, v * 16);
    stream_free(a, p->joints, v * 8);
    stream_free(a, p->indices, (size_t)p->index_count * 4);
    orri_free(&a->allocator, p->lod_indices, (size_t)p->lod_index_count * 4);
    for (uint32_t t = 0; p->targets && t < p->target_count; t++) {
        stream_free(a, p->targets[t].positions, v * 12);
        stream_free(a, p->targets[t].normals, v * 12);
        stream_free(a, p->targets[t].tangents, v * 12);
    }
    orri_free(&a->allocator, p->targets, (size_t)p->target_count * sizeof *p->targets);
}

void orri_assets_mesh_release(orr_assets *a, orr_mesh *m)
{
    for (uint32_t i = 0; i < m->primitive_count; i++) primitive_release(a, &m->primitives[i]);
    orri_free(&a->allocator, m->primitives, (size_t)m->primitive_count * sizeof(orr_primitive));
    orri_free(&a->allocator, m->weights, (size_t)m->weight_count * sizeof(float));
    orri_strfree(&a->allocator, m->name);
    orri_free(&a->allocator, m->meshlets, (size_t)m->meshlet_count * sizeof(orr_meshlet));
    orri_free(&a->allocator, m->meshlet_vertices, (size_t)m->meshlet_vertex_count * sizeof(uint32_t));
    orri_free(&a->allocator, m->meshlet_triangles, (size_t)m->meshlet_triangle_bytes);
    orri_free(&a->allocator, m->meshlet_bounds, (size_t)m->meshlet_count * sizeof(orr_meshlet_bounds));
}

/* Triangle fans and line loops become lists, so the renderer sees only list/strip topologies. The
 * output count is computed in 64 bits: a fan of n indices becomes 3(n-2), a loop 2n, which a hostile
 * count near UINT32_MAX would wrap. *idx is NULL with ORR_OK only never; CAPACITY when the list would
 * hold more than UINT32_MAX indices. */
static orr_result expand_indices(orr_assets *a, const orr_primitive_desc *d, uint32_t **out, uint32_t *count,
                                 orr_topology *topo)
{
    uint32_t n = d->indices ? d->index_count : d->vertex_count;
    *out = NULL;
    *topo = d->topology;
    uint64_t out_n = n;
    if (d->topology == ORR_TOPOLOGY_TRIANGLE_FAN) out_n = n >= 3 ? ((uint64_t)n - 2) * 3 : 0;
    if (d->topology == ORR_TOPOLOGY_LINE_LOOP) out_n = n >= 2 ? (uint64_t)n * 2 : 0;
    if (out_n > UINT32_MAX)
        return orri_error(&a->error, ORR_ERROR_CAPACITY, "%s of %u indices expands to %llu list indices, more than %u",
                          d->topology == ORR_TOPOLOGY_TRIANGLE_FAN ? "triangle fan" : "line loop", n,
                          (unsigned long long)out_n, UINT32_MAX);
    if (out_n > SIZE_MAX / 4) return ORR_ERROR_OUT_OF_MEMORY;
    bool as_given = d->indices && d->topology != ORR_TOPOLOGY_TRIANGLE_FAN && d->topology != ORR_TOPOLOGY_LINE_LOOP;
    if (as_given && (d->owned & ORR_OWN_INDICES)) { /* handed over: kept as they are */
        *count = n;
        *out = (uint32_t *)d->indices;
        return ORR_OK;
    }
    uint32_t *idx = alloc_raw(a, (size_t)out_n * 4);
    if (!idx) return ORR_ERROR_OUT_OF_MEMORY;
    if (as_given) {
        memcpy(idx, d->indices, (size_t)n * 4);
        *count = (uint32_t)out_n;
        *out = idx;
        return ORR_OK;
    }
#define SRC(i) (d->indices ? d->indices[(i)] : (uint32_t)(i))
    if (d->topology == ORR_TOPOLOGY_TRIANGLE_FAN) {
        for (size_t i = 0; i + 2 < n; i++) {
            idx[i * 3 + 0] = SRC(i + 1);
            idx[i * 3 + 1] = SRC(i + 2);
            idx[i * 3 + 2] = SRC(0);
        }
        *topo = ORR_TOPOLOGY_TRIANGLES;
    } else if (d->topology == ORR_TOPOLOGY_LINE_LOOP) {
        for (size_t i = 0; i < n && n >= 2; i++) {
            idx[i * 2 + 0] = SRC(i);
            idx[i * 2 + 1] = SRC((i + 1) % n);
        }
        *topo = ORR_TOPOLOGY_LINES;
    } else {
        for (size_t i = 0; i < n; i++) idx[i] = SRC(i);
    }
#undef SRC
    *count = (uint32_t)out_n;
    *out = idx;
    return ORR_OK;
}

/* Flat shading for triangles without normals (glTF 2.0 3.7.2.1: "client implementations MUST
 * calculate flat normals"): the primitive is unwelded, one vertex per triangle corner, each carrying
 * its face's normal, so that a vertex shared by faces pointing different ways no longer averages
 * them. Strips and fans become lists on the way (glTF's corner order); tangents, which belong to
 * the normals they were made for, are dropped (zeros). Streams the source lacks stay shared. */
static bool is_triangles(orr_topology t)
{
    return t == ORR_TOPOLOGY_TRIANGLES || t == ORR_TOPOLOGY_TRIANGLE_STRIP || t == ORR_TOPOLOGY_TRIANGLE_FAN;
}

static orr_result flat_streams(orr_assets *a, const orr_primitive_desc *d, orr_primitive *p)
{
    uint64_t n = d->indices ? d->index_count : d->vertex_count;
    uint64_t tris = d->topology == ORR_TOPOLOGY_TRIANGLES ? n / 3 : (n >= 3 ? n - 2 : 0);
    uint64_t corners = tris * 3;
    if (corners > UINT32_MAX)
        return orri_error(&a->error, ORR_ERROR_CAPACITY, "%llu triangles unwelded for flat normals need %llu vertices, more than %u",
                          (unsigned long long)tris, (unsigned long long)corners, UINT32_MAX);
    size_t c = (size_t)corners;
    p->vertex_count = (uint32_t)c;
    p->index_count = (uint32_t)c;
    p->topology = ORR_TOPOLOGY_TRIANGLES;
    p->positions = alloc_raw(a, c * 12);
    p->normals = alloc_raw(a, c * 12);
    p->tangents = NULL;
    p->texcoords0 = d->texcoords0 ? alloc_raw(a, c * 8) : NULL;
    p->texcoords1 = d->texcoords1 ? alloc_raw(a, c * 8) : NULL;
    p->colors = d->colors ? alloc_raw(a, c * 16) : NULL;
    p->weights = d->weights ? alloc_raw(a, c * 16) : NULL;
    p->joints = d->joints ? alloc_raw(a, c * 8) : NULL;
    p->indices = alloc_raw(a, c * 4);
    if (!p->positions || !p->normals || (d->texcoords0 && !p->texcoords0) || (d->texcoords1 && !p->texcoords1) ||
        (d->colors && !p->colors) || (d->weights && !p->weights) || (d->joints && !p->joints) || !p->indices)
        return ORR_ERROR_OUT_OF_MEMORY;
#define SRC(i) (d->indices ? d->indices[(i)] : (uint32_t)(i))
    for (size_t t = 0; t < tris; t++) {
        size_t v[3];
        if (d->topology == ORR_TOPOLOGY_TRIANGLES) v[0] = SRC(t * 3), v[1] = SRC(t * 3 + 1), v[2] = SRC(t * 3 + 2);
        else if (d->topology == ORR_TOPOLOGY_TRIANGLE_FAN) v[0] = SRC(t + 1), v[1] = SRC(t + 2), v[2] = SRC(0);
        else v[0] = SRC(t), v[1] = SRC(t + 1 + t % 2), v[2] = SRC(t + 2 - t % 2); /* strip: every other one flips */
        const float *pa = d->positions + v[0] * 3, *pb = d->positions + v[1] * 3, *pc = d->positions + v[2] * 3;
        float e1[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]}, e2[3] = {pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]};
        float fn[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        float len = sqrtf(fn[0] * fn[0] + fn[1] * fn[1] + fn[2] * fn[2]);
        if (len > 0.0f && isfinite(len)) fn[0] /= len, fn[1] /= len, fn[2] /= len;
        else fn[0] = fn[1] = 0.0f, fn[2] = 1.0f; /* degenerate face */
        for (int k = 0; k < 3; k++) {
            size_t o = t * 3 + (size_t)k, sv = v[k];
            memcpy(p->positions + o * 3, d->positions + sv * 3, 12);
            memcpy(p->normals + o * 3, fn, 12);
            if (d->texcoords0) memcpy(p->texcoords0 + o * 2, d->texcoords0 + sv * 2, 8);
            if (d->texcoords1) memcpy(p->texcoords1 + o * 2, d->texcoords1 + sv * 2, 8);
            if (d->colors) memcpy(p->colors + o * 4, d->colors + sv * 4, 16);
            if (d->weights) memcpy(p->weights + o * 4, d->weights + sv * 4, 16);
            if (d->joints) memcpy(p->joints + o * 4, d->joints + sv * 4, 8);
            p->indices[o] = (uint32_t)o;
        }
    }
#undef SRC
    return ORR_OK;
}

/* The primitive's morph targets: copied (zeros shared where a stream is absent), or, for a primitive
 * unwelded by flat_streams, their position deltas gathered to its corners (the normals are the faces',
 * so normal and tangent deltas do not apply). */
static orr_result copy_targets(orr_assets *a, const orr_primitive_desc *d, orr_primitive *p, bool unwelded)
{
    if (!d->target_count) return ORR_OK;
    p->targets = orri_alloc(&a->allocator, (size_t)d->target_count * sizeof *p->targets);
    if (!p->targets) return ORR_ERROR_OUT_OF_MEMORY;
    p->target_count = d->target_count;
    size_t v = p->vertex_count;
    for (uint32_t t = 0; t < d->target_count; t++) {
        const orr_morph_target_desc *td = &d->targets[t];
        orr_morph_target *mt = &p->targets[t];
        if (!unwelded) {
            mt->positions = copy_or_zeros(a, td->positions, v * 12);
            mt->normals = copy_or_zeros(a, td->normals, v * 12);
            mt->tangents = copy_or_zeros(a, td->tangents, v * 12);
        } else {
            mt->positions = td->positions ? alloc_raw(a, v * 12) : shared_zeros(a, v * 12);
            mt->normals = shared_zeros(a, v * 12);
            mt->tangents = shared_zeros(a, v * 12);
            if (mt->positions && td->positions) {
                /* the corners in flat_streams' order: the same walk over the source triangles */
                uint64_t n = d->indices ? d->index_count : d->vertex_count;
                uint64_t tris = d->topology == ORR_TOPOLOGY_TRIANGLES ? n / 3 : (n >= 3 ? n - 2 : 0);
#define SRC(i) (d->indices ? d->indices[(i)] : (uint32_t)(i))
                for (size_t f = 0; f < tris; f++) {
                    size_t c[3];
                    if (d->topology == ORR_TOPOLOGY_TRIANGLES) c[0] = SRC(f * 3), c[1] = SRC(f * 3 + 1), c[2] = SRC(f * 3 + 2);
                    else if (d->topology == ORR_TOPOLOGY_TRIANGLE_FAN) c[0] = SRC(f + 1), c[1] = SRC(f + 2), c[2] = SRC(0);
                    else c[0] = SRC(f), c[1] = SRC(f + 1 + f % 2), c[2] = SRC(f + 2 - f % 2);
                    for (int k = 0; k < 3; k++) memcpy(mt->positions + (f * 3 + (size_t)k) * 3, td->positions + c[k] * 3, 12);
                }
#undef SRC
            }
        }
        if (!mt->positions || !mt->normals || !mt->tangents) return ORR_ERROR_OUT_OF_MEMORY;
    }
    return ORR_OK;
}

/* Meshlets (meshoptimizer), for each triangle-list primitive: its meshlets are one range of the mesh's
 * arrays, which are grown geometrically while the primitives are split and trimmed to their exact
 * sizes at the end, so a mesh holds exactly the meshlets of its primitives (nothing is appended twice,
 * and the work stays linear in the primitives). The primitive's indices are then rewritten into meshlet
 * order (see orr_meshlet in the header). The cone weight makes meshoptimizer favour meshlets whose
 * normals agree, so that more of them can be cone-culled (its documented choice for that use). */
#define ORRI_MESHLET_CONE_WEIGHT 0.25f

typedef struct meshlet_arrays {
    uint32_t meshlets, bounds, vertices, triangle_bytes; /* capacities */
} meshlet_arrays;

/* Grows the mesh's meshlet arrays to hold `ml` more meshlets (and bounds), `nv` more vertex entries and
 * `nt` more triangle bytes; the counts do not change. */
static bool meshlet_reserve(orr_assets *a, orr_mesh *m, meshlet_arrays *cap, size_t ml, size_t nv, size_t nt)
{
    const orr_allocator *al = &a->allocator;
    if (ml > UINT32_MAX - m->meshlet_count || nv > UINT32_MAX - m->meshlet_vertex_count ||
        nt > UINT32_MAX - m->meshlet_triangle_bytes)
        return false;
    uint32_t need_ml = m->meshlet_count + (uint32_t)ml, need_v = m->meshlet_vertex_count + (uint32_t)nv,
             need_t = m->meshlet_triangle_bytes + (uint32_t)nt;
    return orri_grow(al, (void **)&m->meshlets, &cap->meshlets, need_ml, sizeof *m->meshlets) &&
           orri_grow(al, (void **)&m->meshlet_bounds, &cap->bounds, need_ml, sizeof *m->meshlet_bounds) &&
           orri_grow(al, (void **)&m->meshlet_vertices, &cap->vertices, need_v, sizeof *m->meshlet_vertices) &&
           orri_grow(al, (void **)&m->meshlet_triangles, &cap->triangle_bytes, need_t, 1);
}

/* Trims one array from its capacity to its count (what mesh_release frees). */
static bool meshlet_trim(const orr_allocator *al, void **ptr, uint32_t *have, uint32_t need, size_t size)
{
    if (*have == need) return true;
    if (need == 0) {
        orri_free(al, *ptr, (size_t)*have * size);
        *ptr = NULL;
    } else {
        void *t = orri_realloc(al, *ptr, (size_t)*have * size, (size_t)need * size);
        if (!t) return false;
        *ptr = t;
    }
    *have = need;
    return true;
}

#define ORRI_MESHLET_SAFE 1e9f /* coordinates within this give binary32 cross products that cannot overflow */

/* The meshlet's culling bounds from meshoptimizer, made safe to cull with: the sphere is widened until
 * it holds every vertex of the meshlet (measured in binary64) and by a relative 1e-6 more, and a
 * meshlet with triangles but no usable cone gets axis 0 and cutoff 1, which no view passes.
 * meshoptimizer's cone is binary32 cross products, which overflow to NaN beyond ORRI_MESHLET_SAFE (and
 * a build of it with asserts aborts): such a meshlet gets no cone and a sphere about its first vertex. */
static orr_meshlet_bounds meshlet_bounds_of(const float *pos, uint32_t vertex_count, const uint32_t *mv,
                                            const uint8_t *mt, const orr_meshlet *ml)
{
    bool safe = true;
    for (uint32_t k = 0; safe && k < ml->vertex_count; k++) {
        const float *q = pos + (size_t)mv[ml->vertex_offset + k] * 3;
        safe = fabsf(q[0]) <= ORRI_MESHLET_SAFE && fabsf(q[1]) <= ORRI_MESHLET_SAFE && fabsf(q[2]) <= ORRI_MESHLET_SAFE;
    }
    struct meshopt_Bounds b = {{0, 0, 0}, 0, {0, 0, 0}, {0, 0, 0}, 1, {0, 0, 0}, 127};
    if (safe)
        b = meshopt_computeMeshletBounds(mv + ml->vertex_offset, mt + ml->triangle_offset, ml->triangle_count,
                                         pos, vertex_count, 12);
    else /* (the widening below makes it hold the rest) */
        memcpy(b.center, pos + (size_t)mv[ml->vertex_offset] * 3, sizeof b.center);
    orr_meshlet_bounds out = {.center = {b.center[0], b.center[1], b.center[2]},
                              .cone_apex = {b.cone_apex[0], b.cone_apex[1], b.cone_apex[2]},
                              .cone_axis = {b.cone_axis[0], b.cone_axis[1], b.cone_axis[2]},
                              .cone_cutoff = b.cone_cutoff};
    double r2 = (double)b.radius * b.radius;
    for (uint32_t k = 0; k < ml->vertex_count; k++) {
        const float *q = pos + (size_t)mv[ml->vertex_offset + k] * 3;
        double dx = (double)q[0] - b.center[0], dy = (double)q[1] - b.center[1], dz = (double)q[2] - b.center[2];
        double d2 = dx * dx + dy * dy + dz * dz;
        r2 = d2 > r2 ? d2 : r2;
    }
    out.radius = (float)(sqrt(r2) * (1.0 + 1e-6));
    bool no_axis = b.cone_axis[0] == 0.0f && b.cone_axis[1] == 0.0f && b.cone_axis[2] == 0.0f;
    if (!(b.cone_cutoff < 1.0f) || no_axis || !isfinite(b.cone_cutoff)) {
        out.cone_axis[0] = out.cone_axis[1] = out.cone_axis[2] = 0.0f;
        out.cone_cutoff = 1.0f;
    }
    return out;
}

static orr_result build_meshlets(orr_assets *a, orr_mesh *m)
{
    meshlet_arrays cap = {0, 0, 0};
    size_t tmp_max = 0; /* the largest primitive's meshoptimizer bound: temporaries sized once */
    for (uint32_t i = 0; i < m->primitive_count; i++) {
        const orr_primitive *p = &m->primitives[i];
        if (p->topology != ORR_TOPOLOGY_TRIANGLES || p->index_count < 3) continue;
        size_t b = meshopt_buildMeshletsBound(p->index_count - p->index_count % 3, ORR_MESHLET_MAX_VERTICES,
                                              ORR_MESHLET_MAX_TRIANGLES);
        tmp_max = b > tmp_max ? b : tmp_max;
    }
    size_t ml_bytes = tmp_max * sizeof(struct meshopt_Meshlet), mv_bytes = tmp_max * ORR_MESHLET_MAX_VERTICES * 4,
           mt_bytes = tmp_max * ORR_MESHLET_MAX_TRIANGLES * 3;
    size_t idx_bytes = 0;
    for (uint32_t i = 0; i < m->primitive_count; i++) {
        size_t ib = (size_t)m->primitives[i].index_count * 4;
        idx_bytes = ib > idx_bytes ? ib : idx_bytes;
    }
    struct meshopt_Meshlet *ml = tmp_max ? alloc_raw(a, ml_bytes) : NULL;
    unsigned int *mv = tmp_max ? alloc_raw(a, mv_bytes) : NULL;
    unsigned char *mt = tmp_max ? alloc_raw(a, mt_bytes) : NULL;
    uint32_t *idx = tmp_max ? alloc_raw(a, idx_bytes) : NULL;
    bool ok = !tmp_max || (ml && mv && mt && idx);
    float *unpacked = NULL; /* a packed primitive's positions as floats, for meshoptimizer */
    size_t unpacked_bytes = 0;
    for (uint32_t i = 0; ok && i < m->primitive_count; i++) {
        orr_primitive *p = &m->primitives[i];
        p->meshlet_offset = m->meshlet_count;
        p->meshlet_count = 0;
        for (uint32_t l = 0; l < ORR_MESH_MAX_LODS; l++) p->lods[l].meshlet_offset = m->meshlet_count, p->lods[l].meshlet_count = 0;
        if (p->topology != ORR_TOPOLOGY_TRIANGLES || p->index_count < 3) continue;
        const float *pos = p->positions;
        if (!pos) {
            orri_free(&a->allocator, unpacked, unpacked_bytes);
            unpacked_bytes = (size_t)p->vertex_count * 12;
            unpacked = alloc_raw(a, unpacked_bytes);
            if (!unpacked) {
                ok = false;
                break;
            }
            orr_primitive_read_positions(p, 0, p->vertex_count, unpacked);
            pos = unpacked;
        }
        uint32_t lods = m->lod_count ? m->lod_count : 1;
        for (uint32_t l = 0; ok && l < lods; l++) { /* each level its own meshlets (a repeated level shares) */
            orr_primitive_lod *lv = &p->lods[l];
            if (l > 0 && lv->first_index == p->lods[l - 1].first_index) {
                lv->meshlet_offset = p->lods[l - 1].meshlet_offset;
                lv->meshlet_count = p->lods[l - 1].meshlet_count;
                continue;
            }
            uint32_t *range = lv->first_index < p->index_count ? p->indices + lv->first_index
                                                                 : p->lod_indices + (lv->first_index - p->index_count);
            uint32_t corners = lv->index_count - lv->index_count % 3;
            size_t n = meshopt_buildMeshlets(ml, mv, mt, range, corners, pos, p->vertex_count, 12,
                                             ORR_MESHLET_MAX_VERTICES, ORR_MESHLET_MAX_TRIANGLES, ORRI_MESHLET_CONE_WEIGHT);
            size_t nv = 0, nt = 0, tris = 0;
            if (n) {
                const struct meshopt_Meshlet *last = &ml[n - 1];
                nv = (size_t)last->vertex_offset + last->vertex_count;
                nt = (size_t)last->triangle_offset + (((size_t)last->triangle_count * 3 + 3) & ~(size_t)3);
            }
            for (size_t k = 0; k < n; k++) tris += ml[k].triangle_count;
            if (tris * 3 != corners) { /* meshoptimizer keeps every triangle; were it not to, keep the source order */
                orri_log(&a->logger, ORR_LOG_WARNING, "mesh '%s' primitive %u level %u: meshlets hold %zu of %u triangles; no meshlets built",
                         m->name ? m->name : "", i, l, tris, corners / 3);
                lv->meshlet_offset = m->meshlet_count;
                continue;
            }
            if (!meshlet_reserve(a, m, &cap, n, nv, nt)) {
                ok = false;
                break;
            }
            uint32_t base_v = m->meshlet_vertex_count, base_t = m->meshlet_triangle_bytes, first = 0;
            memcpy(m->meshlet_vertices + base_v, mv, nv * 4);
            memcpy(m->meshlet_triangles + base_t, mt, nt);
            for (size_t k = 0; k < n; k++) {
                orr_meshlet *d = &m->meshlets[m->meshlet_count + k];
                *d = (orr_meshlet){.vertex_offset = base_v + ml[k].vertex_offset,
                                   .triangle_offset = base_t + ml[k].triangle_offset,
                                   .vertex_count = ml[k].vertex_count,
                                   .triangle_count = ml[k].triangle_count,
                                   .first_index = lv->first_index + first};
                for (uint32_t c = 0; c < ml[k].triangle_count * 3; c++)
                    idx[first + c] = mv[ml[k].vertex_offset + mt[ml[k].triangle_offset + c]];
                first += ml[k].triangle_count * 3;
                m->meshlet_bounds[m->meshlet_count + k] = meshlet_bounds_of(pos, p->vertex_count, m->meshlet_vertices, m->meshlet_triangles, d);
            }
            memcpy(range, idx, (size_t)corners * 4);
            lv->meshlet_offset = m->meshlet_count;
            lv->meshlet_count = (uint32_t)n;
            m->meshlet_count += (uint32_t)n;
            m->meshlet_vertex_count += (uint32_t)nv;
            m->meshlet_triangle_bytes += (uint32_t)nt;
        }
        p->meshlet_offset = p->lods[0].meshlet_offset;
        p->meshlet_count = p->lods[0].meshlet_count;
    }
    orri_free(&a->allocator, unpacked, unpacked_bytes);
    orri_free(&a->allocator, ml, ml_bytes);
    orri_free(&a->allocator, mv, mv_bytes);
    orri_free(&a->allocator, mt, mt_bytes);
    orri_free(&a->allocator, idx, idx_bytes);
    const orr_allocator *al = &a->allocator;
    ok = ok && meshlet_trim(al, (void **)&m->meshlets, &cap.meshlets, m->meshlet_count, sizeof *m->meshlets) &&
         meshlet_trim(al, (void **)&m->meshlet_bounds, &cap.bounds, m->meshlet_count, sizeof *m->meshlet_bounds) &&
         meshlet_trim(al, (void **)&m->meshlet_vertices, &cap.vertices, m->meshlet_vertex_count, sizeof *m->meshlet_vertices) &&
         meshlet_trim(al, (void **)&m->meshlet_triangles, &cap.triangle_bytes, m->meshlet_triangle_bytes, 1);
    if (ok) return ORR_OK;
    /* out of memory: release the arrays by their capacities and leave the mesh without meshlets (the
     * caller releases the mesh) */
    orri_free(al, m->meshlets, (size_t)cap.meshlets * sizeof *m->meshlets);
    orri_free(al, m->meshlet_bounds, (size_t)cap.bounds * sizeof *m->meshlet_bounds);
    orri_free(al, m->meshlet_vertices, (size_t)cap.vertices * sizeof *m->meshlet_vertices);
    orri_free(al, m->meshlet_triangles, (size_t)cap.triangle_bytes);
    m->meshlets = NULL;
    m->meshlet_bounds = NULL;
    m->meshlet_vertices = NULL;
    m->meshlet_triangles = NULL;
    m->meshlet_count = m->meshlet_vertex_count = m->meshlet_triangle_bytes = 0;
    return ORR_ERROR_OUT_OF_MEMORY;
}

/* A failed add: the streams handed over stay the caller's, so the primitives let go of them before they
 * are released. */
static void disown(orr_mesh *m, const orr_mesh_desc *desc)
{
    for (uint32_t i = 0; m->primitives && i < desc->primitive_count; i++) {
        orr_primitive *p = &m->primitives[i];
        const orr_primitive_desc *d = &desc->primitives[i];
        void **dst[8] = {d->positions ? (void **)&p->positions : (void **)&p->packed_positions.data,
                         d->normals ? (void **)&p->normals : (void **)&p->packed_normals.data,
                         (void **)&p->tangents, (void **)&p->texcoords0,
                         (void **)&p->texcoords1, (void **)&p->colors, (void **)&p->joints, (void **)&p->weights};
        stream_ref r[8];
        uint32_t n = stream_refs(&desc->primitives[i], p, r);
        for (uint32_t k = 0; k < n; k++)
            if ((desc->primitives[i].owned & r[k].bit) && r[k].src && r[k].dst == r[k].src) *dst[k] = NULL;
        if ((desc->primitives[i].owned & ORR_OWN_INDICES) && p->indices == desc->primitives[i].indices) p->indices = NULL;
    }
}

/* A successful add: the streams handed over that the primitive did not keep (flat normals made new
 * ones) are released. */
static void release_unkept(orr_assets *a, const orr_mesh *m, const orr_mesh_desc *desc)
{
    for (uint32_t i = 0; i < desc->primitive_count; i++) {
        const orr_primitive_desc *d = &desc->primitives[i];
        stream_ref r[8];
        uint32_t n = stream_refs(d, &m->primitives[i], r);
        for (uint32_t k = 0; k < n; k++)
            if ((d->owned & r[k].bit) && r[k].src && r[k].dst != r[k].src)
                orr_assets_stream_free(a, (void *)r[k].src, (size_t)d->vertex_count * r[k].bytes_per_vertex);
        if ((d->owned & ORR_OWN_INDICES) && d->indices && m->primitives[i].indices != d->indices)
            orr_assets_stream_free(a, (void *)d->indices, (size_t)d->index_count * 4);
    }
}

/* ---- a large primitive's passes, in ranges on the worker pool (orr_mesh_desc.threads) ---------- */

/* One range of a stream: its largest index, or its positions' box, or their largest squared distance
 * from a center. Ranges are combined in order with the same comparisons as one pass over the whole,
 * so the results are the same bits at any thread count. */
typedef struct range_job {
    const uint32_t *indices;
    const orr_primitive *prim; /* its positions, floats or packed */
    size_t first, count;
    uint32_t max_index;
    orr_aabbf box;
    float center[3], r2;
} range_job;

#define ORRI_RANGES_MAX 256u
#define ORRI_RANGE_MIN (1u << 14)   /* elements of a range at least */

ORRI_WIDE static void max_index_job(void *ctx, uint32_t i)
{
    range_job *j = &((range_job *)ctx)[i];
    uint32_t mx = 0; /* branch-free: the compiler vectorizes it */
    for (size_t k = j->first; k < j->first + j->count; k++) mx = j->indices[k] > mx ? j->indices[k] : mx;
    j->max_index = mx;
}

/* (a block at a time: a running box grown block after block is one pass's, bit for bit) */
static void box_job(void *ctx, uint32_t i)
{
    range_job *j = &((range_job *)ctx)[i];
    float tmp[ORRI_UNPACK_BLOCK * 3];
    orr_aabbf b = orr_aabbf_empty();
    for (size_t at = j->first, end = j->first + j->count; at < end; at += ORRI_UNPACK_BLOCK) {
        size_t n = end - at < ORRI_UNPACK_BLOCK ? end - at : ORRI_UNPACK_BLOCK;
        b = orr_aabbf_grow(b, positions_at(j->prim, at, n, tmp), n); /* positions are finite */
    }
    j->box = b;
}

ORRI_WIDE static void r2_job(void *ctx, uint32_t i)
{
    range_job *j = &((range_job *)ctx)[i];
    float tmp[ORRI_UNPACK_BLOCK * 3], r2 = 0.0f, c[3] = {j->center[0], j->center[1], j->center[2]};
    for (size_t at = j->first, end = j->first + j->count; at < end; at += ORRI_UNPACK_BLOCK) {
        size_t n = end - at < ORRI_UNPACK_BLOCK ? end - at : ORRI_UNPACK_BLOCK;
        const float *q = positions_at(j->prim, at, n, tmp);
        for (size_t k = 0; k < n; k++) {
            float d2 = orri_dist2(q + k * 3, c);
            r2 = d2 > r2 ? d2 : r2;
        }
    }
    j->r2 = r2;
}

/* Splits n elements into ranges (one when small or single-threaded) and runs `job` on each. */
static uint32_t run_ranges(orr_workers *workers, uint32_t threads, size_t n, range_job *jobs, const range_job *proto,
                           void (*job)(void *ctx, uint32_t i))
{
    size_t ranges = threads > 1 && n >= ORRI_RANGES_FROM ? (n + ORRI_RANGE_MIN - 1) / ORRI_RANGE_MIN : 1;
    if (ranges > ORRI_RANGES_MAX) ranges = ORRI_RANGES_MAX;
    size_t per = (n + ranges - 1) / ranges;
    uint32_t count = 0;
    for (size_t first = 0; count == 0 || first < n; first += per) {
        jobs[count] = *proto;
        jobs[count].first = first;
        jobs[count].count = n - first < per ? n - first : per;
        count++;
    }
    orri_pool_run(workers, threads, count, job, jobs);
    return count;
}

static uint32_t max_index(orr_workers *workers, uint32_t threads, const uint32_t *indices, size_t n)
{
    range_job jobs[ORRI_RANGES_MAX];
    uint32_t count = run_ranges(workers, threads, n, jobs, &(range_job){.indices = indices}, max_index_job), mx = 0;
    for (uint32_t i = 0; i < count; i++) mx = jobs[i].max_index > mx ? jobs[i].max_index : mx;
    return mx;
}

static orr_aabbf position_box(orr_workers *workers, uint32_t threads, const orr_primitive *p)
{
    range_job jobs[ORRI_RANGES_MAX];
    uint32_t count = run_ranges(workers, threads, p->vertex_count, jobs, &(range_job){.prim = p}, box_job);
    orr_aabbf b = jobs[0].box;
    for (uint32_t i = 1; i < count; i++) b = orr_aabbf_merge(b, jobs[i].box);
    return b;
}

static float position_r2(orr_workers *workers, uint32_t threads, const orr_primitive *p, const float center[3])
{
    range_job jobs[ORRI_RANGES_MAX];
    range_job proto = {.prim = p, .center = {center[0], center[1], center[2]}};
    uint32_t count = run_ranges(workers, threads, p->vertex_count, jobs, &proto, r2_job);
    float r2 = 0.0f;
    for (uint32_t i = 0; i < count; i++) r2 = jobs[i].r2 > r2 ? jobs[i].r2 : r2;
    return r2;
}

/* The largest squared distance of any primitive's position from c. */
static float mesh_r2(orr_workers *workers, uint32_t threads, const orr_mesh *m, const float c[3])
{
    float r2 = 0.0f;
    for (uint32_t i = 0; i < m->primitive_count; i++) {
        float pr2 = position_r2(workers, threads, &m->primitives[i], c);
        r2 = pr2 > r2 ? pr2 : r2;
    }
    return r2;
}

/* What is wrong with a primitive's packed streams (orr_primitive_desc.packed_positions, packed_normals),
 * or NULL. */
static const char *packed_misuse(const orr_primitive_desc *d)
{
    const orr_packed_stream *ps[2] = {&d->packed_positions, &d->packed_normals};
    const void *floats[2] = {d->positions, d->normals};
    static const char *const what[2][4] = {
        {"packed_positions has data but no packing", "packed_positions has a packing but no data",
         "positions given twice, as floats and packed_positions", "packed_positions with morph targets"},
        {"packed_normals has data but no packing", "packed_normals has a packing but no data",
         "normals given twice, as floats and packed_normals", "packed_normals with morph targets"}};
    for (int k = 0; k < 2; k++) {
        if (ps[k]->data && !orr_packing_bytes(ps[k]->packing)) return what[k][0];
        if (!ps[k]->data && ps[k]->packing != ORR_PACKING_NONE) return what[k][1];
        if (ps[k]->data && floats[k]) return what[k][2];
        if (ps[k]->data && d->target_count) return what[k][3];
    }
    if (d->packed_positions.data && !d->normals && !d->packed_normals.data && is_triangles(d->topology))
        return "packed_positions without normals (flat normals are made from float positions)";
    return NULL;
}

orr_result orr_assets_add_mesh(orr_assets *a, const orr_mesh_desc *desc, orr_mesh_id *out)
{
    ORRI_REQUIRE(a, NULL, "orr_assets_add_mesh: assets is NULL");
    ORRI_REQUIRE(desc && out, &a->error, "orr_assets_add_mesh: desc and out are required");
    uint32_t threads = desc->threads > ORRI_MAX_THREADS ? ORRI_MAX_THREADS : desc->threads ? desc->threads : 1;
    for (uint32_t i = 0; i < desc->primitive_count; i++) {
        const orr_primitive_desc *d = &desc->primitives[i];
        const char *bad = packed_misuse(d);
        if (bad)
            return orri_error(&a->error, ORR_ERROR_INVALID_ARGUMENT, "mesh '%s' primitive %u: %s",
                              desc->name ? desc->name : "", i, bad);
        if (!d->positions && !d->packed_positions.data && d->vertex_count)
            return orri_error(&a->error, ORR_ERROR_INVALID_ARGUMENT, "mesh '%s' primitive %u: no positions",
                              desc->name ? desc->name : "", i);
        /* before the index scan: a fan or loop whose list would not fit is refused without reading it */
        uint64_t n = d->indices ? d->index_count : d->vertex_count, out_n = n;
        if (d->topology == ORR_TOPOLOGY_TRIANGLE_FAN) out_n = n >= 3 ? (n - 2) * 3 : 0;
        if (d->topology == ORR_TOPOLOGY_LINE_LOOP) out_n = n >= 2 ? n * 2 : 0;
        if (out_n > UINT32_MAX)
            return orri_error(&a->error, ORR_ERROR_CAPACITY,
                              "mesh '%s' primitive %u: a %s of %llu indices expands to %llu list indices, more than %u",
                              desc->name ? desc->name : "", i,
                              d->topology == ORR_TOPOLOGY_TRIANGLE_FAN ? "triangle fan" : "line loop",
                              (unsigned long long)n, (unsigned long long)out_n, UINT32_MAX);
        if (d->indices) { /* a branch-free pass first (or the caller's); the slow one only to name the bad index */
            uint32_t mx = d->max_index ? *d->max_index : max_index(desc->workers, threads, d->indices, d->index_count);
#ifndef NDEBUG
            uint32_t check = max_index(desc->workers, threads, d->indices, d->index_count);
            ORRI_ASSERT(!d->max_index || check == mx, "orr_assets_add_mesh: mesh '%s' primitive %u: max_index %u, its indices' largest is %u",
                        desc->name ? desc->name : "", i, mx, check);
#endif
            for (uint32_t k = 0; mx >= d->vertex_count && k < d->index_count; k++) {
                if (d->indices[k] >= d->vertex_count)
                    return orri_error(&a->error, ORR_ERROR_INVALID_ARGUMENT,
                                      "mesh '%s' primitive %u: index %u is %u, %u vertices",
                                      desc->name ? desc->name : "", i, k, d->indices[k], d->vertex_count);
            }
        }
        if (!orr_id_is_none(d->material) && !orr_assets_try_get_material(a, d->material))
            return orri_error(&a->error, ORR_ERROR_STALE_HANDLE, "mesh '%s' primitive %u: stale material id",
                              desc->name ? desc->name : "", i);
        if (d->target_count && !d->targets)
            return orri_error(&a->error, ORR_ERROR_INVALID_ARGUMENT, "mesh '%s' primitive %u: %u morph targets, targets is NULL",
                              desc->name ? desc->name : "", i, d->target_count);
    }
    if (desc->lod_levels > ORR_MESH_MAX_LODS - 1 || (desc->lod_ratio != 0.0f && !(desc->lod_ratio > 0.0f && desc->lod_ratio < 1.0f)))
        return orri_error(&a->error, ORR_ERROR_INVALID_ARGUMENT, "mesh '%s': lod_levels %u, lod_ratio %g: at most %u levels, a ratio in (0, 1)",
                          desc->name ? desc->name : "", desc->lod_levels, (double)desc->lod_ratio, ORR_MESH_MAX_LODS - 1);
    uint32_t bad_at;
    const char *bad_lods = orri_assets_given_lods_misuse(desc, &bad_at);
    if (bad_lods && bad_at == UINT32_MAX)
        return orri_error(&a->error, ORR_ERROR_INVALID_ARGUMENT, "mesh '%s': %s", desc->name ? desc->name : "", bad_lods);
    if (bad_lods)
        return orri_error(&a->error, ORR_ERROR_INVALID_ARGUMENT, "mesh '%s' primitive %u: %s", desc->name ? desc->name : "",
                          bad_at, bad_lods);
    if (desc->weight_count && !desc->weights)
        return orri_error(&a->error, ORR_ERROR_INVALID_ARGUMENT, "mesh '%s': %u morph weights, weights is NULL",
                          desc->name ? desc->name : "", desc->weight_count);
    orr_handle h = {0, 0};
    orr_mesh *m = NULL;
    orr_result r = orri_assets_pool_add(a, &a->meshes, &h, (void **)&m);
    if (r != ORR_OK) return r;
    m->name = orri_strdup(&a->allocator, desc->name ? desc->name : "");
    m->primitives = orri_alloc(&a->allocator, (size_t)desc->primitive_count * sizeof(orr_primitive));
    m->bounds = orr_aabbd_empty();
    bool boxes_given = true; /* every primitive with vertices has the caller's box, and no morph targets */
    if (m->primitives) m->primitive_count = desc->primitive_count; /* so that mesh_release frees it by its size */
    if (!m->name || !m->primitives) goto oom;
    for (uint32_t i = 0; i < desc->primitive_count; i++) {
        const orr_primitive_desc *d = &desc->primitives[i];
        orr_primitive *p = &m->primitives[i];
        p->material = orr_id_is_none(d->material) ? a->default_material : d->material;
        orr_result er = ORR_OK;
        bool flat = !d->normals && !d->packed_normals.data && is_triangles(d->topology);
        if (flat) {
            er = flat_streams(a, d, p);
        } else {
            uint32_t vc = d->vertex_count;
            p->vertex_count = vc;
            p->positions = take_or_copy(a, d, ORR_OWN_POSITIONS, d->positions, (size_t)vc * 12);
            p->packed_positions = (orr_packed_stream){
                take_or_copy(a, d, ORR_OWN_POSITIONS, d->packed_positions.data,
                             (size_t)vc * orr_packing_bytes(d->packed_positions.packing)),
                d->packed_positions.packing};
            p->packed_normals = (orr_packed_stream){
                take_or_copy(a, d, ORR_OWN_NORMALS, d->packed_normals.data,
                             (size_t)vc * orr_packing_bytes(d->packed_normals.packing)),
                d->packed_normals.packing};
            /* points and lines without normals face +Z (written in place, so never the shared zeros) */
            p->normals = d->normals                ? take_or_copy(a, d, ORR_OWN_NORMALS, d->normals, (size_t)vc * 12)
                         : d->packed_normals.data ? NULL
                                                  : alloc_raw(a, (size_t)vc * 12);
            if (p->normals && !d->normals)
                for (size_t k = 0; k < vc; k++) p->normals[k * 3] = p->normals[k * 3 + 1] = 0.0f, p->normals[k * 3 + 2] = 1.0f;
            p->tangents = take_or_copy(a, d, ORR_OWN_TANGENTS, d->tangents, (size_t)vc * 16);
            p->texcoords0 = take_or_copy(a, d, ORR_OWN_TEXCOORDS0, d->texcoords0, (size_t)vc * 8);
            p->texcoords1 = take_or_copy(a, d, ORR_OWN_TEXCOORDS1, d->texcoords1, (size_t)vc * 8);
            p->colors = take_or_copy(a, d, ORR_OWN_COLORS, d->colors, (size_t)vc * 16);
            p->weights = take_or_copy(a, d, ORR_OWN_WEIGHTS, d->weights, (size_t)vc * 16);
            p->joints = take_or_copy(a, d, ORR_OWN_JOINTS, d->joints, (size_t)vc * 8);
            er = expand_indices(a, d, &p->indices, &p->index_count, &p->topology);
            if (er == ORR_OK && ((!p->positions && !p->packed_positions.data) || (!p->normals && !p->packed_normals.data) ||
                                 (d->tangents && !p->tangents) ||
                                 (d->texcoords0 && !p->texcoords0) || (d->texcoords1 && !p->texcoords1) ||
                                 (d->colors && !p->colors) || (d->weights && !p->weights) || (d->joints && !p->joints)))
                er = ORR_ERROR_OUT_OF_MEMORY;
        }
        if (er == ORR_OK) er = copy_targets(a, d, p, flat);
        if (er == ORR_ERROR_OUT_OF_MEMORY) goto oom;
        if (er != ORR_OK) {
            char msg[sizeof a->error.message];
            snprintf(msg, sizeof msg, "%s", a->error.message);
            disown(m, desc);
            orri_assets_mesh_release(a, m);
            orr_handle_pool_free(&a->meshes.handles, h);
            return orri_error(&a->error, er, "mesh '%s' primitive %u: %s", desc->name ? desc->name : "", i, msg);
        }
        uint32_t v = p->vertex_count;
        /* the caller's box is the desc's positions': not the flat-normal streams' (only the vertices drawn) */
        bool given = d->box && v && !flat;
        boxes_given = boxes_given && (given || !v) && !p->target_count;
        orr_aabbf b = given ? *d->box : position_box(desc->workers, threads, p);
#ifndef NDEBUG
        orr_aabbf check = position_box(desc->workers, threads, p);
        ORRI_ASSERT(!given || !memcmp(&check, &b, sizeof b),
                    "orr_assets_add_mesh: mesh '%s' primitive %u: box (%g %g %g)..(%g %g %g) is not its positions' (%g %g %g)..(%g %g %g)",
                    desc->name ? desc->name : "", i, b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z, check.min.x,
                    check.min.y, check.min.z, check.max.x, check.max.y, check.max.z);
#endif
        for (uint32_t t = 0; t < p->target_count; t++) /* grown from zero: the box holds "no delta" too */
            p->targets[t].delta_bounds = (orr_aabbf){{0, 0, 0}, {0, 0, 0}};
        for (uint32_t k = 0; p->target_count && k < v; k++) {
            /* morphed by weights in [0, 1]: each target's negative and positive deltas at their extremes */
            float lo[3], hi[3];
            memcpy(lo, p->positions + (size_t)k * 3, 12);
            memcpy(hi, lo, 12);
            for (uint32_t t = 0; t < p->target_count; t++) {
                float *dmin = &p->targets[t].delta_bounds.min.x, *dmax = &p->targets[t].delta_bounds.max.x;
                for (int c = 0; c < 3; c++) {
                    float dlt = p->targets[t].positions[(size_t)k * 3 + (size_t)c];
                    if (!isfinite(dlt)) continue;
                    *(dlt < 0 ? &lo[c] : &hi[c]) += dlt;
                    dmin[c] = fminf(dmin[c], dlt), dmax[c] = fmaxf(dmax[c], dlt);
                }
            }
            b.min.x = fminf(b.min.x, lo[0]), b.min.y = fminf(b.min.y, lo[1]), b.min.z = fminf(b.min.z, lo[2]);
            b.max.x = fmaxf(b.max.x, hi[0]), b.max.y = fmaxf(b.max.y, hi[1]), b.max.z = fmaxf(b.max.z, hi[2]);
        }
        p->bounds = b;
        if (v) {
            m->bounds = orr_aabbd_union(
                m->bounds, (orr_aabbd){{b.min.x, b.min.y, b.min.z}, {b.max.x, b.max.y, b.max.z}});
        }
        m->vertex_bytes += (uint64_t)v * (position_bytes(p) + normal_bytes(p) + (p->tangents ? 16 : 0) +
                                          (p->texcoords0 ? 8 : 0) + (p->texcoords1 ? 8 : 0) +
                                          (p->colors ? 16 : 0) + (p->weights ? 16 : 0) + (p->joints ? 8 : 0) +
                                          36 * (uint64_t)p->target_count);
        if (p->target_count > m->weight_count) m->weight_count = p->target_count;
    }
    if (m->weight_count) {
        m->weights = orri_alloc(&a->allocator, (size_t)m->weight_count * sizeof(float));
        if (!m->weights) {
            m->weight_count = 0;
            goto oom;
        }
        for (uint32_t t = 0; t < m->weight_count && t < desc->weight_count; t++) m->weights[t] = desc->weights[t];
    }
    if (orr_aabbd_is_empty(m->bounds)) m->bounds = (orr_aabbd){{0, 0, 0}, {0, 0, 0}};
    /* binary32 like the positions themselves (and vectorizable); the radius is widened by a relative
     * 1e-6 so that rounding cannot leave a vertex outside the sphere */
    float c[3];
    m->sphere_center = orri_sphere_center(m->bounds, c);
    bool r2_given = desc->sphere_r2 && boxes_given; /* (the caller's boxes are the bounds: see orr_mesh_desc) */
    float r2 = r2_given ? *desc->sphere_r2 : mesh_r2(desc->workers, threads, m, c);
    ORRI_ASSERT(!r2_given || mesh_r2(desc->workers, threads, m, c) == r2,
                "orr_assets_add_mesh: mesh '%s': sphere_r2 %.9g is not its positions' %.9g", desc->name ? desc->name : "",
                r2, mesh_r2(desc->workers, threads, m, c));
    m->sphere_radius = sqrt((double)r2) * (1.0 + 1e-6);
    if ((desc->lod_given > 1 ? orri_assets_given_lods(a, m, desc) : orri_assets_build_lods(a, m, desc->lod_levels, desc->lod_ratio)) !=
        ORR_OK)
        goto oom;
    if (desc->build_meshlets && build_meshlets(a, m) != ORR_OK) goto oom;
    release_unkept(a, m, desc);
    *out = (orr_mesh_id){h.index, h.generation};
    return ORR_OK;
oom:
    disown(m, desc);
    orri_assets_mesh_release(a, m);
    orr_handle_pool_free(&a->meshes.handles, h);
    return orri_error(&a->error, ORR_ERROR_OUT_OF_MEMORY, "mesh '%s': out of memory", desc->name ? desc->name : "");
}

const orr_mesh *orr_assets_try_get_mesh(const orr_assets *a, orr_mesh_id id) { return pool_item(&a->meshes, AS_HANDLE(id)); }
