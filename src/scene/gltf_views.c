/* glTF 2.0 parse: buffers and buffer views, and the decoders of compressed views
 * (EXT_meshopt_compression, KHR_meshopt_compression): queued while the views are read, decoded on
 * the worker pool, or (large index views) as a task of their own beside the rest of the load until
 * orri_gltf_finish. The blocks the decoded data lives in belong to the document. */
#include "core/internal.h"
#include "scene/gltf_parse_internal.h"

#include <errno.h>
#include <limits.h>
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

#define MESHOPTIMIZER_VERSION_VALUE MESHOPTIMIZER_VERSION

/* ---- buffers and views -------------------------------------------------------------------------- */

static bool open_buffer(orri_gltf_pctx *c, uint32_t i);

/* Memory the document owns (decoded views and attributes), freed with it. */
uint8_t *orri_gltf_doc_block(orri_gltf_pctx *c, size_t size)
{
    orri_gltf_doc *d = c->doc;
    if (d->block_count == d->block_cap) {
        uint32_t cap = d->block_cap ? d->block_cap * 2 : 8;
        struct orri_gltf_block *b = orri_gltf_palloc(c, cap, sizeof *b);
        if (!b) return NULL;
        if (d->block_count) memcpy(b, d->blocks, (size_t)d->block_count * sizeof *b);
        orri_gltf_dealloc(&d->allocator, d->blocks, 0);
        d->blocks = b, d->block_cap = cap;
    }
    /* every byte is written by a decoder before it is read; no header, so the asset library can take
     * the block over as one of its streams */
    size_t bytes = size ? size : 1;
    uint8_t *p = d->allocator.realloc(d->allocator.user, NULL, 0, bytes);
    if (!p) {
        orri_gltf_fail(c, ORR_ERROR_OUT_OF_MEMORY, "out of memory (%zu bytes of decoded data)", size);
        return NULL;
    }
    d->blocks[d->block_count++] = (struct orri_gltf_block){p, bytes, false};
    d->decoded_bytes += size;
    return p;
}

static struct orri_gltf_block *view_block(orri_gltf_doc *d, int32_t view)
{
    if (view < 0 || (uint32_t)view >= d->view_count || !d->views[view].block) return NULL;
    return &d->blocks[d->views[view].block - 1];
}

bool orri_gltf_lend_block(orri_gltf_doc *d, int32_t view, const void *data, size_t bytes)
{
    struct orri_gltf_block *b = view_block(d, view);
    if (!b || b->data != data || b->bytes != bytes || b->lent) return false;
    b->lent = true;
    return true;
}

void orri_gltf_unlend_block(orri_gltf_doc *d, int32_t view)
{
    struct orri_gltf_block *b = view_block(d, view);
    if (b) b->lent = false;
}

static const char *const meshopt_names[2] = {"EXT_meshopt_compression", "KHR_meshopt_compression"};

/* buffers[i].extensions.{EXT,KHR}_meshopt_compression.fallback */
static bool buffer_fallback(orri_gltf_pctx *c, const cJSON *b, const char *path, bool *out)
{
    *out = false;
    const cJSON *ext;
    if (!orri_gltf_jobject(c, b, "extensions", path, &ext)) return false;
    for (int k = 0; k < 2 && ext; k++) {
        const cJSON *mo;
        char ep[128];
        PATHF(c, ep, sizeof ep, "%s.extensions", path);
        if (!orri_gltf_jobject(c, ext, meshopt_names[k], ep, &mo)) return false;
        if (!mo) continue;
        PATHF(c, ep, sizeof ep, "%s.extensions.%s", path, meshopt_names[k]);
        bool f;
        if (!orri_gltf_jbool(c, mo, "fallback", ep, false, &f)) return false;
        *out = *out || f;
    }
    return true;
}

/* bufferViews[i].extensions.{EXT,KHR}_meshopt_compression: checked against the extension's rules and
 * queued for decoding (decode_views). *compressed = false when the view has neither. */
