/* Core: the growable array owners embed (ORRI_VEC). */
#include "testutil.h"

#include "core/internal.h"

#include <stdlib.h>
#include <string.h>

/* Counts the bytes held, and fails every allocation once `left` reaches 0 (frees always work). */
typedef struct held {
    size_t bytes;
    int left;
} held;

static void *counting_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    held *h = user;
    if (new_size == 0) {
        h->bytes -= old_size;
        free(ptr);
        return NULL;
    }
    if (h->left <= 0) return NULL;
    h->left--;
    void *p = realloc(ptr, new_size);
    if (p) h->bytes += new_size - old_size;
    return p;
}

typedef struct owner {
    ORRI_VEC(uint32_t) ids;
    ORRI_VEC(orr_vec3d) points;
} owner;

/* Pushed elements read back in order; the owner's teardown returns every byte. */
static void test_vec_push_and_free(void **state)
{
    (void)state;
    held h = {0, 1000};
    orr_allocator a = {counting_realloc, &h};
    owner o = {0};
    for (uint32_t i = 0; i < 1000; i++) {
        uint32_t *id = ORRI_VEC_PUSH(&a, &o.ids);
        assert_non_null(id);
        *id = i * 3;
        orr_vec3d *p = ORRI_VEC_PUSH(&a, &o.points);
        assert_non_null(p);
        *p = (orr_vec3d){i, -(double)i, 0.5};
    }
    assert_int_equal(o.ids.count, 1000);
    assert_int_equal(o.points.count, 1000);
    assert_true(o.ids.capacity >= 1000 && o.ids.capacity < 2000);
    for (uint32_t i = 0; i < 1000; i++) {
        assert_int_equal(o.ids.items[i], i * 3);
        assert_true(o.points.items[i].x == i && o.points.items[i].y == -(double)i);
    }
    assert_int_equal(h.bytes, (size_t)o.ids.capacity * sizeof(uint32_t) + (size_t)o.points.capacity * sizeof(orr_vec3d));
    ORRI_VEC_FREE(&a, &o.ids);
    ORRI_VEC_FREE(&a, &o.points);
    assert_int_equal(h.bytes, 0);
    assert_null(o.ids.items);
    assert_int_equal(o.ids.count + o.ids.capacity, 0);
    ORRI_VEC_FREE(&a, &o.ids); /* an empty one: a no-op */
    assert_int_equal(h.bytes, 0);
}

/* Out of memory: the push says so and the array is as it was. Reserve leaves the count alone and
 * zeroes what it adds. */
static void test_vec_out_of_memory_and_reserve(void **state)
{
    (void)state;
    held h = {0, 1};
    orr_allocator a = {counting_realloc, &h};
    owner o = {0};
    uint32_t pushed = 0;
    while (ORRI_VEC_PUSH(&a, &o.ids)) o.ids.items[pushed] = pushed + 7, pushed++;
    assert_int_equal(pushed, o.ids.capacity); /* the one allocation allowed, filled */
    assert_int_equal(o.ids.count, pushed);
    for (uint32_t i = 0; i < pushed; i++) assert_int_equal(o.ids.items[i], i + 7);
    assert_false(ORRI_VEC_RESERVE(&a, &o.ids, pushed + 1));
    assert_int_equal(o.ids.count, pushed);
    h.left = 1;
    assert_true(ORRI_VEC_RESERVE(&a, &o.ids, 100));
    assert_int_equal(o.ids.count, pushed);
    assert_true(o.ids.capacity >= 100);
    for (uint32_t i = pushed; i < o.ids.capacity; i++) assert_int_equal(o.ids.items[i], 0);
    ORRI_VEC_FREE(&a, &o.ids);
    assert_int_equal(h.bytes, 0);
}

int orrt_core_vec(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vec_push_and_free),
        cmocka_unit_test(test_vec_out_of_memory_and_reserve),
    };
    return cmocka_run_group_tests_name("core_vec", tests, NULL, NULL);
}
