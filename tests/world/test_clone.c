/* World clone: deep copy within a world and across worlds (the prefab path), resource ids shared,
 * references inside the subtree remapped (joints, animation targets, user hooks), outside ones kept
 * (or none across worlds), names and locals copied, capacity. */
#include "testutil.h"

#include <math.h>
#include <orrery/world.h>
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
    orr_skinned_mesh sk = {.skin = {7, 1}, .joint_count = 3};
    sk.joints[0] = r.hips;
    sk.joints[1] = r.leg;
    sk.joints[2] = r.outside;
    assert_int_equal(orr_component_add(w, r.hips, ORR_COMPONENT_SKINNED_MESH, &sk, NULL), ORR_OK);
    orr_mesh_renderer mr = orr_mesh_renderer_default();
    mr.mesh = (orr_mesh_id){4, 1};
    mr.materials[0] = (orr_material_id){9, 3};
    assert_int_equal(orr_component_add(w, r.hips, ORR_COMPONENT_MESH_RENDERER, &mr, NULL), ORR_OK);
    orr_animation_player ap = orr_animation_player_default();
    ap.clip = (orr_clip_id){2, 1};
    ap.target_count = 2;
    ap.targets[0] = r.leg;
    ap.targets[1] = r.outside;
    assert_int_equal(orr_component_add(w, r.anim, ORR_COMPONENT_ANIMATION_PLAYER, &ap, NULL), ORR_OK);
    link l1 = {r.hips, 11}, l2 = {r.outside, 22};
    assert_int_equal(orr_component_add(w, r.leg, link_type, &l1, NULL), ORR_OK);
    assert_int_equal(orr_component_add(w, r.anim, link_type, &l2, NULL), ORR_OK);
    return r;
}

static void test_clone_same_world(void **state)
{
    (void)state;
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w), ORR_OK);
    orr_component_type lt = register_link(w);
    rig r = make_rig(w, lt);
    orr_entity holder = make(w, "holder", ORR_ENTITY_NONE, 0);
    uint64_t sv = orr_world_structure_version(w);
    orr_entity c;
    assert_int_equal(orr_world_clone(w, NULL, r.root, holder, NULL, &c), ORR_OK);
    assert_true(orr_world_structure_version(w) > sv);
    assert_int_equal(orr_world_entity_count(w), 10);
    assert_true(ORR_ENTITY_EQ(orr_entity_parent(w, c), holder));
    assert_string_equal(orr_entity_name(w, c), "root");
    orr_entity ch = orr_world_find(w, c, "hips"), cl = orr_world_find(w, c, "hips/leg"), ca = orr_world_find(w, c, "anim");
    assert_true(ch.generation && cl.generation && ca.generation);
    assert_false(ORR_ENTITY_EQ(ch, r.hips));
    /* locals copied */
    orr_transform t;
    orr_entity_get_local(w, cl, &t);
    assert_true(t.translation.x == 3);
    orr_entity_get_local(w, c, &t);
    assert_true(t.translation.x == 1);
    /* resource ids shared */
    const orr_mesh_renderer *mr = ORR_GET(w, ch, orr_mesh_renderer, ORR_COMPONENT_MESH_RENDERER);
    assert_int_equal(mr->mesh.index, 4);
    assert_int_equal(mr->materials[0].index, 9);
    /* joints: inside remapped, outside kept */
    const orr_skinned_mesh *sk = ORR_GET(w, ch, orr_skinned_mesh, ORR_COMPONENT_SKINNED_MESH);
    assert_int_equal(sk->skin.index, 7);
    assert_true(ORR_ENTITY_EQ(sk->joints[0], ch));
    assert_true(ORR_ENTITY_EQ(sk->joints[1], cl));
    assert_true(ORR_ENTITY_EQ(sk->joints[2], r.outside));
    const orr_animation_player *ap = ORR_GET(w, ca, orr_animation_player, ORR_COMPONENT_ANIMATION_PLAYER);
    assert_true(ORR_ENTITY_EQ(ap->targets[0], cl));
    assert_true(ORR_ENTITY_EQ(ap->targets[1], r.outside));
    /* user remap hook */
    const link *l1 = orr_component_get(w, cl, lt), *l2 = orr_component_get(w, ca, lt);
    assert_true(ORR_ENTITY_EQ(l1->target, ch));
    assert_int_equal(l1->value, 11);
    assert_true(ORR_ENTITY_EQ(l2->target, r.outside));
    /* the source is untouched */
    sk = ORR_GET(w, r.hips, orr_skinned_mesh, ORR_COMPONENT_SKINNED_MESH);
    assert_true(ORR_ENTITY_EQ(sk->joints[1], r.leg));
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
    assert_true(ORR_ENTITY_EQ(orr_entity_parent(w, c3), r.leg));
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
    assert_int_equal(orr_world_create(NULL, &prefab), ORR_OK);
    assert_int_equal(orr_world_create(NULL, &w), ORR_OK);
    orr_component_type lt = register_link(prefab);
    rig r = make_rig(prefab, lt);
    make(w, "first", ORR_ENTITY_NONE, 0);
    orr_entity a, b;
    assert_int_equal(orr_world_clone(w, prefab, r.root, ORR_ENTITY_NONE, NULL, &a), ORR_OK);
    assert_int_equal(orr_world_clone(w, prefab, r.root, ORR_ENTITY_NONE, NULL, &b), ORR_OK);
    assert_int_equal(orr_world_entity_count(w), 9);
    orr_entity ah = orr_world_find(w, a, "hips"), al = orr_world_find(w, a, "hips/leg"), aa = orr_world_find(w, a, "anim");
    const orr_skinned_mesh *sk = ORR_GET(w, ah, orr_skinned_mesh, ORR_COMPONENT_SKINNED_MESH);
    assert_true(ORR_ENTITY_EQ(sk->joints[0], ah));
    assert_true(ORR_ENTITY_EQ(sk->joints[1], al));
    assert_int_equal(sk->joints[2].generation, 0); /* outside, across worlds: none */
    const orr_animation_player *ap = ORR_GET(w, aa, orr_animation_player, ORR_COMPONENT_ANIMATION_PLAYER);
    assert_true(ORR_ENTITY_EQ(ap->targets[0], al));
    assert_int_equal(ap->targets[1].generation, 0);
    /* the user type was matched by name (registered here on first use) */
    orr_component_type wt;
    assert_int_equal(orr_world_find_component(w, "Link", &wt), ORR_OK);
    const link *l = orr_component_get(w, al, wt);
    assert_true(ORR_ENTITY_EQ(l->target, ah));
    assert_int_equal(orr_world_component_count(w, wt), 4);
    /* instances are independent */
    orr_entity bh = orr_world_find(w, b, "hips");
    assert_false(ORR_ENTITY_EQ(ah, bh));
    sk = ORR_GET(w, bh, orr_skinned_mesh, ORR_COMPONENT_SKINNED_MESH);
    assert_true(ORR_ENTITY_EQ(sk->joints[0], bh));
    /* the prefab stays as it was */
    assert_int_equal(orr_world_entity_count(prefab), 5);
    orr_world_destroy(prefab);
    orr_world_destroy(w);
}

const struct CMUnitTest orrt_world_clone_tests[] = {
    cmocka_unit_test(test_clone_same_world),
    cmocka_unit_test(test_clone_across_worlds),
};
const size_t orrt_world_clone_count = sizeof orrt_world_clone_tests / sizeof orrt_world_clone_tests[0];