static bool parse_view_meshopt(orri_gltf_pctx *c, const cJSON *v, const char *path, uint32_t index, uint64_t length,
                               int64_t stride, bool *compressed)
{
    orri_gltf_doc *d = c->doc;
    *compressed = false;
    const cJSON *ext, *mo = NULL;
    if (!orri_gltf_jobject(c, v, "extensions", path, &ext)) return false;
    if (!ext) return true;
    int which = -1;
    char ep[128];
    PATHF(c, ep, sizeof ep, "%s.extensions", path);
    for (int k = 0; k < 2; k++) {
        const cJSON *j;
        if (!orri_gltf_jobject(c, ext, meshopt_names[k], ep, &j)) return false;
        if (!j) continue;
        if (mo) return PARSE_ERR(c, "%s: both EXT_meshopt_compression and KHR_meshopt_compression", ep);
        mo = j, which = k;
    }
    if (!mo) return true;
    char mp[160];
    PATHF(c, mp, sizeof mp, "%s.%s", ep, meshopt_names[which]);
    int32_t src;
    int64_t off, len, mstride, count;
    const char *mode, *filter;
    if (!orri_gltf_jrequired(c, mo, "buffer", mp) || !orri_gltf_jref(c, mo, "buffer", mp, d->buffer_count, "buffers", &src) ||
        !orri_gltf_jint(c, mo, "byteOffset", mp, 0, 0, INT64_C(1) << 53, &off) || !orri_gltf_jrequired(c, mo, "byteLength", mp) ||
        !orri_gltf_jint(c, mo, "byteLength", mp, 0, 1, INT64_C(1) << 53, &len) || !orri_gltf_jrequired(c, mo, "byteStride", mp) ||
        !orri_gltf_jint(c, mo, "byteStride", mp, 0, 1, 256, &mstride) || !orri_gltf_jrequired(c, mo, "count", mp) ||
        !orri_gltf_jint(c, mo, "count", mp, 0, 1, UINT32_MAX, &count) || !orri_gltf_jrequired(c, mo, "mode", mp) ||
        !orri_gltf_jstring(c, mo, "mode", mp, &mode) || !orri_gltf_jstring(c, mo, "filter", mp, &filter))
        return false;
    static const char *const known[] = {"buffer", "byteOffset", "byteLength", "byteStride", "count", "mode", "filter", NULL};
    orri_gltf_check_keys(c, mo, mp, known);
    orri_gltf_meshopt_view job = {.count = (uint32_t)count, .stride = (uint32_t)mstride, .view = index};
    if (mode && strcmp(mode, "ATTRIBUTES") == 0) job.mode = ORRI_MESHOPT_ATTRIBUTES;
    else if (mode && strcmp(mode, "TRIANGLES") == 0) job.mode = ORRI_MESHOPT_TRIANGLES;
    else if (mode && strcmp(mode, "INDICES") == 0) job.mode = ORRI_MESHOPT_INDICES;
    else return PARSE_ERR(c, "%s.mode: '%s' is not ATTRIBUTES, TRIANGLES or INDICES", mp, mode ? mode : "");
    if (!filter || strcmp(filter, "NONE") == 0) job.filter = ORRI_MESHOPT_FILTER_NONE;
    else if (strcmp(filter, "OCTAHEDRAL") == 0) job.filter = ORRI_MESHOPT_FILTER_OCTAHEDRAL;
    else if (strcmp(filter, "QUATERNION") == 0) job.filter = ORRI_MESHOPT_FILTER_QUATERNION;
    else if (strcmp(filter, "EXPONENTIAL") == 0) job.filter = ORRI_MESHOPT_FILTER_EXPONENTIAL;
    else if (which == 1 && strcmp(filter, "COLOR") == 0)
        return orri_gltf_fail(c, ORR_ERROR_UNSUPPORTED, "%s.filter: COLOR is not supported (meshoptimizer %d.%d has no decoder for it)",
                              mp, MESHOPTIMIZER_VERSION_VALUE / 1000, MESHOPTIMIZER_VERSION_VALUE % 1000 / 10);
    else return PARSE_ERR(c, "%s.filter: '%s' is not NONE, OCTAHEDRAL, QUATERNION or EXPONENTIAL", mp, filter);
    /* the extension's validity rules */
    if (stride && stride != mstride)
        return PARSE_ERR(c, "%s.byteStride: %lld, the bufferView's byteStride is %lld", mp, (long long)mstride, (long long)stride);
    if ((uint64_t)mstride * (uint64_t)count != length)
        return PARSE_ERR(c, "%s: count %lld x byteStride %lld is not the bufferView's byteLength %llu", mp, (long long)count,
                         (long long)mstride, (unsigned long long)length);
    if (job.mode == ORRI_MESHOPT_ATTRIBUTES && mstride % 4)
        return PARSE_ERR(c, "%s.byteStride: %lld is not a multiple of 4 (mode ATTRIBUTES)", mp, (long long)mstride);
    if (job.mode != ORRI_MESHOPT_ATTRIBUTES) {
        if (mstride != 2 && mstride != 4) return PARSE_ERR(c, "%s.byteStride: %lld, indices need 2 or 4", mp, (long long)mstride);
        if (job.mode == ORRI_MESHOPT_TRIANGLES && count % 3)
            return PARSE_ERR(c, "%s.count: %lld is not a multiple of 3 (mode TRIANGLES)", mp, (long long)count);
        if (job.filter != ORRI_MESHOPT_FILTER_NONE) return PARSE_ERR(c, "%s.filter: index modes take no filter", mp);
    }
    if (job.filter == ORRI_MESHOPT_FILTER_OCTAHEDRAL && mstride != 4 && mstride != 8)
        return PARSE_ERR(c, "%s.byteStride: %lld, OCTAHEDRAL needs 4 or 8", mp, (long long)mstride);
    if (job.filter == ORRI_MESHOPT_FILTER_QUATERNION && mstride != 8)
        return PARSE_ERR(c, "%s.byteStride: %lld, QUATERNION needs 8", mp, (long long)mstride);
    orri_gltf_buffer *sb = &d->buffers[src];
    if (sb->fallback)
        return PARSE_ERR(c, "%s.buffer: buffer %d is a fallback buffer, which compressed data may not come from", mp, src);
    if (sb->source >= 0 && !sb->data && !open_buffer(c, (uint32_t)src)) return false;
    if (!sb->data) return PARSE_ERR(c, "%s.buffer: buffer %d has no data (no uri and no GLB binary chunk)", mp, src);
    if ((uint64_t)off > sb->byte_length || (uint64_t)len > sb->byte_length - (uint64_t)off)
        return PARSE_ERR(c, "%s.byteLength: offset %lld + length %lld runs past buffer %d (%llu bytes)", mp, (long long)off,
                         (long long)len, src, (unsigned long long)sb->byte_length);
    /* what a stream of this size can decode to at most (version 0: a 2-bit header per 16 elements and
     * byte; triangles: a byte each; indices: a byte each): a small stream cannot ask for gigabytes */
    uint64_t most = job.mode == ORRI_MESHOPT_ATTRIBUTES ? (uint64_t)len * 64 + 8192
                  : job.mode == ORRI_MESHOPT_TRIANGLES ? (uint64_t)len * 3 * 4 : (uint64_t)len * 4;
    if (length > most)
        return PARSE_ERR(c, "%s: %llu compressed bytes cannot decode to the bufferView's %llu", mp, (unsigned long long)len,
                         (unsigned long long)length);
    job.src = sb->data + off;
    job.src_size = (size_t)len;
    if (!c->mo) {
        c->mo = orri_gltf_palloc(c, d->view_count, sizeof *c->mo);
        if (!c->mo) return false;
    }
    c->mo[c->mo_n++] = job;
    *compressed = true;
    return true;
}

