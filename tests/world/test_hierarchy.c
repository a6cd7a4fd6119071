/* World hierarchy: entities, generations, ordered roots and children, sibling index, find, pre-order
 * iteration, post-order destroy, cycles, capacity, versions, and the debug iteration guard. */
#include "testutil.h"

#include <orrery/world.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static orr_world *make_world(void)
{
    orr_world *w = NULL;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    assert_non_null(w);
    return w;
}

static orr_entity make(orr_world *w, const char *name, orr_entity parent)
{
    orr_entity e;
    orr_entity_desc d = {.name = name, .parent = parent};
    assert_int_equal(orr_entity_create(w, &d, &e), ORR_OK);
    return e;
}

static void expect_preorder(orr_world *w, orr_entity root, const char *expected)
{
    char got[512] = "";
    orr_subtree_iter it;
    orr_subtree_begin(w, root, &it);
    for (orr_entity e; orr_subtree_next(&it, &e);) {
        if (got[0]) strcat(got, " ");
        strcat(got, orr_entity_name(w, e));
    }
    orr_subtree_end(&it);
    assert_string_equal(got, expected);
}

static void test_generations_and_reuse(void **state)
{
    (void)state;
    orr_world *w = make_world();
    orr_entity e[4];
    for (int i = 0; i < 4; i++) e[i] = make(w, NULL, ORR_ENTITY_NONE);
    for (uint32_t i = 0; i < 4; i++) assert_int_equal(e[i].index, i);
    assert_int_equal(orr_world_entity_count(w), 4);
    assert_int_equal(orr_entity_destroy(w, e[2]), ORR_OK);
    assert_int_equal(orr_entity_destroy(w, e[1]), ORR_OK);
    assert_false(orr_entity_is_alive(w, e[1]));
    /* every accessor refuses the stale handle */
    assert_int_equal(orr_entity_destroy(w, e[1]), ORR_ERROR_STALE_HANDLE);
    assert_int_equal(orr_world_last_error(w)->code, ORR_ERROR_STALE_HANDLE);
    assert_non_null(strstr(orr_world_last_error(w)->message, "stale"));
    orr_transform stale_t;
    assert_int_equal(orr_entity_get_local(w, e[1], &stale_t), ORR_ERROR_STALE_HANDLE);
    orr_mat4d stale_m;
    assert_int_equal(orr_entity_cached_world(w, e[1], &stale_m), ORR_ERROR_STALE_HANDLE);
    orr_transform t;
    assert_int_equal(orr_entity_get_local(w, e[1], &t), ORR_ERROR_STALE_HANDLE);
    orr_mat4d m;
    assert_int_equal(orr_entity_world_matrix(w, e[1], &m), ORR_ERROR_STALE_HANDLE);
    assert_int_equal(orr_entity_set_translation(w, e[1], (orr_vec3d){1, 0, 0}), ORR_ERROR_STALE_HANDLE);
    assert_int_equal(orr_entity_set_parent(w, e[1], e[0], ORR_KEEP_WORLD), ORR_ERROR_STALE_HANDLE);
    assert_int_equal(orr_entity_set_parent(w, e[0], e[1], ORR_KEEP_WORLD), ORR_ERROR_STALE_HANDLE);
    assert_int_equal(orr_entity_set_sibling_index(w, e[1], 0), ORR_ERROR_STALE_HANDLE);
    assert_int_equal(orr_component_add(w, e[1], ORR_COMPONENT_LIGHT, NULL, NULL), ORR_ERROR_STALE_HANDLE);
    assert_false(orr_component_has(w, e[1], ORR_COMPONENT_NAME));
    assert_int_equal(orr_entity_parent(w, e[1]).generation, 0);
    assert_int_equal(orr_entity_child_count(w, e[1]), 0);
    assert_string_equal(orr_entity_name(w, e[1]), "");
    orr_entity_desc d = {.parent = e[2]};
    orr_entity x;
    assert_int_equal(orr_entity_create(w, &d, &x), ORR_ERROR_STALE_HANDLE);
    assert_false(orr_entity_is_alive(w, ORR_ENTITY_NONE));
    assert_false(orr_entity_is_alive(w, (orr_entity){99, 1}));
    /* lowest free index first: 1, then 2, then a new one */
    orr_entity a = make(w, NULL, ORR_ENTITY_NONE), b = make(w, NULL, ORR_ENTITY_NONE), c = make(w, NULL, ORR_ENTITY_NONE);
    assert_int_equal(a.index, 1);
    assert_int_equal(b.index, 2);
    assert_int_equal(c.index, 4);
    assert_true(a.generation != e[1].generation);
    assert_false(orr_entity_is_alive(w, e[1]));
    assert_true(orr_entity_is_alive(w, a));
    orr_world_destroy(w);
    orr_world_destroy(NULL);
}

