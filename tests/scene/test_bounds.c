/* orr_scene_bounds: the world-space box of a subtree's renderables, as zoom-to-fit uses it. The
 * expected boxes are worked out by hand from the poses below. */
#include "scene_tests.h"

#include <math.h>
#include <orrery/world.h>

/* A cube [-1, 1]^3 (8 corners, 12 triangles). */
static orr_mesh_id add_cube(orr_assets *assets)
{
    static const float pos[24] = {-1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1,
                                  -1, -1, 1,  1, -1, 1,  1, 1, 1,  -1, 1, 1};
    static const uint32_t idx[36] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                     3, 6, 2, 3, 7, 6, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5};
    orr_primitive_desc p = {.vertex_count = 8, .positions = pos, .index_count = 36, .indices = idx};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(assets, &(orr_mesh_desc){.name = "cube", .primitive_count = 1, .primitives = &p},
                                         &id),
                     ORR_OK);
    return id;
}

static orr_entity add(orr_world *w, orr_entity parent, orr_vec3d t, orr_quatd r, double s)
{
    orr_transform local = orr_transform_identity();
    local.translation = t;
    local.rotation = r;
    local.scale = (orr_vec3d){s, s, s};
    orr_entity e;
    assert_int_equal(orr_entity_create(w, &(orr_entity_desc){.parent = parent, .local = &local}, &e), ORR_OK);
    return e;
}

static void give_mesh(orr_world *w, orr_entity e, orr_mesh_id mesh, bool visible)
{
    orr_mesh_renderer mr = orr_mesh_renderer_default();
    mr.mesh = mesh;
    mr.visible = visible;
    assert_int_equal(orr_component_add(w, e, ORR_COMPONENT_MESH_RENDERER, &mr, NULL), ORR_OK);
}

static void assert_box(orr_aabbd b, double x0, double y0, double z0, double x1, double y1, double z1)
{
    const double got[6] = {b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z};
    const double want[6] = {x0, y0, z0, x1, y1, z1};
    for (int i = 0; i < 6; i++)
        if (fabs(got[i] - want[i]) > 1e-9 * fmax(1.0, fabs(want[i])))
            fail_msg("box (%.12g %.12g %.12g)..(%.12g %.12g %.12g), expected (%.12g %.12g %.12g)..(%.12g %.12g %.12g)",
                     got[0], got[1], got[2], got[3], got[4], got[5], x0, y0, z0, x1, y1, z1);
}

#define Q_IDENTITY ORR_QUAT_IDENTITY