/* The views in the order they are decoded: largest first (ties in view order), so that a large index
 * view, whose codec runs on one thread, starts at once and the small ones fill the other threads. */
typedef struct meshopt_slot {
    uint64_t bytes;
    uint32_t view; /* into the queued views */
} meshopt_slot;

typedef struct meshopt_queue {
    orri_gltf_meshopt_view *views;
    meshopt_slot *order;
} meshopt_queue;

static int larger_first(const void *x, const void *y)
{
    const meshopt_slot *a = x, *b = y;
    if (a->bytes != b->bytes) return a->bytes > b->bytes ? -1 : 1;
    return a->view < b->view ? -1 : a->view > b->view;
}

static void meshopt_job(void *ctx, uint32_t i)
{
    const meshopt_queue *q = ctx;
    orri_gltf_meshopt_decode(&q->views[q->order ? q->order[i].view : i]);
}

/* Where a compressed view decodes: in a block of its own, exactly its size, which the asset library can
 * take over instead of copying it (32-bit indices, and large attribute views of 4 or 8 bytes a vertex,
 * which may be packed positions or normals: orr_packed_stream), or in the one block the rest share. */
static bool own_block(const orri_gltf_meshopt_view *m)
{
    if (m->mode != ORRI_MESHOPT_ATTRIBUTES) return m->stride == 4;
    return (m->stride == 4 || m->stride == 8) && (uint64_t)m->count * m->stride >= ((uint64_t)1 << 20);
}

#define ORRI_LATE_BYTES ((uint64_t)4 << 20) /* an index view decodes beside the load from this size */

#define ORRI_TRI_PARALLEL (UINT32_C(1) << 17) /* a triangle view of this many indices decodes in parallel */

static bool parallel_triangles(const orri_gltf_meshopt_view *m)
{
    return m->mode == ORRI_MESHOPT_TRIANGLES && m->count >= ORRI_TRI_PARALLEL;
}

#define ORRI_VTX_PARALLEL ((uint64_t)1 << 20) /* an attribute view of this many bytes decodes in parallel */

static bool parallel_vertices(const orri_gltf_meshopt_view *m)
{
    return m->mode == ORRI_MESHOPT_ATTRIBUTES && (uint64_t)m->count * m->stride >= ORRI_VTX_PARALLEL;
}

/* Whether a queued view decodes beside the load: a large 32-bit index view that only primitives read. */
static bool decodes_late(const orri_gltf_meshopt_view *m, const uint8_t *index_only)
{
    return index_only && own_block(m) && index_only[m->view] && (uint64_t)m->count * 4 >= ORRI_LATE_BYTES;
}

/* A number member of a JSON object as an index, -1 when absent or not one (the JSON is not validated
 * yet where this is used: anything unexpected only leaves a view out). */
static int64_t index_of(const cJSON *v)
{
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble < 4294967296.0)) return -1;
    int64_t i = (int64_t)v->valuedouble;
    return (double)i == v->valuedouble ? i : -1;
}

static int64_t jindex(const cJSON *o, const char *key) { return index_of(cJSON_GetObjectItemCaseSensitive(o, key)); }