static void test_order_and_sibling_index(void **state)
{
    (void)state;
    orr_world *w = make_world();
    orr_entity a = make(w, "a", ORR_ENTITY_NONE), b = make(w, "b", ORR_ENTITY_NONE);
    orr_entity a1 = make(w, "a1", a), a2 = make(w, "a2", a), a3 = make(w, "a3", a);
    make(w, "b1", b);
    make(w, "a2x", a2);
    expect_preorder(w, ORR_ENTITY_NONE, "a a1 a2 a2x a3 b b1");
    expect_preorder(w, a2, "a2 a2x");
    assert_int_equal(orr_entity_child_count(w, a), 3);
    orr_entity kids[8];
    assert_int_equal(orr_entity_children(w, a, kids, 8), 3);
    assert_true(orr_entity_eq(kids[0], a1) && orr_entity_eq(kids[1], a2) && orr_entity_eq(kids[2], a3));
    assert_true(orr_entity_eq(orr_entity_first_child(w, a), a1));
    assert_true(orr_entity_eq(orr_entity_last_child(w, a), a3));
    assert_true(orr_entity_eq(orr_entity_next_sibling(w, a1), a2));
    assert_true(orr_entity_eq(orr_entity_prev_sibling(w, a2), a1));
    assert_true(orr_entity_eq(orr_entity_parent(w, a3), a));
    orr_entity roots[4];
    assert_int_equal(orr_world_roots(w, roots, 1), 2);
    assert_true(orr_entity_eq(roots[0], a));
    uint64_t sv = orr_world_structure_version(w);
    assert_int_equal(orr_entity_set_sibling_index(w, a3, 0), ORR_OK);
    assert_true(orr_world_structure_version(w) > sv);
    expect_preorder(w, ORR_ENTITY_NONE, "a a3 a1 a2 a2x b b1");
    assert_int_equal(orr_entity_sibling_index(w, a3), 0);
    assert_int_equal(orr_entity_set_sibling_index(w, a3, 99), ORR_OK); /* past the end = last */
    expect_preorder(w, ORR_ENTITY_NONE, "a a1 a2 a2x a3 b b1");
    assert_int_equal(orr_entity_set_sibling_index(w, b, 0), ORR_OK); /* roots too */
    expect_preorder(w, ORR_ENTITY_NONE, "b b1 a a1 a2 a2x a3");
    assert_int_equal(orr_entity_set_sibling_index(w, a2, 1), ORR_OK); /* same place */
    expect_preorder(w, ORR_ENTITY_NONE, "b b1 a a1 a2 a2x a3");
    orr_world_destroy(w);
}

static void test_find(void **state)
{
    (void)state;
    orr_world *w = make_world();
    orr_entity a = make(w, "a", ORR_ENTITY_NONE);
    orr_entity b = make(w, "b", a);
    orr_entity c1 = make(w, "c", b);
    make(w, "c", b); /* names are not unique: the first in order wins */
    orr_entity z = make(w, "z", ORR_ENTITY_NONE);
    assert_true(orr_entity_eq(orr_world_find(w, ORR_ENTITY_NONE, "a/b/c"), c1));
    assert_true(orr_entity_eq(orr_world_find(w, ORR_ENTITY_NONE, "z"), z));
    assert_true(orr_entity_eq(orr_world_find(w, a, "b/c"), c1));
    assert_true(orr_entity_eq(orr_world_find(w, b, "c"), c1));
    assert_int_equal(orr_world_find(w, ORR_ENTITY_NONE, "a/x").generation, 0);
    assert_int_equal(orr_world_find(w, ORR_ENTITY_NONE, "b").generation, 0); /* b is not a root */
    assert_int_equal(orr_world_find(w, ORR_ENTITY_NONE, "").generation, 0);
    assert_int_equal(orr_world_find(w, ORR_ENTITY_NONE, NULL).generation, 0);
    assert_int_equal(orr_entity_set_name(w, c1, "renamed"), ORR_OK);
    assert_int_equal(orr_world_find(w, a, "b/c").index, c1.index + 1);
    /* long names are kept whole (the old cap was 63 bytes), found by path, and renamed shorter */
    char longname[2000];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    assert_int_equal(orr_entity_set_name(w, z, longname), ORR_OK);
    assert_string_equal(orr_entity_name(w, z), longname);
    assert_true(orr_entity_eq(orr_world_find(w, ORR_ENTITY_NONE, longname), z));
    longname[1000] = 0; /* a prefix of the name does not match it */
    assert_int_equal(orr_world_find(w, ORR_ENTITY_NONE, longname).generation, 0);
    assert_int_equal(orr_entity_set_name(w, z, "z"), ORR_OK);
    assert_true(orr_entity_eq(orr_world_find(w, ORR_ENTITY_NONE, "z"), z));
    assert_int_equal(orr_entity_set_name(w, z, ""), ORR_OK);
    assert_string_equal(orr_entity_name(w, z), "");
    assert_int_equal(orr_world_find(w, ORR_ENTITY_NONE, "z").generation, 0);
    orr_world_destroy(w);
}

