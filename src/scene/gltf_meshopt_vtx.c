/* The attribute codec of EXT_meshopt_compression (mode 0, "Appendix A" of the spec), decoded on several
 * threads. meshoptimizer's decoder walks the stream once: blocks of up to 256 vertices, each stored as
 * one run of byte groups per byte of the vertex, each byte a delta from the same byte of the vertex
 * before it. Two things chain a block to the ones before it: where its data begins, and the vertex it
 * is a delta from (the previous block's last). The stream is cut into parts of whole blocks:
 *
 *   1. scan: where each part's data begins, found by walking the runs (their group headers, and the
 *      sentinels of the groups that have extra bytes) without decoding anything. One walk would take
 *      a fifth of the decode; instead walkers start at once at even offsets of the stream, each as if
 *      a run began there, and record the run starts they pass. A walk from a wrong offset soon lands
 *      on a true run start (a few hundred runs in real streams), and from there it is the true walk;
 *      so the true walk is the first walker's, then the second's from where the first one's, carried
 *      on, meets it, and so on. A walker that never meets the one before it means one walk after all;
 *   2. decode (parallel): each part as a stream of its own, by meshoptimizer: a header, its data, and
 *      as its tail the tail-many bytes that follow its data in the stream (the last part's: the
 *      stream's own tail), whose last vertex_size bytes are the base vertex it is decoded from;
 *   3. add (parallel): each part's bytes plus its true base (the previous part's true last vertex, or
 *      the stream's base vertex for the first) minus the base it was decoded from, byte by byte modulo
 *      256, as the deltas are; then the filter, if any.
 *
 * On success the result is meshoptimizer's, byte for byte. Part 0 starts where the stream's data does;
 * meshoptimizer decodes a part with code 0 only when its blocks take exactly the bytes the part was
 * given, and what a block takes depends only on its own bytes, so by induction every part starts where
 * the sequential loop reaches it. What a block decodes to may depend on a few bytes past those it
 * takes (meshoptimizer's SIMD groups read 16 bytes past their selectors; from 0.19 on, on x86-64 and
 * AArch64, a group of 16 sentinels takes none of them): a part's stream holds the bytes the
 * sequential loop sees there, up to a whole tail past its end. Then, as the stream ends a whole tail
 * (at least 32 bytes) after the last part, every bounds check of the sequential loop passes too.
 * Step 1 only guesses: anything it or step 2 does not expect (a bad stream above all) hands the whole
 * stream to meshopt_decodeVertexBuffer, so that a stream is refused exactly as meshoptimizer refuses it. */
#include "core/internal.h"
#include "scene/gltf_internal.h"

#include <meshoptimizer.h>
#include <string.h>

enum {
    VTX_PARTS = 64,      /* at most, for one stream */
    VTX_WALKERS = 64,    /* at most, for one stream */
    VTX_MIN_BLOCKS = 16, /* blocks per part: below this a part costs more to set up than it saves */
    VTX_MIN_RUNS = 2048, /* runs per walker: a walker rarely needs 512 to meet the true walk */
    VTX_SLACK = 256,     /* runs a walker may record beyond its share */
    VTX_TAIL = 32,       /* the fewest bytes after the last block: the base vertex, padded */
    VTX_HEADER = 0xa0,   /* version 0, the one meshoptimizer 0.18 decodes */
};

typedef struct vtx_part {
    size_t first, count; /* vertices */
    size_t at, end;      /* its blocks' bytes in the stream */
    uint8_t *stream;     /* their copy, framed as a stream of its own */
    int rc;
    uint8_t add[256]; /* step 3: its true base minus the base it was decoded from */
} vtx_part;

typedef struct vtx_walker {
    uint32_t from, to, next; /* stream offsets: where it starts, where it stops, where it stopped */
    bool stopped;            /* short of `to`: its list full, or the stream's end */
    uint32_t *at, n, cap;    /* the run starts it passed, ascending */
    /* the previous walker's walk, carried on: the run starts it passed before it met this one's, at
     * at[meet] (UINT32_MAX: it never did) */
    uint32_t *gap, gap_n, gap_cap, meet;
} vtx_walker;