/* Per bufferView: 1 when one accessor alone lies in it, a plain 32-bit one, and nothing reads that accessor
 * but primitives, as their indices (read from the JSON before it is validated). Such a view is read only when its meshes are
 * built, so it may decode beside the rest of the load. NULL when out of memory (failed). */
static void view_use(int32_t *owner, uint32_t views, int64_t v, int64_t accessor)
{
    if (v >= 0 && v < views) owner[v] = owner[v] == -1 && accessor >= 0 ? (int32_t)accessor : -2;
}

static uint8_t *index_only_views(orri_gltf_pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *root = d->json, *accs = cJSON_GetObjectItemCaseSensitive(root, "accessors");
    int na = cJSON_GetArraySize(accs);
    int32_t *owner = orri_gltf_palloc(c, d->view_count, sizeof *owner); /* accessor, -1 none, -2 more than one or other use */
    uint8_t *use = orri_gltf_palloc(c, (size_t)na + 1, 1), *only = orri_gltf_palloc(c, d->view_count, 1); /* 1 as indices, 2 otherwise */
    if (!owner || !use || !only) {
        orri_gltf_dealloc(&d->allocator, owner, 0), orri_gltf_dealloc(&d->allocator, use, 0);
        orri_gltf_dealloc(&d->allocator, only, 0);
        return NULL;
    }
    for (uint32_t v = 0; v < d->view_count; v++) owner[v] = -1;
#define VIEW_USE(I, A) view_use(owner, d->view_count, (I), (A))
#define ACC_USE(I, U) ((I) >= 0 && (I) < na ? (void)(use[(I)] |= (U)) : (void)0)
    int i = 0;
    for (const cJSON *a = accs ? accs->child : NULL; a; a = a->next, i++) {
        /* 32-bit, no declared bounds, no sparse part: what is checked later can refuse the file, never warn,
         * so the messages of a load do not depend on whether it waited */
        bool plain = jindex(a, "componentType") == ORRI_GLTF_UNSIGNED_INT && !cJSON_GetObjectItemCaseSensitive(a, "min") &&
                     !cJSON_GetObjectItemCaseSensitive(a, "max") && !cJSON_GetObjectItemCaseSensitive(a, "sparse");
        VIEW_USE(jindex(a, "bufferView"), plain ? i : -2);
        const cJSON *sp = cJSON_GetObjectItemCaseSensitive(a, "sparse");
        VIEW_USE(jindex(cJSON_GetObjectItemCaseSensitive(sp, "indices"), "bufferView"), -2);
        VIEW_USE(jindex(cJSON_GetObjectItemCaseSensitive(sp, "values"), "bufferView"), -2);
    }
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "images");
    for (const cJSON *im = arr ? arr->child : NULL; im; im = im->next) VIEW_USE(jindex(im, "bufferView"), -2);
    arr = cJSON_GetObjectItemCaseSensitive(root, "meshes");
    for (const cJSON *m = arr ? arr->child : NULL; m; m = m->next) {
        const cJSON *prims = cJSON_GetObjectItemCaseSensitive(m, "primitives");
        for (const cJSON *p = prims ? prims->child : NULL; p; p = p->next) {
            ACC_USE(jindex(p, "indices"), 1);
            const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(p, "attributes");
            for (const cJSON *at = attrs ? attrs->child : NULL; at; at = at->next)
                ACC_USE(index_of(at), 2);
            const cJSON *tg = cJSON_GetObjectItemCaseSensitive(p, "targets");
            for (const cJSON *t = tg ? tg->child : NULL; t; t = t->next)
                for (const cJSON *at = t->child; at; at = at->next)
                    ACC_USE(index_of(at), 2);
            const cJSON *dr = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p, "extensions"),
                                                               "KHR_draco_mesh_compression");
            VIEW_USE(jindex(dr, "bufferView"), -2);
        }
    }
    arr = cJSON_GetObjectItemCaseSensitive(root, "skins");
    for (const cJSON *sk = arr ? arr->child : NULL; sk; sk = sk->next) ACC_USE(jindex(sk, "inverseBindMatrices"), 2);
    arr = cJSON_GetObjectItemCaseSensitive(root, "animations");
    for (const cJSON *an = arr ? arr->child : NULL; an; an = an->next) {
        const cJSON *smp = cJSON_GetObjectItemCaseSensitive(an, "samplers");
        for (const cJSON *sm = smp ? smp->child : NULL; sm; sm = sm->next)
            ACC_USE(jindex(sm, "input"), 2), ACC_USE(jindex(sm, "output"), 2);
    }
    arr = cJSON_GetObjectItemCaseSensitive(root, "nodes");
    for (const cJSON *n = arr ? arr->child : NULL; n; n = n->next) {
        const cJSON *inst = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(n, "extensions"),
                                                             "EXT_mesh_gpu_instancing");
        const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(inst, "attributes");
        for (const cJSON *at = attrs ? attrs->child : NULL; at; at = at->next)
            ACC_USE(index_of(at), 2);
    }
