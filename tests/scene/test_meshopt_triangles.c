/* The parallel triangle decoder (orri_meshopt_decode_triangles) against meshoptimizer's own decoder:
 * the same bytes and the same return code, on streams meshoptimizer encodes (both codec versions,
 * restarts, far indices, triangle soups, fans) and on damaged copies of them, at several thread counts and
 * chunk sizes small enough that every stream is cut into many chunks. */
#include "scene_tests.h"
#include "scene/gltf_internal.h"

#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

typedef struct tri_stream {
    uint8_t *bytes;
    size_t size;
    uint32_t count; /* indices */
} tri_stream;

static uint32_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(*s >> 33);
}

/* Index buffers of the kinds encoders meet: a vertex-cache-ordered grid (most triangles one byte),
 * grids in row order concatenated with indices restarting at 0 (a strip start per row: explicit
 * codes; restart codes in version 1), a soup of random
 * triangles (explicit codes; a larger one has more than the decoder keeps room for), a grid shifted near 2^32 (five-byte varints, `last` wrapping), a
 * fan (one vertex in every triangle), and a grid and a soup shifted across 2^32 - 64 .. 2^32 - 16, the values that
 * stand for a chunk's starting FIFOs while it decodes apart. */
static uint32_t *make_indices(int kind, uint32_t *count, uint64_t *seed)
{
    uint32_t side = 40, per = (side - 1) * (side - 1) * 6, copies = kind == 1 ? 5 : 1, n = per * copies;
    if (kind == 2 || kind == 5 || kind == 7) n = 3 * (kind == 5 ? 9000 : 3000);
    if (kind == 4) n = 3 * 20000;
    uint32_t *idx = malloc((size_t)n * 4);
    if (kind == 2 || kind == 5 || kind == 7) { /* 7: shifted across the symbols' values, mostly explicit codes */
        for (uint32_t i = 0; i < n; i++) idx[i] = (i % 7 == 0 ? rnd(seed) : rnd(seed) % 500) + (kind == 7 ? 0xffffff00u : 0);
    } else if (kind == 4) { /* a fan: its centre stays in the FIFOs for good, a symbol in every chunk */
        for (uint32_t t = 0; t < n / 3; t++) idx[t * 3] = 0, idx[t * 3 + 1] = t + 1, idx[t * 3 + 2] = t + 2;
    } else {
        for (uint32_t c = 0; c < copies; c++) {
            uint32_t *t = idx + (size_t)c * per;
            for (uint32_t y = 0, k = 0; y + 1 < side; y++)
                for (uint32_t x = 0; x + 1 < side; x++, k += 6) {
                    uint32_t a = y * side + x, b = a + 1, d = a + side, e = d + 1;
                    t[k] = a, t[k + 1] = d, t[k + 2] = b, t[k + 3] = b, t[k + 4] = d, t[k + 5] = e;
                }
            if (kind != 1) meshopt_optimizeVertexCache(t, t, per, side * side); /* the copies: row by row */
        }
        if (kind == 3 || kind == 6)
            for (uint32_t i = 0; i < n; i++) idx[i] += kind == 3 ? 0xfffff000u : 0xffffff80u;
    }
    *count = n;
    return idx;
}

static tri_stream encode(const uint32_t *idx, uint32_t n, int version)
{
    meshopt_encodeIndexVersion(version);
    size_t cap = meshopt_encodeIndexBufferBound(n, UINT32_MAX);
    tri_stream s = {malloc(cap), 0, n};
    s.size = meshopt_encodeIndexBuffer(s.bytes, cap, idx, n);
    meshopt_encodeIndexVersion(1);
    return s;
}

