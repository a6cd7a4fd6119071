/* The triangle codec of EXT_meshopt_compression (mode 1, "Appendix A" of the spec), decoded on several
 * threads. meshoptimizer's decoder is one sequential loop: each triangle reads two FIFOs (16 recent
 * edges, 16 recent vertices) and two counters (`next`, the high-water mark, and `last`, the base of
 * explicit indices) that the triangles before it left, and takes 5-10 ms for a mesh of 2M triangles on
 * one core. The stream is cut into chunks of consecutive triangles that decode at once:
 *
 *   1. classify (parallel): per chunk, from its code bytes alone, how far `next` and `last` move, how
 *      many codes read one varint (0xXf), and where the codes that read an extra byte are (0xfe, 0xff);
 *   2. place (sequential, over the data section only): where each chunk's data begins, found by
 *      counting varint ends (bytes below 0x80) eight bytes at a time, and `next` at each chunk's start;
 *   3. sum (parallel): each chunk's varint deltas, hence `last` at each chunk's start;
 *   4. decode (parallel): each chunk as meshoptimizer decodes it, except that the FIFOs start holding
 *      symbols ("slot k of this chunk's starting FIFOs") where the previous chunk's contents belong;
 *      an output that is a symbol is written later;
 *   5. resolve (sequential, 48 values per chunk): each chunk's starting FIFOs from the previous
 *      chunk's final ones, then the symbols written (a chunk with too many is decoded again).
 *
 * On success the result is meshoptimizer's, byte for byte: chunk 0 starts from the true state, and step 4 checks
 * that each chunk ends with the data position, `next` and `last` the next chunk started from, so by
 * induction every chunk decodes from the state the sequential loop would have reached; the FIFOs are
 * a rotation of the sequential loop's, symbols standing for their starting contents. Steps 1-3 only
 * guess; anything they or step 4 do not expect (a bad stream above all) hands the whole stream to
 * meshopt_decodeIndexBuffer, so that a stream is refused exactly as meshoptimizer refuses it. */
#include "core/internal.h"
#include "scene/gltf_internal.h"

#include <meshoptimizer.h>
#include <string.h>

enum {
    TRI_CHUNKS = 64,     /* at most, for one stream */
    TRI_PENDING = 1024,  /* symbols one chunk may write before it is decoded again instead */
    TRI_MIN_CHUNK = 8192 /* triangles: below this a chunk costs more to set up than it saves */
};

/* A FIFO value from SYM to SYM + 47 stands for starting slot (value - SYM). No index the chunk writes
 * itself may lie there (step 4 checks: such a stream decodes in one piece); the sequential loop's
 * initial ~0 lies above. */
#define SYM UINT32_C(0xffffffc0)

static inline bool is_sym(uint32_t v) { return v - SYM < 48; }

typedef struct tri_explicit {
    uint32_t tri;        /* within the chunk */
    uint32_t xf_before;  /* 0xXf codes before it in the chunk */
    uint32_t inc_before; /* `next` increments of the other codes before it in the chunk */
    uint32_t zw_at;      /* its extra byte's offset in the stream (step 2) */
} tri_explicit;

typedef struct tri_pending {
    uint32_t at;   /* index in the output */
    uint32_t slot; /* starting FIFO slot: edges 0-31 (entry * 2 + end), vertices 32-47 */
} tri_pending;

typedef struct tri_chunk {
    uint32_t first, count; /* triangles */
    /* step 1 */
    uint32_t inc, dlast, xf, explicit_n;
    bool too_many;
    tri_explicit *ex; /* its share of the scratch's (ex_cap of them) */
    uint32_t ex_cap;
    /* steps 2-3: the state it starts from */
    uint32_t data, data_end; /* stream offsets */
    uint32_t next, last;
    /* step 4 */
    bool bad, overflow;
    uint32_t pending_n;
    tri_pending pending[TRI_PENDING];
    uint32_t edge[16][2], vert[16]; /* the FIFOs it ended with */
    uint32_t edge_at, vert_at;
    uint32_t max; /* the largest index it wrote (symbols aside), then patched in */
    /* step 5: the FIFOs it started with, resolved */
    uint32_t start_edge[16][2], start_vert[16];
} tri_chunk;

