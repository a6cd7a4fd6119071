/* The change log: what a reader of the world (frame extraction) is told changed since the last clear. */
#include "testutil.h"

#include <orrery/world.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static bool lists(const uint32_t *list, uint32_t n, orr_entity e)
{
    uint32_t seen = 0;
    for (uint32_t i = 0; i < n; i++) seen += list[i] == e.index;
    assert_true(seen <= 1); /* each entity once */
    return seen == 1;
}

static orr_entity make(orr_world *w, orr_entity parent, bool renderable)
{
    orr_entity e;
    assert_int_equal(orr_entity_create(w, &(orr_entity_desc){.parent = parent}, &e), ORR_OK);
    if (renderable) assert_int_equal(orr_component_add(w, e, ORR_COMPONENT_MESH_RENDERER, NULL, NULL), ORR_OK);
    return e;
}

static void test_moves_and_edits_listed(void **state)
{
    (void)state;
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_entity root = make(w, ORR_ENTITY_NONE, true), child = make(w, root, true), grandchild = make(w, child, true);
    orr_entity other = make(w, ORR_ENTITY_NONE, true);
    orr_world_update_transforms(w);
    /* creating is structural: the log says "everything", lists nothing, until it is cleared */
    orr_world_changes ch = orr_world_get_changes(w);
    assert_true(ch.all);
    assert_int_equal(ch.moved_count + ch.edited_count, 0);
    uint64_t epoch = ch.epoch;
    orr_world_clear_changes(w);
    ch = orr_world_get_changes(w);
    assert_false(ch.all);
    assert_int_equal(ch.epoch, epoch + 1);
    assert_int_equal(ch.moved_count + ch.edited_count, 0);

    /* moving a node moves its subtree, once each, and nothing else */
    assert_int_equal(orr_entity_set_translation(w, child, (orr_vec3d){1, 0, 0}), ORR_OK);
    assert_int_equal(orr_entity_set_translation(w, child, (orr_vec3d){2, 0, 0}), ORR_OK);
    assert_int_equal(orr_entity_set_rotation(w, grandchild, ORR_QUAT_IDENTITY), ORR_OK);
    orr_world_update_transforms(w);
    ch = orr_world_get_changes(w);
    assert_false(ch.all);
    assert_int_equal(ch.moved_count, 2);
    assert_true(lists(ch.moved, ch.moved_count, child) && lists(ch.moved, ch.moved_count, grandchild));
    assert_false(lists(ch.moved, ch.moved_count, root) || lists(ch.moved, ch.moved_count, other));
    /* a second propagation in the same frame adds nobody twice */
    assert_int_equal(orr_entity_set_translation(w, root, (orr_vec3d){0, 1, 0}), ORR_OK);
    orr_world_update_transforms(w);
    ch = orr_world_get_changes(w);
    assert_int_equal(ch.moved_count, 3);
    assert_true(lists(ch.moved, ch.moved_count, root));

    /* edits of a renderable component and names; a plain query or get is no change */
    assert_non_null(orr_mesh_renderer_edit(w, other));
    assert_non_null(orr_mesh_renderer_try_get(w, root));
    assert_int_equal(orr_entity_set_name(w, grandchild, "g"), ORR_OK);
    ch = orr_world_get_changes(w);
    assert_int_equal(ch.edited_count, 2);
    assert_true(lists(ch.edited, ch.edited_count, other) && lists(ch.edited, ch.edited_count, grandchild));
    assert_false(lists(ch.edited, ch.edited_count, root));

    /* cleared: empty; the marks went with it (the same entities are listed again) */
    orr_world_clear_changes(w);
    ch = orr_world_get_changes(w);
    assert_int_equal(ch.moved_count + ch.edited_count, 0);
    assert_int_equal(orr_entity_set_translation(w, grandchild, (orr_vec3d){0, 0, 3}), ORR_OK);
    assert_non_null(orr_mesh_renderer_edit(w, other));
    orr_world_update_transforms(w);
    ch = orr_world_get_changes(w);
    assert_int_equal(ch.moved_count, 1);
    assert_int_equal(ch.edited_count, 1);
    assert_true(lists(ch.moved, ch.moved_count, grandchild));

    /* every transform invalidated: "everything" */
    orr_world_clear_changes(w);
    orr_world_invalidate_transforms(w);
    orr_world_update_transforms(w);
    assert_true(orr_world_get_changes(w).all);
    /* a structural change (here a reparent) too */
    orr_world_clear_changes(w);
    assert_int_equal(orr_entity_set_parent(w, other, root, ORR_KEEP_WORLD), ORR_OK);
    assert_true(orr_world_get_changes(w).all);
    orr_world_destroy(w);
}