#undef VIEW_USE
#undef ACC_USE
    for (uint32_t v = 0; v < d->view_count; v++) only[v] = owner[v] >= 0 && use[owner[v]] == 1;
    orri_gltf_dealloc(&d->allocator, owner, 0), orri_gltf_dealloc(&d->allocator, use, 0);
    return only;
}

bool orri_gltf_meshopt_failed(orri_gltf_pctx *c, const orri_gltf_meshopt_view *m)
{
    const cJSON *vj = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(c->doc->json, "bufferViews"), (int)m->view);
    bool khr = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(vj, "extensions"), meshopt_names[1]) != NULL;
    return orri_gltf_fail(c, m->why == m->why_buf ? ORR_ERROR_UNSUPPORTED : ORR_ERROR_PARSE, "bufferViews[%u].extensions.%s: %s",
                          m->view, meshopt_names[khr], m->why);
}

/* A decoded view's largest index, where its decoder found it. */
static void view_decoded(orri_gltf_doc *d, const orri_gltf_meshopt_view *m, bool ok)
{
    orri_gltf_view *v = &d->views[m->view];
    v->max_known = ok && m->max_known, v->max = m->max, v->max_size = m->stride;
}

static void late_decode(orri_gltf_doc *d)
{
    uint64_t t0 = orri_gltf_now_ns();
    for (uint32_t k = 0; k < d->late_n; k++) orri_gltf_meshopt_decode(&d->late[k]);
    d->late_ns = orri_gltf_now_ns() - t0;
}

/* What the late views' decoders found, into their views: once the parse is done with the views (it may
 * still replace the array while they decode, and reads them), so after late_go on the task. */
static void late_views_decoded(orri_gltf_doc *d)
{
    for (uint32_t k = 0; k < d->late_n; k++) view_decoded(d, &d->late[k], !d->late[k].why);
}

/* The late views' task, a job of its own on the workers (orri_pool_spawn: not a thread beside them,
 * which would take turns with them for the cores): their decoding; then, once the parse has validated
 * the rest and made their accessors' scan jobs (late_go 1), those jobs run (scan_data's work, its
 * report left to orri_gltf_finish), beside the build instead of after it. late_go -1: nothing to scan.
 * The task allocates nothing: allocation stays on the caller's thread. */
static void late_main(void *arg, uint32_t index)
{
    (void)index;
    orri_gltf_doc *d = arg;
    late_decode(d);
    bool ok = true;
    for (uint32_t k = 0; k < d->late_n; k++) ok = ok && !d->late[k].why;
    pthread_mutex_lock(&d->late_lock);
    while (!d->late_go) pthread_cond_wait(&d->late_cond, &d->late_lock);
    bool go = d->late_go > 0;
    pthread_mutex_unlock(&d->late_lock);
    late_views_decoded(d);
    if (go && ok && d->late_scan) {
        orri_gltf_late_scan_spared(d);
        orri_gltf_scan_run(d->late_scan, d->late_scan_n, d->late_threads, d->late_workers);
    }
    d->late_scanned = go && ok && d->late_scan;
}

/* Lets the late thread scan (go 1: its jobs made here, on the caller's thread; without memory for them
 * orri_gltf_finish scans) or not (-1), once. */
void orri_gltf_late_release(orri_gltf_doc *d, int go)
{
    if (!d->late_started) return;
    pthread_mutex_lock(&d->late_lock);
    if (!d->late_go) {
        bool oom;
        uint64_t values;
        if (go > 0) d->late_scan = orri_gltf_scan_jobs(d, true, &d->late_scan_n, &values, &oom);
        if (go > 0 && !orri_gltf_scan_shares(d->late_threads, d->late_scan_n, values)) d->late_workers = NULL;
        d->late_go = go;
    }
    pthread_cond_signal(&d->late_cond);
    pthread_mutex_unlock(&d->late_lock);
}

void orri_gltf_late_join(orri_gltf_doc *d)
{
    orri_gltf_late_release(d, -1); /* (when the parse never said go) */
    if (d->late_started && !d->late_joined) orri_pool_join(&d->late_task);
    d->late_joined = true;
}

/* A view's scratch as a part of the load's one block (decode_views): its bytes, a multiple of 64, and
 * with `at` its decoders' scratch carved there. */
static size_t carve_scratch(orri_gltf_meshopt_view *m, uint8_t *at)
{
    size_t tri = parallel_triangles(m) ? (orri_meshopt_tri_scratch_size(m->count, m->tri_chunks) + 63) & ~(size_t)63 : 0;
    size_t vtx = parallel_vertices(m) ? (orri_meshopt_vtx_scratch_size(m->src_size, m->count, m->stride) + 63) & ~(size_t)63 : 0;
    if (at) m->tri = tri ? (void *)at : NULL, m->vtx = vtx ? (void *)(at + tri) : NULL;
    return tri + vtx;
}