static char destroy_log[256];
static void log_destroy(void *component, void *user)
{
    (void)user;
    strcat(destroy_log, (const char *)component);
    strcat(destroy_log, " ");
}

static void test_destroy_post_order(void **state)
{
    (void)state;
    orr_world *w = make_world();
    orr_component_desc d = {.name = "Label", .size = 8, .alignment = 1, .destroy = log_destroy};
    orr_component_type label;
    assert_int_equal(orr_world_register_component(w, &d, &label), ORR_OK);
    orr_entity r = make(w, "r", ORR_ENTITY_NONE);
    orr_entity a = make(w, "a", r), b = make(w, "b", r);
    orr_entity a1 = make(w, "a1", a), a2 = make(w, "a2", a), b1 = make(w, "b1", b);
    orr_entity keep = make(w, "keep", ORR_ENTITY_NONE);
    const orr_entity all[] = {r, a, b, a1, a2, b1};
    for (size_t i = 0; i < 6; i++) {
        char text[8] = {0}; /* names are stored at their length: copy one into the 8-byte Label */
        strncpy(text, orr_entity_name(w, all[i]), sizeof text - 1);
        orr_component_add(w, all[i], label, text, NULL);
    }
    destroy_log[0] = 0;
    uint64_t sv = orr_world_structure_version(w);
    assert_int_equal(orr_entity_destroy(w, r), ORR_OK);
    assert_string_equal(destroy_log, "a1 a2 a b1 b r ");
    assert_true(orr_world_structure_version(w) > sv);
    for (size_t i = 0; i < 6; i++) assert_false(orr_entity_is_alive(w, all[i]));
    assert_true(orr_entity_is_alive(w, keep));
    assert_int_equal(orr_world_entity_count(w), 1);
    assert_int_equal(orr_world_component_count(w, label), 0);
    expect_preorder(w, ORR_ENTITY_NONE, "keep");
    orr_world_destroy(w);
}

static void test_mass_destroy_gives_memory_back(void **state)
{
    (void)state;
    orr_world *w = make_world();
    enum { N = 20000 };
    static orr_entity e[N];
    for (int i = 0; i < N; i++) e[i] = make(w, i % 4 == 1 ? "keep" : NULL, i % 4 ? e[i - i % 4] : ORR_ENTITY_NONE);
    orr_world_update_transforms(w);
    size_t big = orr_world_memory_bytes(w);
    /* destroy all groups but every 100th */
    for (int i = 0; i < N; i += 4)
        if (i % 400) assert_int_equal(orr_entity_destroy(w, e[i]), ORR_OK);
    assert_int_equal(orr_world_entity_count(w), N / 100);
    assert_true(orr_world_memory_bytes(w) < big / 2);
    for (int i = 0; i < N; i += 400) {
        assert_int_equal(orr_entity_child_count(w, e[i]), 3);
        assert_string_equal(orr_entity_name(w, orr_entity_first_child(w, e[i])), "keep");
        orr_entity_set_translation(w, e[i], (orr_vec3d){i, 0, 0});
    }
    orr_world_update_transforms(w);
    for (int i = 0; i < N; i += 400) {
        orr_mat4d m;
        assert_int_equal(orr_entity_cached_world(w, e[i + 3], &m), ORR_OK);
        assert_true(m.m[12] == i);
    }
    orr_world_destroy(w);
}