/* orri_meshopt_tri_scratch is raw memory, never defined: the chunks' records (as many as the caller
 * sized it for), then the explicit codes' records (explicit_cap(index_count)), shared out among the
 * chunks. */

/* Room for 0xfe/0xff codes, which a vertex-cache-ordered mesh has few of (a first triangle of a strip
 * that shares no edge: 1 in 60 in a grid decoded row by row); a stream with more decodes in one piece. */
static size_t explicit_cap(size_t index_count) { return index_count / 3 / 16 + 4096; }

uint32_t orri_meshopt_tri_chunks(size_t index_count, uint32_t threads, uint32_t chunk_triangles)
{
    uint32_t min_chunk = chunk_triangles ? chunk_triangles : TRI_MIN_CHUNK;
    uint32_t chunks = threads < TRI_CHUNKS / 4 ? threads * 4 : TRI_CHUNKS;
    if (index_count / 3 / min_chunk < chunks) chunks = (uint32_t)(index_count / 3 / min_chunk);
    return chunks;
}

size_t orri_meshopt_tri_scratch_size(size_t index_count, uint32_t chunks)
{
    if (chunks > TRI_CHUNKS) chunks = TRI_CHUNKS;
    return (size_t)(chunks ? chunks : 1) * sizeof(tri_chunk) + explicit_cap(index_count) * sizeof(tri_explicit);
}

typedef struct tri_ctx {
    void *dst;
    size_t index_size;
    const uint8_t *src;
    size_t size;
    const uint8_t *safe_end; /* src + size - 16: the codeaux table */
    unsigned fecmax;         /* 13 from version 1 (0xXd and 0xXe move `last`), 15 in version 0 */
    uint64_t code_fields[256]; /* per code, for step 1: increments, varint, last + 1, last - 1 */
    tri_chunk *chunk;
    uint32_t chunks;
} tri_ctx;

/* meshoptimizer's varint: up to five bytes, the fifth ending it whatever its top bit */
static inline uint32_t read_vbyte(const uint8_t **p)
{
    const uint8_t *d = *p;
    uint32_t lead = *d++;
    if (lead < 128) {
        *p = d;
        return lead;
    }
    uint32_t v = lead & 127, shift = 7;
    for (int i = 0; i < 4; i++) {
        uint32_t g = *d++;
        v |= (g & 127) << shift;
        shift += 7;
        if (g < 128) break;
    }
    *p = d;
    return v;
}

static uint32_t unzigzag(uint32_t v) { return (v >> 1) ^ (0u - (v & 1)); }

/* Step 1. One table lookup per code: its `next` increments, whether it reads a varint, and how it
 * moves `last`, in four 16-bit fields added up over at most TRI_FIELD codes at a time. */
enum { TRI_FIELD = 16384 }; /* codes: 3 increments each stay below 2^16 */

static void classify_job(void *ctx, uint32_t index)
{
    const tri_ctx *x = ctx;
    tri_chunk *k = &x->chunk[index];
    const uint8_t *code = x->src + 1 + k->first;
    uint32_t inc = 0, up = 0, down = 0, xf = 0, n = 0;
    for (uint32_t t0 = 0; t0 < k->count; t0 += TRI_FIELD) {
        uint32_t t1 = k->count - t0 < TRI_FIELD ? k->count : t0 + TRI_FIELD;
        uint64_t sum = 0;
        for (uint32_t t = t0; t < t1; t++) {
            uint8_t c = code[t];
            if (__builtin_expect(c >= 0xfe, 0)) {
                if (n == k->ex_cap) {
                    k->too_many = true;
                    return;
                }
                k->ex[n++] = (tri_explicit){t, xf + (uint32_t)(sum >> 16 & 0xffff), inc + (uint32_t)(sum & 0xffff), 0};
                continue;
            }
            sum += x->code_fields[c];
        }
        inc += (uint32_t)(sum & 0xffff), xf += (uint32_t)(sum >> 16 & 0xffff);
        up += (uint32_t)(sum >> 32 & 0xffff), down += (uint32_t)(sum >> 48);
    }
    k->inc = inc, k->dlast = up - down, k->xf = xf, k->explicit_n = n;
}

