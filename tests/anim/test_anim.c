/* Anim: channel sampling (step, linear, slerp, cubic spline) and players driven by the tick count. */
#include "testutil.h"

#include <math.h>
#include <orrery/anim.h>

static void test_linear_and_step(void **state)
{
    (void)state;
    const float times[] = {0.0f, 1.0f, 3.0f};
    const float values[] = {0, 0, 0, 10, 0, 0, 10, 20, 0};
    orr_anim_channel c = {.path = ORR_ANIM_TRANSLATION, .interpolation = ORR_INTERP_LINEAR, .key_count = 3,
                          .components = 3, .times = times, .values = values};
    float out[3];
    orr_anim_sample(&c, 0.5, out);
    assert_float_equal(out[0], 5.0f, 1e-6);
    orr_anim_sample(&c, 2.0, out);
    assert_float_equal(out[0], 10.0f, 1e-6);
    assert_float_equal(out[1], 10.0f, 1e-6);
    orr_anim_sample(&c, -1.0, out); /* clamped */
    assert_float_equal(out[0], 0.0f, 1e-6);
    orr_anim_sample(&c, 9.0, out);
    assert_float_equal(out[1], 20.0f, 1e-6);
    c.interpolation = ORR_INTERP_STEP;
    orr_anim_sample(&c, 0.999, out);
    assert_float_equal(out[0], 0.0f, 1e-6);
    orr_anim_sample(&c, 1.0, out);
    assert_float_equal(out[0], 10.0f, 1e-6);
}

static void test_rotation_slerp(void **state)
{
    (void)state;
    const float times[] = {0.0f, 1.0f};
    float s = (float)sin(ORR_PI / 4), co = (float)cos(ORR_PI / 4);
    const float values[] = {0, 0, 0, 1, 0, s, 0, co}; /* identity -> 90 degrees about Y */
    orr_anim_channel c = {.path = ORR_ANIM_ROTATION, .interpolation = ORR_INTERP_LINEAR, .key_count = 2,
                          .components = 4, .times = times, .values = values};
    float q[4];
    orr_anim_sample(&c, 0.5, q); /* 45 degrees about Y */
    assert_float_equal(q[1], (float)sin(ORR_PI / 8), 1e-6);
    assert_float_equal(q[3], (float)cos(ORR_PI / 8), 1e-6);
}

static void test_cubic_spline(void **state)
{
    (void)state;
    /* value goes 0 -> 1 over 2 s with zero tangents: the midpoint is 0.5, the quarter 0.15625 */
    const float times[] = {0.0f, 2.0f};
    const float values[] = {0, 0, 0, /* key 0: in, value, out */ 0, 1, 0 /* key 1 */};
    orr_anim_channel c = {.path = ORR_ANIM_WEIGHTS, .interpolation = ORR_INTERP_CUBICSPLINE, .key_count = 2,
                          .components = 1, .times = times, .values = values};
    float v;
    orr_anim_sample(&c, 1.0, &v);
    assert_float_equal(v, 0.5f, 1e-6);
    orr_anim_sample(&c, 0.5, &v);
    assert_float_equal(v, 0.15625f, 1e-6);
}

static double local_x(const orr_world *w, orr_entity e)
{
    orr_transform t;
    assert_int_equal(orr_entity_get_local(w, e, &t), ORR_OK);
    return t.translation.x;
}

static void test_player_drives_targets_by_tick(void **state)
{
    (void)state;
    orr_world *w;
    orr_assets *a;
    assert_int_equal(orr_world_create(NULL, &w), ORR_OK);
    assert_int_equal(orr_assets_create(NULL, &a), ORR_OK);
    const float times[] = {0.0f, 2.0f};
    const float values[] = {0, 0, 0, 4, 0, 0};
    orr_anim_channel ch = {.target = 0, .path = ORR_ANIM_TRANSLATION, .interpolation = ORR_INTERP_LINEAR,
                           .key_count = 2, .components = 3, .times = times, .values = values};
    orr_clip_id clip;
    assert_int_equal(orr_assets_add_clip(a, &(orr_clip_desc){.name = "move", .channel_count = 1, .channels = &ch}, &clip),
                     ORR_OK);
    assert_true(orr_assets_get_clip(a, clip)->duration == 2.0);
    orr_entity holder, target;
    assert_int_equal(orr_entity_create(w, &(orr_entity_desc){.name = "holder"}, &holder), ORR_OK);
    assert_int_equal(orr_entity_create(w, &(orr_entity_desc){.name = "target", .parent = holder}, &target), ORR_OK);
    orr_animation_player p = {.clip = clip, .target_count = 1, .targets = {target}, .loop = true, .speed = 1.0};
    assert_int_equal(orr_component_add(w, holder, ORR_COMPONENT_ANIMATION_PLAYER, &p, NULL), ORR_OK);
    /* tick 30 at 1/60 s = 0.5 s -> x = 1 */
    assert_int_equal(orr_anim_apply(w, a, 30, 1.0 / 60.0), 1);
    assert_float_equal(local_x(w, target), 1.0, 1e-6);
    /* tick 150 = 2.5 s, looping over 2 s -> 0.5 s -> x = 1 */
    orr_anim_apply(w, a, 150, 1.0 / 60.0);
    assert_float_equal(local_x(w, target), 1.0, 1e-6);
    /* a destroyed target is skipped, not touched */
    assert_int_equal(orr_entity_destroy(w, target), ORR_OK);
    assert_int_equal(orr_anim_apply(w, a, 10, 1.0 / 60.0), 0);
    orr_world_destroy(w);
    orr_assets_destroy(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linear_and_step),
        cmocka_unit_test(test_rotation_slerp),
        cmocka_unit_test(test_cubic_spline),
        cmocka_unit_test(test_player_drives_targets_by_tick),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
