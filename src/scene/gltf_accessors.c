/* glTF 2.0 parse: accessors. Their layout checked against their views (sizes, strides, alignment),
 * sparse accessors, finite floats and declared bounds (the bulk of the data is scanned by
 * gltf_scan.c), and the readers the builder uses once the document is valid (orri_gltf_read_*). */
#include "core/internal.h"
#include "scene/gltf_parse_internal.h"
#include "scene/gltf_elements.h"

#include <string.h>

/* Accessors without a buffer view are zeros the loader must allocate; this caps what a small hostile
 * file can make it allocate. */
#define ORRI_GLTF_MAX_VIEWLESS_COUNT (1u << 24)
#define ORRI_GLTF_MIN_VIEWLESS_COUNT (1u << 16)
/* ---- accessors ---------------------------------------------------------------------------------- */

static bool parse_sparse(orri_gltf_pctx *c, orri_gltf_accessor *a, const cJSON *sp, const char *apath)
{
    orri_gltf_doc *d = c->doc;
    char path[96];
    PATHF(c, path, sizeof path, "%s.sparse", apath);
    int64_t count;
    if (!orri_gltf_jrequired(c, sp, "count", path) || !orri_gltf_jint(c, sp, "count", path, 0, 1, a->count, &count)) return false;
    const cJSON *idx, *val;
    if (!orri_gltf_jobject(c, sp, "indices", path, &idx) || !orri_gltf_jobject(c, sp, "values", path, &val)) return false;
    if (!idx) return PARSE_ERR(c, "%s: required property 'indices' is missing", path);
    if (!val) return PARSE_ERR(c, "%s: required property 'values' is missing", path);
    char ip[128], vp[128];
    PATHF(c, ip, sizeof ip, "%s.indices", path);
    PATHF(c, vp, sizeof vp, "%s.values", path);
    int32_t iview, vview;
    int64_t ioff, voff, itype;
    if (!orri_gltf_jrequired(c, idx, "bufferView", ip) || !orri_gltf_jref(c, idx, "bufferView", ip, d->view_count, "bufferViews", &iview) ||
        !orri_gltf_jint(c, idx, "byteOffset", ip, 0, 0, INT64_C(1) << 53, &ioff) || !orri_gltf_jrequired(c, idx, "componentType", ip) ||
        !orri_gltf_jint(c, idx, "componentType", ip, 0, 0, INT32_MAX, &itype) || !orri_gltf_jrequired(c, val, "bufferView", vp) ||
        !orri_gltf_jref(c, val, "bufferView", vp, d->view_count, "bufferViews", &vview) ||
        !orri_gltf_jint(c, val, "byteOffset", vp, 0, 0, INT64_C(1) << 53, &voff))
        return false;
    if (itype != ORRI_GLTF_UNSIGNED_BYTE && itype != ORRI_GLTF_UNSIGNED_SHORT && itype != ORRI_GLTF_UNSIGNED_INT)
        return PARSE_ERR(c, "%s.componentType: %lld is not UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT", ip, (long long)itype);
    uint32_t isz = comp_size((uint32_t)itype);
    const orri_gltf_view *iv = &d->views[iview], *vv = &d->views[vview];
    if ((uint64_t)ioff % isz || (iv->offset + (uint64_t)ioff) % isz)
        return PARSE_ERR(c, "%s.byteOffset: %lld is not aligned to %u bytes", ip, (long long)ioff, isz);
    if ((uint64_t)ioff + (uint64_t)count * isz > iv->length)
        return PARSE_ERR(c, "%s: %lld indices at offset %lld run past bufferView %d (%llu bytes)", ip, (long long)count,
                         (long long)ioff, iview, (unsigned long long)iv->length);
    if ((uint64_t)voff % a->comp_size || (vv->offset + (uint64_t)voff) % a->comp_size)
        return PARSE_ERR(c, "%s.byteOffset: %lld is not aligned to %u bytes", vp, (long long)voff, a->comp_size);
    if ((uint64_t)voff + (uint64_t)count * a->elem_size > vv->length)
        return PARSE_ERR(c, "%s: %lld values at offset %lld run past bufferView %d (%llu bytes)", vp, (long long)count,
                         (long long)voff, vview, (unsigned long long)vv->length);
    a->sparse_count = (uint32_t)count;
    a->sparse_indices_view = iview;
    a->sparse_indices_offset = (uint64_t)ioff;
    a->sparse_indices_type = (uint32_t)itype;
    a->sparse_values_view = vview;
    a->sparse_values_offset = (uint64_t)voff;
    return true;
}