struct orri_meshopt_vtx_scratch {
    vtx_part part[VTX_PARTS];
    vtx_walker walker[VTX_WALKERS];
    uint8_t bytes[]; /* the walkers' lists (uint32_t), then the parts' streams */
};

static size_t tail_size(size_t vertex_size) { return vertex_size < VTX_TAIL ? VTX_TAIL : vertex_size; }

/* meshoptimizer's block: as many vertices as fit 8 KB, a multiple of 16, at most 256 */
static size_t block_vertices(size_t vertex_size)
{
    size_t n = (8192 / vertex_size) & ~(size_t)15;
    return n < 256 ? n : 256;
}

/* A stream has vertex_size runs a block. Its walkers' lists together: twice the runs (a walker may pass
 * more than its share) and the gaps (less than a share each), and some slack each. */
static size_t list_entries(size_t vertex_count, size_t vertex_size)
{
    size_t per_block = block_vertices(vertex_size), runs = (vertex_count + per_block - 1) / per_block * vertex_size;
    return 3 * runs + 2 * VTX_SLACK * VTX_WALKERS;
}

size_t orri_meshopt_vtx_scratch_size(size_t size, size_t vertex_count, size_t vertex_size)
{
    if (vertex_size == 0 || vertex_size > 256) return sizeof(orri_meshopt_vtx_scratch);
    return sizeof(orri_meshopt_vtx_scratch) + list_entries(vertex_count, vertex_size) * sizeof(uint32_t) + size +
           VTX_PARTS * (1 + tail_size(vertex_size));
}

/* The end of one byte's run of `groups` groups, or NULL where the sequential decoder would stop (as it
 * needs 24 bytes left to decode a group) or the stream ends. A group of mode 1 (2-bit values) or 2
 * (4-bit) has one extra byte per value that is all ones, mode 0 none and mode 3 sixteen. Where the
 * run cannot reach the end (24 bytes a group at most), only the groups of modes 1 and 2 are read, each
 * at the offset the ones before it leave (the modes 3 before it counted at once): one load after
 * another is the scan's cost. */
static size_t extra_bytes(uint64_t x, uint32_t mode)
{
    uint32_t x2 = (uint32_t)x & (uint32_t)x >> 1 & 0x55555555u;
    uint64_t x4 = x & x >> 1;
    x4 &= x4 >> 2;
    size_t n2 = 4 + (size_t)__builtin_popcount(x2), n4 = 8 + (size_t)__builtin_popcountll(x4 & UINT64_C(0x1111111111111111));
    return mode == 1 ? n2 : n4;
}

ORRI_WIDE static const uint8_t *skip_run(const uint8_t *p, const uint8_t *end, size_t groups)
{
    size_t header = (groups + 3) / 4;
    if ((size_t)(end - p) >= 4 + groups * 24) {
        uint32_t h;
        memcpy(&h, p, 4);
        if (groups < 16) h &= (UINT32_C(1) << groups * 2) - 1;
        p += header;
        uint32_t lo = h & 0x55555555u, hi = h >> 1 & 0x55555555u, three = lo & hi, var = lo ^ hi;
        size_t taken = 0;
        for (; var; var &= var - 1) {
            uint32_t b = (uint32_t)__builtin_ctz(var);
            uint64_t x;
            memcpy(&x, p + 16 * (size_t)__builtin_popcount(three & ((UINT32_C(1) << b) - 1)) + taken, 8);
            taken += extra_bytes(x, lo >> b & 1 ? 1 : 2);
        }
        return p + 16 * (size_t)__builtin_popcount(three) + taken;
    }
    if ((size_t)(end - p) < header) return NULL;
    const uint8_t *h = p;
    p += header;
    for (size_t g = 0; g < groups; g++) {
        if ((size_t)(end - p) < 24) return NULL;
        uint32_t mode = h[g / 4] >> (g % 4 * 2) & 3;
        uint64_t x;
        memcpy(&x, p, 8);
        p += mode == 0 ? 0 : mode == 3 ? 16 : extra_bytes(x, mode);
    }
    return p;
}