/* Moves *at past n varints, each taken to end at its first byte below 0x80 (step 4 checks that);
 * false if the stream ends first. */
static bool skip_varints(const tri_ctx *x, size_t *at, uint32_t n)
{
    size_t p = *at;
    while (n) {
        if (p + 8 <= x->size) {
            uint64_t w;
            memcpy(&w, x->src + p, 8);
            uint64_t ends = ~w & UINT64_C(0x8080808080808080);
            /* their count: the ends' bits brought to the bytes' lowest and summed into the top byte by one
             * multiply (__builtin_popcountll is a library call without a popcnt target) */
            uint32_t c = (uint32_t)(((ends >> 7) * UINT64_C(0x0101010101010101)) >> 56);
            if (c < n) {
                n -= c, p += 8;
                continue;
            }
            for (; n > 1; n--) ends &= ends - 1;
            p += (size_t)__builtin_ctzll(ends) / 8 + 1;
            break;
        }
        if (p >= x->size) return false;
        n -= x->src[p++] < 0x80;
    }
    *at = p;
    return true;
}

/* Step 2; false if the stream does not lay out as the codes say. */
static bool place_chunks(const tri_ctx *x)
{
    size_t at = 1 + (size_t)x->chunk[x->chunks - 1].first + x->chunk[x->chunks - 1].count; /* after the codes */
    uint32_t next = 0;
    for (uint32_t i = 0; i < x->chunks; i++) {
        tri_chunk *k = &x->chunk[i];
        if (k->too_many) return false;
        k->data = (uint32_t)at, k->next = next;
        uint32_t xf = 0, inc = 0;
        for (uint32_t j = 0; j < k->explicit_n; j++) {
            tri_explicit *e = &k->ex[j];
            if (!skip_varints(x, &at, e->xf_before - xf)) return false;
            xf = e->xf_before;
            next += e->inc_before - inc, inc = e->inc_before;
            if (x->src + at > x->safe_end) return false;
            e->zw_at = (uint32_t)at;
            uint8_t zw = x->src[at++], c = x->src[1 + k->first + e->tri];
            if (zw == 0) next = 0;
            next += (c == 0xfe) + ((zw >> 4) == 0) + ((zw & 15) == 0);
            if (!skip_varints(x, &at, (c == 0xff) + ((zw >> 4) == 15) + ((zw & 15) == 15))) return false;
        }
        if (!skip_varints(x, &at, k->xf - xf)) return false;
        next += k->inc - inc;
        if (x->src + at > x->safe_end) return false;
        k->data_end = (uint32_t)at;
    }
    return x->src + at == x->safe_end;
}

/* Step 3: the chunk's varint deltas, its extra bytes skipped; `last` moves by their sum and dlast. */
static void sum_job(void *ctx, uint32_t index)
{
    const tri_ctx *x = ctx;
    tri_chunk *k = &x->chunk[index];
    const uint8_t *p = x->src + k->data, *end = x->src + k->data_end;
    uint32_t sum = k->dlast, j = 0;
    while (p < end) {
        if (j < k->explicit_n && p == x->src + k->ex[j].zw_at) {
            p++, j++;
            continue;
        }
        if (j < k->explicit_n && p > x->src + k->ex[j].zw_at) break; /* a varint ran over an extra byte */
        sum += unzigzag(read_vbyte(&p));
    }
    k->bad = p != end || j != k->explicit_n;
    k->dlast = sum; /* from now on: the whole move of `last` */
}

/* The symbols of one triangle, kept for step 5 (up to TRI_PENDING; past that the chunk decodes again). */
static void keep_symbols(tri_chunk *k, uint32_t *n, size_t i, const uint32_t v[3])
{
    for (uint32_t j = 0; j < 3; j++) {
        if (!is_sym(v[j])) continue;
        if (*n == TRI_PENDING) {
            k->overflow = true;
            return;
        }
        k->pending[(*n)++] = (tri_pending){(uint32_t)(i + j), (uint32_t)(v[j] & 63)};
    }
}

