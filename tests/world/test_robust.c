/* World robustness: every allocation failure, at every point of a scripted session, returns an error
 * (never crashes, never leaks), and the world stays usable and consistent. The session includes the
 * variable-length data (joint lists, animation targets, material overrides, long names): a set that
 * fails leaves the old list exactly as it was, a clone that fails leaves no entity behind. */
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
            assert_true(orr_entity_eq(orr_entity_parent(w, c), e));
            assert_true(orr_entity_eq(orr_entity_prev_sibling(w, c), prev));
            prev = c;
        }
        assert_true(orr_entity_eq(orr_entity_last_child(w, e), prev));
        orr_mat4d lazy;
        assert_int_equal(orr_entity_world_matrix(w, e, &lazy), ORR_OK);
    }
    orr_subtree_end(&it);
    assert_int_equal(count, orr_world_entity_count(w));
    return count;
}

/* Sets a list and checks the outcome: on success the new list, on failure (out of memory) the old one,
 * untouched (its contents compared with a copy taken before). kind: 0 joints, 1 targets, 2 materials. */
static void set_checked(orr_world *w, orr_entity e, int kind, const void *items, uint32_t count)
{
    uint32_t n0 = 0, n1 = 0;
    const void *now = kind == 0   ? (const void *)orr_skinned_mesh_joints(w, e, &n0)
                      : kind == 1 ? (const void *)orr_animation_player_targets(w, e, &n0)
                                  : (const void *)orr_mesh_renderer_materials(w, e, &n0);
    void *old = n0 ? malloc((size_t)n0 * 8) : NULL;
    if (n0) memcpy(old, now, (size_t)n0 * 8);
    orr_result r = kind == 0   ? orr_skinned_mesh_set_joints(w, e, items, count)
                   : kind == 1 ? orr_animation_player_set_targets(w, e, items, count)
                               : orr_mesh_renderer_set_materials(w, e, items, count);
    now = kind == 0   ? (const void *)orr_skinned_mesh_joints(w, e, &n1)
          : kind == 1 ? (const void *)orr_animation_player_targets(w, e, &n1)
                      : (const void *)orr_mesh_renderer_materials(w, e, &n1);
    if (r == ORR_OK) {
        assert_int_equal(n1, count);
        if (count) assert_memory_equal(now, items, (size_t)count * 8);
    } else if (orr_entity_is_alive(w, e) && orr_component_has(w, e, kind == 0   ? ORR_COMPONENT_SKINNED_MESH
                                                                     : kind == 1 ? ORR_COMPONENT_ANIMATION_PLAYER
                                                                                 : ORR_COMPONENT_MESH_RENDERER)) {
        assert_int_equal(r, ORR_ERROR_OUT_OF_MEMORY);
        assert_int_equal(n1, n0);
        if (n0) assert_memory_equal(now, old, (size_t)n0 * 8);
    }
    free(old);
}

/* Joints, targets, overrides and names far past the old caps, set, replaced, cloned and removed. */
static void lists_session(orr_world *w, orr_entity *e, int count)
{
    enum { J = 600 };
    static orr_entity joints[J];
    static orr_material_id mats[40];
    for (int j = 0; j < J; j++) joints[j] = e[(j * 7) % count];
    for (int k = 0; k < 40; k++) mats[k] = (orr_material_id){(uint32_t)k + 1, k % 4 ? 1u : 0u};
    char name[400];
    for (int k = 0; k < 399; k++) name[k] = (char)('a' + k % 26);
    name[399] = '\0';
    for (int i = 1; i < 40; i += 3) {
        if (!orr_entity_is_alive(w, e[i])) continue;
        orr_component_add(w, e[i], ORR_COMPONENT_SKINNED_MESH, NULL, NULL);
        orr_component_add(w, e[i], ORR_COMPONENT_ANIMATION_PLAYER, NULL, NULL);
        set_checked(w, e[i], 0, joints, (uint32_t)(J - i));
        set_checked(w, e[i], 1, joints + i, (uint32_t)(J - 2 * i));
        set_checked(w, e[i], 2, mats, (uint32_t)(i % 40));
        set_checked(w, e[i], 0, joints, (uint32_t)(i % 2 ? 0 : 300)); /* replaced, or emptied */
        orr_mesh_renderer_set_material(w, e[i], 60, mats[1]); /* grows the list */
        const char *before = orr_entity_name(w, e[i]);
        char *copy = strdup(before);
        name[10 + i] = '\0';
        if (orr_entity_set_name(w, e[i], name) == ORR_OK) assert_string_equal(orr_entity_name(w, e[i]), name);
        else assert_string_equal(orr_entity_name(w, e[i]), copy); /* the old name stands */
        name[10 + i] = (char)('a' + (10 + i) % 26);
        free(copy);
    }
    /* clones of subtrees holding lists: all or nothing */
    for (int i = 1; i < 40; i += 9) {
        if (!orr_entity_is_alive(w, e[i])) continue;
        uint32_t before = orr_world_entity_count(w);
        orr_entity c;
        if (orr_world_clone(w, NULL, e[i], ORR_ENTITY_NONE, NULL, &c) == ORR_OK) {
            uint32_t n, m;
            const orr_entity *cj = orr_skinned_mesh_joints(w, c, &n);
            orr_skinned_mesh_joints(w, e[i], &m);
            assert_int_equal(n, m);
            assert_true(n == 0 || cj != orr_skinned_mesh_joints(w, e[i], NULL));
            assert_string_equal(orr_entity_name(w, c), orr_entity_name(w, e[i]));
        } else {
            assert_int_equal(orr_world_entity_count(w), before);
        }
    }
    for (int i = 1; i < 40; i += 6) orr_component_remove(w, e[i], ORR_COMPONENT_SKINNED_MESH);
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
    lists_session(w, e, 300);
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
    if (orr_world_create(NULL, &other, NULL) == ORR_OK) {
        orr_entity r;
        if (orr_entity_create(other, &(orr_entity_desc){.name = "r"}, &r) == ORR_OK) {
            orr_component_add(other, r, tag, NULL, NULL); /* other has no such type: refused */
            orr_component_add(other, r, ORR_COMPONENT_SKINNED_MESH, NULL, NULL);
            orr_skinned_mesh_set_joints(other, r, (orr_entity[]){r, r, ORR_ENTITY_NONE}, 3);
            uint32_t before = orr_world_entity_count(w);
            if (orr_world_clone(w, other, r, ORR_ENTITY_NONE, NULL, &c) == ORR_OK) {
                uint32_t n;
                const orr_entity *j = orr_skinned_mesh_joints(w, c, &n);
                assert_true(n == 3 && orr_entity_eq(j[0], c) && orr_entity_eq(j[1], c) && j[2].generation == 0);
            } else {
                assert_int_equal(orr_world_entity_count(w), before);
            }
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
    assert_int_equal(orr_world_create(&desc, &w, NULL), ORR_OK);
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
        if (orr_world_create(&desc, &w, NULL) != ORR_OK) {
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