typedef struct vtx_ctx {
    const orri_meshopt_vtx_desc *d;
    vtx_part *part;
    vtx_walker *walker;
    size_t tail, groups; /* a run's groups in every block but the last */
} vtx_ctx;

/* Pass 1 of the walk: from `from`, as if a run began there, to `to`. */
static void walk_job(void *ctx, uint32_t index)
{
    const vtx_ctx *x = ctx;
    vtx_walker *w = &x->walker[index];
    const uint8_t *src = x->d->src, *end = src + x->d->size, *p = src + w->from;
    w->n = 0, w->stopped = false;
    while (p && (size_t)(p - src) < w->to) {
        if (w->n == w->cap) break;
        w->at[w->n++] = (uint32_t)(p - src);
        __builtin_prefetch(p + 1024); /* (the walk reads a few bytes of every run, one load after another) */
        p = skip_run(p, end, x->groups);
    }
    w->stopped = !p || (size_t)(p - src) < w->to;
    w->next = p ? (uint32_t)(p - src) : 0;
}

/* Pass 2: walker index + 1's list against the walk of walker `index`, carried on from where it
 * stopped until it reaches a run start of that list. */
static void meet_job(void *ctx, uint32_t index)
{
    const vtx_ctx *x = ctx;
    const vtx_walker *prev = &x->walker[index];
    vtx_walker *w = &x->walker[index + 1];
    const uint8_t *src = x->d->src, *end = src + x->d->size;
    w->gap_n = 0, w->meet = UINT32_MAX;
    if (prev->stopped) return;
    const uint8_t *q = src + prev->next;
    for (uint32_t i = 0; q;) {
        uint32_t at = (uint32_t)(q - src);
        while (i < w->n && w->at[i] < at) i++;
        if (i == w->n) return;
        if (w->at[i] == at) {
            w->meet = i;
            return;
        }
        if (w->gap_n == w->gap_cap) return;
        w->gap[w->gap_n++] = at;
        q = skip_run(q, end, x->groups);
    }
}

/* Step 2: the part framed as a stream (header, its bytes and the tail-many after them: end + tail is
 * at most the stream's size, as the last part ends a tail before it) and decoded. */
static void decode_job(void *ctx, uint32_t index)
{
    const vtx_ctx *x = ctx;
    const orri_meshopt_vtx_desc *d = x->d;
    vtx_part *k = &x->part[index];
    size_t n = k->end - k->at;
    k->stream[0] = VTX_HEADER;
    memcpy(k->stream + 1, d->src + k->at, n + x->tail);
    k->rc = meshopt_decodeVertexBuffer((uint8_t *)d->dst + k->first * d->vertex_size, k->count, d->vertex_size,
                                       k->stream, 1 + n + x->tail);
}

/* Step 3: `add` over the part, a pattern of 16 vertices at a time (which the compiler vectorizes). */
ORRI_WIDE static void add_job(void *ctx, uint32_t index)
{
    const vtx_ctx *x = ctx;
    const orri_meshopt_vtx_desc *d = x->d;
    const vtx_part *k = &x->part[index];
    size_t vs = d->vertex_size, span = vs * 16, bytes = k->count * vs;
    uint8_t *p = (uint8_t *)d->dst + k->first * vs, any = 0;
    for (size_t j = 0; j < vs; j++) any |= k->add[j];
    if (any) {
        uint8_t pattern[16 * 256];
        for (size_t i = 0; i < 16; i++) memcpy(pattern + i * vs, k->add, vs);
        size_t i = 0;
        for (; i + span <= bytes; i += span)
            for (size_t j = 0; j < span; j++) p[i + j] = (uint8_t)(p[i + j] + pattern[j]);
        for (size_t j = 0; i + j < bytes; j++) p[i + j] = (uint8_t)(p[i + j] + pattern[j]);
    }
    if (d->filter) d->filter(p, k->count, vs);
}