/* Step 4, and the second decode of step 5 (`resolved`: from the chunk's resolved starting FIFOs).
 * The body follows the spec's decoding rules case for case; pushes and reads go through the same
 * ring offsets as meshoptimizer's, including the write of a push that does not advance. Everything
 * the loop reads stays in locals: the output's stores could otherwise alias them. */
static inline __attribute__((always_inline)) void decode_body(const tri_ctx *x, tri_chunk *k, bool resolved,
                                                              bool wide)
{
    uint32_t ef[16][2], vf[16];
    bool first = k->first == 0;
    for (uint32_t s = 0; s < 16; s++) {
        ef[s][0] = first ? UINT32_MAX : resolved ? k->start_edge[s][0] : SYM + s * 2;
        ef[s][1] = first ? UINT32_MAX : resolved ? k->start_edge[s][1] : SYM + s * 2 + 1;
        vf[s] = first ? UINT32_MAX : resolved ? k->start_vert[s] : SYM + 32 + s;
    }
    uint32_t *restrict out32 = (uint32_t *)x->dst + (size_t)k->first * 3;
    uint16_t *restrict out16 = (uint16_t *)x->dst + (size_t)k->first * 3;
    const uint8_t *code = x->src + 1 + k->first, *data = x->src + k->data, *safe_end = x->safe_end;
    const uint32_t count = k->count, fecmax = x->fecmax;
    size_t eo = 0, vo = 0;
    uint32_t next = k->next, last = k->last, pending = 0, mx = 0;
    bool overflow = false, clash = false; /* clash: an index it wrote lies among the symbols */
    k->overflow = false;
    for (uint32_t t = 0; t < count; t++) {
        if (data > safe_end) {
            k->bad = true;
            return;
        }
        uint32_t ct = code[t];
        uint32_t a, b, c;
        if (ct < 0xf0) {
            size_t e = (eo - 1 - (ct >> 4)) & 15;
            a = ef[e][0], b = ef[e][1];
            uint32_t fec = ct & 15;
            if (fec < fecmax) {
                uint64_t cf = vf[(vo - 1 - fec) & 15];
                c = fec == 0 ? next : cf;
                next += fec == 0;
                vf[vo] = c, vo = (vo + (fec == 0)) & 15;
            } else {
                last = fec != 15 ? last + (fec - (fec ^ 3)) : last + unzigzag(read_vbyte(&data));
                c = last, clash |= is_sym(last);
                vf[vo] = c, vo = (vo + 1) & 15;
            }
            ef[eo][0] = c, ef[eo][1] = b, eo = (eo + 1) & 15;
            ef[eo][0] = a, ef[eo][1] = c, eo = (eo + 1) & 15;
        } else if (ct < 0xfe) { /* the table's nibbles are FIFO entries, even a 15 a stream may hold */
            uint32_t aux = safe_end[ct & 15], feb = aux >> 4, fec = aux & 15;
            uint64_t bf = vf[(vo - feb) & 15], cf = vf[(vo - fec) & 15];
            a = next++;
            b = feb == 0 ? next++ : bf;
            c = fec == 0 ? next++ : cf;
            vf[vo] = a, vo = (vo + 1) & 15;
            vf[vo] = b, vo = (vo + (feb == 0)) & 15;
            vf[vo] = c, vo = (vo + (fec == 0)) & 15;
            ef[eo][0] = b, ef[eo][1] = a, eo = (eo + 1) & 15;
            ef[eo][0] = c, ef[eo][1] = b, eo = (eo + 1) & 15;
            ef[eo][0] = a, ef[eo][1] = c, eo = (eo + 1) & 15;
        } else { /* the extra byte; a 15 nibble (or 0xff for a) reads a varint */
            uint32_t aux = *data++, feb = aux >> 4, fec = aux & 15;
            if (aux == 0) clash |= next > SYM, next = 0;
            a = ct == 0xfe ? next++ : 0;
            b = feb == 0 ? next++ : vf[(vo - feb) & 15];
            c = fec == 0 ? next++ : vf[(vo - fec) & 15];
            if (ct == 0xff) last += unzigzag(read_vbyte(&data)), a = last, clash |= is_sym(last);
            if (feb == 15) last += unzigzag(read_vbyte(&data)), b = last, clash |= is_sym(last);
            if (fec == 15) last += unzigzag(read_vbyte(&data)), c = last, clash |= is_sym(last);
            vf[vo] = a, vo = (vo + 1) & 15;
            vf[vo] = b, vo = (vo + (feb == 0 || feb == 15)) & 15;
            vf[vo] = c, vo = (vo + (fec == 0 || fec == 15)) & 15;
            ef[eo][0] = b, ef[eo][1] = a, eo = (eo + 1) & 15;
            ef[eo][0] = c, ef[eo][1] = b, eo = (eo + 1) & 15;
            ef[eo][0] = a, ef[eo][1] = c, eo = (eo + 1) & 15;
        }
        if (wide) out32[t * 3] = a, out32[t * 3 + 1] = b, out32[t * 3 + 2] = c;
        else out16[t * 3] = (uint16_t)a, out16[t * 3 + 1] = (uint16_t)b, out16[t * 3 + 2] = (uint16_t)c;
        /* the largest index written, symbols aside: one test a triangle finds those (a symbol is above
         * every index but the initial ~0) */
        uint32_t top = a > b ? a : b;
        top = c > top ? c : top;
        if (__builtin_expect(top >= SYM, 0)) {
            const uint32_t v[3] = {a, b, c}, keep = wide ? UINT32_MAX : UINT16_MAX;
            top = 0;
            for (int j = 0; j < 3; j++) top = !is_sym(v[j]) && (v[j] & keep) > top ? v[j] & keep : top;
            if (!overflow) keep_symbols(k, &pending, (size_t)(k->first + t) * 3, v), overflow = k->overflow;
        } else if (!wide) {
            top = (a & UINT16_MAX) > (b & UINT16_MAX) ? a & UINT16_MAX : b & UINT16_MAX;
            top = (c & UINT16_MAX) > top ? c & UINT16_MAX : top;
        }
        mx = top > mx ? top : mx;
    }
    k->pending_n = pending;
    k->max = mx;
    const tri_chunk *after = k + 1 < x->chunk + x->chunks ? k + 1 : NULL;
    if (data != x->src + k->data_end || (after && (next != after->next || last != after->last)) || clash || next > SYM)
        k->bad = true;
    memcpy(k->edge, ef, sizeof ef), memcpy(k->vert, vf, sizeof vf);
    k->edge_at = (uint32_t)eo, k->vert_at = (uint32_t)vo;
}