/* Every list call is an edit the log names (what incremental extraction reads), and bumps the
 * revision for renderable components; an AnimationPlayer's targets are not read by extraction: only
 * its dirty bit. A failed call (stale, absent) logs nothing. */
static void test_list_sets_listed(void **state)
{
    (void)state;
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_entity r = make(w, ORR_ENTITY_NONE, true), s = make(w, ORR_ENTITY_NONE, true), n = make(w, ORR_ENTITY_NONE, false);
    orr_entity p = make(w, ORR_ENTITY_NONE, false), gone = make(w, ORR_ENTITY_NONE, true);
    assert_int_equal(orr_component_add(w, s, ORR_COMPONENT_SKINNED_MESH, NULL, NULL), ORR_OK);
    assert_int_equal(orr_component_add(w, p, ORR_COMPONENT_ANIMATION_PLAYER, NULL, NULL), ORR_OK);
    assert_int_equal(orr_entity_destroy(w, gone), ORR_OK);
    orr_world_update_transforms(w);
    orr_world_clear_changes(w);
    orr_component_clear_dirty(w, ORR_COMPONENT_ANIMATION_PLAYER);
    orr_component_clear_dirty(w, ORR_COMPONENT_MESH_RENDERER);

    uint64_t rev = orr_world_revision(w);
    orr_material_id m = {1, 1};
    assert_int_equal(orr_mesh_renderer_set_materials(w, r, &m, 1), ORR_OK);
    orr_world_changes ch = orr_world_get_changes(w);
    assert_int_equal(ch.edited_count, 1);
    assert_true(lists(ch.edited, ch.edited_count, r));
    assert_true(orr_world_revision(w) > rev);
    assert_true(orr_component_is_dirty(w, r, ORR_COMPONENT_MESH_RENDERER));
    rev = orr_world_revision(w);
    assert_int_equal(orr_skinned_mesh_set_joints(w, s, &r, 1), ORR_OK);
    assert_true(orr_world_revision(w) > rev);
    assert_int_equal(orr_entity_set_name(w, n, "a name"), ORR_OK);
    rev = orr_world_revision(w);
    assert_int_equal(orr_animation_player_set_targets(w, p, &r, 1), ORR_OK);
    assert_int_equal(orr_world_revision(w), rev);
    assert_true(orr_component_is_dirty(w, p, ORR_COMPONENT_ANIMATION_PLAYER));
    /* refused calls change nothing */
    assert_int_equal(orr_mesh_renderer_set_materials(w, gone, &m, 1), ORR_ERROR_STALE_HANDLE);
    assert_int_equal(orr_skinned_mesh_set_joints(w, r, &r, 1), ORR_ERROR_NOT_FOUND);
    assert_int_equal(orr_mesh_renderer_set_material(w, r, UINT32_MAX, m), ORR_ERROR_INVALID_ARGUMENT);
    assert_int_equal(orr_world_revision(w), rev);
    ch = orr_world_get_changes(w);
    assert_false(ch.all);
    assert_int_equal(ch.edited_count, 3);
    assert_true(lists(ch.edited, ch.edited_count, s) && lists(ch.edited, ch.edited_count, n));
    assert_false(lists(ch.edited, ch.edited_count, p));
    /* set_material grows the list with none slots; a slot inside it is replaced in place */
    orr_world_clear_changes(w);
    assert_int_equal(orr_mesh_renderer_set_material(w, s, 5, m), ORR_OK);
    uint32_t count;
    const orr_material_id *list = orr_mesh_renderer_materials(w, s, &count);
    assert_int_equal(count, 6);
    for (int k = 0; k < 5; k++) assert_true(orr_id_is_none(list[k]));
    assert_true(orr_id_eq(list[5], m));
    assert_int_equal(orr_mesh_renderer_set_material(w, s, 2, m), ORR_OK);
    assert_ptr_equal(orr_mesh_renderer_materials(w, s, &count), list);
    assert_true(orr_id_eq(list[2], m) && count == 6);
    assert_true(lists(orr_world_get_changes(w).edited, orr_world_get_changes(w).edited_count, s));
    orr_world_destroy(w);
}

