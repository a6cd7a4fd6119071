/* glTF 2.0 build: meshes. Each primitive's streams read (packed formats kept where the asset library
 * takes them, decoded index views lent to it instead of copied), converted on the worker pool when
 * large, tangent spaces and skin weights checked, then added to the library as one mesh per glTF mesh. */
#include "core/internal.h"
#include "scene/gltf_build_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- meshes ------------------------------------------------------------------------------------- */

static const orr_topology topology_of_mode[7] = {
    ORR_TOPOLOGY_POINTS,         ORR_TOPOLOGY_LINES,     ORR_TOPOLOGY_LINE_LOOP,     ORR_TOPOLOGY_LINE_STRIP,
    ORR_TOPOLOGY_TRIANGLES,      ORR_TOPOLOGY_TRIANGLE_STRIP, ORR_TOPOLOGY_TRIANGLE_FAN,
};

/* Streams of one primitive; `borrowed` ones point into the file's buffers (never freed here). */
typedef struct prim_scratch {
    float *pos, *nrm, *tan, *uv0, *uv1, *col, *wgt;
    uint16_t *jnt;
    uint32_t *idx;
    const void *borrowed[9];
    uint32_t owned; /* ORR_OWN_* bits: streams read into the asset library's memory (read_owned) */
    uint32_t vertex_count;
    struct convert_job { /* read_owned's conversions (read_packed's copies), run together by convert_streams */
        const orri_gltf_doc *doc;
        uint32_t accessor, components;
        float fill, *out;
        uint8_t *packed; /* instead of out: the accessor's elements copied as they are (read_packed) */
        orr_packing packing;
        bool normalize; /* normals: made unit length (glTF requires it; some exporters are sloppy) */
        float unit_tol; /* normals: the distance from unit length they are warned about past (unit_tolerance) */
        bool box;       /* positions the data scan found no box for: theirs found too, while they are in cache */
        const float *center; /* positions: their largest orri_dist2 from it found too (NULL: not) */
    } jobs[8];
    uint32_t job_count;
    orr_packed_stream packed[2]; /* positions and normals kept packed (read_packed) */
    uint32_t packed_lent[2];     /* 1 + the view whose decoded block such a stream is (lent); 0: copied */
    int32_t idx_view; /* with ORR_OWN_INDICES: the view whose decoded block the indices are */
    size_t idx_bytes; /* indices converted into the asset library's memory (orr_assets_stream_alloc): its size */
    uint32_t far_at; /* the first normal read far from unit length (unit_tolerance), before normalizing; UINT32_MAX = none */
    float far_len;
    bool box_known; /* the positions' box, from the data scan or found while converting them */
    orr_aabbf box;
    bool max_known; /* the indices' largest, from the data scan */
    uint32_t max_index;
    const float *center; /* the mesh's sphere center, when its radius is found while converting (sphere_known) */
    float r2;            /* and the positions' largest orri_dist2 from it */
    orr_morph_target_desc *targets; /* their streams read into scratch */
    uint32_t target_count;
} prim_scratch;

/* The ORR_OWN_* bit of each stream slot (pos, nrm, tan, uv0, uv1, col, wgt, jnt) and its bytes a vertex. */
static const uint32_t own_bit[8] = {ORR_OWN_POSITIONS,  ORR_OWN_NORMALS, ORR_OWN_TANGENTS, ORR_OWN_TEXCOORDS0,
                                    ORR_OWN_TEXCOORDS1, ORR_OWN_COLORS,  ORR_OWN_WEIGHTS,  ORR_OWN_JOINTS};
static const uint32_t own_bytes[8] = {12, 12, 16, 8, 8, 16, 16, 8};

static bool is_borrowed(const prim_scratch *s, const void *p)
{
    for (int i = 0; i < 9; i++)
        if (p && s->borrowed[i] == p) return true;
    return false;
}

/* After a successful add: the scratch lets go of the streams the library took over. */
static void handed_over(prim_scratch *s)
{
    void **all[8] = {(void **)&s->pos, (void **)&s->nrm, (void **)&s->tan, (void **)&s->uv0,
                     (void **)&s->uv1, (void **)&s->col, (void **)&s->wgt, (void **)&s->jnt};
    for (int i = 0; i < 8; i++)
        if (s->owned & own_bit[i]) *all[i] = NULL;
    if (s->owned & ORR_OWN_INDICES) s->idx = NULL, s->idx_bytes = 0;
    for (int i = 0; i < 2; i++)
        if (s->owned & own_bit[i]) s->packed[i].data = NULL, s->packed_lent[i] = 0;
    s->owned = 0;
}

static void scratch_free(orri_gltf_bctx *b, prim_scratch *s)
{
    void *all[9] = {s->pos, s->nrm, s->tan, s->uv0, s->uv1, s->col, s->wgt, s->jnt, s->idx};
    for (int i = 0; i < 2; i++) {
        if (s->packed[i].data) all[i] = (void *)s->packed[i].data;
        if ((s->owned & own_bit[i]) && s->packed_lent[i]) { /* lent, and the add failed: the doc's again */
            orri_gltf_unlend_block((orri_gltf_doc *)b->doc, (int32_t)s->packed_lent[i] - 1);
            all[i] = NULL;
        }
    }
    for (int i = 0; i < 9; i++) {
        uint32_t per = i < 2 && s->packed[i].data ? orr_packing_bytes(s->packed[i].packing) : i < 8 ? own_bytes[i] : 0;
        if (i < 8 && (s->owned & own_bit[i])) orr_assets_stream_free(b->assets, all[i], (size_t)s->vertex_count * per);
        else if (i == 8 && s->idx_bytes) orr_assets_stream_free(b->assets, all[i], s->idx_bytes);
        else if (!is_borrowed(s, all[i])) orri_gltf_bfree(b, all[i]);
    }
    if ((s->owned & ORR_OWN_INDICES) && !s->idx_bytes) /* lent, and the add failed */
        orri_gltf_unlend_block((orri_gltf_doc *)b->doc, s->idx_view);
    for (uint32_t t = 0; s->targets && t < s->target_count; t++) {
        orri_gltf_bfree(b, (void *)s->targets[t].positions);
        orri_gltf_bfree(b, (void *)s->targets[t].normals);
        orri_gltf_bfree(b, (void *)s->targets[t].tangents);
    }
    orri_gltf_bfree(b, s->targets);
    memset(s, 0, sizeof *s);
}