/* The groups of a run in the last block (which may hold fewer vertices than the others). */
static size_t last_groups(const orri_meshopt_vtx_desc *d, size_t blocks, size_t per_block)
{
    return (d->vertex_count - (blocks - 1) * per_block + 15) / 16;
}

static int sequential(orri_meshopt_vtx_desc *d)
{
    d->split = 0;
    int rc = meshopt_decodeVertexBuffer(d->dst, d->vertex_count, d->vertex_size, d->src, d->size);
    if (rc == 0 && d->filter) d->filter(d->dst, d->vertex_count, d->vertex_size);
    return rc;
}

/* Step 1 on one thread: each part's start and the end of the last block, or false where the
 * sequential decoder would stop. */
static bool scan(vtx_ctx *x, uint32_t parts, size_t blocks, size_t per_block, size_t *end_at)
{
    const orri_meshopt_vtx_desc *d = x->d;
    const uint8_t *src = d->src, *p = src + 1, *end = src + d->size;
    uint32_t next = 0;
    for (size_t b = 0; b < blocks; b++) {
        if (next < parts && b == blocks * next / parts) x->part[next++].at = (size_t)(p - src);
        size_t groups = b + 1 == blocks ? last_groups(d, blocks, per_block) : x->groups;
        for (size_t k = 0; p && k < d->vertex_size; k++) p = skip_run(p, end, groups);
        if (!p) return false;
    }
    *end_at = (size_t)(p - src);
    return true;
}

/* Run r's start on the true walk: the first walker's list, then each next walker's gap and its list
 * from where they met. */
static bool run_start(const vtx_ctx *x, uint32_t walkers, size_t r, size_t *at)
{
    size_t base = 0;
    for (uint32_t j = 0; j < walkers; j++) {
        const vtx_walker *w = &x->walker[j];
        if (j > 0) {
            if (r < base + w->gap_n) return *at = w->gap[r - base], true;
            base += w->gap_n;
        }
        uint32_t first = j > 0 ? w->meet : 0;
        if (r < base + (w->n - first)) return *at = w->at[first + (r - base)], true;
        base += w->n - first;
    }
    return false;
}

/* Step 1 on several threads: as scan, or false where a walker never met the true walk too. */
static bool walk(vtx_ctx *x, uint32_t walkers, uint32_t parts, size_t blocks, size_t per_block, size_t *end_at)
{
    const orri_meshopt_vtx_desc *d = x->d;
    size_t vs = d->vertex_size, runs = blocks * vs, share = runs / walkers, data = d->size - x->tail - 1;
    uint32_t *list = (uint32_t *)(void *)d->scratch->bytes;
    for (uint32_t j = 0; j < walkers; j++) {
        vtx_walker *w = &x->walker[j];
        w->from = (uint32_t)(1 + data * j / walkers), w->to = (uint32_t)(1 + data * (j + 1) / walkers);
        w->cap = (uint32_t)(2 * share + VTX_SLACK), w->gap_cap = (uint32_t)(share + VTX_SLACK);
        w->at = list, list += w->cap;
        w->gap = list, list += w->gap_cap;
    }
    orri_pool_run(d->workers, d->threads, walkers, walk_job, x);
    orri_pool_run(d->workers, d->threads, walkers - 1, meet_job, x);
    for (uint32_t j = 1; j < walkers; j++)
        if (x->walker[j].meet == UINT32_MAX) return false;
    for (uint32_t i = 0; i < parts; i++)
        if (!run_start(x, walkers, blocks * i / parts * vs, &x->part[i].at)) return false;
    size_t at;
    if (!run_start(x, walkers, (blocks - 1) * vs, &at)) return false;
    /* the last block, whose runs may have fewer groups */
    const uint8_t *src = d->src, *p = src + at, *end = src + d->size;
    size_t groups = last_groups(d, blocks, per_block);
    for (size_t k = 0; p && k < vs; k++) p = skip_run(p, end, groups);
    if (!p) return false;
    *end_at = (size_t)(p - src);
    return true;
}

