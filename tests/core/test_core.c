/* Core: handle pool (stale detection, lowest-first reuse), errors, math. */
#include "testutil.h"

#include <math.h>
#include <orrery/core.h>
#include <stdlib.h>
#include <string.h>

/* An allocator that fails once `left` reaches 0 (frees always work). */
static void *failing_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    (void)old_size;
    int *left = user;
    if (new_size == 0) {
        free(ptr);
        return NULL;
    }
    if (*left <= 0) return NULL;
    (*left)--;
    return realloc(ptr, new_size);
}

/* Freeing never needs memory: with the allocator failing, every live handle is still freed (an
 * out-of-memory path that releases an object must be able to release its handle). */
static void test_pool_free_never_allocates(void **state)
{
    (void)state;
    int left = 1000;
    orr_allocator a = {failing_realloc, &left};
    orr_handle_pool pool;
    orr_handle_pool_init(&pool, &a, 0);
    orr_handle h[300];
    for (int i = 0; i < 300; i++) assert_int_equal(orr_handle_pool_alloc(&pool, &h[i]), ORR_OK);
    left = 0;
    for (int i = 0; i < 300; i += 2) assert_int_equal(orr_handle_pool_free(&pool, h[i]), ORR_OK);
    for (int i = 299; i > 0; i -= 2) assert_int_equal(orr_handle_pool_free(&pool, h[i]), ORR_OK);
    assert_int_equal(pool.alive, 0);
    for (int i = 0; i < 300; i++) { /* reuse needs no memory either, lowest index first */
        assert_int_equal(orr_handle_pool_alloc(&pool, &h[i]), ORR_OK);
        assert_int_equal(h[i].index, (uint32_t)i);
    }
    orr_handle_pool_fini(&pool);
}

static void test_pool_stale_and_reuse(void **state)
{
    (void)state;
    orr_handle_pool pool;
    orr_handle_pool_init(&pool, NULL, 0);
    orr_handle h[5];
    for (int i = 0; i < 5; i++) {
        assert_int_equal(orr_handle_pool_alloc(&pool, &h[i]), ORR_OK);
        assert_int_equal(h[i].index, (uint32_t)i);
        assert_true(h[i].generation != 0);
    }
    assert_int_equal(orr_handle_pool_free(&pool, h[3]), ORR_OK);
    assert_int_equal(orr_handle_pool_free(&pool, h[1]), ORR_OK);
    assert_false(orr_handle_pool_is_alive(&pool, h[1]));
    assert_int_equal(orr_handle_pool_free(&pool, h[1]), ORR_ERROR_STALE_HANDLE);
    /* lowest first: 1, then 3, then a new index 5 */
    orr_handle a, b, c;
    assert_int_equal(orr_handle_pool_alloc(&pool, &a), ORR_OK);
    assert_int_equal(orr_handle_pool_alloc(&pool, &b), ORR_OK);
    assert_int_equal(orr_handle_pool_alloc(&pool, &c), ORR_OK);
    assert_int_equal(a.index, 1);
    assert_int_equal(b.index, 3);
    assert_int_equal(c.index, 5);
    /* the reused index has a new generation, so the old handle stays stale */
    assert_true(a.generation != h[1].generation);
    assert_false(orr_handle_pool_is_alive(&pool, h[1]));
    assert_true(orr_handle_pool_is_alive(&pool, a));
    assert_false(orr_handle_pool_is_alive(&pool, (orr_handle){0, 0}));
    assert_false(orr_handle_pool_is_alive(&pool, (orr_handle){99, 1}));
    orr_handle_pool_fini(&pool);
}

static void test_pool_limit(void **state)
{
    (void)state;
    orr_handle_pool pool;
    orr_handle_pool_init(&pool, NULL, 2);
    orr_handle h;
    assert_int_equal(orr_handle_pool_alloc(&pool, &h), ORR_OK);
    assert_int_equal(orr_handle_pool_alloc(&pool, &h), ORR_OK);
    assert_int_equal(orr_handle_pool_alloc(&pool, &h), ORR_ERROR_CAPACITY);
    orr_handle_pool_fini(&pool);
}