/* accessors[i].min / .max: read when present; a list of the wrong length is only untidy (a warning,
 * and the bound is ignored), anything else that is not numbers is refused. */
static bool accessor_bound(orri_gltf_pctx *c, const cJSON *j, const char *key, const char *path, uint32_t components,
                           double *out, bool *present)
{
    if (orri_gltf_jnums(c, j, key, path, components, out, present)) return true;
    if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(j, key))) return false;
    c->failed = false;
    if (c->err) c->err->code = ORR_OK;
    orri_gltf_violation(c, "%s.%s: expected %u numbers, ignored", path, key, components);
    *present = false;
    return true;
}

/* Accessors named by a Draco primitive get their data from the decoder (parse_draco), so the cap on
 * view-less accessors does not apply to them. A first look at the JSON only: parse_primitive checks it. */
static void mark_draco_targets(orri_gltf_pctx *c)
{
    orri_gltf_doc *d = c->doc;
    for (uint32_t i = 0; i < d->accessor_count; i++) d->accessors[i].draco_view = d->accessors[i].draco_id = -1;
#ifdef ORRI_HAVE_DRACO
    const cJSON *meshes = cJSON_GetObjectItemCaseSensitive(d->json, "meshes");
    for (const cJSON *m = cJSON_IsArray(meshes) ? meshes->child : NULL; m; m = m->next) {
        const cJSON *prims = cJSON_GetObjectItemCaseSensitive(m, "primitives");
        for (const cJSON *p = cJSON_IsArray(prims) ? prims->child : NULL; p; p = p->next) {
            const cJSON *ext = cJSON_GetObjectItemCaseSensitive(p, "extensions");
            if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(ext, "KHR_draco_mesh_compression"))) continue;
            const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(p, "attributes");
            const cJSON *refs[2] = {cJSON_IsObject(attrs) ? attrs->child : NULL, cJSON_GetObjectItemCaseSensitive(p, "indices")};
            for (const cJSON *a = refs[0]; a; a = a->next)
                if (cJSON_IsNumber(a) && a->valuedouble >= 0 && a->valuedouble < d->accessor_count)
                    d->accessors[(uint32_t)a->valuedouble].draco_target = true;
            if (cJSON_IsNumber(refs[1]) && refs[1]->valuedouble >= 0 && refs[1]->valuedouble < d->accessor_count)
                d->accessors[(uint32_t)refs[1]->valuedouble].draco_target = true;
        }
    }
#endif
}