static void decode_chunk(const tri_ctx *x, tri_chunk *k, bool resolved)
{
    if (x->index_size == 4) decode_body(x, k, resolved, true);
    else decode_body(x, k, resolved, false);
}

static void decode_job(void *ctx, uint32_t index)
{
    const tri_ctx *x = ctx;
    decode_chunk(x, &x->chunk[index], false);
}

/* Step 5, second half: the symbols a chunk wrote, or the whole chunk again if it wrote too many. */
static void patch_job(void *ctx, uint32_t index)
{
    const tri_ctx *x = ctx;
    tri_chunk *k = &x->chunk[index];
    if (k->overflow) {
        decode_chunk(x, k, true);
        return;
    }
    for (uint32_t j = 0; j < k->pending_n; j++) {
        uint32_t s = k->pending[j].slot;
        uint32_t v = s < 32 ? k->start_edge[s / 2][s % 2] : k->start_vert[s - 32];
        if (x->index_size == 4) ((uint32_t *)x->dst)[k->pending[j].at] = v;
        else ((uint16_t *)x->dst)[k->pending[j].at] = (uint16_t)v, v &= UINT16_MAX;
        k->max = v > k->max ? v : k->max;
    }
}

static uint32_t resolve(const tri_chunk *prev, uint32_t v)
{
    if (!is_sym(v)) return v;
    uint32_t s = v - SYM;
    return s < 32 ? prev->start_edge[s / 2][s % 2] : prev->start_vert[s - 32];
}

static int sequential(orri_meshopt_tri_desc *d)
{
    d->split = d->redone = 0, d->max_known = false;
    return meshopt_decodeIndexBuffer(d->dst, d->index_count, d->index_size, d->src, d->size);
}