static void assert_mat_near(const orr_mat4d *a, const orr_mat4d *b, double eps)
{
    for (int i = 0; i < 16; i++) {
        if (fabs(a->m[i] - b->m[i]) > eps) fail_msg("m[%d]: %.17g != %.17g", i, a->m[i], b->m[i]);
    }
}

static void test_trs_and_inverse(void **state)
{
    (void)state;
    /* 90 degrees about Z: x -> y */
    orr_quatd q = orr_quatd_from_axis_angle((orr_vec3d){0, 0, 1}, ORR_PI / 2);
    orr_mat4d m;
    orr_mat4d_from_trs((orr_vec3d){1, 2, 3}, q, (orr_vec3d){2, 2, 2}, &m);
    orr_vec3d p = orr_mat4d_transform_point(&m, (orr_vec3d){1, 0, 0});
    assert_true(fabs(p.x - 1) < 1e-12 && fabs(p.y - 4) < 1e-12 && fabs(p.z - 3) < 1e-12);
    orr_mat4d inv, id, one;
    assert_true(orr_mat4d_inverse(&m, &inv));
    orr_mat4d_mul(&m, &inv, &id);
    orr_mat4d_identity(&one);
    assert_mat_near(&id, &one, 1e-12);
    assert_true(orr_mat4d_inverse_affine(&m, &inv));
    orr_mat4d_mul(&inv, &m, &id);
    assert_mat_near(&id, &one, 1e-12);
    orr_vec3d t, s;
    orr_quatd r;
    assert_true(orr_mat4d_decompose(&m, &t, &r, &s));
    orr_mat4d back;
    orr_mat4d_from_trs(t, r, s, &back);
    assert_mat_near(&back, &m, 1e-12);
    /* shear is reported */
    orr_mat4d sh = one;
    sh.m[4] = 0.5;
    assert_false(orr_mat4d_decompose(&sh, &t, &r, &s));
}

/* The pose at eye looking at target is camera -> world: its translation is eye, a point straight ahead
 * of the camera (0, 0, -d) lands on the target, and it undoes orr_mat4d_look_at's view matrix. */
static void test_look_at_pose(void **state)
{
    (void)state;
    orr_vec3d eye = {1e6 + 3.0, -2.0, 7.5}, target = {1e6 - 4.0, 5.0, -1.0}, up = {0, 1, 0};
    orr_mat4d pose, view, both;
    orr_mat4d_look_at_pose(eye, target, up, &pose);
    orr_mat4d_look_at(eye, target, up, &view);
    orr_vec3d t = orr_mat4d_translation(&pose);
    assert_true(fabs(t.x - eye.x) < 1e-9 && fabs(t.y - eye.y) < 1e-12 && fabs(t.z - eye.z) < 1e-12);
    double d = orr_vec3d_length(orr_vec3d_sub(target, eye));
    orr_vec3d ahead = orr_mat4d_transform_point(&pose, (orr_vec3d){0, 0, -d});
    assert_true(orr_vec3d_length(orr_vec3d_sub(ahead, target)) < 1e-9);
    /* camera +Y stays on the side of `up` */
    assert_true(orr_mat4d_transform_dir(&pose, (orr_vec3d){0, 1, 0}).y > 0.0);
    orr_mat4d_mul(&view, &pose, &both);
    for (int i = 0; i < 16; i++) assert_true(fabs(both.m[i] - (i % 5 == 0 ? 1.0 : 0.0)) < 1e-9);
    /* the target, seen through the view matrix, lies on the camera's -Z axis */
    orr_vec3d seen = orr_mat4d_transform_point(&view, target);
    assert_true(fabs(seen.x) < 1e-9 && fabs(seen.y) < 1e-9 && fabs(seen.z + d) < 1e-9);
}

