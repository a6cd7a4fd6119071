/* World robustness: every allocation failure, at every point of a scripted session, returns an error
 * (never crashes, never leaks), and the world stays usable and consistent. */
#include "testutil.h"

#include <orrery/world.h>
#include <stdlib.h>
#include <string.h>

typedef struct failing {
    size_t live;
    uint32_t calls, fail_at; /* the fail_at-th allocation or growth fails (0 = none) */
    uint32_t failures;
} failing;

static void *failing_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    failing *f = user;
    if (new_size == 0) {
        if (ptr) f->live -= old_size;
        free(ptr);
        return NULL;
    }
    if (new_size > (ptr ? old_size : 0) && ++f->calls == f->fail_at) {
        f->failures++;
        return NULL;
    }
    void *p = realloc(ptr, new_size);
    if (p) f->live += new_size - (ptr ? old_size : 0);
    return p;
}

/* Walks the hierarchy and checks the links against each other. */
static uint32_t check_links(orr_world *w)
{
    uint32_t count = 0;
    orr_subtree_iter it;
    orr_subtree_begin(w, ORR_ENTITY_NONE, &it);
    for (orr_entity e; orr_subtree_next(&it, &e); count++) {
        assert_true(orr_entity_is_alive(w, e));
        orr_entity prev = ORR_ENTITY_NONE;
        for (orr_entity c = orr_entity_first_child(w, e); c.generation; c = orr_entity_next_sibling(w, c)) {
            assert_true(ORR_ENTITY_EQ(orr_entity_parent(w, c), e));
            assert_true(ORR_ENTITY_EQ(orr_entity_prev_sibling(w, c), prev));
            prev = c;
        }
        assert_true(ORR_ENTITY_EQ(orr_entity_last_child(w, e), prev));
        orr_mat4d lazy;
        assert_int_equal(orr_entity_world_matrix(w, e, &lazy), ORR_OK);
    }
    orr_subtree_end(&it);
    assert_int_equal(count, orr_world_entity_count(w));
    return count;
}

static void session(orr_world *w)
{
    orr_component_desc d = {.name = "Tag", .size = 4, .alignment = 4};
    orr_component_type tag = ORR_COMPONENT_BUILTIN_COUNT;
    orr_world_register_component(w, &d, &tag);
    orr_entity e[300] = {{0, 0}};
    for (int i = 0; i < 300; i++) {
        orr_transform t = orr_transform_identity();
        t.translation.x = i;
        t.has_matrix = i % 7 == 0;
        orr_entity_desc ed = {.name = i % 3 ? "n" : NULL, .parent = i > 4 ? e[(i * 13) % i] : ORR_ENTITY_NONE,
                              .local = &t};
        uint32_t before = orr_world_entity_count(w);
        if (orr_entity_create(w, &ed, &e[i]) != ORR_OK) {
            assert_int_equal(orr_world_entity_count(w), before); /* a failed create leaves nothing behind */
            assert_int_equal(orr_world_last_error(w)->code, ORR_ERROR_OUT_OF_MEMORY);
        }
        orr_component_add(w, e[i], ORR_COMPONENT_MESH_RENDERER, NULL, NULL);
        if (i % 2) orr_component_add(w, e[i], tag, &i, NULL);
    }
    for (int i = 0; i < 300; i += 11) orr_entity_set_parent(w, e[i], e[(i * 17) % 300], i % 2 ? ORR_KEEP_WORLD : ORR_KEEP_LOCAL);
    orr_world_update_transforms(w);
    for (int i = 0; i < 300; i += 5) orr_entity_set_translation(w, e[i], (orr_vec3d){1, 2, 3});
    orr_entity c;
    orr_world_clone(w, NULL, e[1], e[2], NULL, &c);
    orr_world_clone(w, NULL, e[0], ORR_ENTITY_NONE, NULL, &c);
    for (int i = 0; i < 300; i += 9) orr_entity_destroy(w, e[i]);
    for (int i = 0; i < 300; i += 4) orr_component_remove(w, e[i], ORR_COMPONENT_MESH_RENDERER);
    orr_world_update_transforms(w);
    /* Reserving after the churn (holes, freed indices), then creating into the room. */
    orr_world_reserve(w, orr_world_entity_count(w) + 64);
    orr_component_reserve(w, tag, orr_world_component_count(w, tag) + 64);
    for (int i = 0; i < 64; i++) {
        orr_entity x;
        if (orr_entity_create(w, &(orr_entity_desc){.parent = i % 2 ? e[1] : ORR_ENTITY_NONE}, &x) == ORR_OK)
            orr_component_add(w, x, tag, &i, NULL);
    }
    orr_world_update_transforms(w);
    orr_world *other = NULL;
    if (orr_world_create(NULL, &other) == ORR_OK) {
        orr_entity r;
        if (orr_entity_create(other, &(orr_entity_desc){.name = "r"}, &r) == ORR_OK) {
            orr_component_add(other, r, tag, NULL, NULL); /* other has no such type: refused */
            orr_world_clone(w, other, r, ORR_ENTITY_NONE, NULL, &c);
        }
        orr_world_destroy(other);
    }
}

static void test_allocation_failures(void **state)
{
    (void)state;
    /* Count the allocations of a clean run, then fail each one in turn. */
    failing clean = {0};
    orr_world *w;
    orr_world_desc desc = {.allocator = {.realloc = failing_realloc, .user = &clean}};
    assert_int_equal(orr_world_create(&desc, &w), ORR_OK);
    session(w);
    check_links(w);
    orr_world_destroy(w);
    assert_int_equal(clean.live, 0);
    uint32_t total = clean.calls;
    assert_true(total > 50);
    print_message("allocation failures injected: %u points\n", total + 1);
    for (uint32_t k = 1; k <= total + 1; k++) {
        failing f = {.fail_at = k};
        desc.allocator.user = &f;
        if (orr_world_create(&desc, &w) != ORR_OK) {
            assert_int_equal(f.live, 0);
            continue;
        }
        session(w);
        check_links(w);
        orr_world_update_transforms(w);
        orr_world_destroy(w);
        assert_int_equal(f.live, 0);
    }
}

const struct CMUnitTest orrt_world_robust_tests[] = {
    cmocka_unit_test(test_allocation_failures),
};
const size_t orrt_world_robust_count = sizeof orrt_world_robust_tests / sizeof orrt_world_robust_tests[0];