static void test_set_parent_and_cycles(void **state)
{
    (void)state;
    orr_world *w = make_world();
    orr_entity a = make(w, "a", ORR_ENTITY_NONE), b = make(w, "b", a), c = make(w, "c", b);
    make(w, "d", ORR_ENTITY_NONE);
    uint64_t sv = orr_world_structure_version(w), rev = orr_world_revision(w);
    assert_int_equal(orr_entity_set_parent(w, a, a, ORR_KEEP_WORLD), ORR_ERROR_CYCLE);
    assert_int_equal(orr_entity_set_parent(w, a, c, ORR_KEEP_LOCAL), ORR_ERROR_CYCLE);
    assert_non_null(strstr(orr_world_last_error(w)->message, "descendant"));
    assert_int_equal(orr_world_structure_version(w), sv);
    assert_int_equal(orr_world_revision(w), rev);
    expect_preorder(w, ORR_ENTITY_NONE, "a b c d");
    /* none = a root appended last */
    assert_int_equal(orr_entity_set_parent(w, b, ORR_ENTITY_NONE, ORR_KEEP_WORLD), ORR_OK);
    expect_preorder(w, ORR_ENTITY_NONE, "a d b c");
    assert_true(orr_world_structure_version(w) > sv);
    assert_int_equal(orr_entity_set_parent(w, a, c, ORR_KEEP_LOCAL), ORR_OK);
    expect_preorder(w, ORR_ENTITY_NONE, "d b c a");
    orr_world_destroy(w);
}

static void test_capacity(void **state)
{
    (void)state;
    orr_world_desc desc = {.entity_capacity = 3};
    orr_world *w;
    assert_int_equal(orr_world_create(&desc, &w, NULL), ORR_OK);
    orr_entity e[3], x;
    for (int i = 0; i < 3; i++) e[i] = make(w, NULL, ORR_ENTITY_NONE);
    assert_int_equal(orr_entity_create(w, NULL, &x), ORR_ERROR_CAPACITY);
    assert_non_null(strstr(orr_world_last_error(w)->message, "entity_capacity (3)"));
    assert_int_equal(orr_world_entity_count(w), 3);
    assert_int_equal(orr_world_clone(w, NULL, e[0], ORR_ENTITY_NONE, NULL, &x), ORR_ERROR_CAPACITY);
    assert_non_null(strstr(orr_world_last_error(w)->message, "entity_capacity"));
    assert_int_equal(orr_entity_destroy(w, e[1]), ORR_OK);
    assert_int_equal(orr_entity_create(w, NULL, &x), ORR_OK);
    assert_int_equal(x.index, 1);
    orr_world_destroy(w);
}

static void test_versions(void **state)
{
    (void)state;
    orr_world *w = make_world();
    uint64_t sv = orr_world_structure_version(w), rev = orr_world_revision(w);
    orr_entity a = make(w, "a", ORR_ENTITY_NONE);
    assert_true(orr_world_structure_version(w) > sv);
    sv = orr_world_structure_version(w);
    rev = orr_world_revision(w);
    /* pose: revision only */
    assert_int_equal(orr_entity_set_translation(w, a, (orr_vec3d){1, 2, 3}), ORR_OK);
    assert_int_equal(orr_world_structure_version(w), sv);
    assert_true(orr_world_revision(w) > rev);
    rev = orr_world_revision(w);
    /* a renderable component: structure on add and remove; edit bumps the revision */
    orr_mesh_renderer *mr;
    assert_int_equal(orr_component_add(w, a, ORR_COMPONENT_MESH_RENDERER, NULL, (void **)&mr), ORR_OK);
    assert_true(orr_world_structure_version(w) > sv);
    sv = orr_world_structure_version(w);
    rev = orr_world_revision(w);
    orr_mesh_renderer_edit(w, a)->visible = false;
    assert_int_equal(orr_world_structure_version(w), sv);
    assert_true(orr_world_revision(w) > rev);
    /* a non-renderable component: neither on add; Name edits bump nothing */
    rev = orr_world_revision(w);
    assert_int_equal(orr_component_add(w, a, ORR_COMPONENT_ANIMATION_PLAYER, NULL, NULL), ORR_OK);
    assert_int_equal(orr_entity_set_name(w, a, "b"), ORR_OK);
    assert_int_equal(orr_world_structure_version(w), sv);
    assert_int_equal(orr_world_revision(w), rev);
    assert_int_equal(orr_component_remove(w, a, ORR_COMPONENT_MESH_RENDERER), ORR_OK);
    assert_true(orr_world_structure_version(w) > sv);
    /* reparent, either mode: a structural change (the revision follows every structural change) */
    orr_entity b = make(w, "b", ORR_ENTITY_NONE);
    sv = orr_world_structure_version(w);
    rev = orr_world_revision(w);
    assert_int_equal(orr_entity_set_parent(w, a, b, ORR_KEEP_WORLD), ORR_OK);
    assert_true(orr_world_structure_version(w) > sv);
    assert_true(orr_world_revision(w) > rev);
    sv = orr_world_structure_version(w);
    rev = orr_world_revision(w);
    assert_int_equal(orr_entity_set_parent(w, a, ORR_ENTITY_NONE, ORR_KEEP_LOCAL), ORR_OK);
    assert_true(orr_world_structure_version(w) > sv);
    assert_true(orr_world_revision(w) > rev);
    /* destroy */
    sv = orr_world_structure_version(w);
    assert_int_equal(orr_entity_destroy(w, a), ORR_OK);
    assert_true(orr_world_structure_version(w) > sv);
    orr_world_destroy(w);
}

