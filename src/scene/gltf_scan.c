/* glTF 2.0 parse: the accessors' data, scanned on the worker pool in ranges (floats that are NaN or
 * infinite, each component's extremes), then reported in accessor order, so that what a load says
 * is the same at any thread count. */
#include "core/internal.h"
#include "scene/gltf_parse_internal.h"
#include "scene/gltf_elements.h"

#include <limits.h>
#include <math.h>
#include <string.h>

/* ---- the accessors' data, scanned on the worker pool ------------------------------------------- */

#define ORRI_SCAN_JOB_ELEMENTS (1u << 14) /* small enough to share out among threads as they come free */
#define ORRI_SCAN_SHARED_VALUES (UINT64_C(1) << 20) /* from which the scan runs on the pool */

static bool scannable(const orri_gltf_accessor *a)
{
    return a->view >= 0 && !a->sparse_count && a->columns == 1 && a->components <= 4 && a->count;
}

/* Indices whose largest value the triangle decoder found (orri_meshopt_tri_desc.max): the accessor is the
 * whole decoded view, element for element, and declares no bounds to compare; it is not scanned. */
bool orri_gltf_decoder_max(const orri_gltf_doc *d, const orri_gltf_accessor *a)
{
    if (a->view < 0 || a->sparse_count || a->components != 1 || a->has_min || a->has_max || a->offset != 0) return false;
    const orri_gltf_view *v = &d->views[a->view];
    return v->max_known && (a->component_type == ORRI_GLTF_UNSIGNED_SHORT || a->component_type == ORRI_GLTF_UNSIGNED_INT) &&
           a->comp_size == v->max_size && a->stride == a->comp_size && (uint64_t)a->count * a->comp_size == v->length;
}

/* exponent all ones (NaN, infinity) <=> (w & 0x7f800000) + 0x00800000 reaches bit 31 */
#define ORRI_SCAN_FLOAT_BAD                                                                                \
    {                                                                                                      \
        uint32_t w;                                                                                        \
        memcpy(&w, &v[k], 4);                                                                              \
        acc |= (w & 0x7f800000u) + 0x00800000u;                                                            \
    }
#define ORRI_SCAN_LOOP(T, NC, BAD, STRIDE)                                                                 \
    for (uint32_t e = 0; e < j->count; e++) {                                                              \
        T v[NC];                                                                                           \
        memcpy(v, base + (size_t)e * (STRIDE), sizeof v);                                                  \
        for (uint32_t k = 0; k < (NC); k++) {                                                              \
            BAD;                                                                                           \
            lo[k] = v[k] < lo[k] ? v[k] : lo[k], hi[k] = v[k] > hi[k] ? v[k] : hi[k];                      \
        }                                                                                                  \
    }
#define ORRI_SCAN(T, NC, BAD)                                                                              \
    {                                                                                                      \
        T lo[NC], hi[NC];                                                                                  \
        uint32_t acc = 0;                                                                                  \
        memcpy(lo, base, sizeof lo);                                                                       \
        memcpy(hi, base, sizeof hi);                                                                       \
        if (a->stride == sizeof lo) /* packed: a constant stride, which the compiler vectorizes */         \
            ORRI_SCAN_LOOP(T, NC, BAD, sizeof lo)                                                          \
        else                                                                                               \
            ORRI_SCAN_LOOP(T, NC, BAD, a->stride)                                                          \
        j->bad = (acc & 0x80000000u) != 0;                                                                 \
        for (uint32_t k = 0; k < (NC); k++) j->mn[k] = lo[k], j->mx[k] = hi[k];                            \
    }
#define ORRI_SCAN_NC(T, BAD)                                                                               \
    switch (a->components) {                                                                               \
    case 1: ORRI_SCAN(T, 1, BAD) break;                                                                    \
    case 2: ORRI_SCAN(T, 2, BAD) break;                                                                    \
    case 3: ORRI_SCAN(T, 3, BAD) break;                                                                    \
    default: ORRI_SCAN(T, 4, BAD) break;                                                                   \
    }
/* Integer vectors of 3 padded to 4 (quantized positions and normals: a stride of 4 components) are
 * scanned as one array of T in steps of 64 bytes, lane k of the extremes holding component k % 4: a
 * loop of whole vectors, which the compiler vectorizes (a loop over elements, extremes per component,
 * it does not); the lanes of a component are combined at the end, the fourth's dropped. Not the
 * accessor's last element, whose padding may lie past the end of its view: it is read alone. */
