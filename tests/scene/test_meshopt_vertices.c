/* The parallel attribute decoder (orri_meshopt_decode_vertices) against meshoptimizer's own decoder and
 * filters: the same bytes and the same return code, on streams meshoptimizer encodes (smooth positions,
 * normals, noise, constant data, wide vertices whose blocks are short, counts that end mid-block) and on
 * damaged copies of them, at several thread counts and parts small enough that every stream is cut
 * into many. */
#include "scene_tests.h"
#include "scene/gltf_internal.h"

#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

typedef struct vtx_stream {
    uint8_t *bytes, *vertices;
    size_t size, count, vertex_size;
} vtx_stream;

static uint32_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(*s >> 33);
}

/* Vertices of the kinds encoders meet, meshoptimizer-encoded:
 *   0: quantized positions of a rolling terrain (uint16 x 4, small deltas: 2- and 4-bit groups);
 *   1: octahedral normals (int8 x 4), for the filter;
 *   2: noise (8-bit groups, mode 3);
 *   3: a constant vertex (every group empty, mode 0);
 *   4: 48-byte vertices (blocks of 160), a mix of the above;
 *   5: 256-byte vertices (blocks of 32), the widest the codec takes. */
static vtx_stream make_stream(int kind, size_t count, uint64_t *seed)
{
    static const size_t sizes[] = {8, 4, 12, 16, 48, 256};
    vtx_stream s = {.count = count, .vertex_size = sizes[kind]};
    size_t vs = s.vertex_size;
    s.vertices = malloc(count * vs);
    for (size_t i = 0; i < count; i++) {
        uint8_t *v = s.vertices + i * vs;
        if (kind == 0) {
            uint16_t x = (uint16_t)(i % 1000 * 60), z = (uint16_t)(i / 1000 * 60), y = (uint16_t)(30000 + (i % 97) * 3);
            memcpy(v, &x, 2), memcpy(v + 2, &y, 2), memcpy(v + 4, &z, 2), memset(v + 6, 0, 2);
        } else if (kind == 1) {
            v[0] = (uint8_t)(i % 200), v[1] = (uint8_t)(i / 200 % 200), v[2] = 127, v[3] = 0;
        } else if (kind == 3) {
            memset(v, 0x5a, vs);
        } else {
            for (size_t k = 0; k < vs; k++)
                v[k] = kind == 2 || k % 3 == 0 ? (uint8_t)rnd(seed) : (uint8_t)(i + k / 4 + (rnd(seed) & 3));
        }
    }
    size_t cap = meshopt_encodeVertexBufferBound(count, vs);
    s.bytes = malloc(cap);
    s.size = meshopt_encodeVertexBuffer(s.bytes, cap, s.vertices, count, vs);
    return s;
}

static void free_stream(vtx_stream *s) { free(s->bytes), free(s->vertices); }

typedef void (*filter_fn)(void *, size_t, size_t);

/* Decodes both ways; asserts the same code and, on success, the same bytes. Returns the split; `rc`,
 * if given, gets the code, and `walkers` how many found the parts. */
static uint32_t check_walked(const uint8_t *bytes, size_t size, size_t count, size_t vs, filter_fn filter,
                             uint32_t threads, uint32_t part_blocks, uint32_t walk_runs, orr_workers *workers,
                             int *rc, uint32_t *walkers)
{
    size_t out = count * vs;
    uint8_t *want = calloc(1, out + 1), *got = calloc(1, out + 1);
    int rw = meshopt_decodeVertexBuffer(want, count, vs, bytes, size);
    if (rw == 0 && filter) filter(want, count, vs);
    orri_meshopt_vtx_scratch *scratch = malloc(orri_meshopt_vtx_scratch_size(size, count, vs));
    orri_meshopt_vtx_desc d = {.dst = got, .vertex_count = count, .vertex_size = vs, .src = bytes, .size = size,
                               .filter = filter, .threads = threads, .workers = workers,
                               .part_blocks = part_blocks, .walk_runs = walk_runs, .scratch = scratch};
    int rg = orri_meshopt_decode_vertices(&d);
    assert_int_equal(rg, rw);
    if (rw == 0) assert_memory_equal(got, want, out);
    free(want), free(got), free(scratch);
    if (rc) *rc = rw;
    if (walkers) *walkers = d.walkers;
    return d.split;
}