static void test_iteration_guard_allows_edits(void **state)
{
    (void)state;
    orr_world *w = make_world();
    orr_entity a = make(w, "a", ORR_ENTITY_NONE);
    make(w, "b", a);
    orr_component_add(w, a, ORR_COMPONENT_MESH_RENDERER, NULL, NULL);
    /* value edits are allowed while iterating; structural changes after the end are fine */
    orr_subtree_iter it;
    orr_subtree_begin(w, ORR_ENTITY_NONE, &it);
    for (orr_entity e; orr_subtree_next(&it, &e);) orr_entity_set_translation(w, e, (orr_vec3d){1, 0, 0});
    orr_component_type t = ORR_COMPONENT_MESH_RENDERER;
    orr_query q;
    orr_query_begin(w, &t, 1, &q);
    while (orr_query_next(&q)) ((orr_mesh_renderer *)q.components[0])->layers = 2;
    /* so are the list calls, on components the query visits (and their lists read back at once); a
     * rename of an entity that has a Name is a value edit too */
    orr_component_add(w, a, ORR_COMPONENT_SKINNED_MESH, NULL, NULL);
    orr_component_type both[2] = {ORR_COMPONENT_MESH_RENDERER, ORR_COMPONENT_SKINNED_MESH};
    orr_entity joints[300];
    for (int j = 0; j < 300; j++) joints[j] = a;
    orr_query_begin(w, both, 2, &q);
    while (orr_query_next(&q)) {
        assert_int_equal(orr_skinned_mesh_set_joints(w, q.entity, joints, 300), ORR_OK);
        assert_int_equal(orr_mesh_renderer_set_material(w, q.entity, 20, (orr_material_id){3, 1}), ORR_OK);
        assert_int_equal(orr_entity_set_name(w, q.entity, "a, renamed while a query runs"), ORR_OK);
        uint32_t n;
        assert_non_null(orr_skinned_mesh_joints(w, q.entity, &n));
        assert_int_equal(n, 300);
        assert_int_equal(orr_mesh_renderer_materials(w, q.entity, &n)[20].index, 3);
        assert_int_equal(n, 21);
        assert_true(((orr_mesh_renderer *)q.components[0])->layers == 2); /* the component did not move */
    }
    assert_string_equal(orr_entity_name(w, a), "a, renamed while a query runs");
    /* a query ended early releases its guard with orr_query_end */
    orr_query_begin(w, &t, 1, &q);
    assert_true(orr_query_next(&q));
    orr_query_end(&q);
    orr_query_end(&q); /* twice is harmless */
    orr_entity c = make(w, "c", ORR_ENTITY_NONE);
    assert_int_equal(orr_entity_destroy(w, c), ORR_OK);
    orr_world_destroy(w);
}

#ifndef NDEBUG
/* Runs `fn` in a child process; true when it aborted (the debug guard fired). */
static bool aborts(void (*fn)(void))
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        fn();
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static void create_during_query(void)
{
    orr_world *w;
    orr_world_create(NULL, &w, NULL);
    orr_entity e;
    orr_entity_create(w, NULL, &e);
    orr_component_add(w, e, ORR_COMPONENT_LIGHT, NULL, NULL);
    orr_component_type t = ORR_COMPONENT_LIGHT;
    orr_query q;
    orr_query_begin(w, &t, 1, &q);
    while (orr_query_next(&q)) orr_entity_create(w, NULL, &e);
}