#define ORRI_SCAN_INT(T)                                                                                   \
    if (a->components == 3 && a->stride == 4 * sizeof(T)) {                                               \
        enum { LANES = 64 / sizeof(T), PER = LANES / 4 };                                                  \
        uint32_t padded = j->count - (j->first + j->count == a->count), steps = padded / PER;              \
        T lo[LANES], hi[LANES], v[LANES], e3[3];                                                           \
        memcpy(e3, base, sizeof e3);                                                                       \
        for (uint32_t k = 0; k < LANES; k++) lo[k] = hi[k] = e3[k % 4 < 3 ? k % 4 : 0];                    \
        for (uint32_t s = 0; s < steps; s++) {                                                             \
            memcpy(v, base + (size_t)s * sizeof v, sizeof v);                                              \
            for (uint32_t k = 0; k < LANES; k++)                                                           \
                lo[k] = v[k] < lo[k] ? v[k] : lo[k], hi[k] = v[k] > hi[k] ? v[k] : hi[k];                  \
        }                                                                                                  \
        for (uint32_t e = steps * PER; e < j->count; e++) { /* the rest, and the last element's 3 */       \
            memcpy(e3, base + (size_t)e * 4 * sizeof(T), sizeof e3);                                       \
            for (uint32_t k = 0; k < 3; k++)                                                               \
                lo[k] = e3[k] < lo[k] ? e3[k] : lo[k], hi[k] = e3[k] > hi[k] ? e3[k] : hi[k];              \
        }                                                                                                  \
        for (uint32_t k = 4; k < LANES; k++)                                                               \
            if (k % 4 < 3)                                                                                 \
                lo[k % 4] = lo[k] < lo[k % 4] ? lo[k] : lo[k % 4], hi[k % 4] = hi[k] > hi[k % 4] ? hi[k] : hi[k % 4]; \
        j->bad = false;                                                                                    \
        for (uint32_t k = 0; k < 3; k++) j->mn[k] = lo[k], j->mx[k] = hi[k];                               \
    } else {                                                                                               \
        ORRI_SCAN_NC(T, (void)0)                                                                           \
    }

ORRI_WIDE static void scan_job_run(void *ctx, uint32_t i)
{
    orri_gltf_scan_job *j = &((orri_gltf_scan_job *)ctx)[i];
    const orri_gltf_accessor *a = &j->doc->accessors[j->accessor];
    const uint8_t *base = elem_ptr(j->doc, a, j->first);
    switch (a->component_type) {
    case ORRI_GLTF_FLOAT: ORRI_SCAN_NC(float, ORRI_SCAN_FLOAT_BAD) break;
    case ORRI_GLTF_BYTE: ORRI_SCAN_INT(int8_t) break;
    case ORRI_GLTF_UNSIGNED_BYTE: ORRI_SCAN_INT(uint8_t) break;
    case ORRI_GLTF_SHORT: ORRI_SCAN_INT(int16_t) break;
    case ORRI_GLTF_UNSIGNED_SHORT: ORRI_SCAN_INT(uint16_t) break;
    default: ORRI_SCAN_INT(uint32_t) break;
    }
}
#undef ORRI_SCAN_INT
#undef ORRI_SCAN_NC
#undef ORRI_SCAN
#undef ORRI_SCAN_LOOP
#undef ORRI_SCAN_FLOAT_BAD

/* How min/max that disagree with an accessor's data are reported: a violation where the data is in a
 * buffer view; a warning for the zeros of a view-less accessor, which the Khronos validator does not
 * compare either. */
typedef void (*report_fn)(orri_gltf_pctx *c, const char *fmt, ...);
static report_fn minmax_report(const orri_gltf_accessor *a) { return a->view >= 0 ? orri_gltf_violation : orri_gltf_warn; }

static bool check_sparse_indices(orri_gltf_pctx *c, const orri_gltf_accessor *a, uint32_t index)
{
    orri_gltf_doc *d = c->doc;
    uint32_t isz = comp_size(a->sparse_indices_type);
    /* indices strictly increasing and inside the accessor */
    const uint8_t *ip0 = sparse_indices(d, a);
    uint64_t prev = 0;
    for (uint32_t k = 0; k < a->sparse_count; k++) {
        uint32_t v = read_uint(ip0 + (size_t)k * isz, a->sparse_indices_type);
        if (v >= a->count)
            return PARSE_ERR(c, "accessors[%u].sparse.indices: index %u is %u, the accessor has %u elements", index, k, v, a->count);
        if (k > 0 && v <= prev) return PARSE_ERR(c, "accessors[%u].sparse.indices: index %u (%u) does not increase", index, k, v);
        prev = v;
    }
    return true;
}