/* The log holds at most one entry per entity and list, whatever happens in a frame. */
static void test_log_bounded(void **state)
{
    (void)state;
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_entity e[50];
    for (int i = 0; i < 50; i++) e[i] = make(w, i ? e[i / 2] : ORR_ENTITY_NONE, i % 2);
    orr_world_update_transforms(w);
    orr_world_clear_changes(w);
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 50; i++) {
            orr_entity_set_translation(w, e[i], (orr_vec3d){round, i, 0});
            if (i % 2) orr_mesh_renderer_edit(w, e[i]);
        }
        orr_world_update_transforms(w);
    }
    orr_world_changes ch = orr_world_get_changes(w);
    assert_int_equal(ch.moved_count, 50);
    assert_int_equal(ch.edited_count, 25);
    for (int i = 0; i < 50; i++) assert_true(lists(ch.moved, ch.moved_count, e[i]));
    orr_world_destroy(w);
}

/* The batches do what one call per entity does, in order, stale entities included: the same poses,
 * log, revision and result; the set names its first stale entity. At several thread counts (the batch
 * shared out from 16 entries on), with batches longer than the world (every entity repeated). */
static void batches_equal_single_calls(uint32_t threads, uint32_t moves)
{
    enum { N = 3000, MOVES = 10000 };
    orr_world *batched, *single;
    assert_int_equal(orr_world_create(NULL, &batched, NULL), ORR_OK);
    assert_int_equal(orr_world_create(NULL, &single, NULL), ORR_OK);
    orr_world_set_threads(batched, NULL, threads, 16);
    static orr_entity e[N], moved[MOVES];
    static orr_vec3d to[MOVES];
    assert_true(moves <= MOVES);
    for (int i = 0; i < N; i++) { /* a forest: every third a root, the others under an earlier one */
        orr_entity parent = i % 3 ? e[(i * 7) % i] : ORR_ENTITY_NONE;
        e[i] = make(batched, parent, i % 2);
        assert_true(orr_entity_eq(make(single, parent, i % 2), e[i]));
    }
    for (int i = 5; i < N; i += 97) { /* stale handles among the moved (a subtree goes with its root) */
        if (!orr_entity_is_alive(single, e[i])) continue;
        assert_int_equal(orr_entity_destroy(batched, e[i]), ORR_OK);
        assert_int_equal(orr_entity_destroy(single, e[i]), ORR_OK);
    }
    orr_world_update_transforms(batched);
    orr_world_update_transforms(single);
    orr_world_clear_changes(batched);
    orr_world_clear_changes(single);
    uint64_t seed = 7;
    for (int round = 0; round < 3; round++) {
        uint32_t first_stale = UINT32_MAX;
        for (uint32_t k = 0; k < moves; k++) { /* scattered, repeats included: the last one wins */
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            moved[k] = e[(seed >> 33) % N];
            to[k] = (orr_vec3d){(double)k, round, -(double)(seed >> 40)};
            orr_result rc = orr_entity_set_translation(single, moved[k], to[k]);
            if (rc != ORR_OK && first_stale == UINT32_MAX) first_stale = k;
        }
        uint64_t revision = orr_world_revision(single);
        assert_int_equal(orr_entity_set_translations(batched, moved, to, moves), ORR_ERROR_STALE_HANDLE);
        assert_int_equal(orr_world_revision(batched), revision);
        char expected[64];
        snprintf(expected, sizeof expected, "(the first: entities[%u], %u:%u)", first_stale, moved[first_stale].index,
                 moved[first_stale].generation);
        assert_non_null(strstr(orr_world_last_error(batched)->message, expected));
        orr_world_update_transforms(batched);
        orr_world_update_transforms(single);
        orr_world_changes a = orr_world_get_changes(batched), b = orr_world_get_changes(single);
        assert_int_equal(a.moved_count, b.moved_count);
        assert_memory_equal(a.moved, b.moved, b.moved_count * sizeof *b.moved);
        /* every pose, read in one batch from one world and one call at a time from the other */
        static orr_affine3d poses[N];
        assert_int_equal(orr_entity_cached_poses(batched, e, N, poses), ORR_ERROR_STALE_HANDLE);
        for (int i = 0; i < N; i++) {
            orr_affine3d one;
            orr_result rc = orr_entity_cached_pose(single, e[i], &one);
            assert_int_equal(rc, orr_entity_is_alive(batched, e[i]) ? ORR_OK : ORR_ERROR_STALE_HANDLE);
            assert_memory_equal(&poses[i], &one, sizeof one);
        }
        orr_world_clear_changes(batched);
        orr_world_clear_changes(single);
    }
    /* all live: ok, and an empty batch is no change */
    orr_entity live[2] = {e[1], e[2]};
    orr_vec3d where[2] = {{1, 2, 3}, {4, 5, 6}};
    assert_int_equal(orr_entity_set_translations(batched, live, where, 2), ORR_OK);
    assert_int_equal(orr_entity_set_translations(batched, NULL, NULL, 0), ORR_OK);
    orr_affine3d two[2];
    assert_int_equal(orr_entity_cached_poses(batched, live, 2, two), ORR_OK);
    /* a value that is not finite far into the batch refuses it whole: nothing set */
    uint64_t revision = orr_world_revision(batched);
    to[moves - 1].y = NAN;
    assert_int_equal(orr_entity_set_translations(batched, moved, to, moves), ORR_ERROR_INVALID_ARGUMENT);
    char expected[48];
    snprintf(expected, sizeof expected, "translation %u (", moves - 1);
    assert_non_null(strstr(orr_world_last_error(batched)->message, expected));
    assert_int_equal(orr_world_revision(batched), revision);
    orr_world_update_transforms(batched);
    assert_int_equal(orr_world_get_changes(batched).moved_count, 2);
    orr_world_destroy(batched);
    orr_world_destroy(single);
}