static void destroy_during_subtree(void)
{
    orr_world *w;
    orr_world_create(NULL, &w, NULL);
    orr_entity e;
    orr_entity_create(w, NULL, &e);
    orr_subtree_iter it;
    orr_subtree_begin(w, e, &it);
    for (orr_entity x; orr_subtree_next(&it, &x);) orr_entity_destroy(w, x);
}

static void remove_during_query(void)
{
    orr_world *w;
    orr_world_create(NULL, &w, NULL);
    orr_entity e;
    orr_entity_create(w, NULL, &e);
    orr_component_add(w, e, ORR_COMPONENT_LIGHT, NULL, NULL);
    orr_component_type t = ORR_COMPONENT_LIGHT;
    orr_query q;
    orr_query_begin(w, &t, 1, &q);
    while (orr_query_next(&q)) orr_component_remove(w, q.entity, ORR_COMPONENT_LIGHT);
}

/* Naming an entity that has no Name adds the component: structural. */
static void name_added_during_query(void)
{
    orr_world *w;
    orr_world_create(NULL, &w, NULL);
    orr_entity e;
    orr_entity_create(w, NULL, &e);
    orr_component_add(w, e, ORR_COMPONENT_LIGHT, NULL, NULL);
    orr_component_type t = ORR_COMPONENT_LIGHT;
    orr_query q;
    orr_query_begin(w, &t, 1, &q);
    while (orr_query_next(&q)) orr_entity_set_name(w, q.entity, "new");
}

static void test_iteration_guard_debug(void **state)
{
    (void)state;
    assert_true(aborts(name_added_during_query));
    assert_true(aborts(create_during_query));
    assert_true(aborts(destroy_during_subtree));
    assert_true(aborts(remove_during_query));
}
#endif

static void test_reserve(void **state)
{
    (void)state;
    /* Creating into reserved room grows no table: after the first root (whose dirty-list entry and
     * free-heap room are allocated on first use) the world's memory stays the same. */
    orr_world *w;
    assert_int_equal(orr_world_create(&(orr_world_desc){.reserve = 1000}, &w, NULL), ORR_OK);
    assert_int_equal(orr_component_reserve(w, ORR_COMPONENT_MESH_RENDERER, 1000), ORR_OK);
    assert_int_equal(orr_component_reserve(w, 999, 10), ORR_ERROR_INVALID_ARGUMENT);
    orr_entity root, e;
    assert_int_equal(orr_entity_create(w, NULL, &root), ORR_OK);
    assert_int_equal(orr_component_add(w, root, ORR_COMPONENT_MESH_RENDERER, NULL, NULL), ORR_OK);
    size_t bytes = orr_world_memory_bytes(w);
    for (int i = 1; i < 1000; i++) {
        assert_int_equal(orr_entity_create(w, &(orr_entity_desc){.parent = root}, &e), ORR_OK);
        assert_int_equal(orr_component_add(w, e, ORR_COMPONENT_MESH_RENDERER, NULL, NULL), ORR_OK);
    }
    assert_int_equal(orr_world_memory_bytes(w), bytes);
    assert_int_equal(orr_world_reserve(w, 10), ORR_OK); /* never shrinks */
    assert_int_equal(orr_world_memory_bytes(w), bytes);
    assert_int_equal(orr_entity_child_count(w, root), 999);
    assert_true(orr_entity_eq(orr_entity_last_child(w, root), e));
    orr_world_destroy(w);
    /* Past entity_capacity there is nothing to reserve room for. */
    assert_int_equal(orr_world_create(&(orr_world_desc){.entity_capacity = 10, .reserve = 1000000}, &w, NULL), ORR_OK);
    assert_true(orr_world_memory_bytes(w) < 64 * 1024);
    orr_world_destroy(w);
}

const struct CMUnitTest orrt_world_hierarchy_tests[] = {
    cmocka_unit_test(test_generations_and_reuse),
    cmocka_unit_test(test_order_and_sibling_index),
    cmocka_unit_test(test_find),
    cmocka_unit_test(test_destroy_post_order),
    cmocka_unit_test(test_set_parent_and_cycles),
    cmocka_unit_test(test_mass_destroy_gives_memory_back),
    cmocka_unit_test(test_capacity),
    cmocka_unit_test(test_reserve),
    cmocka_unit_test(test_versions),
    cmocka_unit_test(test_iteration_guard_allows_edits),
#ifndef NDEBUG
    cmocka_unit_test(test_iteration_guard_debug),
#endif
};
const size_t orrt_world_hierarchy_count = sizeof orrt_world_hierarchy_tests / sizeof orrt_world_hierarchy_tests[0];