bool orri_gltf_parse_accessors(orri_gltf_pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!orri_gltf_top_array(c, "accessors", &arr, &d->accessor_count)) return false;
    d->accessors = orri_gltf_palloc(c, d->accessor_count, sizeof *d->accessors);
    if (d->accessor_count && !d->accessors) return false;
    mark_draco_targets(c);
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "accessors[%u]", i);
        orri_gltf_accessor *a = &d->accessors[i];
        int32_t view;
        int64_t off, ct, count;
        bool norm;
        const char *type;
        if (!orri_gltf_jref(c, j, "bufferView", path, d->view_count, "bufferViews", &view) ||
            !orri_gltf_jint(c, j, "byteOffset", path, 0, 0, INT64_C(1) << 53, &off) || !orri_gltf_jrequired(c, j, "componentType", path) ||
            !orri_gltf_jint(c, j, "componentType", path, 0, 0, INT32_MAX, &ct) || !orri_gltf_jbool(c, j, "normalized", path, false, &norm) ||
            !orri_gltf_jrequired(c, j, "count", path) || !orri_gltf_jint(c, j, "count", path, 0, 1, UINT32_MAX, &count) ||
            !orri_gltf_jrequired(c, j, "type", path) || !orri_gltf_jstring(c, j, "type", path, &type))
            return false;
        static const char *const known[] = {"bufferView", "byteOffset", "componentType", "normalized", "count",
                                            "type", "max", "min", "sparse", NULL};
        orri_gltf_check_keys(c, j, path, known);
        a->component_type = (uint32_t)ct;
        a->comp_size = comp_size(a->component_type);
        if (!a->comp_size) return PARSE_ERR(c, "%s.componentType: %lld is not a glTF component type", path, (long long)ct);
        if (!type) return PARSE_ERR(c, "%s.type: expected a string", path);
        int t = -1;
        for (int k = 0; k < 7; k++)
            if (strcmp(type, type_names[k]) == 0) t = k;
        if (t < 0) return PARSE_ERR(c, "%s.type: '%s' is not an accessor type", path, type);
        a->type = (orri_gltf_type)t;
        static const uint32_t rows[] = {1, 2, 3, 4, 2, 3, 4}, cols[] = {1, 1, 1, 1, 2, 3, 4};
        a->rows = rows[t];
        a->columns = cols[t];
        a->components = a->rows * a->columns;
        a->column_stride = a->rows * a->comp_size;
        if (a->columns > 1) a->column_stride = (a->column_stride + 3u) & ~3u;
        a->elem_size = a->column_stride * a->columns;
        if (norm && (ct == ORRI_GLTF_FLOAT || ct == ORRI_GLTF_UNSIGNED_INT)) {
            orri_gltf_violation(c, "%s.normalized: not allowed for %s, ignored", path, comp_name(a->component_type));
            norm = false;
        }
        a->normalized = norm;
        a->count = (uint32_t)count;
        a->view = view;
        a->offset = (uint64_t)off;
        a->stride = a->elem_size;
        if (!accessor_bound(c, j, "min", path, a->components, a->min, &a->has_min)) return false;
        if (!accessor_bound(c, j, "max", path, a->components, a->max, &a->has_max)) return false;
        if (view < 0) {
            if (cJSON_GetObjectItemCaseSensitive(j, "byteOffset")) orri_gltf_violation(c, "%s.byteOffset: set without a bufferView, ignored", path);
            a->offset = 0;
            /* zeros cost memory but no file bytes: a real one (a sparse morph target, say) stands beside
             * data at least as large, so the file's buffer bytes bound it */
            uint64_t limit = c->buffer_bytes > ORRI_GLTF_MIN_VIEWLESS_COUNT ? c->buffer_bytes : ORRI_GLTF_MIN_VIEWLESS_COUNT;
            if (limit > ORRI_GLTF_MAX_VIEWLESS_COUNT) limit = ORRI_GLTF_MAX_VIEWLESS_COUNT;
            if (a->count > limit && !a->draco_target)
                return orri_gltf_fail(c, ORR_ERROR_CAPACITY,
                                      "%s.count: %u elements without a bufferView exceed the limit %llu (the larger of %u and the "
                                      "file's buffer bytes)", path, a->count, (unsigned long long)limit, ORRI_GLTF_MIN_VIEWLESS_COUNT);
        } else {
            const orri_gltf_view *v = &d->views[view];
            if (a->offset % a->comp_size)
                return PARSE_ERR(c, "%s.byteOffset: %llu is not a multiple of the component size %u", path,
                                 (unsigned long long)a->offset, a->comp_size);
            if (a->columns > 1 && a->offset % 4)
                return PARSE_ERR(c, "%s.byteOffset: matrix accessors must be 4-byte aligned", path);
            if ((v->offset + a->offset) % a->comp_size)
                return PARSE_ERR(c, "%s: total byte offset %llu (bufferView %d offset + byteOffset) is not a multiple of %u",
                                 path, (unsigned long long)(v->offset + a->offset), view, a->comp_size);
            if (v->stride) {
                if (v->stride < a->elem_size)
                    return PARSE_ERR(c, "%s: bufferView %d byteStride %u is smaller than the element size %u", path, view,
                                     v->stride, a->elem_size);
                if (v->stride % a->comp_size)
                    return PARSE_ERR(c, "%s: bufferView %d byteStride %u is not a multiple of the component size %u",
                                     path, view, v->stride, a->comp_size);
                a->stride = v->stride;
            }
            uint64_t need = a->offset + (uint64_t)a->stride * (a->count - 1) + a->elem_size;
            if (need > v->length)
                return PARSE_ERR(c, "%s: %u elements at byteOffset %llu need %llu bytes, bufferView %d has %llu", path,
                                 a->count, (unsigned long long)a->offset, (unsigned long long)need, view,
                                 (unsigned long long)v->length);
        }
        const cJSON *sp;
        if (!orri_gltf_jobject(c, j, "sparse", path, &sp)) return false;
        if (sp && !parse_sparse(c, a, sp, path)) return false;
    }
    /* the layout is sound; now the data, which needs every used buffer present */
    for (uint32_t v = 0; v < d->view_count; v++) {
        if (!d->views[v].data && d->buffers[d->views[v].buffer].missing)
            return PARSE_ERR(c, "buffers[%u]: no uri and no GLB binary chunk, but bufferViews[%u] uses it",
                             d->views[v].buffer, v);
    }
    return orri_gltf_scan_data(c, false);
}