/* Where the accessor already holds exactly the tightly packed data wanted (float x comps, or uint32
 * indices), the buffer itself: the asset library copies it once, with no scratch copy in between. */
static const void *direct(const orri_gltf_doc *d, int32_t acc, uint32_t comp_type, uint32_t comps)
{
    const orri_gltf_accessor *a = &d->accessors[acc];
    if (a->view < 0 || a->sparse_count || a->component_type != comp_type || a->components != comps ||
        a->columns != 1 || a->stride != comps * 4)
        return NULL;
    const orri_gltf_view *v = &d->views[a->view];
    const uint8_t *p = v->data + a->offset;
    return ((uintptr_t)p % 4) ? NULL : p;
}

/* How far from unit length a normal or tangent of the accessor may be before it is warned about: float
 * rounding (1e-3), and for normalized integers (KHR_mesh_quantization: what gltfpack and other
 * quantizing tools write) also the rounding of each component to its grid, half a step each, so
 * sqrt(3)/2 of a step for the vector (8-bit normals are up to 0.7% off unit length by construction). */
static float unit_tolerance(const orri_gltf_doc *d, int32_t acc)
{
    const orri_gltf_accessor *a = &d->accessors[acc];
    float steps = !a->normalized                                  ? 0.0f
                  : a->component_type == ORRI_GLTF_BYTE           ? 127.0f
                  : a->component_type == ORRI_GLTF_UNSIGNED_BYTE  ? 255.0f
                  : a->component_type == ORRI_GLTF_SHORT          ? 32767.0f
                  : a->component_type == ORRI_GLTF_UNSIGNED_SHORT ? 65535.0f
                                                                  : 0.0f; /* (floats are never normalized) */
    return steps > 0.0f ? 1e-3f + 0.8660254f / steps : 1e-3f;
}

/* A vertex stream converted into memory of the asset library, which the mesh then takes over (no copy
 * of it, and no second set of fresh pages): slot is its place in own_bit. */
static float *read_owned(orri_gltf_bctx *b, int32_t acc, uint32_t comps, float fill, bool *ok, prim_scratch *s, int slot)
{
    const orri_gltf_accessor *a = &b->doc->accessors[acc]; /* count = the primitive's vertices, > 0 */
    float *out = orr_assets_stream_alloc(b->assets, (size_t)a->count * own_bytes[slot]);
    if (!out) {
        *ok = false;
        return NULL;
    }
    s->jobs[s->job_count++] = (struct convert_job){b->doc, (uint32_t)acc, comps, fill, out, NULL, ORR_PACKING_NONE, slot == 1,
                                                   slot == 1 ? unit_tolerance(b->doc, acc) : 0.0f,
                                                   slot == 0 && !s->box_known, slot == 0 ? s->center : NULL};
    s->owned |= own_bit[slot];
    return out;
}

/* How the accessor's elements can be kept as they are, as a packed stream of the asset library
 * (orr_packed_stream: four integer components a vertex, the fourth padding), or ORR_PACKING_NONE:
 * quantized positions and normals (KHR_mesh_quantization) as gltfpack and most quantizing tools lay
 * them out, each in a view of its own or interleaved on a 4-component stride. */
static orr_packing packing_of(const orri_gltf_doc *d, int32_t acc)
{
    const orri_gltf_accessor *a = &d->accessors[acc];
    if (a->view < 0 || a->sparse_count || a->columns != 1 || a->components != 3) return ORR_PACKING_NONE;
    bool n = a->normalized;
    orr_packing p = a->component_type == ORRI_GLTF_BYTE             ? (n ? ORR_PACKING_I8_NORM : ORR_PACKING_I8)
                    : a->component_type == ORRI_GLTF_UNSIGNED_BYTE  ? (n ? ORR_PACKING_U8_NORM : ORR_PACKING_U8)
                    : a->component_type == ORRI_GLTF_SHORT          ? (n ? ORR_PACKING_I16_NORM : ORR_PACKING_I16)
                    : a->component_type == ORRI_GLTF_UNSIGNED_SHORT ? (n ? ORR_PACKING_U16_NORM : ORR_PACKING_U16)
                                                                    : ORR_PACKING_NONE;
    return a->stride == orr_packing_bytes(p) ? p : ORR_PACKING_NONE; /* (0 for none) */
}

/* A quantized stream (packing_of) kept as it is for the asset library, which the mesh takes over: no
 * conversion to floats, a third or a sixth of their bytes. A decoded view that the stream alone reads is
 * lent as it is; else the elements are copied into the library's memory, by a job of convert_streams,
 * which measures the stream as read_owned's conversions do (the positions' box and sphere, the first
 * normal far from unit length). Slot 0 (positions) or 1 (normals). */
static bool sole_user(orri_gltf_bctx *b, int32_t acc);

static void read_packed(orri_gltf_bctx *b, int32_t acc, orr_packing packing, bool *ok, prim_scratch *s, int slot)
{
    const orri_gltf_accessor *a = &b->doc->accessors[acc]; /* count = the primitive's vertices, > 0 */
    size_t bytes = (size_t)a->count * orr_packing_bytes(packing);
    uint8_t *out = (uint8_t *)b->doc->views[a->view].data + a->offset; /* a decoded block of its own: lent */
    if (sole_user(b, acc) && orri_gltf_lend_block((orri_gltf_doc *)b->doc, a->view, out, bytes)) {
        s->packed_lent[slot] = (uint32_t)a->view + 1;
    } else if (!(out = orr_assets_stream_alloc(b->assets, bytes))) { /* else copied */
        *ok = false;
        return;
    }
    s->jobs[s->job_count++] = (struct convert_job){b->doc, (uint32_t)acc, 3, 0, NULL, out, packing, slot == 1,
                                                   slot == 1 ? unit_tolerance(b->doc, acc) : 0.0f,
                                                   slot == 0 && !s->box_known, slot == 0 ? s->center : NULL};
    s->packed[slot] = (orr_packed_stream){out, packing};
    s->owned |= own_bit[slot];
}