/* Decodes the compressed views queued by parse_view_meshopt, on the worker pool, largest first. With
 * `defer`, the large index views that nothing reads but the meshes' build (index_only_views) decode on a
 * thread of their own instead, beside the rest of the load, until orri_gltf_finish. The first failure in
 * view order is the one reported, whatever the thread count. */
static bool decode_views(orri_gltf_pctx *c)
{
    orri_gltf_doc *d = c->doc;
    if (!c->mo_n) return true;
    uint64_t total = 0, shared = 0;
    for (uint32_t k = 0; k < c->mo_n; k++) {
        uint64_t bytes = (uint64_t)c->mo[k].count * c->mo[k].stride;
        total += bytes;
        if (!own_block(&c->mo[k])) shared += (bytes + 15) & ~UINT64_C(15);
    }
    if (total >= SIZE_MAX || shared >= SIZE_MAX)
        return orri_gltf_fail(c, ORR_ERROR_OUT_OF_MEMORY, "bufferViews: %llu decoded bytes", (unsigned long long)total);
    uint8_t *block = shared ? orri_gltf_doc_block(c, (size_t)shared) : NULL;
    if (shared && !block) return false;
    uint64_t at = 0;
    for (uint32_t k = 0; k < c->mo_n; k++) {
        orri_gltf_meshopt_view *m = &c->mo[k];
        uint64_t bytes = (uint64_t)m->count * m->stride;
        if (own_block(m)) {
            m->dst = orri_gltf_doc_block(c, (size_t)bytes);
            if (!m->dst) return false;
            d->views[m->view].block = d->block_count; /* its index + 1 */
        } else {
            m->dst = block + at;
            at += (bytes + 15) & ~UINT64_C(15);
        }
    }
    uint32_t threads = total >= (UINT64_C(1) << 20) ? c->threads : 1;
    /* the late ones: moved to the doc, the rest stay queued in view order */
    uint8_t *only = c->defer && threads > 1 && d->view_count ? index_only_views(c) : NULL;
    if (c->failed) return false;
    uint32_t late = 0;
    for (uint32_t k = 0; k < c->mo_n; k++) late += decodes_late(&c->mo[k], only);
    if (late && !(d->late = orri_gltf_palloc(c, late, sizeof *d->late))) {
        orri_gltf_dealloc(&d->allocator, only, 0);
        return false;
    }
    /* a large triangle or attribute view decodes on all of them, beside the others
     * (orri_meshopt_decode_triangles, orri_meshopt_decode_vertices), with scratch: a late one's its own,
     * freed with the doc; the others' one block (carved below) */
    for (uint32_t k = 0; threads > 1 && k < c->mo_n; k++) {
        orri_gltf_meshopt_view *m = &c->mo[k];
        if (!parallel_triangles(m) && !parallel_vertices(m)) continue;
        /* started here, on this thread; without them (the info pass) a view decodes on its job's thread,
         * not on threads * threads started ones */
        if (!(m->workers = orri_gltf_pool_get(d->pool))) continue;
        if (parallel_triangles(m)) m->tri_chunks = orri_meshopt_tri_chunks(m->count, threads, 0);
        m->threads = threads;
        if (late && decodes_late(m, only) && !(m->tri = orri_gltf_palloc_scratch(c, orri_meshopt_tri_scratch_size(m->count, m->tri_chunks)))) {
            orri_gltf_dealloc(&d->allocator, only, 0);
            return false;
        }
    }
    uint32_t kept = 0;
    for (uint32_t k = 0; k < c->mo_n; k++) {
        orri_gltf_meshopt_view *m = &c->mo[k];
        if (late && decodes_late(m, only)) {
            d->late[d->late_n++] = *m;
            d->views[m->view].data = m->dst; /* where it will be: read only after orri_gltf_finish */
            d->views[m->view].late = true;
        } else {
            c->mo[kept++] = *m;
        }
    }
    /* past `kept`: the late ones, whose scratch is the doc's now, and stale copies of kept ones moved down */
    for (uint32_t k = kept; k < c->mo_n; k++) c->mo[k].tri = NULL, c->mo[k].vtx = NULL;
    orri_gltf_dealloc(&d->allocator, only, 0);
    if (d->late_n) {
        d->late_threads = threads, d->late_workers = orri_gltf_pool_get(d->pool);
        if (d->late_workers && pthread_mutex_init(&d->late_lock, NULL) == 0) {
            if (pthread_cond_init(&d->late_cond, NULL) == 0) {
                orri_pool_spawn(d->late_workers, &d->late_task, late_main, d);
                d->late_started = true;
            } else {
                pthread_mutex_destroy(&d->late_lock);
            }
        }
    }
    c->deferred += d->late_n;
    if (d->late_n && !d->late_started) late_decode(d), late_views_decoded(d); /* no workers: now, on this thread */
    uint64_t t0 = orri_gltf_now_ns();
    meshopt_queue q = {c->mo, threads > 1 ? orri_gltf_palloc(c, kept, sizeof(meshopt_slot)) : NULL}; /* none: view order */
    if (c->failed) return false;
    /* The kept views' scratch, one block for them all: as large as their decoded data's copy, a large
     * block that the default allocator keeps and hands to the next load, whose decoders then write pages
     * already mapped (scratch of its own, a view's would be a few MB, each load faulting in and zeroing
     * fresh pages: 1600 faults a load of a compressed 1M-vertex mesh on 16 threads). Nothing fails
     * between this and its free below. */
    uint64_t need = 0;
    for (uint32_t k = 0; k < kept; k++) need += c->mo[k].workers ? carve_scratch(&c->mo[k], NULL) : 0;
    uint8_t *scratch = need && need < SIZE_MAX - 64 ? orri_gltf_alloc_uninit(&d->allocator, (size_t)need + 64) : NULL;
    if (need && !scratch) {
        orri_gltf_dealloc(&d->allocator, q.order, 0);
        return orri_gltf_fail(c, ORR_ERROR_OUT_OF_MEMORY, "out of memory (%llu bytes of decoding scratch)", (unsigned long long)need);
    }
    uint8_t *next = scratch ? scratch + (-(uintptr_t)scratch & 63) : NULL; /* each part 64-byte aligned */
    for (uint32_t k = 0; next && k < kept; k++) next += c->mo[k].workers ? carve_scratch(&c->mo[k], next) : 0;
    for (uint32_t k = 0; q.order && k < kept; k++) q.order[k] = (meshopt_slot){(uint64_t)c->mo[k].count * c->mo[k].stride, k};
    if (q.order) qsort(q.order, kept, sizeof *q.order, larger_first);
    orri_gltf_run(d->pool, threads, kept, meshopt_job, &q);
    orri_gltf_dealloc(&d->allocator, q.order, 0);
    orri_gltf_dealloc(&d->allocator, scratch, 0);
    for (uint32_t k = 0; k < kept; k++) c->mo[k].tri = NULL, c->mo[k].vtx = NULL;
    c->decode_ns += orri_gltf_now_ns() - t0;
    for (uint32_t k = 0; k < kept; k++) {
        const orri_gltf_meshopt_view *m = &c->mo[k];
        if (m->why) return orri_gltf_meshopt_failed(c, m);
        view_decoded(d, m, true);
        d->split_views += m->split;
        d->views[m->view].data = m->dst;
    }
    c->buffer_bytes += total;
    return true;
}