/* ---- accessor reading (after validation: no bounds checks needed) ------------------------------ */

void orri_gltf_read_floats(const orri_gltf_doc *d, uint32_t index, uint32_t out_components, float fill, float *out)
{
    orri_gltf_read_floats_range(d, index, 0, d->accessors[index].count, out_components, fill, out);
}

/* The values read_comp gives, for one component type and vector shape, without its switch per
 * component: the same floats, several times faster on the millions of quantized components of a
 * compressed mesh. A value is max(v, LO) / D in binary32 (normalized: LO = -D for the signed types, D =
 * 127, 255, 32767, 65535; else D = 1): a correctly rounded quotient of two exact floats, the float
 * nearest v / D, which read_comp's v / D in binary64 rounds to as well (an integer over such a D that is
 * not itself a float lies at least 2^-41, relative, from every midpoint between two floats: a midpoint
 * has 25 significant bits, |v 2^k - D m| >= 1). The clamp is a statement of its own: folded into the
 * quotient's expression, it becomes a branch around the division, and the loop no longer vectorizes. */
#define ORRI_READ_INTS(T, LO, D, NC, OC)                                                                 \
    for (uint32_t i = 0; i < count; i++) {                                                               \
        const uint8_t *p = base + (size_t)i * a->stride;                                                 \
        float *o = out + (size_t)i * (OC);                                                               \
        for (uint32_t k = 0; k < (NC); k++) {                                                            \
            T t;                                                                                         \
            memcpy(&t, p + (size_t)k * sizeof(T), sizeof(T));                                           \
            int32_t v = t;                                                                               \
            v = v < (LO) ? (LO) : v;                                                                     \
            o[k] = (float)v / (D);                                                                       \
        }                                                                                                \
        for (uint32_t k = (NC); k < (OC); k++) o[k] = fill;                                              \
    }
/* Vectors of NC components padded to 4 bytes, all of them read (the layout of quantized vertex
 * streams): a block at a time, widened with a stride the compiler knows, then converted as one run of
 * values, which vectorizes (the loop above, with the stride a variable, does not). */
#define ORRI_READ_BLOCKS(T, LO, D, NC)                                                                   \
    for (uint32_t at = 0; at < count; at += ORRI_READ_BLOCK) {                                           \
        uint32_t m = count - at < ORRI_READ_BLOCK ? count - at : ORRI_READ_BLOCK;                        \
        enum { S = ((NC) * sizeof(T) + 3) / 4 * 4 };                                                    \
        const uint8_t *b = base + (size_t)at * S;                                                        \
        for (uint32_t i = 0; i < m; i++)                                                                 \
            for (uint32_t k = 0; k < (NC); k++) {                                                        \
                T t;                                                                                     \
                memcpy(&t, b + (size_t)i * S + k * sizeof(T), sizeof(T));                               \
                wide[i * (NC) + k] = t;                                                                  \
            }                                                                                            \
        float *restrict o = out + (size_t)at * (NC);                                                     \
        for (uint32_t j = 0; j < m * (NC); j++) {                                                        \
            int32_t v = wide[j];                                                                         \
            v = v < (LO) ? (LO) : v;                                                                     \
            o[j] = (float)v / (D);                                                                       \
        }                                                                                                \
    }
