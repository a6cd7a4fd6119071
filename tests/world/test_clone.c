/* World clone: deep copy within a world and across worlds (the prefab path), resource ids shared,
 * references inside the subtree remapped (joints, animation targets, user hooks), outside ones kept
 * (or none across worlds), names and locals copied, capacity. */
#include "testutil.h"

#include <math.h>
#include <orrery/world.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static orr_entity make(orr_world *w, const char *name, orr_entity parent, double x)
{
    orr_transform t = orr_transform_identity();
    t.translation = (orr_vec3d){x, 0, 0};
    orr_entity_desc d = {.name = name, .parent = parent, .local = &t};
    orr_entity e;
    assert_int_equal(orr_entity_create(w, &d, &e), ORR_OK);
    return e;
}

typedef struct link {
    orr_entity target;
    uint32_t value;
} link;

static void link_remap(void *component, orr_entity_map_fn map, void *map_user, void *user)
{
    (void)user;
    link *l = component;
    l->target = map(map_user, l->target);
}

static orr_component_type register_link(orr_world *w)
{
    orr_component_desc d = {.name = "Link", .size = sizeof(link), .alignment = 4, .remap = link_remap};
    orr_component_type t;
    assert_int_equal(orr_world_register_component(w, &d, &t), ORR_OK);
    return t;
}

/* root
 *   hips (SkinnedMesh joints: hips, leg, outside)
 *     leg (Link -> hips)
 *   anim (AnimationPlayer targets: leg, outside; Link -> outside)
 * outside */
typedef struct rig {
    orr_entity root, hips, leg, anim, outside;
} rig;

static rig make_rig(orr_world *w, orr_component_type link_type)
{
    rig r;
    r.root = make(w, "root", ORR_ENTITY_NONE, 1);
    r.hips = make(w, "hips", r.root, 2);
    r.leg = make(w, "leg", r.hips, 3);
    r.anim = make(w, "anim", r.root, 4);
    r.outside = make(w, "outside", ORR_ENTITY_NONE, 5);
    orr_skinned_mesh sk = {.skin = {7, 1}};
    assert_int_equal(orr_component_add(w, r.hips, ORR_COMPONENT_SKINNED_MESH, &sk, NULL), ORR_OK);
    assert_int_equal(orr_skinned_mesh_set_joints(w, r.hips, (orr_entity[]){r.hips, r.leg, r.outside}, 3), ORR_OK);
    orr_mesh_renderer mr = orr_mesh_renderer_default();
    mr.mesh = (orr_mesh_id){4, 1};
    assert_int_equal(orr_component_add(w, r.hips, ORR_COMPONENT_MESH_RENDERER, &mr, NULL), ORR_OK);
    assert_int_equal(orr_mesh_renderer_set_material(w, r.hips, 0, (orr_material_id){9, 3}), ORR_OK);
    orr_animation_player ap = orr_animation_player_default();
    ap.clip = (orr_clip_id){2, 1};
    assert_int_equal(orr_component_add(w, r.anim, ORR_COMPONENT_ANIMATION_PLAYER, &ap, NULL), ORR_OK);
    assert_int_equal(orr_animation_player_set_targets(w, r.anim, (orr_entity[]){r.leg, r.outside}, 2), ORR_OK);
    link l1 = {r.hips, 11}, l2 = {r.outside, 22};
    assert_int_equal(orr_component_add(w, r.leg, link_type, &l1, NULL), ORR_OK);
    assert_int_equal(orr_component_add(w, r.anim, link_type, &l2, NULL), ORR_OK);
    return r;
}