static void test_bounds_hierarchy(void **state)
{
    (void)state;
    orr_assets *assets;
    assert_int_equal(orr_assets_create(NULL, &assets, NULL), ORR_OK);
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_mesh_id cube = add_cube(assets);

    /* root R at x = 10 (no mesh); A under it at y = 5, scale 2: x 8..12, y 3..7, z -2..2 */
    orr_entity r = add(w, ORR_ENTITY_NONE, (orr_vec3d){10, 0, 0}, Q_IDENTITY, 1);
    orr_entity a = add(w, r, (orr_vec3d){0, 5, 0}, Q_IDENTITY, 2);
    give_mesh(w, a, cube, true);
    /* B under A at local x = 3 (6 m in the world: A's scale), turned 45 degrees about Y: its corners
     * reach 2 sqrt 2 from its centre (16, 5, 0) in x and z */
    orr_entity b = add(w, a, (orr_vec3d){3, 0, 0}, orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, ORR_PI / 4), 1);
    give_mesh(w, b, cube, true);
    /* hidden, far away: counts for nothing */
    orr_entity hidden = add(w, r, (orr_vec3d){1000, 0, 0}, Q_IDENTITY, 1);
    give_mesh(w, hidden, cube, false);
    /* a light and a camera far away: not renderables */
    orr_entity lamp = add(w, r, (orr_vec3d){0, -900, 0}, Q_IDENTITY, 1);
    assert_int_equal(orr_component_add(w, lamp, ORR_COMPONENT_LIGHT, NULL, NULL), ORR_OK);
    orr_entity cam = add(w, r, (orr_vec3d){0, 0, 900}, Q_IDENTITY, 1);
    assert_int_equal(orr_component_add(w, cam, ORR_COMPONENT_CAMERA, NULL, NULL), ORR_OK);
    /* a renderer whose mesh was removed: skipped, as the renderer skips it */
    orr_mesh_id gone = add_cube(assets);
    orr_entity stale = add(w, r, (orr_vec3d){-900, 0, 0}, Q_IDENTITY, 1);
    give_mesh(w, stale, gone, true);
    assert_int_equal(orr_assets_remove_mesh(assets, gone), ORR_OK);
    /* another root, at x = -50 */
    orr_entity d = add(w, ORR_ENTITY_NONE, (orr_vec3d){-50, 0, 0}, Q_IDENTITY, 1);
    give_mesh(w, d, cube, true);

    const double s2 = 2.0 * sqrt(2.0);
    orr_aabbd box;
    assert_int_equal(orr_scene_bounds(w, assets, r, &box), ORR_OK);
    assert_box(box, 8, 3, -s2, 16 + s2, 7, s2);
    assert_int_equal(orr_scene_bounds(w, assets, b, &box), ORR_OK);
    assert_box(box, 16 - s2, 3, -s2, 16 + s2, 7, s2);
    assert_int_equal(orr_scene_bounds(w, assets, ORR_ENTITY_NONE, &box), ORR_OK);
    assert_box(box, -51, -1, -s2, 16 + s2, 7, s2);

    /* poses as they are now: a move not yet propagated is seen */
    assert_int_equal(orr_entity_set_translation(w, r, (orr_vec3d){0, 0, 100}), ORR_OK);
    assert_int_equal(orr_scene_bounds(w, assets, r, &box), ORR_OK);
    assert_box(box, -2, 3, 100 - s2, 6 + s2, 7, 100 + s2);
    /* showing the hidden one takes it in */
    orr_mesh_renderer *mr = orr_mesh_renderer_edit(w, hidden);
    mr->visible = true;
    assert_int_equal(orr_scene_bounds(w, assets, r, &box), ORR_OK);
    assert_box(box, -2, -1, 100 - s2, 1001, 7, 100 + s2); /* the hidden one spans y -1..1 */

    /* nothing renderable: ORR_OK and an empty box */
    assert_int_equal(orr_scene_bounds(w, assets, lamp, &box), ORR_OK);
    assert_true(orr_aabbd_is_empty(box));
    /* a stale root: refused, empty box */
    assert_int_equal(orr_entity_destroy(w, d), ORR_OK);
    box = (orr_aabbd){{0, 0, 0}, {1, 1, 1}};
    assert_int_equal(orr_scene_bounds(w, assets, d, &box), ORR_ERROR_STALE_HANDLE);
    assert_true(orr_aabbd_is_empty(box));

    orr_world_destroy(w);
    orr_assets_destroy(assets);
}