static void test_split_double(void **state)
{
    (void)state;
    double v = 149597870700.123456; /* one astronomical unit in metres, plus a fraction */
    float hi, lo;
    orr_split_double(v, &hi, &lo);
    assert_true(fabs(((double)hi + (double)lo) - v) < 1e-3);
    assert_true(fabs((double)hi - v) > 1.0); /* a single float cannot hold it */
}

static void test_result_names(void **state)
{
    (void)state;
    assert_string_equal(orr_result_name(ORR_OK), "ok");
    assert_string_equal(orr_result_name(ORR_ERROR_PARSE), "parse error");
    assert_non_null(orr_result_name((orr_result)1234));
}

/* The default allocator keeps a block's bytes whichever side of ORR_LARGE_BLOCK it grows or shrinks
 * to, and hands out large blocks on 2 MiB boundaries (so that their huge pages are theirs). */
static void test_default_allocator(void **state)
{
    (void)state;
    orr_allocator a = orr_allocator_default();
    size_t sizes[] = {100, ORR_LARGE_BLOCK + 12345, 3 * ORR_LARGE_BLOCK, ORR_LARGE_BLOCK + 1, 1000, 64};
    uint8_t *p = NULL;
    size_t have = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t size = sizes[k];
        uint8_t *q = a.realloc(a.user, p, have, size);
        assert_non_null(q);
        size_t kept = have < size ? have : size;
        for (size_t i = 0; i < kept; i += 4093) assert_int_equal(q[i], (uint8_t)(i * 7 + 1)); /* the bytes it had */
        for (size_t i = 0; i < size; i++) q[i] = (uint8_t)(i * 7 + 1);
        if (size >= ORR_LARGE_BLOCK) assert_int_equal((uintptr_t)q % ((size_t)2 << 20), 0);
        p = q;
        have = size;
    }
    assert_null(a.realloc(a.user, p, have, 0));
}

#if defined(__SANITIZE_ADDRESS__)
#define KEEPS_BLOCKS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KEEPS_BLOCKS 0
#endif
#endif
#if !defined(KEEPS_BLOCKS) && defined(__GLIBC__)
#define KEEPS_BLOCKS 1
#endif
#ifndef KEEPS_BLOCKS
#define KEEPS_BLOCKS 0
#endif

/* A freed large block is kept and handed to the next request it fits (its pages already mapped),
 * not to one it would hold with more than a quarter to spare; the cache holds at most 256 MiB, and
 * trimming gives it all back. (glibc without AddressSanitizer: elsewhere nothing is kept.) */
