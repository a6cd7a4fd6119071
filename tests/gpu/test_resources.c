/* gpu resources: the sub-allocator's space (aligned first fit, reuse, limits) and the device memory
 * blocks that buffers and images are placed in. */
#include "gpu_fixture.h"
#include "gpu_tests.h"
#include "gpu/gpu_memory.h"   /* the device-memory blocks it counts */
#include "gpu/gpu_resource.h" /* buffers and images placed in them */
#include "gpu/gpu_texture.h"  /* mip chains */

#include <stdlib.h>
#include <string.h>

/* Aligned first fit: offsets are multiples of their alignment, ranges never overlap, the gap an
 * alignment leaves is used by a later small range, a freed range is reused lowest first, the limit
 * holds, and freeing everything gives back an empty space. */
void test_space_aligned(void **state)
{
    (void)state;
    orr_allocator a = orri_allocator_or_default(NULL);
    orri_space s = {0};
    uint64_t off[64], size[64];
    uint32_t n = 0;
    uint64_t seed = 12345;
    for (uint32_t i = 0; i < 64; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        size[i] = 1 + (seed >> 33) % 5000;
        uint64_t align = 1ull << ((seed >> 20) % 9); /* 1 .. 256 */
        assert_int_equal(orri_space_alloc_aligned(&a, &s, size[i], align, UINT64_MAX, &off[i]), ORRI_SPACE_OK);
        assert_int_equal(off[i] % align, 0);
        n++;
    }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++)
            assert_true(off[i] + size[i] <= off[j] || off[j] + size[j] <= off[i]);
    /* an alignment gap: 1 byte at 0, then 256-aligned; a later 1-byte range goes into the gap */
    orri_space g = {0};
    uint64_t o1, o2, o3;
    assert_int_equal(orri_space_alloc_aligned(&a, &g, 1, 1, 1024, &o1), ORRI_SPACE_OK);
    assert_int_equal(orri_space_alloc_aligned(&a, &g, 100, 256, 1024, &o2), ORRI_SPACE_OK);
    assert_int_equal(o1, 0);
    assert_int_equal(o2, 256);
    assert_int_equal(orri_space_alloc_aligned(&a, &g, 8, 4, 1024, &o3), ORRI_SPACE_OK);
    assert_int_equal(o3, 4);
    /* the limit: 1024 - 356 bytes left at the end, a 700-byte range does not fit, nothing changes */
    uint64_t used = g.used, end = g.end, o4 = 77;
    assert_int_equal(orri_space_alloc_aligned(&a, &g, 700, 1, 1024, &o4), ORRI_SPACE_FULL);
    assert_int_equal(g.used, used);
    assert_int_equal(g.end, end);
    assert_int_equal(o4, 77);
    /* freed space is reused lowest first */
    assert_true(orri_space_free(&a, &g, o2, 100));
    uint64_t o5;
    assert_int_equal(orri_space_alloc_aligned(&a, &g, 50, 16, 1024, &o5), ORRI_SPACE_OK);
    assert_int_equal(o5, 16);
    assert_true(orri_space_free(&a, &g, o5, 50));
    assert_true(orri_space_free(&a, &g, o3, 8));
    assert_true(orri_space_free(&a, &g, o1, 1));
    assert_int_equal(g.used, 0);
    assert_int_equal(g.end, 0);
    assert_int_equal(g.free_count, 0);
    /* the random set, freed in a scrambled order, leaves nothing behind */
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = (k * 37) % n;
        assert_true(orri_space_free(&a, &s, off[i], size[i]));
    }
    assert_int_equal(s.used, 0);
    assert_int_equal(s.end, 0);
    orri_space_fini(&a, &s);
    orri_space_fini(&a, &g);
}

/* 300 buffers and 40 images of assorted sizes share a few blocks (not one allocation each), each is
 * placed at its alignment without overlapping another in the same block, host ones are mapped and
 * writable, and destroying them all gives every block back. */
