/* Anim: channel sampling (step, linear, slerp, cubic spline) and players driven by the tick count, with
 * any number of targets. */
#include "testutil.h"

#include <math.h>
#include <orrery/anim.h>
#include <stdlib.h>

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

/* Channels of path weights write their targets' MorphWeights: step, linear and cubic spline, for 5, 40
 * (past one span of the sampler) and 2 targets; a target without the component is skipped, and an
 * apply that changes no weight logs no edit. */
static void test_weights_channels(void **state)
{
    (void)state;
    enum { WIDE = 40 };
    orr_world *w;
    orr_assets *a;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    const float times[] = {0.0f, 1.0f, 2.0f};
    float five[3 * 5], wide[3 * WIDE];
    for (int k = 0; k < 3; k++) {
        for (int t = 0; t < 5; t++) five[k * 5 + t] = (float)(k * 10 + t);
        for (int t = 0; t < WIDE; t++) wide[k * WIDE + t] = (float)(k * 100 + t);
    }
    /* cubic, 2 targets, 2 keys: (in, value, out) per key; target 0 goes 0 -> 1 with zero tangents,
     * target 1 holds 3 with a slope of 2 per second leaving key 0 */
    const float cubic[] = {0, 0, 0, 3, 0, 2, /* key 0 */ 0, 0, 1, 3, 0, 0 /* key 1 */};
    orr_anim_channel ch[4] = {
        {.target = 0, .path = ORR_ANIM_WEIGHTS, .interpolation = ORR_INTERP_STEP, .key_count = 3, .components = 5,
         .times = times, .values = five},
        {.target = 1, .path = ORR_ANIM_WEIGHTS, .interpolation = ORR_INTERP_LINEAR, .key_count = 3,
         .components = WIDE, .times = times, .values = wide},
        {.target = 2, .path = ORR_ANIM_WEIGHTS, .interpolation = ORR_INTERP_CUBICSPLINE, .key_count = 2, /* 0, 1 s */
         .components = 2, .times = times, .values = cubic},
        {.target = 3, .path = ORR_ANIM_WEIGHTS, .interpolation = ORR_INTERP_STEP, .key_count = 3, .components = 5,
         .times = times, .values = five},
    };
    orr_clip_id clip;
    assert_int_equal(orr_assets_add_clip(a, &(orr_clip_desc){.channel_count = 4, .channels = ch}, &clip), ORR_OK);
    orr_entity holder, e[4];
    assert_int_equal(orr_entity_create(w, &(orr_entity_desc){.name = "holder"}, &holder), ORR_OK);
    for (int i = 0; i < 4; i++) assert_int_equal(orr_entity_create(w, &(orr_entity_desc){.parent = holder}, &e[i]), ORR_OK);
    for (int i = 0; i < 3; i++) assert_int_equal(orr_morph_weights_set(w, e[i], NULL, 0), ORR_OK); /* e[3]: none */
    orr_animation_player p = {.clip = clip, .loop = false, .speed = 1.0};
    assert_int_equal(orr_component_add(w, holder, ORR_COMPONENT_ANIMATION_PLAYER, &p, NULL), ORR_OK);
    assert_int_equal(orr_animation_player_set_targets(w, holder, e, 4), ORR_OK);

    /* tick 90 at 1/60 s = 1.5 s */
    assert_int_equal(orr_anim_apply(w, a, 90, 1.0 / 60.0), 3);
    uint32_t n;
    const float *v = orr_morph_weights(w, e[0], &n);
    assert_int_equal(n, 5);
    for (int t = 0; t < 5; t++) assert_true(v[t] == (float)(10 + t)); /* step holds key 1 */
    v = orr_morph_weights(w, e[1], &n);
    assert_int_equal(n, WIDE);
    for (int t = 0; t < WIDE; t++) assert_float_equal(v[t], 150.0f + (float)t, 1e-4); /* halfway 1 -> 2 */
    orr_anim_apply(w, a, 30, 1.0 / 60.0); /* 0.5 s */
    v = orr_morph_weights(w, e[2], &n);
    assert_int_equal(n, 2);
    /* Hermite at u = 0.5 between keys 0 and 1 s: target 0 = 0.5; target 1 = 3 + h10 x dt x 2, h10 = 0.125 */
    assert_float_equal(v[0], 0.5f, 1e-6);
    assert_float_equal(v[1], 3.25f, 1e-6);
    assert_null(orr_morph_weights(w, e[3], &n)); /* no component: nothing written, nothing added */
    assert_false(orr_component_has(w, e[3], ORR_COMPONENT_MORPH_WEIGHTS));

    /* the same tick again changes no weight: the change log stays empty */
    orr_world_update_transforms(w);
    orr_world_clear_changes(w);
    orr_anim_apply(w, a, 30, 1.0 / 60.0);
    assert_int_equal(orr_world_get_changes(w).edited_count, 0);
    orr_anim_apply(w, a, 31, 1.0 / 60.0);
    assert_true(orr_world_get_changes(w).edited_count >= 2); /* linear and cubic moved; step held */
    orr_world_destroy(w);
    orr_assets_destroy(a);
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
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    const float times[] = {0.0f, 2.0f};
    const float values[] = {0, 0, 0, 4, 0, 0};
    orr_anim_channel ch = {.target = 0, .path = ORR_ANIM_TRANSLATION, .interpolation = ORR_INTERP_LINEAR,
                           .key_count = 2, .components = 3, .times = times, .values = values};
    orr_clip_id clip;
    assert_int_equal(orr_assets_add_clip(a, &(orr_clip_desc){.name = "move", .channel_count = 1, .channels = &ch}, &clip),
                     ORR_OK);
    assert_true(orr_assets_try_get_clip(a, clip)->duration == 2.0);
    orr_entity holder, target;
    assert_int_equal(orr_entity_create(w, &(orr_entity_desc){.name = "holder"}, &holder), ORR_OK);
    assert_int_equal(orr_entity_create(w, &(orr_entity_desc){.name = "target", .parent = holder}, &target), ORR_OK);
    orr_animation_player p = {.clip = clip, .loop = true, .speed = 1.0};
    assert_int_equal(orr_component_add(w, holder, ORR_COMPONENT_ANIMATION_PLAYER, &p, NULL), ORR_OK);
    assert_int_equal(orr_anim_apply(w, a, 30, 1.0 / 60.0), 0); /* no targets yet: nothing to write */
    assert_int_equal(orr_animation_player_set_targets(w, holder, &target, 1), ORR_OK);
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

/* A clip animating 10,000 nodes (the old cap was 256 targets per player) plays every one of them,
 * the last ones included, through a player whose targets are set once. */
static void test_player_with_many_targets(void **state)
{
    (void)state;
    enum { N = 10000 };
    orr_world *w;
    orr_assets *a;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    static const float times[] = {0.0f, 1.0f};
    float *values = malloc(sizeof(float) * 6 * N);
    orr_anim_channel *ch = malloc(sizeof *ch * N);
    orr_entity *targets = malloc(sizeof *targets * N);
    assert_true(values && ch && targets);
    for (uint32_t i = 0; i < N; i++) {
        float *v = values + 6 * i;
        v[0] = 0, v[1] = 0, v[2] = 0, v[3] = (float)i, v[4] = 1, v[5] = 0; /* x goes 0 -> i over 1 s */
        /* channels listed backwards, target i = node N-1-i, so the order of channels does not matter */
        ch[i] = (orr_anim_channel){.target = N - 1 - i, .path = ORR_ANIM_TRANSLATION, .interpolation = ORR_INTERP_LINEAR,
                                   .key_count = 2, .components = 3, .times = times, .values = v};
    }
    orr_clip_id clip;
    assert_int_equal(orr_assets_add_clip(a, &(orr_clip_desc){.name = "crowd", .channel_count = N, .channels = ch}, &clip),
                     ORR_OK);
    assert_int_equal(orr_assets_try_get_clip(a, clip)->target_count, N);
    orr_entity holder;
    assert_int_equal(orr_entity_create(w, &(orr_entity_desc){.name = "holder"}, &holder), ORR_OK);
    for (uint32_t i = 0; i < N; i++)
        assert_int_equal(orr_entity_create(w, &(orr_entity_desc){.parent = holder}, &targets[i]), ORR_OK);
    orr_animation_player p = orr_animation_player_default();
    p.clip = clip;
    assert_int_equal(orr_component_add(w, holder, ORR_COMPONENT_ANIMATION_PLAYER, &p, NULL), ORR_OK);
    assert_int_equal(orr_animation_player_set_targets(w, holder, targets, N), ORR_OK);
    /* tick 30 at 1/60 s = 0.5 s: node N-1-i at x = i / 2 */
    assert_int_equal(orr_anim_apply(w, a, 30, 1.0 / 60.0), N);
    for (uint32_t i = 0; i < N; i++) {
        orr_transform t;
        assert_int_equal(orr_entity_get_local(w, targets[N - 1 - i], &t), ORR_OK);
        assert_float_equal(t.translation.x, i * 0.5, 1e-3);
        assert_float_equal(t.translation.y, 0.5, 1e-6);
    }
    /* a shorter target list plays the channels it covers and skips the rest */
    assert_int_equal(orr_animation_player_set_targets(w, holder, targets, 100), ORR_OK);
    assert_int_equal(orr_anim_apply(w, a, 0, 1.0 / 60.0), 100);
    free(values);
    free(ch);
    free(targets);
    orr_world_destroy(w);
    orr_assets_destroy(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linear_and_step),
        cmocka_unit_test(test_rotation_slerp),
        cmocka_unit_test(test_cubic_spline),
        cmocka_unit_test(test_weights_channels),
        cmocka_unit_test(test_player_drives_targets_by_tick),
        cmocka_unit_test(test_player_with_many_targets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
