/* Visibility ranges: an instance is hidden outside [near, far] of a view, with hysteresis: a camera that
 * oscillates across a bound by less than the margin never toggles it; one that goes past by more does,
 * once; each view keeps its own verdicts; the scene cull counts the hidden ones as out of range. */
#include "draw_tests.h"

#include <stdlib.h>
#include <string.h>

static const float r_pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};

typedef struct range_fix {
    orr_assets *assets;
    orr_snapshot snap;
    orr_render_instance inst[3];
    orr_draw_scene scene;
} range_fix;

static void range_fix_init(range_fix *f)
{
    memset(f, 0, sizeof *f);
    assert_int_equal(orr_assets_create(NULL, &f->assets, NULL), ORR_OK);
    orr_primitive_desc p = {.vertex_count = 3, .positions = r_pos};
    orr_mesh_id mesh;
    assert_int_equal(orr_assets_add_mesh(f->assets, &(orr_mesh_desc){.primitive_count = 1, .primitives = &p}, &mesh), ORR_OK);
    for (uint32_t i = 0; i < 3; i++) {
        orr_render_instance *in = &f->inst[i];
        *in = (orr_render_instance){.id = i + 1, .mesh = mesh, .layers = 1, .visible = true};
        orr_affine3d_identity(&in->world);
        in->bounds = (orr_aabbf){{-0.5f, -0.5f, -0.5f}, {0.5f, 0.5f, 0.5f}};
    }
    /* 0: far 100 (margin 2) at the origin; 1: near 10 (margin 1) at the origin; 2: no range, at x 5 */
    f->inst[0].range_far = 100.0f, f->inst[0].range_margin = 2.0f;
    f->inst[1].range_near = 10.0f, f->inst[1].range_margin = 1.0f;
    f->inst[2].world.m[9] = 5.0;
    f->snap.instances = f->inst;
    f->snap.instance_count = 3;
    f->snap.layout_version = 1;
    orr_draw_scene_init(&f->scene, NULL);
    assert_int_equal(orr_draw_scene_build(&f->scene, &f->snap, f->assets, ORR_ORDER_MESH), ORR_OK);
}

static void range_fix_fini(range_fix *f)
{
    orr_draw_scene_fini(&f->scene);
    orr_assets_destroy(f->assets);
}

static bool hidden(const orr_draw_ranges *r, uint32_t i) { return r->hidden[i >> 5] >> (i & 31) & 1u; }

static void test_range_hysteresis(void **state)
{
    (void)state;
    range_fix f;
    range_fix_init(&f);
    assert_int_equal(f.scene.ranged_count, 2);
    orr_draw_ranges a, b;
    orr_draw_ranges_init(&a, NULL);
    orr_draw_ranges_init(&b, NULL);
    /* The camera on the x axis at distance d from instance 0 (and 1). */
    const double path[] = {99, 101, 99.5, 101.9, 98.1, 101.5, 102.5, 101, 98.5, 99, 97.5, 100.5};
    const bool want0[] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0}; /* hidden? */
    for (size_t k = 0; k < sizeof path / sizeof path[0]; k++) {
        assert_int_equal(orr_draw_ranges_update(&a, &f.scene, &f.snap, (orr_vec3d){path[k], 0, 0}), ORR_OK);
        if (hidden(&a, 0) != want0[k]) fail_msg("step %zu, distance %g: hidden %d, expected %d", k, path[k], hidden(&a, 0), want0[k]);
        assert_false(hidden(&a, 1)); /* far past its near bound */
        assert_false(hidden(&a, 2)); /* no range */
    }
    /* Oscillating across the far bound by less than the margin, for a long time: never toggles. */
    for (int k = 0; k < 200; k++) {
        double d = 100.0 + ((k & 1) ? 1.9 : -1.9) * (0.5 + 0.5 * (k % 7) / 6.0);
        assert_int_equal(orr_draw_ranges_update(&b, &f.scene, &f.snap, (orr_vec3d){d, 0, 0}), ORR_OK);
        assert_false(hidden(&b, 0));
    }
    /* The near bound of instance 1, margin 1: close in, hidden; out to 10.5, still hidden; 11.5 shown. */
    const double near_path[] = {5, 10.5, 9.5, 11.5, 9.5, 8.9, 10.5};
    const bool want1[] = {1, 1, 1, 0, 0, 1, 1};
    for (size_t k = 0; k < sizeof near_path / sizeof near_path[0]; k++) {
        assert_int_equal(orr_draw_ranges_update(&a, &f.scene, &f.snap, (orr_vec3d){near_path[k], 0, 0}), ORR_OK);
        if (hidden(&a, 1) != want1[k]) fail_msg("near step %zu: hidden %d, expected %d", k, hidden(&a, 1), want1[k]);
    }
    /* The scene cull: the hidden ones are counted out of range, not drawn. */
    orr_draw_visible vis;
    orr_draw_visible_init(&vis, NULL);
    orr_draw_view view = {.layer_mask = ORR_LAYERS_ALL, .order = ORR_ORDER_MESH, .cull = false, .origin = {10.5, 0, 0},
                          .range_hidden = a.hidden};
    orr_mat4d_identity(&view.view);
    orr_mat4d_perspective_reversed_infinite(1.0, 1.0, 0.1, &view.proj);
    assert_int_equal(orr_draw_scene_cull(&f.scene, &f.snap, &view, &vis), ORR_OK);
    assert_int_equal(vis.stats.out_of_range, 1);
    assert_int_equal(vis.stats.visible, 2);
    assert_int_equal(vis.stats.surface_draws, 2);
    /* A layout change starts the verdicts again, without hysteresis: at 101.5, instance 0 is out. */
    f.snap.layout_version++;
    assert_int_equal(orr_draw_ranges_update(&b, &f.scene, &f.snap, (orr_vec3d){101.5, 0, 0}), ORR_OK);
    assert_true(hidden(&b, 0));
    orr_draw_visible_fini(&vis);
    orr_draw_ranges_fini(&a);
    orr_draw_ranges_fini(&b);
    range_fix_fini(&f);
}

int orrt_draw_ranges(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_range_hysteresis)};
    return cmocka_run_group_tests_name("draw: visibility ranges", tests, NULL, NULL);
}