bool orri_gltf_parse_buffers(orri_gltf_pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!orri_gltf_top_array(c, "buffers", &arr, &d->buffer_count)) return false;
    d->buffers = orri_gltf_palloc(c, d->buffer_count, sizeof *d->buffers);
    if (d->buffer_count && !d->buffers) return false;
    uint32_t i = 0;
    for (const cJSON *b = arr ? arr->child : NULL; b; b = b->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "buffers[%u]", i);
        orri_gltf_buffer *buf = &d->buffers[i];
        buf->source = -1;
        int64_t len;
        if (!orri_gltf_jrequired(c, b, "byteLength", path) || !orri_gltf_jint(c, b, "byteLength", path, 0, 1, INT64_C(1) << 53, &len))
            return false;
        buf->byte_length = (uint64_t)len;
        const char *uri;
        if (!orri_gltf_jstring(c, b, "uri", path, &uri)) return false;
        static const char *const known[] = {"byteLength", "uri", NULL};
        orri_gltf_check_keys(c, b, path, known);
        if (!buffer_fallback(c, b, path, &buf->fallback)) return false;
        if (buf->fallback) continue; /* never read: its views decode from compressed data */
        if (!uri) {
            if (c->is_glb && i == 0 && !c->glb_bin)
                return PARSE_ERR(c, "%s: refers to the GLB binary chunk, but the file has none", path);
            if (i != 0 || !c->glb_bin) {
                /* only an error once something reads it: checked after the accessors' layout */
                buf->missing = true;
                continue;
            }
            if (c->glb_bin_size < buf->byte_length)
                return PARSE_ERR(c, "%s.byteLength: %llu bytes but the GLB BIN chunk has %llu", path,
                                 (unsigned long long)buf->byte_length, (unsigned long long)c->glb_bin_size);
            if (c->glb_bin_size > buf->byte_length + 3)
                orri_gltf_warn(c, "%s.byteLength: %llu, the GLB BIN chunk has %llu bytes", path, (unsigned long long)buf->byte_length,
                               (unsigned long long)c->glb_bin_size);
            buf->data = c->glb_bin;
            continue;
        }
        char upath[80];
        PATHF(c, upath, sizeof upath, "%s.uri", path);
        if (strncmp(uri, "data:", 5) == 0) {
            size_t n = 0;
            if (!orri_gltf_decode_data_uri(c, uri, upath, false, &buf->owned, &n)) return false;
            buf->data = buf->owned;
            if (n < buf->byte_length)
                return PARSE_ERR(c, "%s.byteLength: %llu but the data has %zu bytes", path,
                                 (unsigned long long)buf->byte_length, n);
            if (n > buf->byte_length + 3)
                orri_gltf_violation(c, "%s.byteLength: %llu but the data URI holds %zu bytes", path, (unsigned long long)buf->byte_length, n);
            continue;
        }
        if (strlen(uri) == 0) return PARSE_ERR(c, "%s: empty URI", upath);
        char full[2048];
        if (!orri_gltf_uri_file_path(c, uri, upath, full, sizeof full)) return false;
        buf->source = orri_gltf_source_intern(c, full, buf->byte_length, upath);
        if (buf->source < 0) return false;
    }
    return true;
}