static void test_default_allocator_keeps_blocks(void **state)
{
    (void)state;
    orr_allocator a = orr_allocator_default();
    orr_allocator_default_trim();
    size_t size = 3 * ORR_LARGE_BLOCK;
    uint8_t *p = a.realloc(a.user, NULL, 0, size);
    assert_non_null(p);
    memset(p, 0x5a, size);
    assert_null(a.realloc(a.user, p, size, 0));
    uint8_t *small = a.realloc(a.user, NULL, 0, ORR_LARGE_BLOCK); /* 3x: too large to hand out for it */
    uint8_t *q = a.realloc(a.user, NULL, 0, size - 4096);
    assert_non_null(small);
    assert_non_null(q);
    assert_int_equal((uintptr_t)q % ((size_t)2 << 20), 0);
#if KEEPS_BLOCKS
    assert_ptr_not_equal(small, p);
    assert_ptr_equal(q, p);
    assert_int_equal(q[size - 4097], 0x5a); /* the very block, not a copy */
#endif
    a.realloc(a.user, small, ORR_LARGE_BLOCK, 0);
    a.realloc(a.user, q, size - 4096, 0);
    /* more than the cache holds: 40 blocks of 12 MiB, 480 MiB */
    uint8_t *many[40];
    for (int i = 0; i < 40; i++) assert_non_null(many[i] = a.realloc(a.user, NULL, 0, size));
    for (int i = 0; i < 40; i++) a.realloc(a.user, many[i], size, 0);
    size_t kept = orr_allocator_default_trim();
    assert_true(kept <= ((size_t)256 << 20));
#if KEEPS_BLOCKS
    assert_true(kept >= 20 * size);
#endif
    assert_int_equal(orr_allocator_default_trim(), 0);
    /* a block a resize leaves behind is freed, not kept */
    uint8_t *g = a.realloc(a.user, NULL, 0, size);
    assert_non_null(g);
    g = a.realloc(a.user, g, size, 2 * size);
    assert_non_null(g);
    assert_int_equal(orr_allocator_default_trim(), 0);
    a.realloc(a.user, g, 2 * size, 0);
#if KEEPS_BLOCKS
    assert_true(orr_allocator_default_trim() >= 2 * size);
#endif
    /* the limit: lowered below what is kept, the blocks above it go back; 0 keeps none */
    for (int i = 0; i < 4; i++) assert_non_null(many[i] = a.realloc(a.user, NULL, 0, size));
    for (int i = 0; i < 4; i++) a.realloc(a.user, many[i], size, 0);
    size_t was = orr_allocator_default_set_cache_limit(2 * size + size / 2);
    assert_int_equal(was, KEEPS_BLOCKS ? ((size_t)256 << 20) : 0);
    size_t left = orr_allocator_default_trim();
    assert_true(left <= 2 * size + size / 2);
#if KEEPS_BLOCKS
    assert_true(left >= 2 * size);
#endif
    orr_allocator_default_set_cache_limit(0);
    p = a.realloc(a.user, NULL, 0, size);
    assert_non_null(p);
    a.realloc(a.user, p, size, 0);
    assert_int_equal(orr_allocator_default_trim(), 0);
    orr_allocator_default_set_cache_limit(was);
}

/* A box grown by ranges of points and merged in order is the box grown by all of them at once, to the
 * bit: of equal extremes, -0 and +0, the first found stays. */
static void test_aabbf_grow_and_merge(void **state)
{
    (void)state;
    float pts[3 * 64];
    for (int i = 0; i < 64; i++) {
        pts[i * 3] = (float)((i * 37) % 11) - 5.0f, pts[i * 3 + 1] = (i % 2) ? 0.0f : -0.0f, pts[i * 3 + 2] = (float)i * 0.25f;
    }
    pts[3 * 20] = 5.0f, pts[3 * 50] = 5.0f; /* a tie for the largest x */
    orr_aabbf all = orr_aabbf_grow(orr_aabbf_empty(), pts, 64);
    assert_true(signbit(all.min.y) && signbit(all.max.y) && all.max.x == 5.0f && all.min.z == 0.0f && all.max.z == 15.75f);
    for (size_t cut = 1; cut < 64; cut += 7) {
        orr_aabbf a = orr_aabbf_grow(orr_aabbf_empty(), pts, cut), b = orr_aabbf_grow(orr_aabbf_empty(), pts + cut * 3, 64 - cut);
        orr_aabbf m = orr_aabbf_merge(a, b);
        assert_memory_equal(&m, &all, sizeof m);
    }
    orr_aabbf e = orr_aabbf_merge(orr_aabbf_empty(), all); /* the empty box adds nothing */
    assert_memory_equal(&e, &all, sizeof e);
    assert_true(orr_aabbf_grow(orr_aabbf_empty(), pts, 0).min.x == INFINITY);
}

int orrt_core_workers(void); /* test_workers.c */
int orrt_core_vec(void);     /* test_vec.c */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_stale_and_reuse), cmocka_unit_test(test_pool_free_never_allocates), cmocka_unit_test(test_pool_limit),
        cmocka_unit_test(test_trs_and_inverse),      cmocka_unit_test(test_split_double),
        cmocka_unit_test(test_look_at_pose),
        cmocka_unit_test(test_result_names),          cmocka_unit_test(test_default_allocator),
        cmocka_unit_test(test_default_allocator_keeps_blocks), cmocka_unit_test(test_aabbf_grow_and_merge),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return failed + orrt_core_workers() + orrt_core_vec();
}