void test_memory_blocks(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    uint64_t bytes0 = r->gpu_bytes;
    uint32_t allocations0 = orri_memory_allocations(r);
    enum { NB = 300, NI = 40 };
    orri_buffer *b = calloc(NB, sizeof *b);
    orri_image *im = calloc(NI, sizeof *im);
    assert_true(b && im);
    for (uint32_t i = 0; i < NB; i++) {
        bool host = i % 3 == 0;
        VkDeviceSize size = 16 + (VkDeviceSize)(i * 7919 % 65536);
        assert_int_equal(orri_buffer_create(r, size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
                                            host, "test buffer", &b[i]),
                         ORR_OK);
        if (host) {
            assert_non_null(b[i].map);
            memset(b[i].map, (int)i, size);
        }
    }
    for (uint32_t i = 0; i < NI; i++)
        assert_int_equal(orri_image_create(r, 16 + i * 8, 16 + i * 4, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_USAGE_SAMPLED_BIT,
                                           VK_IMAGE_ASPECT_COLOR_BIT, "test image", &im[i]),
                         ORR_OK);
    uint32_t allocations = orri_memory_allocations(r) - allocations0;
    print_message("%u buffers and %u images in %u device memory allocations (%llu bytes)\n", NB, NI, allocations,
                  (unsigned long long)(r->gpu_bytes - bytes0));
    assert_true(allocations <= 6);
    /* placement: aligned, inside the block, no overlap within a block */
    for (uint32_t i = 0; i < NB; i++) {
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(r->device, b[i].buffer, &req);
        assert_int_equal(b[i].memory.offset % req.alignment, 0);
        const orri_block *blk = &r->mem.blocks[b[i].memory.block - 1];
        assert_true(b[i].memory.offset + b[i].memory.size <= blk->size);
        for (uint32_t j = i + 1; j < NB; j++) {
            if (b[j].memory.block != b[i].memory.block) continue;
            assert_true(b[i].memory.offset + b[i].memory.size <= b[j].memory.offset ||
                        b[j].memory.offset + b[j].memory.size <= b[i].memory.offset);
        }
        if (i % 3 == 0) /* what was written stays (no other buffer shares its bytes) */
            for (VkDeviceSize k = 0; k < b[i].size; k += 97) assert_int_equal(((uint8_t *)b[i].map)[k], (uint8_t)i);
    }
    for (uint32_t i = 0; i < NI; i++) /* images and buffers never share a block */
        for (uint32_t j = 0; j < NB; j++) assert_int_not_equal(im[i].memory.block, b[j].memory.block);
    /* freed ranges are reused: a buffer like the first one freed lands where it was */
    VkDeviceSize where = b[1].memory.offset;
    uint32_t block = b[1].memory.block;
    VkDeviceSize size1 = b[1].size;
    orri_buffer_destroy(r, &b[1]);
    assert_int_equal(orri_buffer_create(r, size1, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
                                        false, "test buffer", &b[1]),
                     ORR_OK);
    assert_int_equal(b[1].memory.block, block);
    assert_int_equal(b[1].memory.offset, where);
    for (uint32_t i = 0; i < NB; i++) orri_buffer_destroy(r, &b[i]);
    for (uint32_t i = 0; i < NI; i++) orri_image_destroy(r, &im[i]);
    assert_int_equal(orri_memory_allocations(r), allocations0);
    assert_int_equal(r->gpu_bytes, bytes0);
    free(b);
    free(im);
    fix_renderer_done(r, &logged);
}

/* Mip chains (orri_mip_build): linear images are each level's 2x2 box means of the one above, edges
 * clamped, rounded to nearest (a reference computed here); sRGB ones the same bytes in bands of any
 * height and on any thread count as in one band on one thread (the sizes odd, 1-wide and 1-high
 * among them, and enough texels that the building is shared out). */
static void reference_level(const uint8_t *src, uint32_t sw, uint32_t sh, uint8_t *dst, uint32_t dw, uint32_t dh)
{
    for (uint32_t y = 0; y < dh; y++)
        for (uint32_t x = 0; x < dw; x++)
            for (int c = 0; c < 4; c++) {
                uint32_t sum = 0;
                for (uint32_t k = 0; k < 4; k++) {
                    uint32_t sx = 2 * x + k % 2, sy = 2 * y + k / 2;
                    sum += src[((size_t)(sy < sh ? sy : sh - 1) * sw + (sx < sw ? sx : sw - 1)) * 4 + c];
                }
                dst[((size_t)y * dw + x) * 4 + c] = (uint8_t)((sum + 2) / 4);
            }
}