static void test_clone_same_world(void **state)
{
    (void)state;
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_component_type lt = register_link(w);
    rig r = make_rig(w, lt);
    orr_entity holder = make(w, "holder", ORR_ENTITY_NONE, 0);
    uint64_t sv = orr_world_structure_version(w);
    orr_entity c;
    assert_int_equal(orr_world_clone(w, NULL, r.root, holder, NULL, &c), ORR_OK);
    assert_true(orr_world_structure_version(w) > sv);
    assert_int_equal(orr_world_entity_count(w), 10);
    assert_true(orr_entity_eq(orr_entity_parent(w, c), holder));
    assert_string_equal(orr_entity_name(w, c), "root");
    orr_entity ch = orr_world_find(w, c, "hips"), cl = orr_world_find(w, c, "hips/leg"), ca = orr_world_find(w, c, "anim");
    assert_true(ch.generation && cl.generation && ca.generation);
    assert_false(orr_entity_eq(ch, r.hips));
    /* locals copied */
    orr_transform t;
    orr_entity_get_local(w, cl, &t);
    assert_true(t.translation.x == 3);
    orr_entity_get_local(w, c, &t);
    assert_true(t.translation.x == 1);
    /* resource ids shared */
    const orr_mesh_renderer *mr = orr_mesh_renderer_try_get(w, ch);
    assert_int_equal(mr->mesh.index, 4);
    uint32_t n;
    const orr_material_id *mats = orr_mesh_renderer_materials(w, ch, &n);
    assert_int_equal(n, 1);
    assert_int_equal(mats[0].index, 9);
    /* the copy is the clone's own: its list is not the source's array */
    assert_ptr_not_equal(mats, orr_mesh_renderer_materials(w, r.hips, NULL));
    /* joints: inside remapped, outside kept */
    const orr_skinned_mesh *sk = orr_skinned_mesh_try_get(w, ch);
    assert_int_equal(sk->skin.index, 7);
    const orr_entity *joints = orr_skinned_mesh_joints(w, ch, &n);
    assert_int_equal(n, 3);
    assert_true(orr_entity_eq(joints[0], ch));
    assert_true(orr_entity_eq(joints[1], cl));
    assert_true(orr_entity_eq(joints[2], r.outside));
    const orr_entity *targets = orr_animation_player_targets(w, ca, &n);
    assert_int_equal(n, 2);
    assert_true(orr_entity_eq(targets[0], cl));
    assert_true(orr_entity_eq(targets[1], r.outside));
    /* user remap hook */
    const link *l1 = orr_component_get(w, cl, lt), *l2 = orr_component_get(w, ca, lt);
    assert_true(orr_entity_eq(l1->target, ch));
    assert_int_equal(l1->value, 11);
    assert_true(orr_entity_eq(l2->target, r.outside));
    /* the source is untouched */
    assert_true(orr_entity_eq(orr_skinned_mesh_joints(w, r.hips, NULL)[1], r.leg));
    /* a local for the clone's root; world matrices follow */
    orr_transform at = orr_transform_identity();
    at.translation = (orr_vec3d){100, 0, 0};
    orr_entity c2;
    assert_int_equal(orr_world_clone(w, NULL, r.hips, ORR_ENTITY_NONE, &at, &c2), ORR_OK);
    orr_world_update_transforms(w);
    orr_mat4d m;
    assert_int_equal(orr_entity_cached_world(w, orr_entity_first_child(w, c2), &m), ORR_OK);
    assert_true(orr_mat4d_translation(&m).x == 103);
    /* clone a subtree under one of its own nodes */
    orr_entity c3;
    assert_int_equal(orr_world_clone(w, NULL, r.root, r.leg, NULL, &c3), ORR_OK);
    assert_true(orr_entity_eq(orr_entity_parent(w, c3), r.leg));
    assert_int_equal(orr_world_entity_count(w), 10 + 2 + 4);
    orr_entity stale = r.outside;
    orr_entity_destroy(w, r.outside);
    assert_int_equal(orr_world_clone(w, NULL, stale, ORR_ENTITY_NONE, NULL, &c3), ORR_ERROR_STALE_HANDLE);
    orr_world_destroy(w);
}