static uint32_t check_alike(const uint8_t *bytes, size_t size, size_t count, size_t vs, filter_fn filter,
                            uint32_t threads, uint32_t part_blocks, orr_workers *workers, int *rc)
{
    return check_walked(bytes, size, count, vs, filter, threads, part_blocks, 0, workers, rc, NULL);
}

static void test_vertices_match_meshoptimizer(void **state)
{
    (void)state;
    uint64_t seed = 5;
    orr_workers *w;
    assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = 3}, &w, NULL), ORR_OK);
    for (int kind = 0; kind < 6; kind++) {
        size_t count = kind == 5 ? 901 : 20011; /* not a whole number of blocks, nor of groups */
        vtx_stream s = make_stream(kind, count, &seed);
        assert_true(s.size > 0);
        /* the vertices come back as they were encoded */
        uint8_t *back = malloc(count * s.vertex_size);
        orri_meshopt_vtx_scratch *scratch = malloc(orri_meshopt_vtx_scratch_size(s.size, count, s.vertex_size));
        orri_meshopt_vtx_desc d = {.dst = back, .vertex_count = count, .vertex_size = s.vertex_size, .src = s.bytes,
                                   .size = s.size, .threads = 4, .workers = w, .part_blocks = 3, .scratch = scratch};
        assert_int_equal(orri_meshopt_decode_vertices(&d), 0);
        assert_true(d.split >= 2);
        assert_memory_equal(back, s.vertices, count * s.vertex_size);
        free(back), free(scratch);
        const uint32_t threads[] = {2, 3, 8, 64}, parts[] = {1, 2, 7, 0};
        for (uint32_t t = 0; t < 4; t++)
            for (uint32_t p = 0; p < 4; p++) {
                uint32_t split = check_alike(s.bytes, s.size, count, s.vertex_size, NULL, threads[t], parts[p], NULL, NULL);
                /* cut into parts, not handed to meshoptimizer (the default, 16 blocks a part, cuts all
                 * but the short 256-byte stream, 29 blocks) */
                assert_true(parts[p] == 0 && kind == 5 ? split == 0 : split >= 2);
            }
        /* the parts found by walkers that start at even offsets, as few runs apart as 64 (these
         * streams are too short for the default 2048): they meet the true walk, or one walk finds the
         * parts after all, and the result is the same */
        uint32_t walked = 0;
        for (uint32_t t = 2; t <= 16; t *= 2)
            for (uint32_t runs = 64; runs <= 1024; runs *= 4) {
                uint32_t walkers;
                assert_true(check_walked(s.bytes, s.size, count, s.vertex_size, NULL, t, 1, runs, w, NULL, &walkers) >= 2);
                walked += walkers >= 2;
            }
        /* varied runs bring a walker into step with the true walk within a few hundred runs: the
         * positions' and the wide vertices' do, at 64 runs a walker. Noise (runs of 260 bytes, which a
         * wrong start meets about once in 260 runs) and runs that repeat one pattern (the normals'
         * steady deltas) need more than these short streams have, and one walk finds the parts */
        if (kind == 0 || kind >= 4) assert_true(walked >= 6);
        /* on kept workers, with the filters their sizes allow, applied to each part */
        filter_fn filters[3] = {NULL, NULL, NULL};
        if (s.vertex_size == 4 || s.vertex_size == 8) filters[0] = meshopt_decodeFilterOct, filters[1] = meshopt_decodeFilterExp;
        if (s.vertex_size == 8) filters[2] = meshopt_decodeFilterQuat;
        if (s.vertex_size % 4 == 0 && s.vertex_size > 8) filters[1] = meshopt_decodeFilterExp;
        for (int f = 0; f < 3; f++)
            if (filters[f]) assert_true(check_alike(s.bytes, s.size, count, s.vertex_size, filters[f], 5, 2, w, NULL) >= 2);
        free_stream(&s);
    }
    orr_workers_destroy(w);
}

/* Damaged streams: random bytes changed (group headers, data, the tail), bytes cut or added at the end,
 * a wrong count. Whatever meshoptimizer says, the parallel decoder says too. */