#define ORRI_READ_SHAPES(T, LO, D)                                                                       \
    if (nc == a->components && nc == out_components && a->stride == (nc * sizeof(T) + 3) / 4 * 4) {     \
        if (nc == 2) { ORRI_READ_BLOCKS(T, LO, D, 2) }                                                   \
        else if (nc == 3) { ORRI_READ_BLOCKS(T, LO, D, 3) }                                              \
        else if (nc == 4) { ORRI_READ_BLOCKS(T, LO, D, 4) }                                              \
        else { ORRI_READ_BLOCKS(T, LO, D, 1) }                                                           \
    }                                                                                                    \
    else { ORRI_READ_INTS(T, LO, D, nc, out_components) }
#define ORRI_READ_BLOCK 256u

ORRI_WIDE static bool read_ints_fast(const orri_gltf_doc *d, const orri_gltf_accessor *a, uint32_t first, uint32_t count,
                           uint32_t nc, uint32_t out_components, float fill, float *out)
{
    const uint8_t *base = elem_ptr(d, a, first);
    int32_t wide[4 * ORRI_READ_BLOCK];
    bool n = a->normalized;
    switch (a->component_type) {
    case ORRI_GLTF_BYTE:
        if (n) { ORRI_READ_SHAPES(int8_t, -127, 127.0f) }
        else { ORRI_READ_SHAPES(int8_t, INT32_MIN, 1.0f) }
        return true;
    case ORRI_GLTF_UNSIGNED_BYTE:
        if (n) { ORRI_READ_SHAPES(uint8_t, 0, 255.0f) }
        else { ORRI_READ_SHAPES(uint8_t, 0, 1.0f) }
        return true;
    case ORRI_GLTF_SHORT:
        if (n) { ORRI_READ_SHAPES(int16_t, -32767, 32767.0f) }
        else { ORRI_READ_SHAPES(int16_t, INT32_MIN, 1.0f) }
        return true;
    case ORRI_GLTF_UNSIGNED_SHORT:
        if (n) { ORRI_READ_SHAPES(uint16_t, 0, 65535.0f) }
        else { ORRI_READ_SHAPES(uint16_t, 0, 1.0f) }
        return true;
    default: return false;
    }
}
#undef ORRI_READ_BLOCK
#undef ORRI_READ_SHAPES
#undef ORRI_READ_BLOCKS
#undef ORRI_READ_INTS

bool orri_gltf_scanned_box(const orri_gltf_doc *d, int32_t index, orr_aabbf *box)
{
    const orri_gltf_accessor *a = &d->accessors[index];
    if (!a->range_known || a->components != 3) return false;
    /* the fast integer loops divide in binary32, comp_value in binary64: the same binary32 for every
     * 8- and 16-bit value (and debug builds of the asset library compare the box with the positions') */
    float lo[3], hi[3];
    for (int k = 0; k < 3; k++)
        lo[k] = (float)comp_value(a->range_min[k], a->component_type, a->normalized),
        hi[k] = (float)comp_value(a->range_max[k], a->component_type, a->normalized);
    *box = (orr_aabbf){{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}};
    return true;
}