/* An external buffer's file, opened when a buffer view first uses it (an unused one is never read;
 * each distinct file once, for the most any buffer naming it needs). */
static bool open_buffer(orri_gltf_pctx *c, uint32_t i)
{
    orri_gltf_doc *d = c->doc;
    orri_gltf_buffer *buf = &d->buffers[i];
    orri_gltf_source *src = &d->sources[buf->source];
    char path[64];
    PATHF(c, path, sizeof path, "buffers[%u]", i);
    if (!orri_gltf_source_open(d, src)) return orri_gltf_fail(c, src->error.code, "%s.uri: %s", path, src->error.message);
    if (src->file.size < buf->byte_length)
        return PARSE_ERR(c, "%s.byteLength: %llu but '%s' has %zu bytes", path, (unsigned long long)buf->byte_length,
                         src->path, src->file.size);
    buf->data = src->file.data;
    return true;
}

bool orri_gltf_parse_views(orri_gltf_pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!orri_gltf_top_array(c, "bufferViews", &arr, &d->view_count)) return false;
    d->views = orri_gltf_palloc(c, d->view_count, sizeof *d->views);
    if (d->view_count && !d->views) return false;
    uint32_t i = 0;
    for (const cJSON *v = arr ? arr->child : NULL; v; v = v->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "bufferViews[%u]", i);
        orri_gltf_view *view = &d->views[i];
        int32_t buffer;
        int64_t off, len, stride, target;
        if (!orri_gltf_jrequired(c, v, "buffer", path) || !orri_gltf_jref(c, v, "buffer", path, d->buffer_count, "buffers", &buffer) ||
            !orri_gltf_jint(c, v, "byteOffset", path, 0, 0, INT64_C(1) << 53, &off) || !orri_gltf_jrequired(c, v, "byteLength", path) ||
            !orri_gltf_jint(c, v, "byteLength", path, 0, 1, INT64_C(1) << 53, &len) ||
            !orri_gltf_jint(c, v, "byteStride", path, 0, 4, 252, &stride) || !orri_gltf_jint(c, v, "target", path, 0, 0, INT32_MAX, &target))
            return false;
        static const char *const known[] = {"buffer", "byteOffset", "byteLength", "byteStride", "target", NULL};
        orri_gltf_check_keys(c, v, path, known);
        orri_gltf_buffer *buf = &d->buffers[buffer];
        bool compressed;
        if (!parse_view_meshopt(c, v, path, i, (uint64_t)len, stride, &compressed)) return false;
        if (!compressed && buf->fallback)
            return PARSE_ERR(c, "%s.buffer: buffer %d is a meshopt fallback buffer; only compressed bufferViews may use it",
                             path, buffer);
        if (!compressed && buf->source >= 0 && !buf->data && !open_buffer(c, (uint32_t)buffer)) return false;
        if ((uint64_t)off > buf->byte_length || (uint64_t)len > buf->byte_length - (uint64_t)off)
            return PARSE_ERR(c, "%s.byteLength: offset %lld + length %lld runs past buffer %d (%llu bytes)", path,
                             (long long)off, (long long)len, buffer, (unsigned long long)buf->byte_length);
        if (stride && stride % 4 != 0) return PARSE_ERR(c, "%s.byteStride: %lld is not a multiple of 4", path, (long long)stride);
        if (stride > len)
            return PARSE_ERR(c, "%s.byteStride: %lld is larger than byteLength %lld", path, (long long)stride, (long long)len);
        if (target && target != 34962 && target != 34963) {
            orri_gltf_violation(c, "%s.target: %lld is not a valid target, ignored", path, (long long)target);
            target = 0;
        }
        if (stride && target == 34963)
            return PARSE_ERR(c, "%s.byteStride: an index buffer view (target 34963) cannot have a stride", path);
        view->data = !compressed && buf->data ? buf->data + off : NULL; /* compressed: decode_views */
        view->buffer = (uint32_t)buffer;
        view->offset = (uint64_t)off;
        view->length = (uint64_t)len;
        view->stride = (uint32_t)stride;
        view->target = (uint32_t)target;
    }
    /* bytes that exist and are used (not a byteLength without data): what the view-less accessor cap weighs */
    for (uint32_t k = 0; k < d->buffer_count; k++)
        if (d->buffers[k].data) c->buffer_bytes += d->buffers[k].byte_length;
    return decode_views(c);
}