/* Decodes `s` both ways; asserts the same code and, on success, the same bytes. Returns the split. */
static uint32_t check_alike(const uint8_t *bytes, size_t size, uint32_t count, size_t index_size, uint32_t threads,
                            uint32_t chunk, orri_meshopt_tri_scratch *scratch, uint32_t *redone)
{
    size_t out = (size_t)count * index_size;
    uint8_t *want = calloc(1, out + 1), *got = calloc(1, out + 1);
    int rw = meshopt_decodeIndexBuffer(want, count, index_size, bytes, size);
    orri_meshopt_tri_desc d = {.dst = got, .index_count = count, .index_size = index_size, .src = bytes, .size = size,
                               .threads = threads, .chunk_triangles = chunk, .scratch = scratch,
                               .scratch_chunks = 64};
    int rg = orri_meshopt_decode_triangles(&d);
    assert_int_equal(rg, rw);
    if (rw == 0) assert_memory_equal(got, want, out);
    /* decoded apart, the largest index comes with it, and is the output's */
    uint32_t mx = 0;
    for (size_t i = 0; rw == 0 && i < count; i++) {
        uint32_t v = 0;
        memcpy(&v, want + i * index_size, index_size);
        mx = v > mx ? v : mx;
    }
    if (rw == 0 && d.split > 1) assert_true(d.max_known);
    if (d.max_known) assert_int_equal(d.max, mx);
    free(want), free(got);
    *redone += d.redone;
    return d.split;
}

static void test_triangles_match_meshoptimizer(void **state)
{
    (void)state;
    uint64_t seed = 7;
    for (int kind = 0; kind < 8; kind++)
        for (int version = 0; version <= 1; version++) {
            uint32_t n;
            uint32_t *idx = make_indices(kind, &n, &seed);
            tri_stream s = encode(idx, n, version);
            assert_true(s.size > 0);
            orri_meshopt_tri_scratch *scratch = malloc(orri_meshopt_tri_scratch_size(n, 64));
            const uint32_t threads[] = {2, 3, 8, 64}, chunks[] = {1, 2, 7, 100};
            uint32_t redone = 0;
            for (uint32_t t = 0; t < 4; t++)
                for (uint32_t c = 0; c < 4; c++)
                    for (size_t isz = 2; isz <= 4; isz += 2) {
                    {
                        uint32_t split = check_alike(s.bytes, s.size, n, isz, threads[t], chunks[c], scratch, &redone);
                        /* and each was cut into chunks, not handed to meshoptimizer; but the large
                         * soup's explicit codes (nearly one per triangle) are more than 1/16 of its
                         * triangles and 4096, and the grid across the symbols' values writes them: both
                         * decode in one piece */
                        assert_true(kind >= 5 ? split == 0 : split >= 2);
                    }
                    }
            /* the fan's chunks of 2500 triangles (2 threads) write more symbols than a chunk keeps (1024)
             * and decode again from their resolved FIFOs; nothing else does */
            if (kind == 4) assert_true(redone > 0);
            else assert_int_equal(redone, 0);
            /* the decoded indices are the input's (decoded on kept workers this time) */
            uint32_t *back = malloc((size_t)n * 4);
            orr_workers *w;
            assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = 3}, &w, NULL), ORR_OK);
            orri_meshopt_tri_desc d = {.dst = back, .index_count = n, .index_size = 4, .src = s.bytes, .size = s.size,
                                       .threads = 4, .workers = w, .chunk_triangles = 5, .scratch = scratch,
                                       .scratch_chunks = 64};
            assert_int_equal(orri_meshopt_decode_triangles(&d), 0);
            assert_true(kind >= 5 ? d.split == 0 : d.split >= 2);
            for (uint32_t t = 0; t < n; t += 3) { /* the codec may rotate a triangle, never change it */
                uint32_t r = back[t] == idx[t] ? 0 : back[t] == idx[t + 1] ? 1 : 2;
                for (uint32_t j = 0; j < 3; j++) assert_int_equal(back[t + j], idx[t + (j + r) % 3]);
            }
            orr_workers_destroy(w);
            /* scratch with room for 3 chunks: 3 of them at most, whatever the threads, the same bytes */
            orri_meshopt_tri_scratch *small = malloc(orri_meshopt_tri_scratch_size(n, 3));
            uint32_t *again = malloc((size_t)n * 4);
            d = (orri_meshopt_tri_desc){.dst = again, .index_count = n, .index_size = 4, .src = s.bytes, .size = s.size,
                                        .threads = 16, .chunk_triangles = 1, .scratch = small, .scratch_chunks = 3};
            assert_int_equal(orri_meshopt_decode_triangles(&d), 0);
            assert_int_equal(d.split, kind >= 5 ? 0 : 3);
            assert_memory_equal(again, back, (size_t)n * 4);
            free(small), free(again);
            /* scratch sized for 100 chunks, more than the 64 a stream is cut into: the same bytes, and
             * nothing written past the size orri_meshopt_tri_scratch_size gave (a megabyte after it kept) */
            size_t room = orri_meshopt_tri_scratch_size(n, 100), guard = (size_t)1 << 20;
            uint8_t *big = malloc(room + guard);
            memset(big + room, 0xcd, guard);
            again = malloc((size_t)n * 4);
            d = (orri_meshopt_tri_desc){.dst = again, .index_count = n, .index_size = 4, .src = s.bytes, .size = s.size,
                                        .threads = 64, .chunk_triangles = 1, .scratch = (orri_meshopt_tri_scratch *)big,
                                        .scratch_chunks = 100};
            assert_int_equal(orri_meshopt_decode_triangles(&d), 0);
            assert_int_equal(d.split, kind >= 5 ? 0 : 64);
            assert_memory_equal(again, back, (size_t)n * 4);
            for (size_t b = 0; b < guard; b++)
                if (big[room + b] != 0xcd) fail_msg("kind %d: scratch written %zu bytes past its size", kind, b);
            free(big), free(again);
            free(back), free(idx), free(s.bytes), free(scratch);
        }
}