static void test_damaged_vertices_refused_alike(void **state)
{
    (void)state;
    uint64_t seed = 13;
    uint32_t accepted = 0, refused = 0, split = 0, walked = 0;
    for (int kind = 0; kind < 5; kind++) {
        size_t count = 9001;
        vtx_stream s = make_stream(kind, count, &seed);
        uint8_t *m = malloc(s.size + 64);
        for (int trial = 0; trial < 300; trial++) {
            memcpy(m, s.bytes, s.size);
            size_t size = s.size, n = count;
            int flips = (int)(rnd(&seed) % 3);
            for (int f = 0; f < flips; f++) {
                uint32_t where = rnd(&seed) % 3;
                size_t at = where == 0 ? size - 1 - rnd(&seed) % 40 : 1 + rnd(&seed) % (size - 1);
                m[at] = where == 1 ? (uint8_t)(m[at] ^ (1u << rnd(&seed) % 8)) : (uint8_t)rnd(&seed);
            }
            if (trial % 10 == 1) size -= 1 + rnd(&seed) % 20;
            if (trial % 10 == 2)
                for (uint32_t e = 1 + rnd(&seed) % 20; e > 0; e--) m[size++] = (uint8_t)rnd(&seed);
            if (trial % 10 == 3) n += rnd(&seed) % 2 ? 1 : (size_t)-1;
            if (trial % 10 == 4) m[0] = (uint8_t)rnd(&seed);
            int rc;
            uint32_t walkers, threads = 2 + rnd(&seed) % 7, parts = 1 + rnd(&seed) % 4, runs = 8 + rnd(&seed) % 200;
            uint32_t got = check_walked(m, size, n, s.vertex_size, NULL, threads, parts, runs, NULL, &rc, &walkers);
            if (rc == 0) accepted++, split += got >= 2, walked += walkers >= 2;
            else refused++;
        }
        free(m);
        free_stream(&s);
    }
    /* both kinds of outcome were met: damage that still decodes (in parts, found by walkers for many)
     * and damage that is refused */
    assert_true(accepted > 100);
    assert_true(split > accepted / 2);
    assert_true(walked > accepted / 4);
    assert_true(refused > 100);
}

/* A part whose last group meshoptimizer decodes from bytes past those it takes: a 2-bit group of 16
 * sentinels, which meshoptimizer from 0.19 on (x86-64, AArch64) counts as taking no extra bytes while
 * reading its 16 values after its selectors. Block 0 (part 0) is laid out so that this walk and the
 * one that takes the 16 bytes (0.18's, and the scanner's) both end at the same byte, and its last
 * group is such a group; the 16 bytes after it are block 1's in the stream and must be so in the part
 * too, not the tail's. With the packaged 0.18 the group takes its 16 bytes and either layout decodes
 * alike; with a later meshoptimizer this fails unless a part is framed with the bytes that follow it. */
static void test_vertices_read_past_a_part_alike(void **state)
{
    (void)state;
    uint8_t s[128] = {0xa0};
    size_t t = 5; /* block 0: run 0 at 1 (4 header bytes, every group empty), run 1 at t */
    s[t] = 0x01, memset(s + t + 4, 0xff, 4);         /* run 1: group 0 of 16 sentinels */
    s[t + 8] = 0x0f;                                  /* run 2 where it takes 4 bytes: 2 literal groups */
    s[t + 28] = 0x01, memset(s + t + 32, 0xff, 4);    /* run 3 where run 1 takes 20 bytes */
    s[t + 44] = 0x01, memset(s + t + 48, 0xff, 4);    /* run 3 where run 1 takes 4 bytes */
    size_t tail = t + 52 + 16;                        /* block 1: 4 runs of empty groups */
    memset(s + tail, 0x55, 28), memset(s + tail + 28, 0x21, 4); /* padding, base vertex */
    size_t size = tail + 32, count = 512;
    uint8_t want[512 * 4], got[512 * 4];
    assert_int_equal(meshopt_decodeVertexBuffer(want, count, 4, s, size), 0);
    orri_meshopt_vtx_scratch *scratch = malloc(orri_meshopt_vtx_scratch_size(size, count, 4));
    orri_meshopt_vtx_desc d = {.dst = got, .vertex_count = count, .vertex_size = 4, .src = s, .size = size,
                               .threads = 2, .part_blocks = 1, .scratch = scratch};
    assert_int_equal(orri_meshopt_decode_vertices(&d), 0);
    assert_int_equal(d.split, 2); /* one part a block: the group's 16 bytes lie past part 0 */
    assert_memory_equal(got, want, sizeof want);
    free(scratch);
}

int orrt_scene_meshopt_vertices(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vertices_match_meshoptimizer),
        cmocka_unit_test(test_damaged_vertices_refused_alike),
        cmocka_unit_test(test_vertices_read_past_a_part_alike),
    };
    return cmocka_run_group_tests_name("scene_meshopt_vertices", tests, NULL, NULL);
}
