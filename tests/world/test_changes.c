/* The change log: what a reader of the world (frame extraction) is told changed since the last clear. */
#include "testutil.h"

#include <orrery/world.h>
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
    assert_int_equal(orr_world_create(NULL, &w), ORR_OK);
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
    assert_non_null(ORR_EDIT(w, other, orr_mesh_renderer, ORR_COMPONENT_MESH_RENDERER));
    assert_non_null(ORR_GET(w, root, orr_mesh_renderer, ORR_COMPONENT_MESH_RENDERER));
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
    assert_non_null(ORR_EDIT(w, other, orr_mesh_renderer, ORR_COMPONENT_MESH_RENDERER));
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

/* The log holds at most one entry per entity and list, whatever happens in a frame. */
static void test_log_bounded(void **state)
{
    (void)state;
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w), ORR_OK);
    orr_entity e[50];
    for (int i = 0; i < 50; i++) e[i] = make(w, i ? e[i / 2] : ORR_ENTITY_NONE, i % 2);
    orr_world_update_transforms(w);
    orr_world_clear_changes(w);
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 50; i++) {
            orr_entity_set_translation(w, e[i], (orr_vec3d){round, i, 0});
            if (i % 2) ORR_EDIT(w, e[i], orr_mesh_renderer, ORR_COMPONENT_MESH_RENDERER);
        }
        orr_world_update_transforms(w);
    }
    orr_world_changes ch = orr_world_get_changes(w);
    assert_int_equal(ch.moved_count, 50);
    assert_int_equal(ch.edited_count, 25);
    for (int i = 0; i < 50; i++) assert_true(lists(ch.moved, ch.moved_count, e[i]));
    orr_world_destroy(w);
}

const struct CMUnitTest orrt_world_changes_tests[] = {
    cmocka_unit_test(test_moves_and_edits_listed),
    cmocka_unit_test(test_log_bounded),
};
const size_t orrt_world_changes_count = sizeof orrt_world_changes_tests / sizeof orrt_world_changes_tests[0];