/* One range of one stream to convert: a job of the worker pool, writing only its own elements. */
typedef struct convert_range {
    const struct convert_job *stream;
    uint32_t first, count;
    uint32_t far_at; /* normals: the range's first element far from unit length; UINT32_MAX = none */
    float far_len;
    orr_aabbf box; /* positions: the range's, by the comparisons of the asset library's position_box */
    float r2;      /* positions with a center: the range's largest orri_dist2 from it */
} convert_range;

#define ORRI_CONVERT_RANGE (1u << 14) /* elements of a job */
#define ORRI_CONVERT_FROM (1u << 17)  /* values from which a primitive's streams convert on the pool */
#define ORRI_CONVERT_BLOCK 4096u      /* elements converted, then normalized while still in cache */

/* The largest of r2 and the positions' orri_dist2 from c, as a running maximum finds it: the distances
 * of 256 at a time, then their maximum in 8 lanes, both loops vectorized (one running maximum is a
 * chain of dependent comparisons, 4 cycles a vertex). The same float: a maximum does not depend on the
 * order, and no NaN (never kept) or -0 (a sum of squares is +0 at least) can make it. */
ORRI_WIDE static float max_dist2(const float *p, uint32_t n, const float c[3], float r2)
{
    float m[8], d2[256];
    for (int l = 0; l < 8; l++) m[l] = r2;
    for (uint32_t at = 0; at < n; at += 256) {
        uint32_t b = n - at < 256 ? n - at : 256, k = 0;
        for (uint32_t i = 0; i < b; i++) d2[i] = orri_dist2(p + (size_t)(at + i) * 3, c);
        for (; k + 8 <= b; k += 8)
            for (uint32_t l = 0; l < 8; l++) m[l] = d2[k + l] > m[l] ? d2[k + l] : m[l];
        for (; k < b; k++) m[0] = d2[k] > m[0] ? d2[k] : m[0];
    }
    for (int l = 1; l < 8; l++) m[0] = m[l] > m[0] ? m[l] : m[0];
    return m[0];
}