void orri_gltf_read_floats_range(const orri_gltf_doc *d, uint32_t index, uint32_t first, uint32_t count,
                                 uint32_t out_components, float fill, float *out)
{
    const orri_gltf_accessor *a = &d->accessors[index];
    uint32_t nc = a->components < out_components ? a->components : out_components;
    if (first > a->count) first = a->count;
    if (count > a->count - first) count = a->count - first;
    if (a->view >= 0 && a->columns == 1 && a->component_type != ORRI_GLTF_FLOAT &&
        read_ints_fast(d, a, first, count, nc, out_components, fill, out)) {
        /* quantized vectors (KHR_mesh_quantization, meshopt output): one loop per format */
    } else
    for (uint32_t i = 0; i < count; i++) {
        float *o = out + (size_t)i * out_components;
        if (a->view >= 0) {
            const uint8_t *p = elem_ptr(d, a, first + i);
            if (a->component_type == ORRI_GLTF_FLOAT && a->columns == 1) {
                memcpy(o, p, nc * sizeof(float));
            } else {
                for (uint32_t k = 0; k < nc; k++) o[k] = (float)read_comp(p + comp_offset(a, k), a->component_type, a->normalized);
            }
        } else {
            for (uint32_t k = 0; k < nc; k++) o[k] = 0.0f;
        }
        for (uint32_t k = nc; k < out_components; k++) o[k] = fill;
    }
    if (a->sparse_count) {
        const uint8_t *ib = sparse_indices(d, a), *vb = sparse_values(d, a);
        uint32_t isz = comp_size(a->sparse_indices_type), lo = 0, hi = a->sparse_count;
        while (lo < hi) { /* the first substitution at or past `first`: indices increase (validated) */
            uint32_t mid = lo + (hi - lo) / 2;
            if (read_uint(ib + (size_t)mid * isz, a->sparse_indices_type) < first) lo = mid + 1;
            else hi = mid;
        }
        for (uint32_t s = lo; s < a->sparse_count; s++) {
            uint32_t i = read_uint(ib + (size_t)s * isz, a->sparse_indices_type);
            if (i - first >= count) break;
            float *o = out + (size_t)(i - first) * out_components;
            const uint8_t *p = vb + (size_t)s * a->elem_size;
            for (uint32_t k = 0; k < nc; k++) o[k] = (float)read_comp(p + comp_offset(a, k), a->component_type, a->normalized);
        }
    }
}

/* The values read_uint gives, for one component size, without its switch per component: 16-bit indices
 * (every mesh of fewer than 65536 vertices) widened in a loop the compiler vectorizes. */
#define ORRI_READ_UINTS(T, STRIDE, NC, OC)                                                                \
    for (uint32_t i = 0; i < count; i++) {                                                               \
        const uint8_t *p = base + (size_t)i * (STRIDE);                                                  \
        uint32_t *o = out + (size_t)i * (OC);                                                            \
        for (uint32_t k = 0; k < (NC); k++) {                                                            \
            T v;                                                                                         \
            memcpy(&v, p + (size_t)k * sizeof(T), sizeof(T));                                            \
            o[k] = v;                                                                                    \
        }                                                                                                \
        for (uint32_t k = (NC); k < (OC); k++) o[k] = 0;                                                 \
    }
#define ORRI_READ_UINTS_OF(T)                                                                             \
    if (nc == 1 && out_components == 1 && a->stride == sizeof(T)) { ORRI_READ_UINTS(T, sizeof(T), 1, 1) }  \
    else { ORRI_READ_UINTS(T, a->stride, nc, out_components) }

ORRI_WIDE static bool read_uints_fast(const orri_gltf_doc *d, const orri_gltf_accessor *a, uint32_t first,
                                      uint32_t count, uint32_t nc, uint32_t out_components, uint32_t *out)
{
    if (a->view < 0 || a->columns != 1 || a->component_type == ORRI_GLTF_FLOAT) return false;
    const uint8_t *base = elem_ptr(d, a, first);
    switch (a->comp_size) {
    case 1: ORRI_READ_UINTS_OF(uint8_t) return true;
    case 2: ORRI_READ_UINTS_OF(uint16_t) return true;
    case 4: ORRI_READ_UINTS_OF(uint32_t) return true;
    default: return false;
    }
}
#undef ORRI_READ_UINTS_OF
#undef ORRI_READ_UINTS

void orri_gltf_read_uints(const orri_gltf_doc *d, uint32_t index, uint32_t out_components, uint32_t *out)
{
    const orri_gltf_accessor *a = &d->accessors[index];
    uint32_t nc = a->components < out_components ? a->components : out_components;
    bool fast = read_uints_fast(d, a, 0, a->count, nc, out_components, out);
    for (uint32_t i = 0; !fast && i < a->count; i++) {
        uint32_t *o = out + (size_t)i * out_components;
        if (a->view >= 0) {
            const uint8_t *p = elem_ptr(d, a, i);
            for (uint32_t k = 0; k < nc; k++) o[k] = read_uint(p + comp_offset(a, k), a->component_type);
        } else {
            for (uint32_t k = 0; k < nc; k++) o[k] = 0;
        }
        for (uint32_t k = nc; k < out_components; k++) o[k] = 0;
    }
    if (a->sparse_count) {
        const uint8_t *ib = sparse_indices(d, a), *vb = sparse_values(d, a);
        uint32_t isz = comp_size(a->sparse_indices_type);
        for (uint32_t s = 0; s < a->sparse_count; s++) {
            uint32_t i = read_uint(ib + (size_t)s * isz, a->sparse_indices_type);
            uint32_t *o = out + (size_t)i * out_components;
            for (uint32_t k = 0; k < nc; k++) o[k] = read_uint(vb + (size_t)s * a->elem_size + comp_offset(a, k), a->component_type);
        }
    }
}