/* A skinned cube is drawn where its joints put it (joint world x inverse bind), not at its entity. */
static void test_bounds_skinned(void **state)
{
    (void)state;
    orr_assets *assets;
    assert_int_equal(orr_assets_create(NULL, &assets, NULL), ORR_OK);
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_mesh_id cube = add_cube(assets);
    /* joint 0 at x = 100 with an inverse bind that takes it back: the cube stays at the origin;
     * joint 1 at y = 100 with an identity inverse bind: a cube at y = 100 */
    orr_mat4d ibm[2];
    orr_mat4d_from_trs((orr_vec3d){-100, 0, 0}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &ibm[0]);
    orr_mat4d_identity(&ibm[1]);
    orr_skin_id skin;
    assert_int_equal(orr_assets_add_skin(assets, &(orr_skin_desc){.joint_count = 2, .inverse_bind = ibm}, &skin), ORR_OK);

    orr_entity root = add(w, ORR_ENTITY_NONE, (orr_vec3d){0, 0, 0}, ORR_QUAT_IDENTITY, 1);
    orr_entity j0 = add(w, root, (orr_vec3d){100, 0, 0}, ORR_QUAT_IDENTITY, 1);
    orr_entity j1 = add(w, root, (orr_vec3d){0, 100, 0}, ORR_QUAT_IDENTITY, 1);
    /* the skinned entity's own pose (x = -500) is not where it is drawn */
    orr_entity body = add(w, root, (orr_vec3d){-500, 0, 0}, ORR_QUAT_IDENTITY, 1);
    give_mesh(w, body, cube, true);
    orr_skinned_mesh sm = {.skin = skin};
    assert_int_equal(orr_component_add(w, body, ORR_COMPONENT_SKINNED_MESH, &sm, NULL), ORR_OK);
    assert_int_equal(orr_skinned_mesh_set_joints(w, body, (orr_entity[]){j0, j1}, 2), ORR_OK);

    orr_aabbd box;
    assert_int_equal(orr_scene_bounds(w, assets, root, &box), ORR_OK);
    assert_box(box, -1, -1, -1, 1, 101, 1);
    /* moving a joint moves the box */
    assert_int_equal(orr_entity_set_translation(w, j1, (orr_vec3d){0, 0, -40}), ORR_OK);
    assert_int_equal(orr_scene_bounds(w, assets, body, &box), ORR_OK);
    assert_box(box, -1, -1, -41, 1, 1, 1);
    /* with both joints gone the entity's own pose is used */
    assert_int_equal(orr_entity_destroy(w, j0), ORR_OK);
    assert_int_equal(orr_entity_destroy(w, j1), ORR_OK);
    assert_int_equal(orr_scene_bounds(w, assets, root, &box), ORR_OK);
    assert_box(box, -501, -1, -1, -499, 1, 1);

    orr_world_destroy(w);
    orr_assets_destroy(assets);
}

/* A loaded prefab, instantiated twice side by side: the box of both is the union of each. */
static void test_bounds_prefab(void **state)
{
    (void)state;
    /* one triangle (0,0,0) (1,0,0) (0,1,0) on a node at z = 2 */
    static const char json[] =
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
        "\"nodes\":[{\"mesh\":0,\"translation\":[0,0,2]}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
        "\"min\":[0,0,0],\"max\":[1,1,0]}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
        "\"buffers\":[{\"byteLength\":36,\"uri\":\"data:application/octet-stream;base64,"
        "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA\"}]}";
    orr_assets *assets;
    assert_int_equal(orr_assets_create(NULL, &assets, NULL), ORR_OK);
    orr_prefab_id prefab;
    orr_error err;
    if (orrt_load_text(assets, json, "bounds_tri", &prefab, &err) != ORR_OK) fail_msg("%s", err.message);
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_transform at = orr_transform_identity();
    orr_entity first, second;
    assert_int_equal(orr_prefab_instantiate(w, assets, prefab, ORR_ENTITY_NONE, &at, &first), ORR_OK);
    at.translation = (orr_vec3d){10, 0, 0};
    at.scale = (orr_vec3d){3, 3, 3};
    assert_int_equal(orr_prefab_instantiate(w, assets, prefab, ORR_ENTITY_NONE, &at, &second), ORR_OK);
    orr_aabbd box;
    assert_int_equal(orr_scene_bounds(w, assets, first, &box), ORR_OK);
    assert_box(box, 0, 0, 2, 1, 1, 2);
    assert_int_equal(orr_scene_bounds(w, assets, second, &box), ORR_OK);
    assert_box(box, 10, 0, 6, 13, 3, 6);
    assert_int_equal(orr_scene_bounds(w, assets, ORR_ENTITY_NONE, &box), ORR_OK);
    assert_box(box, 0, 0, 2, 13, 3, 6);
    orr_world_destroy(w);
    orr_assets_destroy(assets);
}

int orrt_scene_bounds(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounds_hierarchy),
        cmocka_unit_test(test_bounds_skinned),
        cmocka_unit_test(test_bounds_prefab),
    };
    return cmocka_run_group_tests_name("scene: world bounds", tests, NULL, NULL);
}