static float norm3(const float *v) { return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* The first of n normals further than tol from unit length, or UINT32_MAX: their lengths 256 at a time
 * in a loop that vectorizes (the same floats as one at a time), then the first far one among them. */
ORRI_WIDE static uint32_t first_far(const float *v, uint32_t n, float tol)
{
    for (uint32_t at = 0; at < n; at += 256) {
        uint32_t m = n - at < 256 ? n - at : 256;
        uint8_t far[256];
        for (uint32_t k = 0; k < m; k++) far[k] = !(fabsf(norm3(v + (size_t)(at + k) * 3) - 1.0f) <= tol);
        for (uint32_t k = 0; k < m; k++)
            if (far[k]) return at + k;
    }
    return UINT32_MAX;
}

/* The first of n packed 8-bit normals (orr_packing I8_NORM: a 32-bit word a vertex) further than tol
 * from unit length, or UINT32_MAX, without converting them: a component's float is c/127 to within
 * 2^-24, so the length of the floats (norm3 of orr_packed_stream_read's) and the exact sqrt(x^2+y^2+z^2)/127 of
 * the integers differ by far less than 1e-5; only a vertex whose integer length is not clearly within
 * tol is measured as floats, and the floats decide. Whole blocks of 256 (a count the compiler knows,
 * so that the loop vectorizes at -O2 too), then the rest. */
static inline uint8_t maybe_far_i8(const uint8_t *src, int32_t near_lo, int32_t near_hi)
{
    uint32_t w;
    memcpy(&w, src, 4);
    int32_t x = (int8_t)(w & 255), y = (int8_t)((w >> 8) & 255), z = (int8_t)((w >> 16) & 255);
    x = x < -127 ? -127 : x, y = y < -127 ? -127 : y, z = z < -127 ? -127 : z;
    int32_t l2 = x * x + y * y + z * z;
    return (uint8_t)((l2 < near_lo) | (l2 > near_hi));
}

ORRI_WIDE static uint32_t first_far_i8(const uint8_t *src, uint32_t n, float tol)
{
    double lo = 127.0 * (1.0 - tol + 1e-5), hi = 127.0 * (1.0 + tol - 1e-5);
    int32_t near_lo = (int32_t)ceil(lo * lo), near_hi = (int32_t)floor(hi * hi);
    for (uint32_t at = 0; at < n; at += 256) {
        uint32_t m = n - at < 256 ? n - at : 256;
        uint8_t maybe[256], any = 0;
        if (m == 256)
            for (uint32_t k = 0; k < 256; k++) maybe[k] = maybe_far_i8(src + (size_t)(at + k) * 4, near_lo, near_hi), any |= maybe[k];
        else
            for (uint32_t k = 0; k < m; k++) maybe[k] = maybe_far_i8(src + (size_t)(at + k) * 4, near_lo, near_hi), any |= maybe[k];
        for (uint32_t k = 0; any && k < m; k++) {
            if (!maybe[k]) continue;
            float v[3];
            orr_packed_stream_read(&(orr_packed_stream){src, ORR_PACKING_I8_NORM}, at + k, 1, v);
            if (!(fabsf(norm3(v) - 1.0f) <= tol)) return at + k;
        }
    }
    return UINT32_MAX;
}

/* max_dist2 of n packed 16-bit integer positions (orr_packing U16 or I16: two 32-bit words a vertex),
 * converted as they are measured: an integer of 16 bits is its float exactly, so these are the
 * distances of orr_packed_stream_read's floats, the same bits. */
#define ORRI_DIST2_16(T)                                                                                 \
    do {                                                                                                 \
        uint32_t w0, w1;                                                                                 \
        memcpy(&w0, src + (size_t)(at + i) * 8, 4), memcpy(&w1, src + (size_t)(at + i) * 8 + 4, 4);     \
        float q[3] = {(float)(T)(w0 & 0xffff), (float)(T)(w0 >> 16), (float)(T)(w1 & 0xffff)};           \
        d2[i] = orri_dist2(q, c);                                                                        \
    } while (0)

ORRI_WIDE static float max_dist2_16(const uint8_t *src, bool is_signed, uint32_t n, const float c[3], float r2)
{
    float m[8], d2[256];
    for (int l = 0; l < 8; l++) m[l] = r2;
    for (uint32_t at = 0; at < n; at += 256) {
        uint32_t b = n - at < 256 ? n - at : 256, k = 0;
        if (b == 256 && is_signed)
            for (uint32_t i = 0; i < 256; i++) ORRI_DIST2_16(int16_t);
        else if (b == 256)
            for (uint32_t i = 0; i < 256; i++) ORRI_DIST2_16(uint16_t);
        else if (is_signed)
            for (uint32_t i = 0; i < b; i++) ORRI_DIST2_16(int16_t);
        else
            for (uint32_t i = 0; i < b; i++) ORRI_DIST2_16(uint16_t);
        for (; k + 8 <= b; k += 8)
            for (uint32_t l = 0; l < 8; l++) m[l] = d2[k + l] > m[l] ? d2[k + l] : m[l];
        for (; k < b; k++) m[0] = d2[k] > m[0] ? d2[k] : m[0];
    }
    for (int l = 1; l < 8; l++) m[0] = m[l] > m[0] ? m[l] : m[0];
    return m[0];
}
#undef ORRI_DIST2_16

static void convert_range_run(void *ctx, uint32_t i)
{
    convert_range *r = &((convert_range *)ctx)[i];
    const struct convert_job *j = r->stream;
    r->far_at = UINT32_MAX;
    orr_aabbf bx = orr_aabbf_empty();
    float r2 = 0.0f;
    float measured[ORRI_CONVERT_BLOCK * 3]; /* a packed block's floats, to measure (48 KB) */
    /* packed: gltfpack's 8-bit normals and 16-bit integer positions are measured without converting them */
    bool fast_far = j->packed && j->normalize && j->packing == ORR_PACKING_I8_NORM,
         fast_r2 = j->packed && j->center && (j->packing == ORR_PACKING_U16 || j->packing == ORR_PACKING_I16);
    bool far = j->normalize && !fast_far, dist = j->center && !fast_r2; /* measured as floats */
    for (uint64_t at = r->first, end = (uint64_t)r->first + r->count; at < end; at += ORRI_CONVERT_BLOCK) {
        uint32_t n = (uint32_t)(end - at < ORRI_CONVERT_BLOCK ? end - at : ORRI_CONVERT_BLOCK);
        float *o = j->packed ? measured : j->out + (size_t)at * j->components;
        if (j->packed) {
            const orri_gltf_accessor *a = &j->doc->accessors[j->accessor];
            const uint8_t *from = j->doc->views[a->view].data + a->offset + (size_t)at * a->stride;
            uint8_t *src = j->packed + (size_t)at * a->stride;
            if (src != from) memcpy(src, from, (size_t)n * a->stride); /* (a lent block is the view itself) */
            uint32_t k = fast_far && r->far_at == UINT32_MAX ? first_far_i8(src, n, j->unit_tol) : UINT32_MAX;
            if (k != UINT32_MAX) {
                float v[3];
                orr_packed_stream_read(&(orr_packed_stream){j->packed, j->packing}, (uint32_t)at + k, 1, v);
                r->far_at = (uint32_t)at + k, r->far_len = norm3(v);
            }
            if (fast_r2) r2 = max_dist2_16(src, j->packing == ORR_PACKING_I16, n, j->center, r2);
            if (!j->box && !dist && !far) continue;
            /* the rest as floats: the asset library's conversion, from the copy while it is in cache */
            orr_packed_stream_read(&(orr_packed_stream){j->packed, j->packing}, (uint32_t)at, n, o);
        } else {
            orri_gltf_read_floats_range(j->doc, j->accessor, (uint32_t)at, n, j->components, j->fill, o);
        }
        if (j->box) bx = orr_aabbf_grow(bx, o, n); /* while the block is in cache, as position_box does */
        if (dist) r2 = max_dist2(o, n, j->center, r2); /* likewise, as the asset library's position_r2 */
        if (far && r->far_at == UINT32_MAX) { /* the first far from unit length, before normalizing */
            uint32_t k = first_far(o, n, j->unit_tol);
            if (k != UINT32_MAX) r->far_at = (uint32_t)at + k, r->far_len = norm3(o + (size_t)k * 3);
        }
        if (j->normalize && !j->packed) orri_normalize3(o, n); /* (packed ones are, as they are read) */
    }
    r->box = bx;
    r->r2 = r2;
}

/* The primitive's streams read_owned allocated, converted (normals normalized), in ranges on the worker
 * pool when there is enough to share; each range writes only its own elements and the first normal far
 * from unit length is the first range's that has one, so the result is the same at any thread count.
 * The positions' box is the ranges' combined in order, as the asset library combines its own ranges:
 * the same bits as one pass (of equal values, -0 and +0, the first one found stays). */
static bool convert_streams(orri_gltf_bctx *b, prim_scratch *s)
{
    uint64_t values = 0;
    uint32_t ranges = 0, per = (uint32_t)(((uint64_t)s->vertex_count + ORRI_CONVERT_RANGE - 1) / ORRI_CONVERT_RANGE);
    for (uint32_t i = 0; i < s->job_count; i++) values += (uint64_t)s->vertex_count * s->jobs[i].components;
    convert_range *rs = orri_gltf_balloc(b, (size_t)s->job_count * per, sizeof *rs);
    if (s->job_count && !rs) return false;
    for (uint32_t i = 0; i < s->job_count; i++)
        for (uint64_t first = 0; first < s->vertex_count; first += ORRI_CONVERT_RANGE) {
            uint64_t left = s->vertex_count - first;
            rs[ranges++] = (convert_range){&s->jobs[i], (uint32_t)first,
                                           (uint32_t)(left < ORRI_CONVERT_RANGE ? left : ORRI_CONVERT_RANGE), 0, 0};
        }
    uint32_t threads = values >= ORRI_CONVERT_FROM ? orri_gltf_threads(b->options ? b->options->threads : 0) : 1;
    orri_gltf_run(b->doc->pool, threads, ranges, convert_range_run, rs);
    s->far_at = UINT32_MAX;
    for (uint32_t k = 0; k < ranges && s->far_at == UINT32_MAX; k++)
        if (rs[k].far_at != UINT32_MAX) s->far_at = rs[k].far_at, s->far_len = rs[k].far_len;
    for (uint32_t k = 0; k < ranges; k++)
        if (rs[k].stream->box) s->box = s->box_known ? orr_aabbf_merge(s->box, rs[k].box) : rs[k].box, s->box_known = true;
    s->r2 = 0.0f;
    for (uint32_t k = 0; k < ranges; k++) s->r2 = rs[k].r2 > s->r2 ? rs[k].r2 : s->r2; /* (0 in the others) */
    orri_gltf_bfree(b, rs);
    s->job_count = 0;
    return true;
}

/* Indices widened to 32 bits in ranges on the pool (16-bit ones above all: every mesh of fewer than
 * 65536 vertices), each range into its own part of `out`. */
typedef struct widen_job {
    const orri_gltf_doc *doc;
    uint32_t accessor, count;
    uint32_t *out;
} widen_job;

#define ORRI_WIDEN_RANGE (1u << 15)

static void widen_range_run(void *ctx, uint32_t i)
{
    const widen_job *w = ctx;
    uint32_t first = i * ORRI_WIDEN_RANGE, n = w->count - first < ORRI_WIDEN_RANGE ? w->count - first : ORRI_WIDEN_RANGE;
    orri_gltf_read_uints_range(w->doc, w->accessor, first, n, 1, w->out + first);
}

static void read_indices(orri_gltf_bctx *b, int32_t acc, uint32_t *out)
{
    const orri_gltf_doc *d = b->doc;
    uint32_t count = d->accessors[acc].count, threads = orri_gltf_threads(b->options ? b->options->threads : 0);
    /* (a range of none says whether the accessor reads in pieces at all) */
    if (count < ORRI_CONVERT_FROM || threads < 2 || !orri_gltf_read_uints_range(d, (uint32_t)acc, 0, 0, 1, out)) {
        orri_gltf_read_uints(d, (uint32_t)acc, 1, out); /* small, or sparse */
        return;
    }
    widen_job w = {d, (uint32_t)acc, count, out};
    orri_gltf_run(d->pool, threads, (count + ORRI_WIDEN_RANGE - 1) / ORRI_WIDEN_RANGE, widen_range_run, &w);
}

static float *read_stream_borrow(orri_gltf_bctx *b, int32_t acc, uint32_t comps, float fill, bool *ok, prim_scratch *s, int slot)
{
    if (acc < 0) return NULL;
    const void *p = direct(b->doc, acc, ORRI_GLTF_FLOAT, comps);
    if (p) {
        s->borrowed[slot] = p;
        return (float *)p;
    }
    return read_owned(b, acc, comps, fill, ok, s, slot);
}

float *orri_gltf_read_stream(orri_gltf_bctx *b, int32_t acc, uint32_t comps, float fill, bool *ok)
{
    if (acc < 0) return NULL;
    const orri_gltf_accessor *a = &b->doc->accessors[acc];
    float *out = orri_gltf_balloc(b, (size_t)a->count * comps, sizeof(float));
    if (!out) {
        *ok = false;
        return NULL;
    }
    orri_gltf_read_floats(b->doc, (uint32_t)acc, comps, fill, out);
    return out;
}

/* Whether accessor `acc` is read by nothing but the one primitive (its indices, or one of its streams),
 * and its bufferView by nothing but it: then the view's decoded block can become that primitive's
 * indices (or packed stream), which the asset library may rewrite (meshlet order) or free, with nothing
 * else reading them later. */
static bool sole_user(orri_gltf_bctx *b, int32_t acc)
{
    const orri_gltf_doc *d = b->doc;
    if (!b->view_users) {
        uint32_t vu_n = d->view_count + d->view_extra, au_n = d->accessor_count;
        uint32_t *vu = orri_gltf_balloc(b, (size_t)vu_n + 1, sizeof(uint32_t)), *au = orri_gltf_balloc(b, (size_t)au_n + 1, sizeof(uint32_t));
        if (!vu || !au) { /* copied instead */
            orri_gltf_bfree(b, vu), orri_gltf_bfree(b, au);
            return false;
        }
        b->view_users = vu, b->accessor_users = au; /* freed with the bctx */
#define USE(ARR, I) ((I) >= 0 && (uint32_t)(I) < ARR##_n ? (void)ARR[(I)]++ : (void)0)
        for (uint32_t i = 0; i < d->accessor_count; i++) {
            const orri_gltf_accessor *a = &d->accessors[i];
            USE(vu, a->view);
            if (a->sparse_count) USE(vu, a->sparse_indices_view), USE(vu, a->sparse_values_view);
        }
        for (uint32_t i = 0; i < d->image_count; i++) USE(vu, d->images[i].view);
        for (uint32_t m = 0; m < d->mesh_count; m++)
            for (uint32_t k = 0; k < d->meshes[m].primitive_count; k++) {
                const orri_gltf_primitive *p = &d->meshes[m].primitives[k];
                for (const cJSON *a = p->attributes ? p->attributes->child : NULL; a; a = a->next)
                    if (cJSON_IsNumber(a)) USE(au, (int32_t)a->valueint); /* every set, named or not */
                for (const cJSON *t = p->targets ? p->targets->child : NULL; t; t = t->next)
                    for (const cJSON *a = t->child; a; a = a->next)
                        if (cJSON_IsNumber(a)) USE(au, (int32_t)a->valueint);
                USE(au, p->indices);
            }
        for (uint32_t i = 0; i < d->skin_count; i++) USE(au, d->skins[i].inverse_bind);
        for (uint32_t i = 0; i < d->node_count; i++)
            USE(au, d->nodes[i].inst_t), USE(au, d->nodes[i].inst_r), USE(au, d->nodes[i].inst_s);
        for (uint32_t i = 0; i < d->animation_count; i++)
            for (uint32_t k = 0; k < d->animations[i].sampler_count; k++)
                USE(au, d->animations[i].samplers[k].input), USE(au, d->animations[i].samplers[k].output);
#undef USE
    }
    const orri_gltf_accessor *a = &d->accessors[acc];
    return a->view >= 0 && b->accessor_users[acc] == 1 && b->view_users[a->view] == 1;
}

/* glTF requires unit normals and tangents with w = +-1. Normals are normalized anyway; one far from unit
 * length (not rounding: unit_tolerance) or a tangent that breaks either rule is warned about, once per
 * primitive and attribute, naming the first element (the normals' found while converting them). */
static void warn_tangent_space(orri_gltf_bctx *b, uint32_t mi, uint32_t pi, const prim_scratch *s, const float *tan, uint32_t vc)
{
    float tol = tan ? unit_tolerance(b->doc, b->doc->meshes[mi].primitives[pi].tangent) : 0.0f;
    if ((s->nrm || s->packed[1].data) && !s->borrowed[1] && s->far_at != UINT32_MAX)
        orri_gltf_bviolation(b, "meshes[%u].primitives[%u].attributes.NORMAL: element %u has length %g, not 1; normalized", mi, pi,
              s->far_at, s->far_len);
    for (uint32_t k = 0; tan && k < vc; k++) {
        const float *v = tan + (size_t)k * 4;
        float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (fabsf(len - 1.0f) <= tol && (v[3] == 1.0f || v[3] == -1.0f)) continue;
        orri_gltf_bviolation(b, "meshes[%u].primitives[%u].attributes.TANGENT: element %u has length %g and w %g (needs 1 and +-1); used as given",
              mi, pi, k, len, v[3]);
        break;
    }
}

/* glTF: a vertex's skin weights sum to 1. Where they do not (beyond 1e-6: the rounding of four binary32
 * weights, or of normalized integers that sum exactly to their maximum, stays well inside it; an integer
 * sum one unit off does not), each weight is divided by the sum, as other viewers do: a vertex drawn
 * with its raw weights would land at its sum times its skinned position. A vertex whose weights sum to
 * 0 keeps them (it is drawn in its bind pose). One warning per primitive names the accessor, how many
 * vertices and the worst sum. A borrowed stream is copied first (the file's bytes are not written).
 * false when out of memory. */
static bool normalize_weights(orri_gltf_bctx *b, uint32_t mi, uint32_t pi, prim_scratch *s, uint32_t vc)
{
    uint32_t bad = 0, worst_at = 0;
    double worst = 1.0;
    for (uint32_t k = 0; k < vc; k++) {
        const float *w = s->wgt + (size_t)k * 4;
        double sum = (double)w[0] + w[1] + w[2] + w[3];
        if (!(sum > 0.0) || fabs(sum - 1.0) <= 1e-6) continue;
        if (fabs(sum - 1.0) > fabs(worst - 1.0)) worst = sum, worst_at = k;
        bad++;
    }
    if (!bad) return true;
    if (s->borrowed[6] == s->wgt) {
        float *copy = orr_assets_stream_alloc(b->assets, (size_t)vc * 16);
        if (!copy) return false;
        memcpy(copy, s->wgt, (size_t)vc * 16);
        s->borrowed[6] = NULL;
        s->wgt = copy;
        s->owned |= ORR_OWN_WEIGHTS;
    }
    for (uint32_t k = 0; k < vc; k++) {
        float *w = s->wgt + (size_t)k * 4;
        double sum = (double)w[0] + w[1] + w[2] + w[3];
        if (!(sum > 0.0) || fabs(sum - 1.0) <= 1e-6) continue;
        for (int c = 0; c < 4; c++) w[c] = (float)(w[c] / sum);
    }
    orri_gltf_bwarn(b, "meshes[%u].primitives[%u].attributes.WEIGHTS_0: accessor %d: the weights of %u of %u vertices do not sum to 1 "
                    "(worst: element %u, %.9g); normalized", mi, pi, b->doc->meshes[mi].primitives[pi].weights, bad, vc, worst_at,
                    worst);
    return true;
}

/* Whether the mesh's bounding sphere radius can be found while its positions are converted
 * (orr_mesh_desc.sphere_r2): every primitive the library gets has its box from the data scan before
 * any is converted, converted positions (not borrowed), no morph targets and its own normals (not
 * rebuilt flat); then `c` is the sphere's center as the library finds it from those boxes. */
static bool sphere_known(const orri_gltf_doc *d, const orri_gltf_mesh *m, float c[3])
{
    orr_aabbd u = orr_aabbd_empty();
    for (uint32_t pi = 0; pi < m->primitive_count; pi++) {
        const orri_gltf_primitive *p = &m->primitives[pi];
        if (p->position < 0 || p->vertex_count == 0) continue; /* not given to the library */
        orr_aabbf box;
        if (p->target_count || (p->normal < 0 && p->mode >= 4) || direct(d, p->position, ORRI_GLTF_FLOAT, 3) ||
            !orri_gltf_scanned_box(d, p->position, &box))
            return false;
        u = orr_aabbd_union(u, (orr_aabbd){{box.min.x, box.min.y, box.min.z}, {box.max.x, box.max.y, box.max.z}});
    }
    if (orr_aabbd_is_empty(u)) return false;
    orri_sphere_center(u, c);
    return true;
}

orr_result orri_gltf_build_mesh(orri_gltf_bctx *b, uint32_t mi)
{
    const orri_gltf_doc *d = b->doc;
    const orri_gltf_mesh *m = &d->meshes[mi];
    orr_primitive_desc *descs = orri_gltf_balloc(b, m->primitive_count, sizeof *descs);
    prim_scratch *sc = orri_gltf_balloc(b, m->primitive_count, sizeof *sc);
    if (!descs || !sc) {
        orri_gltf_bfree(b, descs), orri_gltf_bfree(b, sc);
        return orri_gltf_oom_at(b, "meshes", mi);
    }
    orr_result r = ORR_OK;
    uint32_t n = 0;
    float center[3], r2 = 0.0f;
    bool sphere = sphere_known(d, m, center);
    for (uint32_t pi = 0; pi < m->primitive_count && r == ORR_OK; pi++) {
        const orri_gltf_primitive *p = &m->primitives[pi];
        if (p->position < 0 || p->vertex_count == 0) continue; /* warned while parsing */
        prim_scratch *s = &sc[n];
        orr_primitive_desc *pd = &descs[n];
        bool ok = true;
        { /* what the library will hold for it: positions and normals always, other streams when given */
            uint64_t per = 24 + (p->tangent >= 0 && p->normal >= 0 ? 16 : 0) + (p->texcoord[0] >= 0 ? 8 : 0) +
                           (p->texcoord[1] >= 0 ? 8 : 0) +
                           (p->color >= 0 ? 16 : 0) + (p->weights >= 0 ? 16 : 0) + (p->joints >= 0 ? 8 : 0) +
                           36 * (uint64_t)p->target_count;
            uint64_t idx = p->indices >= 0 ? d->accessors[p->indices].count : p->vertex_count;
            char what[64];
            snprintf(what, sizeof what, "meshes[%u].primitives[%u]", mi, pi);
            if (p->mode == 6 || p->mode == 2) { /* fans and loops become lists: refused before decoding when too long */
                uint64_t list = p->mode == 6 ? (idx >= 3 ? (idx - 2) * 3 : 0) : idx * 2;
                if (list > UINT32_MAX) {
                    r = orri_error(b->err, ORR_ERROR_CAPACITY,
                                   "%s: a %s of %llu indices expands to %llu list indices, more than %u", what, p->mode == 6 ? "triangle fan" : "line loop", (unsigned long long)idx,
                                   (unsigned long long)list, UINT32_MAX);
                    break;
                }
                idx = list;
            }
            uint64_t verts = p->vertex_count;
            if (p->normal < 0 && p->mode >= 4) { /* flat normals: one vertex per triangle corner */
                uint64_t in = p->indices >= 0 ? d->accessors[p->indices].count : p->vertex_count;
                verts = p->mode == 4 ? in / 3 * 3 : (in >= 3 ? (in - 2) * 3 : 0);
                idx = verts;
            }
            r = orri_gltf_spend(b, verts * per + idx * 4, what);
            if (r != ORR_OK) break;
        }
        s->vertex_count = p->vertex_count;
        s->box_known = orri_gltf_scanned_box(d, p->position, &s->box); /* (then not found again) */
        s->center = sphere ? center : NULL;
        /* quantized positions and normals stay packed: not with morph targets (their bounds and deltas
         * are floats), and positions only beside normals on triangles (flat ones are made from floats) */
        orr_packing ppos = p->target_count || (p->normal < 0 && p->mode >= 4) ? ORR_PACKING_NONE : packing_of(d, p->position);
        orr_packing pnrm = p->target_count || p->normal < 0 ? ORR_PACKING_NONE : packing_of(d, p->normal);
        s->pos = NULL;
        if (ppos) read_packed(b, p->position, ppos, &ok, s, 0);
        else s->pos = read_stream_borrow(b, p->position, 3, 0, &ok, s, 0);
        s->nrm = NULL;
        if (pnrm) {
            read_packed(b, p->normal, pnrm, &ok, s, 1);
        } else if (p->normal >= 0) { /* borrowed only when every normal is already unit length */
            const float *dn = direct(d, p->normal, ORRI_GLTF_FLOAT, 3);
            bool unit = dn != NULL;
            for (size_t k = 0; unit && k < p->vertex_count; k++) {
                float x = dn[k * 3], y = dn[k * 3 + 1], z = dn[k * 3 + 2];
                unit = fabsf(x * x + y * y + z * z - 1.0f) <= 2e-6f;
            }
            if (unit) s->nrm = (float *)dn, s->borrowed[1] = dn;
            else s->nrm = read_owned(b, p->normal, 3, 0, &ok, s, 1);
        }
        /* tangents belong to the normals they were made for: without normals (generated flat) they are dropped */
        s->tan = p->normal >= 0 ? read_stream_borrow(b, p->tangent, 4, 1, &ok, s, 2) : NULL;
        s->uv0 = read_stream_borrow(b, p->texcoord[0], 2, 0, &ok, s, 3);
        s->uv1 = read_stream_borrow(b, p->texcoord[1], 2, 0, &ok, s, 4);
        s->col = read_stream_borrow(b, p->color, 4, 1, &ok, s, 5);
        s->wgt = read_stream_borrow(b, p->weights, 4, 0, &ok, s, 6);
        if (ok) ok = convert_streams(b, s);
        r2 = s->r2 > r2 ? s->r2 : r2;
        uint32_t vc = p->vertex_count;
        if (ok && p->joints >= 0) {
            uint32_t *tmp = orri_gltf_balloc(b, (size_t)vc * 4, sizeof(uint32_t));
            s->jnt = orr_assets_stream_alloc(b->assets, (size_t)vc * own_bytes[7]); /* vc > 0 here */
            if (s->jnt) s->owned |= ORR_OWN_JOINTS;
            if (tmp && s->jnt) {
                orri_gltf_read_uints(d, (uint32_t)p->joints, 4, tmp);
                for (size_t k = 0; k < (size_t)vc * 4; k++) s->jnt[k] = (uint16_t)tmp[k];
            } else {
                ok = false;
            }
            orri_gltf_bfree(b, tmp);
        }
        uint32_t ic = 0;
        if (ok && orri_gltf_late(d, p->indices)) { /* its indices were decoding beside the streams above */
            r = orri_gltf_finish((orri_gltf_doc *)d, b->name, b->options ? b->options->threads : 0, b->err);
            if (r != ORR_OK) {
                n++;
                break;
            }
        }
        if (ok && p->indices >= 0) {
            ic = d->accessors[p->indices].count;
            s->max_known = d->accessors[p->indices].max_known, s->max_index = d->accessors[p->indices].max_uint;
            const void *di = direct(d, p->indices, ORRI_GLTF_UNSIGNED_INT, 1);
            if (di) {
                s->idx = (uint32_t *)di;
                s->borrowed[8] = di;
            } else { /* widened straight into the library's memory, to be handed over */
                s->idx = orr_assets_stream_alloc(b->assets, (size_t)ic * 4);
                s->idx_bytes = s->idx ? (size_t)ic * 4 : 0;
                if (s->idx) read_indices(b, p->indices, s->idx);
                else ok = false;
            }
        }
        if (ok && p->target_count) { /* morph targets: POSITION, NORMAL and TANGENT displacements */
            s->targets = orri_gltf_balloc(b, p->target_count, sizeof *s->targets);
            ok = s->targets != NULL;
            if (ok) s->target_count = p->target_count;
            uint32_t t = 0;
            for (const cJSON *tj = p->targets ? p->targets->child : NULL; ok && tj && t < p->target_count; tj = tj->next, t++) {
                static const char *const names[3] = {"POSITION", "NORMAL", "TANGENT"};
                float **dst[3] = {(float **)&s->targets[t].positions, (float **)&s->targets[t].normals,
                                  (float **)&s->targets[t].tangents};
                for (int k = 0; k < 3 && ok; k++) {
                    const cJSON *acc = cJSON_GetObjectItemCaseSensitive(tj, names[k]);
                    /* without the base stream the delta has nothing to move (normals generated flat) */
                    bool base = k == 0 || (k == 1 && p->normal >= 0) || (k == 2 && p->tangent >= 0 && p->normal >= 0);
                    if (acc && cJSON_IsNumber(acc) && base) *dst[k] = orri_gltf_read_stream(b, (int32_t)acc->valueint, 3, 0, &ok);
                }
            }
        }
        if (!ok) {
            r = orri_gltf_oom_at(b, "meshes", mi);
            n++;
            break;
        }
        warn_tangent_space(b, mi, pi, s, s->tan, vc);
        if (s->wgt && !normalize_weights(b, mi, pi, s, vc)) {
            r = orri_gltf_oom_at(b, "meshes", mi);
            n++;
            break;
        }
        orr_topology topo = topology_of_mode[p->mode];
        uint32_t prim_n = p->indices >= 0 ? ic : vc;
        uint32_t whole = prim_n;
        if (topo == ORR_TOPOLOGY_TRIANGLES) whole = prim_n / 3 * 3;
        else if (topo == ORR_TOPOLOGY_LINES) whole = prim_n / 2 * 2;
        if (whole != prim_n) {
            orri_gltf_bwarn(b, "meshes[%u].primitives[%u]: %u vertices/indices do not make whole primitives; the rest is dropped",
                            mi, pi, prim_n);
            if (p->indices >= 0) {
                ic = whole, s->max_known = false; /* (the dropped ones' may have been the largest) */
            } else if (!s->idx) { /* non-indexed: generate indices for the whole ones */
                s->idx = orri_gltf_balloc(b, whole ? whole : 1, sizeof(uint32_t));
                if (!s->idx) {
                    r = orri_gltf_oom_at(b, "meshes", mi);
                    n++;
                    break;
                }
                for (uint32_t k = 0; k < whole; k++) s->idx[k] = k;
                ic = whole;
            }
        }
        /* indices decoded into a block of their own, read by this primitive alone and kept by it (not
         * rebuilt for flat normals, fans or loops): handed over instead of copied */
        bool kept = !(p->normal < 0 && p->mode >= 4) && p->mode != 2 && p->mode != 6;
        if (s->idx && s->idx == s->borrowed[8] && kept && sole_user(b, p->indices) &&
            orri_gltf_lend_block((orri_gltf_doc *)d, d->accessors[p->indices].view, s->idx, (size_t)ic * 4))
            s->owned |= ORR_OWN_INDICES, s->idx_view = d->accessors[p->indices].view;
        if (s->idx_bytes && s->idx_bytes == (size_t)ic * 4) s->owned |= ORR_OWN_INDICES; /* (not when trimmed) */
        *pd = (orr_primitive_desc){
            .vertex_count = vc,
            .positions = s->pos,
            .normals = s->nrm,
            .packed_positions = s->packed[0],
            .packed_normals = s->packed[1],
            .tangents = s->tan,
            .texcoords0 = s->uv0,
            .texcoords1 = s->uv1,
            .colors = s->col,
            .joints = s->jnt,
            .weights = s->wgt,
            .index_count = s->idx ? ic : 0,
            .indices = s->idx,
            .topology = topo,
            .target_count = s->target_count,
            .targets = s->targets,
            .owned = s->owned,
            .box = s->box_known ? &s->box : NULL,
            .max_index = s->max_known && s->idx ? &s->max_index : NULL,
        };
        if (p->material >= 0) pd->material = b->materials[p->material];
        n++;
    }
    if (r == ORR_OK && n > 0) {
        /* only a large primitive's passes are shared out: only then are workers needed */
        bool large = false;
        for (uint32_t i = 0; i < n; i++)
            large |= descs[i].vertex_count >= ORRI_RANGES_FROM || descs[i].index_count >= ORRI_RANGES_FROM;
        uint32_t threads = orri_gltf_threads(b->options ? b->options->threads : 0);
        orr_mesh_desc md = {.name = m->name, .primitive_count = n, .primitives = descs,
                            .build_meshlets = b->options && b->options->build_meshlets, .threads = threads,
                            .lod_levels = b->options ? b->options->lod_levels : 0,
                            .workers = large && threads > 1 ? orri_gltf_pool_get(b->doc->pool) : NULL,
                            .sphere_r2 = sphere ? &r2 : NULL};
        float *weights = NULL;
        uint32_t wn = m->weights ? (uint32_t)cJSON_GetArraySize(m->weights) : 0;
        if (wn) { /* numbers, checked by the parser */
            weights = orri_gltf_balloc(b, wn, sizeof *weights);
            if (!weights) r = orri_gltf_oom_at(b, "meshes", mi);
            uint32_t w = 0;
            for (const cJSON *e = m->weights->child; weights && e && w < wn; e = e->next, w++) weights[w] = (float)e->valuedouble;
            md.weight_count = weights ? wn : 0;
            md.weights = weights;
        }
        if (r == ORR_OK) {
            r = orr_assets_add_mesh(b->assets, &md, &b->meshes[mi]);
            if (r == ORR_OK) /* the streams handed over are the library's now */
                for (uint32_t k = 0; k < n; k++) handed_over(&sc[k]);
            if (r != ORR_OK) {
                char what[64];
                snprintf(what, sizeof what, "meshes[%u]", mi);
                r = orri_gltf_from_assets(b, r, what);
            }
        }
        orri_gltf_bfree(b, weights);
    } else if (r == ORR_OK) {
        orri_gltf_bwarn(b, "meshes[%u]: no primitive with positions; nodes using it draw nothing", mi);
    }
    for (uint32_t k = 0; k < n; k++) scratch_free(b, &sc[k]);
    orri_gltf_bfree(b, descs), orri_gltf_bfree(b, sc);
    return r;
}