int orri_meshopt_decode_vertices(orri_meshopt_vtx_desc *d)
{
    size_t vs = d->vertex_size, size = d->size, tail = tail_size(vs);
    const uint8_t *src = d->src;
    size_t per_block = vs && vs <= 256 ? block_vertices(vs) : 1, blocks = (d->vertex_count + per_block - 1) / per_block;
    uint32_t threads = d->threads, min_blocks = d->part_blocks ? d->part_blocks : VTX_MIN_BLOCKS;
    uint32_t parts = threads < VTX_PARTS / 4 ? threads * 4 : VTX_PARTS;
    if (blocks / min_blocks < parts) parts = (uint32_t)(blocks / min_blocks);
    d->walkers = 0;
    /* the header checks are meshoptimizer's, and so are the short and odd streams */
    if (threads < 2 || parts < 2 || !d->scratch || vs % 4 || vs == 0 || vs > 256 || size < 1 + tail ||
        size > UINT32_MAX || src[0] != VTX_HEADER)
        return sequential(d);

    vtx_part *part = d->scratch->part;
    vtx_ctx x = {.d = d, .part = part, .walker = d->scratch->walker, .tail = tail, .groups = per_block / 16};
    for (uint32_t i = 0; i < parts; i++) part[i].first = blocks * i / parts * per_block;
    /* step 1 */
    size_t runs = blocks * vs, min_runs = d->walk_runs ? d->walk_runs : VTX_MIN_RUNS, end_at;
    uint32_t walkers = threads < VTX_WALKERS ? threads : VTX_WALKERS;
    if (runs / min_runs < walkers) walkers = (uint32_t)(runs / min_runs);
    if (walkers >= 2 && walk(&x, walkers, parts, blocks, per_block, &end_at)) d->walkers = walkers;
    else if (!scan(&x, parts, blocks, per_block, &end_at)) return sequential(d);
    if (size - end_at != tail) return sequential(d);
    uint8_t *stream = d->scratch->bytes + list_entries(d->vertex_count, vs) * sizeof(uint32_t);
    for (uint32_t i = 0; i < parts; i++) {
        vtx_part *k = &part[i];
        k->end = i + 1 < parts ? part[i + 1].at : end_at;
        k->count = (i + 1 < parts ? part[i + 1].first : d->vertex_count) - k->first;
        k->stream = stream;
        stream += 1 + (k->end - k->at) + tail;
    }

    /* steps 2 and 3 */
    orri_pool_run(d->workers, threads, parts, decode_job, &x);
    for (uint32_t i = 0; i < parts; i++)
        if (part[i].rc != 0) return sequential(d);
    /* each part's true base (the stream's base vertex, then each part's true last vertex: its decoded
     * one plus what it is to be added) minus the base it was decoded from (its stream's last bytes) */
    uint8_t base[256];
    memcpy(base, src + size - vs, vs);
    for (uint32_t i = 0; i < parts; i++) {
        const uint8_t *from = src + part[i].end + tail - vs;
        if (i > 0) {
            const uint8_t *last = (const uint8_t *)d->dst + (part[i].first - 1) * vs;
            for (size_t k = 0; k < vs; k++) base[k] = (uint8_t)(last[k] + part[i - 1].add[k]);
        }
        for (size_t k = 0; k < vs; k++) part[i].add[k] = (uint8_t)(base[k] - from[k]);
    }
    orri_pool_run(d->workers, threads, parts, add_job, &x);
    d->split = parts;
    return 0;
}