static bool float_error(orri_gltf_pctx *c, const char *what, uint32_t index, uint32_t i, uint32_t k, float f)
{
    return PARSE_ERR(c, "accessors[%u]%s: element %u component %u is %s", index, what, i, k,
                     isnan(f) ? "NaN" : (f > 0 ? "Infinity" : "-Infinity"));
}

/* NaN and infinity refuse the file; min/max that disagree with the data only warn. Tightly packed
 * data (the common case, and the large one) takes a branch-free pass. */
bool orri_gltf_scan_floats(orri_gltf_pctx *c, const orri_gltf_accessor *a, uint32_t index)
{
    orri_gltf_doc *d = c->doc;
    double mn[16], mx[16];
    for (uint32_t k = 0; k < 16; k++) mn[k] = INFINITY, mx[k] = -INFINITY;
    /* Draco quantizes: its decoded values need not match the bounds written from the originals */
    bool want_bounds = (a->has_min || a->has_max) && !a->sparse_count && a->draco_view < 0;
    if (a->view >= 0) {
        const uint8_t *base = elem_ptr(d, a, 0);
        bool packed = a->columns == 1 && a->stride == a->elem_size;
        uint32_t bad = 1;
        if (packed) {
            /* exponent all ones (NaN, inf) <=> (w & 0x7f800000) + 0x00800000 reaches bit 31; two
             * floats per 64-bit word, no carry crosses between them */
            size_t n = (size_t)a->count * a->components, i = 0;
            uint64_t acc = 0;
            for (; i + 2 <= n; i += 2) {
                uint64_t w;
                memcpy(&w, base + i * 4, 8);
                acc |= (w & UINT64_C(0x7f8000007f800000)) + UINT64_C(0x0080000000800000);
            }
            for (; i < n; i++) {
                uint32_t w;
                memcpy(&w, base + i * 4, 4);
                acc |= (w & 0x7f800000u) + 0x00800000u;
            }
            bad = (acc & UINT64_C(0x8000000080000000)) != 0;
            if (!bad && want_bounds) {
                float fmn[4] = {INFINITY, INFINITY, INFINITY, INFINITY}, fmx[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
                uint32_t nc = a->components;
#define ORRI_MINMAX(NC)                                                                                    \
    for (uint32_t e = 0; e < a->count; e++) {                                                              \
        float f[NC];                                                                                       \
        memcpy(f, base + (size_t)e * (NC) * 4, (NC) * 4);                                                  \
        for (uint32_t k = 0; k < (NC); k++) fmn[k] = f[k] < fmn[k] ? f[k] : fmn[k], fmx[k] = f[k] > fmx[k] ? f[k] : fmx[k]; \
    }
                if (nc == 3) { ORRI_MINMAX(3) }
                else if (nc == 2) { ORRI_MINMAX(2) }
                else if (nc == 4) { ORRI_MINMAX(4) }
                else { ORRI_MINMAX(1) }
#undef ORRI_MINMAX
                for (uint32_t k = 0; k < nc; k++) mn[k] = fmn[k], mx[k] = fmx[k];
            }
        }
        if (bad) { /* strided, matrix, or a bad value to name */
            for (uint32_t i = 0; i < a->count; i++) {
                const uint8_t *p = elem_ptr(d, a, i);
                for (uint32_t k = 0; k < a->components; k++) {
                    float f;
                    memcpy(&f, p + comp_offset(a, k), 4);
                    if (!isfinite(f)) return float_error(c, "", index, i, k, f);
                    if (f < mn[k]) mn[k] = f;
                    if (f > mx[k]) mx[k] = f;
                }
            }
        }
    } else {
        for (uint32_t k = 0; k < a->components; k++) mn[k] = mx[k] = 0.0;
    }
    if (a->sparse_count) {
        const uint8_t *base = sparse_values(d, a);
        for (uint32_t i = 0; i < a->sparse_count; i++) {
            for (uint32_t k = 0; k < a->components; k++) {
                float f;
                memcpy(&f, base + (size_t)i * a->elem_size + comp_offset(a, k), 4);
                if (!isfinite(f)) return float_error(c, ".sparse.values", index, i, k, f);
            }
        }
        return true; /* min/max over sparse data are not compared */
    }
    if (!want_bounds || a->components > 4 || a->columns > 1) return true;
    for (uint32_t k = 0; k < a->components; k++) {
        if ((a->has_min && (float)a->min[k] != (float)mn[k]) || (a->has_max && (float)a->max[k] != (float)mx[k])) {
            minmax_report(a)(c, "accessors[%u]: declared min/max disagree with the data (component %u: data %g..%g)", index, k,
                 mn[k], mx[k]);
            break;
        }
    }
    return true;
}

/* Every accessor's data (with `late`, only those in views decoded beside the load): sparse indices checked; floats refused when NaN or infinite; declared min/max
 * compared (a warning); an unsigned integer accessor's largest value kept for the index and joint checks.
 * The vectors, the bulk of a file, are scanned in ranges on the worker pool; what is found is reported
 * afterwards in accessor order, so the first failure and the warnings are the same at any thread count. */
bool orri_gltf_on_late_view(const orri_gltf_doc *d, const orri_gltf_accessor *a)
{
    return a->view >= 0 && (uint32_t)a->view < d->view_count && d->views[a->view].late;
}

/* Whether what the scan finds in the accessor's data is used: floats are checked; declared bounds
 * compared; an unsigned, not normalized accessor's largest value may be wanted by the index and joint
 * checks. Of other integers (quantized normals, tangents, texture coordinates: a third of a compressed
 * mesh's bytes) it would find only extremes, and those only a POSITION accessor uses (its box), which
 * the spec requires to declare its bounds (without them its box is found from the positions). */
static bool scan_wanted(const orri_gltf_accessor *a)
{
    return a->component_type == ORRI_GLTF_FLOAT || a->has_min || a->has_max ||
           (!a->normalized && (a->component_type == ORRI_GLTF_UNSIGNED_BYTE || a->component_type == ORRI_GLTF_UNSIGNED_SHORT ||
                               a->component_type == ORRI_GLTF_UNSIGNED_INT));
}

/* Whether the scan (with `late`, the late one) reads the accessor's data in ranges. */
static bool scanned_in(const orri_gltf_doc *d, const orri_gltf_accessor *a, bool late)
{
    return scannable(a) && scan_wanted(a) && !orri_gltf_decoder_max(d, a) && orri_gltf_on_late_view(d, a) == late;
}

/* The scan's jobs (NULL with *count 0 when there are none, or too many, or no memory for them: *oom),
 * and how many values they read. */
orri_gltf_scan_job *orri_gltf_scan_jobs(orri_gltf_doc *d, bool late, uint32_t *count, uint64_t *values, bool *oom)
{
    uint64_t jobs = 0;
    *count = 0, *values = 0, *oom = false;
    for (uint32_t i = 0; i < d->accessor_count; i++) {
        const orri_gltf_accessor *a = &d->accessors[i];
        if (!scanned_in(d, a, late)) continue;
        jobs += ((uint64_t)a->count + ORRI_SCAN_JOB_ELEMENTS - 1) / ORRI_SCAN_JOB_ELEMENTS; /* 64 bits: counts near 2^32 */
        *values += (uint64_t)a->count * a->components;
    }
    orri_gltf_scan_job *js = jobs && jobs <= UINT32_MAX && jobs <= SIZE_MAX / sizeof *js ? orri_gltf_alloc(&d->allocator, (size_t)jobs * sizeof *js) : NULL;
    if (!js) {
        *oom = jobs != 0;
        return NULL;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->accessor_count; i++) {
        const orri_gltf_accessor *a = &d->accessors[i];
        for (uint64_t first = 0; scanned_in(d, a, late) && first < a->count; first += ORRI_SCAN_JOB_ELEMENTS) {
            uint64_t left = a->count - first;
            js[n++] = (orri_gltf_scan_job){.doc = d, .accessor = i, .first = (uint32_t)first,
                                 .count = (uint32_t)(left < ORRI_SCAN_JOB_ELEMENTS ? left : ORRI_SCAN_JOB_ELEMENTS)};
        }
    }
    *count = n;
    return js;
}

/* The late scan's jobs, made before the late views' decode ended, less those it spared (decoder_max). */
void orri_gltf_late_scan_spared(orri_gltf_doc *d)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < d->late_scan_n; k++)
        if (!orri_gltf_decoder_max(d, &d->accessors[d->late_scan[k].accessor])) d->late_scan[n++] = d->late_scan[k];
    d->late_scan_n = n;
}