static void test_clone_across_worlds(void **state)
{
    (void)state;
    orr_world *prefab, *w;
    assert_int_equal(orr_world_create(NULL, &prefab, NULL), ORR_OK);
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_component_type lt = register_link(prefab);
    rig r = make_rig(prefab, lt);
    make(w, "first", ORR_ENTITY_NONE, 0);
    orr_entity a, b;
    assert_int_equal(orr_world_clone(w, prefab, r.root, ORR_ENTITY_NONE, NULL, &a), ORR_OK);
    assert_int_equal(orr_world_clone(w, prefab, r.root, ORR_ENTITY_NONE, NULL, &b), ORR_OK);
    assert_int_equal(orr_world_entity_count(w), 9);
    orr_entity ah = orr_world_find(w, a, "hips"), al = orr_world_find(w, a, "hips/leg"), aa = orr_world_find(w, a, "anim");
    uint32_t n;
    const orr_entity *joints = orr_skinned_mesh_joints(w, ah, &n);
    assert_int_equal(n, 3);
    assert_true(orr_entity_eq(joints[0], ah));
    assert_true(orr_entity_eq(joints[1], al));
    assert_int_equal(joints[2].generation, 0); /* outside, across worlds: none */
    const orr_entity *targets = orr_animation_player_targets(w, aa, &n);
    assert_int_equal(n, 2);
    assert_true(orr_entity_eq(targets[0], al));
    assert_int_equal(targets[1].generation, 0);
    assert_int_equal(orr_mesh_renderer_materials(w, ah, &n)[0].index, 9);
    assert_int_equal(n, 1);
    /* the user type was matched by name (registered here on first use) */
    orr_component_type wt;
    assert_int_equal(orr_world_find_component(w, "Link", &wt), ORR_OK);
    const link *l = orr_component_get(w, al, wt);
    assert_true(orr_entity_eq(l->target, ah));
    assert_int_equal(orr_world_component_count(w, wt), 4);
    /* instances are independent */
    orr_entity bh = orr_world_find(w, b, "hips");
    assert_false(orr_entity_eq(ah, bh));
    assert_true(orr_entity_eq(orr_skinned_mesh_joints(w, bh, NULL)[0], bh));
    /* the prefab stays as it was */
    assert_int_equal(orr_world_entity_count(prefab), 5);
    orr_world_destroy(prefab);
    orr_world_destroy(w);
}

/* Counts what the world holds through its allocator. */
typedef struct counting {
    size_t live;
} counting;

static void *counting_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    counting *c = user;
    if (new_size == 0) {
        if (ptr) c->live -= old_size;
        free(ptr);
        return NULL;
    }
    void *p = realloc(ptr, new_size);
    if (p) c->live += new_size - (ptr ? old_size : 0);
    return p;
}

/* Lists far past the old caps (256 joints, 256 targets, 8 material slots, 63-byte names): cloned deeply
 * and remapped, within a world and across worlds; destroying the clone gives their memory back. */