int orri_meshopt_decode_triangles(orri_meshopt_tri_desc *d)
{
    size_t tris = d->index_count / 3, size = d->size;
    const uint8_t *src = d->src;
    uint32_t threads = d->threads, chunks = orri_meshopt_tri_chunks(d->index_count, threads, d->chunk_triangles);
    /* the chunk records the scratch has, as orri_meshopt_tri_scratch_size counted them (at most 64) */
    uint32_t room = d->scratch_chunks < TRI_CHUNKS ? d->scratch_chunks : TRI_CHUNKS;
    if (chunks > room) chunks = room;
    /* the header checks are meshoptimizer's, and so are the short and odd streams */
    if (threads < 2 || chunks < 2 || !d->scratch || size > UINT32_MAX || d->index_count > UINT32_MAX ||
        size < 1 + tris + 16 ||
        (src[0] & 0xf0) != 0xe0 || (src[0] & 0x0f) > 1)
        return sequential(d);

    tri_ctx x = {.dst = d->dst, .index_size = d->index_size, .src = src, .size = size, .safe_end = src + size - 16,
                 .fecmax = (src[0] & 0x0f) >= 1 ? 13 : 15, .chunk = (tri_chunk *)(void *)d->scratch, .chunks = chunks};
    tri_explicit *ex = (tri_explicit *)(void *)(x.chunk + room);
    for (uint32_t c = 0; c < 0xfe; c++) {
        uint32_t fec = c & 15, aux = x.safe_end[c & 15];
        uint64_t inc = c >= 0xf0 ? 1 + ((aux >> 4) == 0) + ((aux & 15) == 0) : fec == 0;
        bool xf = c < 0xf0 && fec == 15, moves = c < 0xf0 && fec >= x.fecmax && fec < 15;
        x.code_fields[c] = inc | (uint64_t)xf << 16 | (uint64_t)(moves && fec == 14) << 32 |
                           (uint64_t)(moves && fec == 13) << 48;
    }
    size_t ex_cap = explicit_cap(d->index_count);
    for (uint32_t i = 0; i < chunks; i++) {
        tri_chunk *k = &x.chunk[i];
        k->first = (uint32_t)(tris * i / chunks);
        k->count = (uint32_t)(tris * (i + 1) / chunks) - k->first;
        k->ex = ex + ex_cap * i / chunks;
        k->ex_cap = (uint32_t)(ex_cap * (i + 1) / chunks - ex_cap * i / chunks);
        k->too_many = k->bad = false;
    }
    orri_pool_run(d->workers, threads, chunks, classify_job, &x);
    if (!place_chunks(&x)) return sequential(d);
    orri_pool_run(d->workers, threads, chunks, sum_job, &x);
    uint32_t last = 0;
    for (uint32_t i = 0; i < chunks; i++) {
        if (x.chunk[i].bad) return sequential(d);
        x.chunk[i].last = last;
        last += x.chunk[i].dlast;
    }
    orri_pool_run(d->workers, threads, chunks, decode_job, &x);
    for (uint32_t i = 0; i < chunks; i++)
        if (x.chunk[i].bad) return sequential(d);
    /* chunk k's starting slot s is its predecessor's ring entry (s + ring offset) & 15 */
    for (uint32_t i = 1; i < chunks; i++) {
        const tri_chunk *p = &x.chunk[i - 1];
        tri_chunk *k = &x.chunk[i];
        for (uint32_t s = 0; s < 16; s++) {
            uint32_t e = (p->edge_at + s) & 15, v = (p->vert_at + s) & 15;
            k->start_edge[s][0] = resolve(p, p->edge[e][0]);
            k->start_edge[s][1] = resolve(p, p->edge[e][1]);
            k->start_vert[s] = resolve(p, p->vert[v]);
        }
    }
    d->split = chunks, d->redone = 0;
    for (uint32_t i = 0; i < chunks; i++) d->redone += x.chunk[i].overflow;
    orri_pool_run(d->workers, threads, chunks, patch_job, &x);
    /* the largest index: every value is one a chunk wrote or patched in */
    d->max = 0;
    for (uint32_t i = 0; i < chunks; i++) d->max = x.chunk[i].max > d->max ? x.chunk[i].max : d->max;
    d->max_known = true;
    return 0;
}