/* Whether n jobs reading `values` values are worth sharing out on `threads`. */
bool orri_gltf_scan_shares(uint32_t threads, uint32_t n, uint64_t values)
{
    return threads > 1 && n > 1 && values >= ORRI_SCAN_SHARED_VALUES;
}

/* Runs them on `workers`, up to `threads` (NULL: this thread alone). */
void orri_gltf_scan_run(orri_gltf_scan_job *js, uint32_t n, uint32_t threads, orr_workers *workers)
{
    orri_pool_run(workers, workers ? threads : 1, n, scan_job_run, js);
}

bool orri_gltf_scan_data(orri_gltf_pctx *c, bool late)
{
    orri_gltf_doc *d = c->doc;
    orri_gltf_scan_job *js;
    uint32_t jobs;
    if (late && d->late_scanned) { /* scanned on the late views' thread */
        js = d->late_scan, jobs = d->late_scan_n;
        d->late_scan = NULL, d->late_scan_n = 0, d->late_scanned = false;
    } else {
        bool oom;
        uint64_t values;
        js = orri_gltf_scan_jobs(d, late, &jobs, &values, &oom);
        if (oom) return orri_gltf_fail(c, ORR_ERROR_OUT_OF_MEMORY, "accessors: out of memory scanning them");
        /* the pool only when the scan shares its work: a small load starts no threads */
        orri_gltf_scan_run(js, jobs, c->threads, orri_gltf_scan_shares(c->threads, jobs, values) ? orri_gltf_pool_get(d->pool) : NULL);
    }
    bool ok = true;
    uint32_t n = 0;
    for (uint32_t i = 0; ok && i < d->accessor_count; i++) {
        orri_gltf_accessor *a = &d->accessors[i];
        if (orri_gltf_on_late_view(d, a) != late) continue; /* scanned by the other pass */
        if (a->sparse_count && !check_sparse_indices(c, a, i)) {
            ok = false;
            break;
        }
        if (orri_gltf_decoder_max(d, a)) {
            a->max_known = true, a->max_uint = d->views[a->view].max;
            continue;
        }
        if (!scan_wanted(a)) continue;
        if (!scannable(a)) { /* sparse, matrices, no view: read element by element */
            if (a->component_type == ORRI_GLTF_FLOAT) ok = orri_gltf_scan_floats(c, a, i);
            continue;
        }
        bool bad = false;
        double mn[4] = {INFINITY, INFINITY, INFINITY, INFINITY}, mx[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
        for (; n < jobs && js[n].accessor == i; n++) {
            bad = bad || js[n].bad;
            for (uint32_t k = 0; k < a->components; k++)
                mn[k] = js[n].mn[k] < mn[k] ? js[n].mn[k] : mn[k], mx[k] = js[n].mx[k] > mx[k] ? js[n].mx[k] : mx[k];
        }
        bool is_float = a->component_type == ORRI_GLTF_FLOAT;
        if (is_float && bad) { /* the element-by-element scan names the first bad value */
            ok = orri_gltf_scan_floats(c, a, i);
            continue;
        }
        if (!is_float && a->component_type != ORRI_GLTF_BYTE && a->component_type != ORRI_GLTF_SHORT) {
            double top = mx[0];
            for (uint32_t k = 1; k < a->components; k++) top = mx[k] > top ? mx[k] : top;
            a->max_known = true, a->max_uint = (uint32_t)top;
        }
        a->range_known = a->components <= 4;
        for (uint32_t k = 0; a->range_known && k < a->components; k++) a->range_min[k] = mn[k], a->range_max[k] = mx[k];
        /* Draco quantizes: its decoded values need not match the bounds written from the originals */
        if (!(a->has_min || a->has_max) || a->draco_view >= 0) continue;
        for (uint32_t k = 0; k < a->components; k++) {
            bool differ = is_float ? (a->has_min && (float)a->min[k] != (float)mn[k]) || (a->has_max && (float)a->max[k] != (float)mx[k])
                                   : (a->has_min && a->min[k] != mn[k]) || (a->has_max && a->max[k] != mx[k]);
            if (differ) {
                minmax_report(a)(c, "accessors[%u]: declared min/max disagree with the data (component %u: data %g..%g)", i, k,
                     mn[k], mx[k]);
                break;
            }
        }
    }
    orri_gltf_dealloc(&d->allocator, js, 0);
    return ok;
}