static void test_batches_equal_single_calls(void **state)
{
    (void)state;
    batches_equal_single_calls(1, 2500);
    static const uint32_t threads[] = {2, 3, 7, 16};
    for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
        batches_equal_single_calls(threads[i], 2500);
        batches_equal_single_calls(threads[i], 10000); /* several chunks of the lookup */
    }
}

/* Batches whose entities come in the order of the world's table (a host moving everything in the order
 * it made it), which the threads take by chunks of the batch rather than by ranges of the table: the same
 * poses, log (in the order of the dirty list: the table is not in pre-order, so propagation follows it),
 * revision and result as one call per entity, with stale entities among them, a batch starting part
 * way, and an entity given twice where two chunks meet (which the threads take by ranges again). In a
 * table in pre-order too, where propagation finds the dirty slots sorted already. */
static void ordered_batches_equal_single_calls(uint32_t threads, bool linear)
{
    enum { N = 20000 }; /* (over 64 chunks of dirty slots: their first roots are found on the threads too) */
    orr_world *batched, *single;
    assert_int_equal(orr_world_create(NULL, &batched, NULL), ORR_OK);
    assert_int_equal(orr_world_create(NULL, &single, NULL), ORR_OK);
    orr_world_set_threads(batched, NULL, threads, 16);
    static orr_entity e[N], moved[N + 1];
    static orr_vec3d to[N + 1];
    for (int i = 0; i < N; i++) { /* roots, each made last: the table's order */
        e[i] = make(batched, ORR_ENTITY_NONE, i % 2);
        assert_true(orr_entity_eq(make(single, ORR_ENTITY_NONE, i % 2), e[i]));
    }
    /* a few subtrees (too few for the table to be put back in pre-order): propagation follows links */
    for (int i = 0; !linear && i < 40; i++) {
        orr_entity child = e[(i * 97 + 50) % N], parent = e[(i * 131 + 7) % N];
        orr_result a = orr_entity_set_parent(batched, child, parent, ORR_KEEP_LOCAL);
        assert_int_equal(orr_entity_set_parent(single, child, parent, ORR_KEEP_LOCAL), a);
    }
    for (int i = 3; i < N; i += 211) { /* stale handles among them */
        if (!orr_entity_is_alive(single, e[i])) continue;
        assert_int_equal(orr_entity_destroy(batched, e[i]), ORR_OK);
        assert_int_equal(orr_entity_destroy(single, e[i]), ORR_OK);
    }
    orr_world_update_transforms(batched);
    orr_world_update_transforms(single);
    orr_world_clear_changes(batched);
    orr_world_clear_changes(single);
    for (int round = 0; round < 4; round++) {
        /* round 0: all of them; 1: from the 700th on, every third moved by one call first (already dirty);
         * 2: the 1023rd twice, where the first two chunks meet; 3: all again */
        uint32_t from = round == 1 ? 700 : 0, moves = 0;
        for (uint32_t i = from; i < N; i++) {
            moved[moves] = e[i];
            to[moves++] = (orr_vec3d){(double)i, round, -0.5 * i};
            if (round == 2 && i == 1023) {
                moved[moves] = e[i];
                to[moves++] = (orr_vec3d){-1.0, round, 2.0};
            }
        }
        if (round == 1)
            for (uint32_t i = from; i < N; i += 3) {
                orr_entity_set_translation(batched, e[i], (orr_vec3d){1, 1, 1});
                orr_entity_set_translation(single, e[i], (orr_vec3d){1, 1, 1});
            }
        for (uint32_t k = 0; k < moves; k++) orr_entity_set_translation(single, moved[k], to[k]);
        uint64_t revision = orr_world_revision(single);
        assert_int_equal(orr_entity_set_translations(batched, moved, to, moves), ORR_ERROR_STALE_HANDLE);
        assert_int_equal(orr_world_revision(batched), revision);
        orr_world_update_transforms(batched);
        orr_world_update_transforms(single);
        orr_world_changes a = orr_world_get_changes(batched), b = orr_world_get_changes(single);
        assert_int_equal(a.moved_count, b.moved_count);
        assert_memory_equal(a.moved, b.moved, b.moved_count * sizeof *b.moved);
        static orr_affine3d poses[N];
        orr_entity_cached_poses(batched, e, N, poses);
        for (int i = 0; i < N; i++) {
            orr_affine3d one;
            orr_entity_cached_pose(single, e[i], &one);
            assert_memory_equal(&poses[i], &one, sizeof one);
        }
        orr_world_clear_changes(batched);
        orr_world_clear_changes(single);
    }
    orr_world_destroy(batched);
    orr_world_destroy(single);
}

static void test_ordered_batches_equal_single_calls(void **state)
{
    (void)state;
    static const uint32_t threads[] = {1, 2, 3, 7, 16};
    for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
        ordered_batches_equal_single_calls(threads[i], false);
        ordered_batches_equal_single_calls(threads[i], true);
    }
}

const struct CMUnitTest orrt_world_changes_tests[] = {
    cmocka_unit_test(test_batches_equal_single_calls),
    cmocka_unit_test(test_ordered_batches_equal_single_calls),
    cmocka_unit_test(test_moves_and_edits_listed),
    cmocka_unit_test(test_log_bounded),
    cmocka_unit_test(test_list_sets_listed),
};
const size_t orrt_world_changes_count = sizeof orrt_world_changes_tests / sizeof orrt_world_changes_tests[0];