void test_mip_chains_in_bands(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{1024, 600}, {37, 1000}, {1000, 37}, {513, 257}, {1, 300}, {300, 1}, {1, 1}};
    enum { N = sizeof sizes / sizeof *sizes };
    orri_textures *tx = calloc(1, sizeof *tx); /* tables of any monotone values: the bands must agree */
    for (uint32_t i = 0; i < 256; i++) tx->srgb_to_linear[i] = (float)(i * i) / (255.0f * 255.0f);
    for (uint32_t i = 0; i < ORRI_SRGB_STEPS; i++) tx->linear_to_srgb[i] = (uint8_t)(i * 256 / ORRI_SRGB_STEPS);
    orr_workers *w;
    assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = 4}, &w, NULL), ORR_OK);
    for (int srgb = 0; srgb < 2; srgb++) {
        orri_mip_job one[N], many[N];
        size_t bytes[N];
        for (uint32_t k = 0; k < N; k++) {
            uint32_t wd = sizes[k][0], ht = sizes[k][1], levels = 1, m = wd > ht ? wd : ht;
            while (m > 1) m >>= 1, levels++;
            uint8_t *px = malloc((size_t)wd * ht * 4);
            for (size_t i = 0; i < (size_t)wd * ht * 4; i++) px[i] = (uint8_t)(i * 2654435761u >> 13);
            bytes[k] = 0;
            for (uint32_t l = 1; l < levels; l++) {
                uint32_t lw = wd >> l ? wd >> l : 1, lh = ht >> l ? ht >> l : 1;
                bytes[k] += (size_t)lw * lh * 4;
            }
            one[k] = (orri_mip_job){px, wd, ht, levels, srgb == 1, levels > 1 ? malloc(bytes[k]) : NULL};
            many[k] = one[k];
            many[k].out = levels > 1 ? malloc(bytes[k]) : NULL;
        }
        orri_mip_build(tx, one, N, UINT32_MAX, 1, NULL);
        for (uint32_t band = 1; band <= 32; band += 15) {
            for (uint32_t k = 0; k < N; k++)
                if (many[k].out) memset(many[k].out, 0xcd, bytes[k]);
            orri_mip_build(tx, many, N, band, 4, band == 16 ? NULL : w);
            for (uint32_t k = 0; k < N; k++)
                if (one[k].out && memcmp(one[k].out, many[k].out, bytes[k]))
                    fail_msg("%ux%u (%s): bands of %u rows on 4 threads differ from one band", sizes[k][0], sizes[k][1],
                             srgb ? "sRGB" : "linear", band);
        }
        for (uint32_t k = 0; k < N && !srgb; k++) { /* the linear levels against the reference */
            const uint8_t *above = one[k].level0, *got = one[k].out;
            uint32_t sw = sizes[k][0], sh = sizes[k][1];
            for (uint32_t l = 1; l < one[k].levels; l++) {
                uint32_t dw = sw > 1 ? sw / 2 : 1, dh = sh > 1 ? sh / 2 : 1;
                uint8_t *want = malloc((size_t)dw * dh * 4);
                reference_level(above, sw, sh, want, dw, dh);
                if (memcmp(want, got, (size_t)dw * dh * 4))
                    fail_msg("%ux%u: level %u is not the box means of level %u", sizes[k][0], sizes[k][1], l, l - 1);
                free(want);
                above = got, got += (size_t)dw * dh * 4, sw = dw, sh = dh;
            }
        }
        for (uint32_t k = 0; k < N; k++) free((void *)one[k].level0), free(one[k].out), free(many[k].out);
    }
    orr_workers_destroy(w);
    free(tx);
}

/* Staging (orri_mip_stage): each chain lands whole, level 0 then the levels below, in pieces on any
 * thread count, where a piece ends at level 0's end, straddles it, or the chain is one level. */
void test_mip_chains_staged(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{512, 512}, {1000, 1000}, {1, 1}, {3000, 7}, {700, 1}};
    enum { N = sizeof sizes / sizeof *sizes };
    orr_workers *w;
    assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = 3}, &w, NULL), ORR_OK);
    orri_mip_job jobs[N];
    size_t level0[N], below[N];
    for (uint32_t k = 0; k < N; k++) {
        uint32_t wd = sizes[k][0], ht = sizes[k][1], levels = 1, m = wd > ht ? wd : ht;
        while (m > 1) m >>= 1, levels++;
        level0[k] = (size_t)wd * ht * 4, below[k] = 0;
        for (uint32_t l = 1; l < levels; l++) below[k] += (size_t)(wd >> l ? wd >> l : 1) * (ht >> l ? ht >> l : 1) * 4;
        uint8_t *px = malloc(level0[k]), *out = below[k] ? malloc(below[k]) : NULL;
        for (size_t i = 0; i < level0[k]; i++) px[i] = (uint8_t)((i + k) * 2654435761u >> 13); /* no short period */
        for (size_t i = 0; i < below[k]; i++) out[i] = (uint8_t)((i + 7 * k + 1) * 2246822519u >> 11);
        jobs[k] = (orri_mip_job){px, wd, ht, levels, false, out, malloc(level0[k] + below[k])};
    }
    for (uint32_t threads = 1; threads <= 3; threads += 2) {
        for (uint32_t k = 0; k < N; k++) memset(jobs[k].staged, 0xcd, level0[k] + below[k]);
        orri_mip_stage(jobs, N, threads, threads > 1 ? w : NULL);
        for (uint32_t k = 0; k < N; k++)
            if (memcmp(jobs[k].staged, jobs[k].level0, level0[k]) ||
                (below[k] && memcmp(jobs[k].staged + level0[k], jobs[k].out, below[k])))
                fail_msg("%ux%u on %u threads: the staged chain is not level 0 and the levels below", sizes[k][0],
                         sizes[k][1], threads);
    }
    for (uint32_t k = 0; k < N; k++) free((void *)jobs[k].level0), free(jobs[k].out), free(jobs[k].staged);
    orr_workers_destroy(w);
}