bool orri_gltf_read_uints_range(const orri_gltf_doc *d, uint32_t index, uint32_t first, uint32_t count,
                                uint32_t out_components, uint32_t *out)
{
    const orri_gltf_accessor *a = &d->accessors[index];
    uint32_t nc = a->components < out_components ? a->components : out_components;
    if (a->sparse_count || first > a->count || count > a->count - first) return false;
    return read_uints_fast(d, a, first, count, nc, out_components, out);
}

/* The largest integer component of an accessor (indices, joints), sparse applied. */
uint32_t orri_gltf_accessor_max_uint(const orri_gltf_doc *d, uint32_t index, uint32_t at_needed_above, uint32_t *at)
{
    const orri_gltf_accessor *a = &d->accessors[index];
    uint32_t best = 0;
    *at = 0;
    if (a->max_known && a->max_uint < at_needed_above) return a->max_uint; /* the element is wanted only above */
    if (a->view >= 0 && !a->sparse_count) {
        if (a->columns == 1 && a->stride == a->elem_size && a->component_type != ORRI_GLTF_FLOAT) {
            /* packed: a branch-free max first; the element is looked up only for the message */
            const uint8_t *p = elem_ptr(d, a, 0);
            size_t n = (size_t)a->count * a->components;
            if (a->comp_size == 1) {
                for (size_t i = 0; i < n; i++) best = p[i] > best ? p[i] : best;
            } else if (a->comp_size == 2) {
                for (size_t i = 0; i < n; i++) {
                    uint16_t v;
                    memcpy(&v, p + i * 2, 2);
                    best = v > best ? v : best;
                }
            } else {
                for (size_t i = 0; i < n; i++) {
                    uint32_t v;
                    memcpy(&v, p + i * 4, 4);
                    best = v > best ? v : best;
                }
            }
            if (best >= at_needed_above) /* only a refusal names the element */
                for (size_t i = 0; i < n; i++)
                    if (read_uint(p + i * a->comp_size, a->component_type) == best) {
                        *at = (uint32_t)(i / a->components);
                        break;
                    }
        } else {
            for (uint32_t i = 0; i < a->count; i++) {
                const uint8_t *p = elem_ptr(d, a, i);
                for (uint32_t k = 0; k < a->components; k++) {
                    uint32_t v = read_uint(p + comp_offset(a, k), a->component_type);
                    if (v > best || (i == 0 && k == 0)) best = v, *at = i;
                }
            }
        }
    }
    if (a->sparse_count) {
        /* substituted elements count with their sparse value, not the one they replace: walk the
         * elements with a cursor over the (strictly increasing, validated) sparse indices */
        const uint8_t *ib = sparse_indices(d, a), *vb = sparse_values(d, a);
        uint32_t isz = comp_size(a->sparse_indices_type);
        uint32_t s = 0, next = read_uint(ib, a->sparse_indices_type);
        best = 0;
        *at = 0;
        for (uint32_t i = 0; i < a->count; i++) {
            const uint8_t *p = NULL;
            if (s < a->sparse_count && next == i) {
                p = vb + (size_t)s * a->elem_size;
                if (++s < a->sparse_count) next = read_uint(ib + (size_t)s * isz, a->sparse_indices_type);
            } else if (a->view >= 0) {
                p = elem_ptr(d, a, i);
            }
            for (uint32_t k = 0; p && k < a->components; k++) {
                uint32_t v = read_uint(p + comp_offset(a, k), a->component_type);
                if (v > best) best = v, *at = i;
            }
        }
    }
    return best;
}
