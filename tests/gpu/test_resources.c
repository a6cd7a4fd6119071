/* gpu resources: the sub-allocator's space (aligned first fit, reuse, limits) and the device memory
 * blocks that buffers and images are placed in. */
#include "gpu_fixture.h"
#include "gpu_tests.h"
#include "gpu/gpu_internal.h"

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