/* Damaged streams: random bytes changed (codes, data, the codeaux table, the header), a byte cut or
 * added at the end. Whatever meshoptimizer says, the parallel decoder says too. */
static void test_damaged_triangles_refused_alike(void **state)
{
    (void)state;
    uint64_t seed = 11;
    uint32_t accepted = 0, refused = 0, split = 0;
    for (int kind = 0; kind < 5; kind++) {
        uint32_t n;
        uint32_t *idx = make_indices(kind, &n, &seed);
        tri_stream s = encode(idx, n, kind & 1);
        orri_meshopt_tri_scratch *scratch = malloc(orri_meshopt_tri_scratch_size(n, 64));
        uint8_t *m = malloc(s.size + 1);
        for (int trial = 0; trial < 400; trial++) {
            memcpy(m, s.bytes, s.size);
            size_t size = s.size;
            int flips = 1 + (int)(rnd(&seed) % 3);
            for (int f = 0; f < flips; f++) {
                uint32_t where = rnd(&seed) % 4;
                size_t at = where == 0   ? size - 1 - rnd(&seed) % 16          /* the codeaux table */
                            : where == 1 ? 1 + rnd(&seed) % (n / 3)             /* a code */
                                         : rnd(&seed) % size;                   /* anywhere */
                m[at] = (uint8_t)rnd(&seed);
            }
            if (trial % 50 == 1) size--;
            if (trial % 50 == 2) m[size++] = 0;
            uint32_t threads = 2 + rnd(&seed) % 7, chunk = 1 + rnd(&seed) % 40;
            size_t out = (size_t)n * 4;
            uint8_t *a = calloc(1, out), *b = calloc(1, out);
            int ra = meshopt_decodeIndexBuffer(a, n, 4, m, size);
            orri_meshopt_tri_desc d = {.dst = b, .index_count = n, .index_size = 4, .src = m, .size = size,
                                       .threads = threads, .chunk_triangles = chunk, .scratch = scratch,
                               .scratch_chunks = 64};
            int rb = orri_meshopt_decode_triangles(&d);
            assert_int_equal(rb, ra);
            if (ra == 0) assert_memory_equal(a, b, out), accepted++, split += d.split >= 2;
            else refused++;
            free(a), free(b);
            if (trial % 50 == 2) size--;
        }
        free(m), free(idx), free(s.bytes), free(scratch);
    }
    /* both kinds of outcome were met: damage that still decodes (most of it in chunks) and damage
     * that is refused */
    assert_true(accepted > 50);
    assert_true(split > accepted / 2);
    assert_true(refused > 50);
}

int orrt_scene_meshopt(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_triangles_match_meshoptimizer),
        cmocka_unit_test(test_damaged_triangles_refused_alike),
    };
    return cmocka_run_group_tests_name("scene_meshopt", tests, NULL, NULL);
}