static void test_clone_large_lists(void **state)
{
    (void)state;
    enum { BONES = 5000, SLOTS = 300, NAME = 10000 };
    counting cnt = {0};
    orr_world_desc wd = {.allocator = {.realloc = counting_realloc, .user = &cnt}};
    orr_world *w, *other;
    assert_int_equal(orr_world_create(&wd, &w, NULL), ORR_OK);
    assert_int_equal(orr_world_create(NULL, &other, NULL), ORR_OK);
    char *long_name = malloc(NAME + 1);
    assert_non_null(long_name);
    for (int i = 0; i < NAME; i++) long_name[i] = (char)('a' + i % 26);
    long_name[NAME] = '\0';
    orr_entity root = make(w, long_name, ORR_ENTITY_NONE, 0), outside = make(w, "outside", ORR_ENTITY_NONE, 0);
    orr_entity *bones = malloc(sizeof *bones * BONES);
    assert_non_null(bones);
    for (int j = 0; j < BONES; j++) bones[j] = make(w, j % 2 ? long_name : "bone", j ? bones[j - 1] : root, 0.01);
    bones[BONES - 1] = outside; /* one joint outside the subtree */
    orr_material_id mats[SLOTS];
    for (uint32_t i = 0; i < SLOTS; i++) mats[i] = (orr_material_id){i + 1, i % 3 ? 1 : 0};
    assert_int_equal(orr_component_add(w, root, ORR_COMPONENT_MESH_RENDERER, NULL, NULL), ORR_OK);
    assert_int_equal(orr_mesh_renderer_set_materials(w, root, mats, SLOTS), ORR_OK);
    assert_int_equal(orr_component_add(w, root, ORR_COMPONENT_SKINNED_MESH, NULL, NULL), ORR_OK);
    assert_int_equal(orr_skinned_mesh_set_joints(w, root, bones, BONES), ORR_OK);
    assert_int_equal(orr_component_add(w, root, ORR_COMPONENT_ANIMATION_PLAYER, NULL, NULL), ORR_OK);
    assert_int_equal(orr_animation_player_set_targets(w, root, bones, BONES), ORR_OK);
    assert_string_equal(orr_entity_name(w, root), long_name);

    size_t before = cnt.live;
    orr_entity c;
    assert_int_equal(orr_world_clone(w, NULL, root, ORR_ENTITY_NONE, NULL, &c), ORR_OK);
    size_t with_one = cnt.live;
    uint32_t n;
    const orr_entity *joints = orr_skinned_mesh_joints(w, c, &n), *targets = orr_animation_player_targets(w, c, NULL);
    assert_int_equal(n, BONES);
    orr_entity cb = c;
    for (int j = 0; j < BONES - 1; j++) {
        cb = orr_entity_first_child(w, cb);
        assert_true(orr_entity_eq(joints[j], cb) && orr_entity_eq(targets[j], cb));
        assert_string_equal(orr_entity_name(w, cb), j % 2 ? long_name : "bone");
    }
    assert_true(orr_entity_eq(joints[BONES - 1], outside));
    const orr_material_id *cm = orr_mesh_renderer_materials(w, c, &n);
    assert_int_equal(n, SLOTS);
    assert_memory_equal(cm, mats, sizeof mats);
    assert_string_equal(orr_entity_name(w, c), long_name);
    /* find by path with long names */
    char *path = malloc(3 * (NAME + 1) + 1);
    assert_non_null(path);
    snprintf(path, 3 * (NAME + 1) + 1, "bone/%s/bone", long_name);
    orr_entity found = orr_world_find(w, c, path);
    assert_true(orr_entity_eq(found, orr_entity_first_child(w, orr_entity_first_child(w, orr_entity_first_child(w, c)))));
    path[strlen(path) - 1] = '\0'; /* "bon": no match, nor a prefix match */
    assert_int_equal(orr_world_find(w, c, path).generation, 0);
    free(path);

    /* destroy gives the lists back: the clone's lists are gone with it, and clones made and destroyed
     * over and over hold no more than one (once the tables have their room) */
    assert_int_equal(orr_entity_destroy(w, c), ORR_OK);
    assert_true(with_one - cnt.live >= (size_t)BONES / 2 * NAME + 2 * (size_t)BONES * sizeof(orr_entity));
    size_t settled = 0;
    for (int round = 0; round < 4; round++) {
        assert_int_equal(orr_world_clone(w, NULL, root, ORR_ENTITY_NONE, NULL, &c), ORR_OK);
        if (round == 2) settled = cnt.live;
        if (round == 3) assert_int_equal(cnt.live, settled);
        assert_int_equal(orr_entity_destroy(w, c), ORR_OK);
    }
    assert_true(cnt.live >= before);

    /* across worlds: inside remapped, outside none */
    orr_entity oc;
    assert_int_equal(orr_world_clone(other, w, root, ORR_ENTITY_NONE, NULL, &oc), ORR_OK);
    joints = orr_skinned_mesh_joints(other, oc, &n);
    assert_int_equal(n, BONES);
    assert_true(orr_entity_eq(joints[0], orr_entity_first_child(other, oc)));
    assert_int_equal(joints[BONES - 1].generation, 0);
    assert_string_equal(orr_entity_name(other, oc), long_name);

    /* removing a component frees its list; stale entities read empty and are refused */
    size_t with_lists = cnt.live;
    assert_int_equal(orr_component_remove(w, root, ORR_COMPONENT_SKINNED_MESH), ORR_OK);
    assert_true(with_lists - cnt.live >= (size_t)BONES * sizeof(orr_entity));
    assert_null(orr_skinned_mesh_joints(w, root, &n));
    assert_int_equal(n, 0);
    assert_int_equal(orr_skinned_mesh_set_joints(w, root, bones, 2), ORR_ERROR_NOT_FOUND);
    assert_non_null(strstr(orr_world_last_error(w)->message, "SkinnedMesh"));
    orr_entity gone = root;
    assert_int_equal(orr_entity_destroy(w, root), ORR_OK);
    assert_null(orr_mesh_renderer_materials(w, gone, &n));
    assert_int_equal(n, 0);
    assert_string_equal(orr_entity_name(w, gone), "");
    assert_int_equal(orr_mesh_renderer_set_materials(w, gone, mats, 1), ORR_ERROR_STALE_HANDLE);
    assert_int_equal(orr_entity_set_name(w, gone, "x"), ORR_ERROR_STALE_HANDLE);
    free(bones);
    free(long_name);
    orr_world_destroy(w);
    assert_int_equal(cnt.live, 0);
    orr_world_destroy(other);
}

const struct CMUnitTest orrt_world_clone_tests[] = {
    cmocka_unit_test(test_clone_large_lists),
    cmocka_unit_test(test_clone_same_world),
    cmocka_unit_test(test_clone_across_worlds),
};
const size_t orrt_world_clone_count = sizeof orrt_world_clone_tests / sizeof orrt_world_clone_tests[0];
