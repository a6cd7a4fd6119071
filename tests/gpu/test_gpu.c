/* gpu: the Vulkan renderer on whatever device is present (lavapipe in CI), validation on, every test
 * asserting zero validation messages, those at teardown included. No device is a failure, not a skip. */
#include "gpu_fixture.h"
#include "gpu_tests.h"
#include "gpu/gpu_state.h" /* test_teardown_messages_counted leaks a Vulkan object on purpose */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stb/stb_image.h>

#define W 320
#define H 180

static orr_vec3d zero3(void) { return (orr_vec3d){0, 0, 0}; }

static orr_result render(orr_renderer *r, fixture *f, orr_target_id target, orr_render_stats *stats)
{
    orr_render_desc d = fix_desc(r, f, target);
    return orr_renderer_render(r, &d, stats);
}


static uint8_t *render_two(orr_renderer *r, fixture *f, orr_vec3d offset, orr_strategy strategy,
                           orr_draw_order order, orr_render_stats *stats)
{
    fix_view views[2];
    fix_two_views(offset, W, H, strategy, order, views);
    return fix_render(r, f, W, H, views, 2, stats);
}

/* Every strategy's and cull's name parses back to it; an unknown name or NULL is refused and leaves the
 * value as it was. */
static void test_strategy_and_cull_names(void **state)
{
    (void)state;
    const char *want[ORR_STRATEGY_COUNT] = {"direct", "batched", "indirect", "shell", "meshlet"};
    for (unsigned k = 0; k < ORR_STRATEGY_COUNT; k++) {
        orr_strategy s = (orr_strategy)((k + 1) % ORR_STRATEGY_COUNT);
        assert_string_equal(orr_strategy_name((orr_strategy)k), want[k]);
        assert_true(orr_strategy_parse(want[k], &s));
        assert_int_equal(s, k);
    }
    for (unsigned k = 0; k < ORR_CULL_COUNT; k++) {
        orr_cull c = (orr_cull)((k + 1) % ORR_CULL_COUNT);
        assert_true(orr_cull_parse(orr_cull_name((orr_cull)k), &c));
        assert_int_equal(c, k);
    }
    assert_string_equal(orr_cull_name(ORR_CULL_GPU), "gpu");
    assert_string_equal(orr_strategy_name((orr_strategy)ORR_STRATEGY_COUNT), "unknown");
    orr_strategy s = ORR_STRATEGY_SHELL;
    orr_cull c = ORR_CULL_CPU;
    assert_false(orr_strategy_parse("meshlets", &s));
    assert_false(orr_strategy_parse(NULL, &s));
    assert_false(orr_cull_parse("unknown", &c));
    assert_int_equal(s, ORR_STRATEGY_SHELL);
    assert_int_equal(c, ORR_CULL_CPU);
}

/* orr_mat4d_look_at_pose gives what orr_view_desc.pose takes: a view posed with it, at an eye off every
 * axis, sees a lone cube at the target in the middle of its picture; posed with the view matrix that
 * orr_mat4d_look_at returns (the inverse: the mistake the helper is for), it does not. */
static void test_look_at_pose_sees_target(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    f.snapshot.instance_count = 0, f.snapshot.material_binding_count = 0; /* only the cube below */
    orr_vec3d target = {7.0, -3.0, 12.0}, eye = {10.0, -1.0, 16.0}, up = {0, 1, 0};
    orr_mat4d m;
    orr_mat4d_from_trs(target, ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &m);
    fix_add(&f, 1, f.cube, f.red, m);
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    enum { S = 32 };
    fix_view v = {.strategy = ORR_STRATEGY_DIRECT, .order = ORR_ORDER_MESH};
    orr_mat4d_look_at_pose(eye, target, up, &v.pose);
    uint8_t *px = fix_render(r, &f, S, S, &v, 1, NULL);
    uint32_t centre = fix_count_drawn(px, S, S / 2 - 2, S / 2 - 2, S / 2 + 2, S / 2 + 2);
    uint32_t all = fix_count_drawn(px, S, 0, 0, S, S);
    print_message("look_at_pose: %u of 16 centre pixels drawn, %u of %u in all\n", centre, all, S * S);
    assert_int_equal(centre, 16);
    assert_true(all < S * S / 2);
    free(px);
    orr_mat4d_look_at(eye, target, up, &v.pose);
    px = fix_render(r, &f, S, S, &v, 1, NULL);
    assert_int_equal(fix_count_drawn(px, S, S / 2 - 2, S / 2 - 2, S / 2 + 2, S / 2 + 2), 0);
    free(px);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* A target's default sample count is what `orrery render` uses: 4 where the device has 4 (the same
 * bytes as asking for 4), else 1; so a host's first picture matches the tool's. */
static void test_default_samples(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fix_view v[2];
    fix_two_views(zero3(), W, H, ORR_STRATEGY_BATCHED, ORR_ORDER_MESH, v);
    uint32_t want = orr_renderer_sample_counts(r) & 4u ? 4u : 1u;
    uint8_t *def = fix_render_samples(r, &f, W, H, v, 2, 0, NULL);
    uint8_t *same = fix_render_samples(r, &f, W, H, v, 2, want, NULL);
    assert_memory_equal(def, same, (size_t)W * H * 4);
    if (want == 4) { /* and not what one sample gives: the edges differ */
        uint8_t *one = fix_render_samples(r, &f, W, H, v, 2, 1, NULL);
        assert_true(memcmp(def, one, (size_t)W * H * 4) != 0);
        free(one);
    }
    free(def);
    free(same);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

static void test_two_views(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    orr_render_stats st;
    uint8_t *px = render_two(r, &f, zero3(), ORR_STRATEGY_DIRECT, ORR_ORDER_HIERARCHY, &st);
    uint32_t left = fix_count_drawn(px, W, 0, 0, W / 2, H);
    uint32_t right = fix_count_drawn(px, W, W / 2, 0, W, H);
    print_message("two views on %s: drawn pixels left %u, right %u of %u\n", orr_renderer_device_name(r), left, right,
                  W / 2 * H);
    assert_true(left > W / 2 * H / 10);
    assert_true(right > W / 2 * H / 10);
    /* the halves look at the scene from different sides */
    size_t half_row = W / 2 * 4;
    uint32_t differing_rows = 0;
    for (uint32_t y = 0; y < H; y++)
        if (memcmp(px + (size_t)y * W * 4, px + (size_t)y * W * 4 + half_row, half_row) != 0) differing_rows++;
    assert_true(differing_rows > H / 2);
    assert_int_equal(st.views.count, 2);
    assert_int_equal(st.cull.instances, f.snapshot.instance_count);
    assert_true(st.cull.visible >= 2 * 5);
    assert_int_equal(st.memory.instance_bytes, 80u * f.snapshot.instance_count);
    assert_true(st.memory.geometry_bytes > 0);
    assert_true(st.memory.uploaded_bytes >= st.memory.geometry_bytes + st.memory.instance_bytes);
    free(px);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

static void test_determinism(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    uint8_t *a = render_two(r, &f, zero3(), ORR_STRATEGY_DIRECT, ORR_ORDER_HIERARCHY, NULL);
    uint8_t *b = render_two(r, &f, zero3(), ORR_STRATEGY_DIRECT, ORR_ORDER_HIERARCHY, NULL);
    assert_true(fix_count_drawn(a, W, 0, 0, W, H) > W * H / 10); /* two blank images would agree too */
    assert_memory_equal(a, b, (size_t)W * H * 4);
    fix_renderer_done(r, &logged);
    /* a fresh renderer gives the same bytes too */
    r = fix_renderer(&logged);
    uint8_t *c = render_two(r, &f, zero3(), ORR_STRATEGY_DIRECT, ORR_ORDER_HIERARCHY, NULL);
    assert_memory_equal(a, c, (size_t)W * H * 4);
    free(a);
    free(b);
    free(c);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

static void test_strategies_identical(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    /* more copies of one mesh and material, so batches hold several records */
    for (uint32_t i = 0; i < 12; i++) {
        orr_mat4d m;
        orr_mat4d_from_trs((orr_vec3d){-2.5 + 0.45 * i, -0.3, -2.0 + 0.1 * (i % 3)}, ORR_QUAT_IDENTITY,
                           (orr_vec3d){0.3, 0.3, 0.3}, &m);
        fix_add(&f, 100 + i, f.cube, (i % 2) ? f.green : f.red, m);
    }
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    for (int order = ORR_ORDER_HIERARCHY; order <= ORR_ORDER_MESH; order++) {
        orr_render_stats sd, sb, si;
        uint8_t *d = render_two(r, &f, zero3(), ORR_STRATEGY_DIRECT, (orr_draw_order)order, &sd);
        uint8_t *b = render_two(r, &f, zero3(), ORR_STRATEGY_BATCHED, (orr_draw_order)order, &sb);
        uint8_t *i = render_two(r, &f, zero3(), ORR_STRATEGY_INDIRECT, (orr_draw_order)order, &si);
        print_message("order %d: draw calls direct %u, batched %u, indirect %u (surface draws %u, batches %u)\n", order,
                      sd.draws.calls, sb.draws.calls, si.draws.calls, sd.draws.surfaces, sd.draws.batches);
        assert_true(fix_count_drawn(d, W, 0, 0, W, H) > W * H / 10); /* two blank images would agree too */
        assert_memory_equal(d, b, (size_t)W * H * 4);
        assert_memory_equal(d, i, (size_t)W * H * 4);
        assert_int_equal(sd.draws.calls, sd.draws.surfaces);
        assert_int_equal(sb.draws.calls, sb.draws.batches);
        assert_true(si.draws.calls <= sb.draws.calls);
        if (order == ORR_ORDER_MESH) {
            assert_true(sb.draws.calls < sd.draws.calls);
            assert_true(si.draws.calls < sb.draws.calls);
        }
        free(d);
        free(b);
        free(i);
    }
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* orr_renderer_desc.baseline_gpu: the floor is timed in the same frame, for every strategy and cull,
 * and leaves the frame's image as it was (it draws into scratch images of its own). */
static void test_baseline_gpu(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    fix_log plain_log, floor_log;
    orr_renderer *plain = fix_renderer(&plain_log), *floor = fix_renderer_baseline(&floor_log);
    for (int s = ORR_STRATEGY_DIRECT; s <= ORR_STRATEGY_INDIRECT; s++) {
        orr_render_stats ps, fs;
        uint8_t *a = render_two(plain, &f, zero3(), (orr_strategy)s, ORR_ORDER_MESH, &ps);
        uint8_t *b = render_two(floor, &f, zero3(), (orr_strategy)s, ORR_ORDER_MESH, &fs);
        print_message("strategy %d: gpu %.3f ms, baseline_gpu %.3f ms\n", s, fs.time.gpu_ms, fs.time.baseline_gpu_ms);
        assert_true(fix_count_drawn(a, W, 0, 0, W, H) > W * H / 10);
        assert_memory_equal(a, b, (size_t)W * H * 4);
        assert_true(ps.time.baseline_gpu_ms == -1.0); /* not asked for */
        if (fs.time.gpu_ms >= 0) assert_true(fs.time.baseline_gpu_ms >= 0); /* timed whenever the frame is */
        free(a);
        free(b);
    }
    fix_renderer_done(plain, &plain_log);
    fix_renderer_done(floor, &floor_log);
    fix_fini(&f);
}

/* The same scene and cameras a billion metres out: the high/low split and the per-view origin
 * subtraction must give the image of the scene at the origin. */
static void test_large_coordinates(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture at_origin, far_away, far_odd;
    fix_init(&at_origin, zero3());
    uint8_t *a = render_two(r, &at_origin, zero3(), ORR_STRATEGY_BATCHED, ORR_ORDER_MESH, NULL);

    /* offsets whose low parts are exact binary fractions: the image must be identical */
    orr_vec3d far = {1e9 + 0.375, -2e8 + 0.125, 3e8};
    fix_init(&far_away, far);
    uint8_t *b = render_two(r, &far_away, far, ORR_STRATEGY_BATCHED, ORR_ORDER_MESH, NULL);
    if (memcmp(a, b, (size_t)W * H * 4) != 0) {
        char pa[1024], pb[1024];
        snprintf(pa, sizeof pa, "%s/gpu_large_origin.png", orrt_binary_dir());
        snprintf(pb, sizeof pb, "%s/gpu_large_far.png", orrt_binary_dir());
        orr_gpu_write_png(pa, W, H, a, NULL);
        orr_gpu_write_png(pb, W, H, b, NULL);
        uint32_t n = 0;
        for (size_t k = 0; k < (size_t)W * H; k++) n += memcmp(a + 4 * k, b + 4 * k, 4) != 0;
        fail_msg("%u pixels differ between the scene at the origin and at 1e9 (%s, %s)", n, pa, pb);
    }

    /* an arbitrary offset: binary32 alone would be off by up to 32 m here; allow only rounding noise */
    orr_vec3d odd = {1e9 + 0.3, 7e8 + 0.7, -4e8 - 0.1};
    fix_init(&far_odd, odd);
    uint8_t *c = render_two(r, &far_odd, odd, ORR_STRATEGY_BATCHED, ORR_ORDER_MESH, NULL);
    uint32_t differ = 0;
    for (size_t k = 0; k < (size_t)W * H; k++) {
        int d = 0;
        for (int ch = 0; ch < 3; ch++) {
            int e = abs((int)a[k * 4 + ch] - (int)c[k * 4 + ch]);
            if (e > d) d = e;
        }
        if (d > 2) differ++;
    }
    print_message("large coordinates: %u of %u pixels differ by more than 2 at offset 1e9 + 0.3\n", differ, W * H);
    assert_true(differ <= (uint32_t)(W * H) / 500);
    free(a);
    free(b);
    free(c);
    fix_fini(&at_origin);
    fix_fini(&far_away);
    fix_fini(&far_odd);
    fix_renderer_done(r, &logged);
}

/* Hidden instances, the mask cut-out and single-sided back faces leave the clear colour. */
static void test_visibility_rules(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    f.snapshot.instance_count = 0;
    orr_mat4d m;
    orr_quatd away = orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, ORR_PI);
    /* left: a single-sided quad facing the camera; centre: the same turned away; right: cut out */
    orr_material_id single = f.red;
    orr_mat4d_from_trs((orr_vec3d){-1.2, 0, 0}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &m);
    fix_add(&f, 1, f.quad, single, m);
    orr_mat4d_from_trs((orr_vec3d){0, 0, 0}, away, ORR_VEC3_ONE, &m);
    fix_add(&f, 2, f.quad, single, m);
    orr_mat4d_from_trs((orr_vec3d){1.2, 0, 0}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &m);
    fix_add(&f, 3, f.quad, f.cutout, m);
    orr_render_instance *hidden = fix_add(&f, 4, f.quad, f.green, m);
    hidden->visible = false;
    /* a double-sided quad turned away is still drawn, above */
    orr_mat4d_from_trs((orr_vec3d){0, 1.1, 0}, away, ORR_VEC3_ONE, &m);
    fix_add(&f, 5, f.quad, f.ground, m);

    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fix_view v = {.viewport = {0, 0, W, H}, .pose = fix_look((orr_vec3d){0, 0.5, 4}, (orr_vec3d){0, 0.5, 0})};
    orr_render_stats st;
    uint8_t *px = fix_render(r, &f, W, H, &v, 1, &st);
    /* project the quad centres: camera at z = 4 looking down -Z, yfov 0.8 */
    double fy = 1.0 / tan(0.4), aspect = (double)W / H;
    uint32_t cy = (uint32_t)((0.5 + 0.5 * (0.5 / 4.0) * fy) * H);
    uint32_t cy_top = (uint32_t)((0.5 - 0.5 * (0.6 / 4.0) * fy) * H);
    uint32_t cx_left = (uint32_t)((0.5 + 0.5 * (-1.2 / 4.0) * fy / aspect) * W);
    uint32_t cx_mid = W / 2;
    uint32_t cx_right = (uint32_t)((0.5 + 0.5 * (1.2 / 4.0) * fy / aspect) * W);
    assert_true(fix_count_drawn(px, W, cx_left - 2, cy - 2, cx_left + 2, cy + 2) == 16);  /* front face */
    assert_true(fix_count_drawn(px, W, cx_mid - 2, cy - 2, cx_mid + 2, cy + 2) == 0);     /* culled */
    assert_true(fix_count_drawn(px, W, cx_right - 2, cy - 2, cx_right + 2, cy + 2) == 0); /* cut out, hidden */
    assert_true(fix_count_drawn(px, W, cx_mid - 2, cy_top - 2, cx_mid + 2, cy_top + 2) == 16); /* double-sided */
    assert_int_equal(st.cull.visible, 4);
    free(px);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* Residency and deltas: a second frame of the same snapshot with an empty delta uploads nothing; moving
 * one instance uploads one 80-byte record; more instances of a resident mesh add no geometry and upload
 * their records only; a snapshot without a delta is taken whole. */
static void test_uploads(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    orr_target_desc td = {.width = 64, .height = 64, .samples = 1};
    orr_target_id target;
    assert_int_equal(orr_renderer_create_target(r, &td, &target), ORR_OK);
    orr_view_desc vd = {.target = target, .pose = fix_look((orr_vec3d){0, 1, 5}, zero3()), .layer_mask = ORR_LAYERS_ALL};
    orr_view_id view;
    assert_int_equal(orr_renderer_create_view(r, &vd, &view), ORR_OK);
    orr_render_stats s1, s2, s3, s4, s5;
    assert_int_equal(render(r, &f, target, &s1), ORR_OK);
    assert_true(s1.full_sync);
    assert_int_equal(s1.cull.changed, f.snapshot.instance_count);
    fix_delta(&f, NULL, 0, NULL, 0, false);
    assert_int_equal(render(r, &f, target, &s2), ORR_OK);
    assert_false(s2.full_sync);
    assert_int_equal(s2.memory.uploaded_bytes, 0);
    assert_int_equal(s2.cull.changed, 0);
    assert_int_equal(s2.memory.geometry_bytes, s1.memory.geometry_bytes);
    f.instances[2].world.m[9] += 0.25;
    fix_delta(&f, &f.instances[2].id, 1, NULL, 0, false);
    assert_int_equal(render(r, &f, target, &s3), ORR_OK);
    assert_int_equal(s3.memory.uploaded_bytes, 80 + 4); /* the record and its slot (scattered on the GPU) */
    assert_int_equal(s3.cull.changed, 1);
    uint32_t added[20];
    for (uint32_t i = 0; i < 20; i++) {
        orr_mat4d m;
        orr_mat4d_from_trs((orr_vec3d){i * 0.1, 2, 0}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &m);
        added[i] = fix_add(&f, 1000 + i, f.cube, f.red, m)->id;
    }
    fix_delta(&f, added, 20, NULL, 0, true);
    assert_int_equal(render(r, &f, target, &s4), ORR_OK);
    assert_int_equal(s4.memory.geometry_bytes, s1.memory.geometry_bytes);
    assert_int_equal(s4.memory.instance_bytes, 80u * f.snapshot.instance_count);
    assert_int_equal(s4.cull.changed, 20); /* and the draw scene again: its layout changed */
    /* the same snapshot rendered again changes nothing */
    assert_int_equal(render(r, &f, target, &s5), ORR_OK);
    assert_false(s5.full_sync);
    assert_int_equal(s5.cull.changed, 0);
    assert_int_equal(s5.memory.uploaded_bytes, 0);
    /* no delta: taken whole */
    f.snapshot.delta_base = 0;
    assert_int_equal(render(r, &f, target, &s5), ORR_OK);
    assert_true(s5.full_sync);
    assert_int_equal(s5.cull.changed, f.snapshot.instance_count);
    /* stale ids fail */
    assert_int_equal(orr_renderer_destroy_view(r, view), ORR_OK);
    assert_int_equal(orr_renderer_destroy_view(r, view), ORR_ERROR_STALE_HANDLE);
    assert_int_equal(orr_renderer_update_view(r, view, &vd), ORR_ERROR_STALE_HANDLE);
    assert_int_equal(orr_renderer_destroy_target(r, target), ORR_OK);
    assert_int_equal(render(r, &f, target, NULL), ORR_ERROR_STALE_HANDLE);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* Each view draws only inside its viewport: a view that looks away leaves its half exactly clear. */
static void test_viewport_scissor(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fix_view views[2];
    fix_two_views(zero3(), W, H, ORR_STRATEGY_BATCHED, ORR_ORDER_MESH, views);
    /* the right camera looks up into the empty sky */
    views[1].pose = fix_look((orr_vec3d){0, 5, 0}, (orr_vec3d){0.01, 50, 0});
    uint8_t *px = fix_render(r, &f, W, H, views, 2, NULL);
    assert_true(fix_count_drawn(px, W, 0, 0, W / 2, H) > W / 2 * H / 10);
    assert_int_equal(fix_count_drawn(px, W, W / 2, 0, W, H), 0);
    free(px);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* Material edits re-upload one record; removed instances free their slot; the next new instance takes
 * a slot again (one record uploaded). */
static void test_material_edit_and_slots(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    orr_target_desc td = {.width = 96, .height = 64, .readback = true, .samples = 1};
    orr_target_id target;
    assert_int_equal(orr_renderer_create_target(r, &td, &target), ORR_OK);
    orr_view_desc vd = {.target = target, .pose = fix_look((orr_vec3d){0, 1, 5}, zero3()), .layer_mask = ORR_LAYERS_ALL};
    orr_view_id view;
    assert_int_equal(orr_renderer_create_view(r, &vd, &view), ORR_OK);
    size_t size = 96 * 64 * 4;
    uint8_t *a = malloc(size), *b = malloc(size);
    assert_non_null(a);
    assert_non_null(b);
    orr_render_stats st;
    assert_int_equal(render(r, &f, target, &st), ORR_OK);
    assert_int_equal(orr_renderer_read_target(r, target, a, size), ORR_OK);
    orr_material *red = orr_assets_try_edit_material(f.assets, f.red);
    assert_non_null(red);
    red->base_color[2] = 0.9f;
    fix_delta(&f, NULL, 0, NULL, 0, false);
    assert_int_equal(render(r, &f, target, &st), ORR_OK);
    assert_int_equal(st.memory.uploaded_bytes, sizeof(orr_gpu_material)); /* one material record */
    assert_int_equal(orr_renderer_read_target(r, target, b, size), ORR_OK);
    assert_true(memcmp(a, b, size) != 0);
    /* drop the first instance: its slot is freed, and a new instance takes one (one record uploaded) */
    uint32_t n = f.snapshot.instance_count, gone = f.instances[0].id;
    memmove(&f.instances[0], &f.instances[1], sizeof f.instances[0] * (n - 1));
    f.snapshot.instance_count = n - 1;
    fix_delta(&f, NULL, 0, &gone, 1, true);
    assert_int_equal(render(r, &f, target, &st), ORR_OK);
    assert_int_equal(st.memory.instance_bytes, 80u * (n - 1));
    assert_int_equal(st.cull.changed, 0);
    orr_mat4d m;
    orr_mat4d_from_trs((orr_vec3d){0, 2, 0}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &m);
    uint32_t id = fix_add(&f, 500, f.cube, f.blue, m)->id;
    fix_delta(&f, &id, 1, NULL, 0, true);
    assert_int_equal(render(r, &f, target, &st), ORR_OK);
    assert_int_equal(st.memory.instance_bytes, 80u * n);
    assert_int_equal(st.cull.changed, 1);
    free(a);
    free(b);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* The geometry pool grows (reallocated, earlier meshes copied on the GPU) as meshes arrive over
 * several frames; the result equals one renderer that got every mesh in its first frame. */
static void test_pool_growth(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    f.snapshot.instance_count = 0;
    /* 64 distinct cube meshes of 1152 vertex bytes each: past the 64 KiB first vertex pool */
    for (uint32_t i = 0; i < 64; i++) {
        float pos[24 * 3];
        const orr_mesh *cube = orr_assets_try_get_mesh(f.assets, f.cube);
        memcpy(pos, cube->primitives[0].positions, sizeof pos);
        for (int k = 0; k < 24 * 3; k++) pos[k] *= 0.3f + 0.01f * (float)i;
        orr_primitive_desc p = {.vertex_count = 24, .positions = pos, .normals = cube->primitives[0].normals,
                                .index_count = 36, .indices = cube->primitives[0].indices,
                                .material = (i % 3) ? f.green : f.blue};
        orr_mesh_desc d = {.primitive_count = 1, .primitives = &p};
        orr_mesh_id id;
        assert_int_equal(orr_assets_add_mesh(f.assets, &d, &id), ORR_OK);
        orr_mat4d m;
        orr_mat4d_from_trs((orr_vec3d){-2.625 + 0.75 * (i % 8), -0.5 + 0.5 * (i / 8), -1.0 - 0.5 * (i / 8)}, ORR_QUAT_IDENTITY,
                           ORR_VEC3_ONE, &m);
        fix_add(&f, 200 + i, id, (orr_material_id){0, 0}, m); /* the primitive's own material */
    }
    fix_view v = {.viewport = {0, 0, W, H}, .pose = fix_look((orr_vec3d){0, 1.5, 6}, (orr_vec3d){0, 1.25, 0}),
                  .strategy = ORR_STRATEGY_INDIRECT, .order = ORR_ORDER_MESH};
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    orr_render_stats st;
    uint8_t *all = fix_render(r, &f, W, H, &v, 1, &st);
    uint64_t geometry = st.memory.geometry_bytes;
    assert_true(fix_count_drawn(all, W, 0, 0, W, H) > W * H / 10);
    fix_renderer_done(r, &logged);

    r = fix_renderer(&logged);
    uint32_t n = f.snapshot.instance_count;
    for (uint32_t step = 8; step <= n; step += 8) {
        f.snapshot.instance_count = step;
        free(fix_render(r, &f, W, H, &v, 1, &st));
    }
    uint8_t *grown = fix_render(r, &f, W, H, &v, 1, &st);
    assert_int_equal(st.memory.geometry_bytes, geometry);
    assert_true(geometry > 64 * 1024);
    assert_memory_equal(all, grown, (size_t)W * H * 4);
    free(all);
    free(grown);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* Pool space of released meshes is reused: a mesh removed from the library and another of its size added,
 * 80 times over, leave the geometry pool (and all the renderer's GPU memory) where the first one put it;
 * each frame draws the new mesh. */
static void test_pool_reuse(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    f.snapshot.instance_count = 0;
    const orr_primitive *cube = &orr_assets_try_get_mesh(f.assets, f.cube)->primitives[0];
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fix_view v = {.viewport = {0, 0, 64, 64}, .pose = fix_look((orr_vec3d){0, 1, 4}, zero3()),
                  .strategy = ORR_STRATEGY_BATCHED, .order = ORR_ORDER_MESH};
    uint64_t gpu_after_first = 0, geometry_first = 0;
    orr_mesh_id previous = {0, 0};
    for (int round = 0; round < 80; round++) {
        float pos[24 * 3];
        for (int k = 0; k < 24 * 3; k++) pos[k] = cube->positions[k] * (0.5f + 0.005f * (float)round);
        orr_primitive_desc p = {.vertex_count = 24, .positions = pos, .normals = cube->normals, .index_count = 36,
                                .indices = cube->indices, .material = f.red};
        orr_mesh_id mesh;
        assert_int_equal(orr_assets_add_mesh(f.assets, &(orr_mesh_desc){.primitive_count = 1, .primitives = &p}, &mesh),
                         ORR_OK);
        if (previous.generation) assert_int_equal(orr_assets_remove_mesh(f.assets, previous), ORR_OK);
        previous = mesh;
        f.snapshot.instance_count = 0;
        fix_add(&f, 1, mesh, f.red, fix_look((orr_vec3d){0, 0, 0}, (orr_vec3d){0, 0, -1}));
        orr_render_stats st;
        uint8_t *px = fix_render(r, &f, 64, 64, &v, 1, &st);
        assert_true(fix_count_drawn(px, 64, 0, 0, 64, 64) > 100);
        free(px);
        if (round == 0) {
            geometry_first = st.memory.geometry_bytes;
        } else if (round == 2) {
            gpu_after_first = st.memory.gpu_bytes; /* the frame buffers, targets and scene buffers are made by now */
        } else if (round > 2) {
            assert_int_equal(st.memory.geometry_bytes, geometry_first); /* one mesh resident at a time */
            if (st.memory.gpu_bytes > gpu_after_first)
                fail_msg("round %d: GPU memory grew from %llu to %llu bytes", round, (unsigned long long)gpu_after_first,
                         (unsigned long long)st.memory.gpu_bytes);
        }
    }
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* GPU skinning: a cube whose +x half follows joint 1 (moved 0.5 along x) renders exactly like a cube
 * whose +x vertices were moved on the CPU; a joint range outside the snapshot is dropped and counted. */
static void test_skinning(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    const orr_primitive *cube = &orr_assets_try_get_mesh(f.assets, f.cube)->primitives[0];
    float moved[24 * 3], weights[24 * 4] = {0};
    uint16_t joints[24 * 4] = {0};
    for (uint32_t i = 0; i < 24; i++) {
        bool right = cube->positions[i * 3] > 0;
        memcpy(moved + i * 3, cube->positions + i * 3, 3 * sizeof(float));
        if (right) moved[i * 3] += 0.5f;
        joints[i * 4] = right ? 1 : 0;
        weights[i * 4] = 1.0f;
    }
    orr_primitive_desc pd = {.vertex_count = 24, .positions = cube->positions, .normals = cube->normals,
                             .colors = cube->colors, .index_count = 36, .indices = cube->indices, .material = f.red,
                             .joints = joints, .weights = weights};
    orr_mesh_desc md = {.primitive_count = 1, .primitives = &pd};
    orr_mesh_id skinned;
    assert_int_equal(orr_assets_add_mesh(f.assets, &md, &skinned), ORR_OK);
    pd.positions = moved;
    pd.joints = NULL;
    pd.weights = NULL;
    orr_mesh_id stretched;
    assert_int_equal(orr_assets_add_mesh(f.assets, &md, &stretched), ORR_OK);

    orr_affine3d palette[2];
    orr_affine3d_identity(&palette[0]);
    orr_affine3d_identity(&palette[1]);
    palette[1].m[9] = 0.5;
    f.snapshot.joints = palette;
    f.snapshot.joint_count = 2;
    orr_mat4d m;
    orr_mat4d_from_trs((orr_vec3d){0, 0.75, 1.5}, orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, 0.5), ORR_VEC3_ONE, &m);
    uint32_t base = f.snapshot.instance_count;
    orr_render_instance *in = fix_add(&f, 900, skinned, f.red, m);
    in->joint_offset = 0;
    in->joint_count = 2;
    /* a bad range: dropped, counted, nothing drawn for it */
    orr_mat4d_from_trs((orr_vec3d){-2, 1.5, 0}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &m);
    in = fix_add(&f, 901, skinned, f.blue, m);
    in->joint_offset = 1;
    in->joint_count = 5;

    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    orr_render_stats st;
    uint8_t *a = render_two(r, &f, zero3(), ORR_STRATEGY_BATCHED, ORR_ORDER_MESH, &st);
    assert_true(st.draws.dropped[ORR_DROP_SKIN_RANGE] >= 1);
    /* the same picture from the CPU-moved mesh, not skinned */
    f.instances[base].mesh = stretched;
    f.instances[base].joint_count = 0;
    f.snapshot.instance_count = base + 1;
    uint8_t *b = render_two(r, &f, zero3(), ORR_STRATEGY_BATCHED, ORR_ORDER_MESH, NULL);
    assert_memory_equal(a, b, (size_t)W * H * 4);
    /* and the skinning did move something: the plain cube looks different */
    f.instances[base].mesh = f.cube;
    uint8_t *c = render_two(r, &f, zero3(), ORR_STRATEGY_BATCHED, ORR_ORDER_MESH, NULL);
    assert_true(memcmp(a, c, (size_t)W * H * 4) != 0);
    free(a);
    free(b);
    free(c);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* A mirrored instance (negative determinant) of a single-sided mesh shows its outside: the cube
 * mirrored in x looks like the plain cube, in a batch of its own and mixed with plain instances. */
static void test_mirrored(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    const orr_primitive *cube = &orr_assets_try_get_mesh(f.assets, f.cube)->primitives[0];
    orr_primitive_desc pd = {.vertex_count = 24, .positions = cube->positions, .normals = cube->normals,
                             .index_count = 36, .indices = cube->indices, .material = f.blue};
    orr_mesh_desc md = {.primitive_count = 1, .primitives = &pd};
    orr_mesh_id plain;
    assert_int_equal(orr_assets_add_mesh(f.assets, &md, &plain), ORR_OK);
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    uint8_t *img[2];
    for (int mirrored = 0; mirrored < 2; mirrored++) {
        f.snapshot.instance_count = 0;
        for (uint32_t i = 0; i < 3; i++) {
            orr_mat4d m;
            double sx = (mirrored && i != 1) ? -1.0 : 1.0;
            orr_mat4d_from_trs((orr_vec3d){-1.5 + 1.5 * i, 0, 0}, ORR_QUAT_IDENTITY, (orr_vec3d){sx, 1, 1}, &m);
            fix_add(&f, 1 + i, plain, f.blue, m);
        }
        img[mirrored] = render_two(r, &f, zero3(), ORR_STRATEGY_BATCHED, ORR_ORDER_MESH, NULL);
    }
    uint32_t differ = 0;
    for (size_t k = 0; k < (size_t)W * H; k++) differ += memcmp(img[0] + 4 * k, img[1] + 4 * k, 4) != 0;
    print_message("mirrored cubes: %u pixels differ from plain ones\n", differ);
    assert_true(differ <= (uint32_t)(W * H) / 1000);
    free(img[0]);
    free(img[1]);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* Another asset library releases the residency of the previous one (its ids start again): a library
 * whose mesh 0 is a quad, drawn after one whose mesh 0 is a cube, shows the quad, exactly as a fresh
 * renderer does. */
static orr_mesh_id copy_mesh(orr_assets *dst, const orr_assets *src, orr_mesh_id id, orr_material_id material)
{
    const orr_primitive *p = &orr_assets_try_get_mesh(src, id)->primitives[0];
    orr_primitive_desc pd = {.vertex_count = p->vertex_count, .positions = p->positions, .normals = p->normals,
                             .colors = p->colors, .index_count = p->index_count, .indices = p->indices,
                             .material = material};
    orr_mesh_desc md = {.primitive_count = 1, .primitives = &pd};
    orr_mesh_id out;
    assert_int_equal(orr_assets_add_mesh(dst, &md, &out), ORR_OK);
    return out;
}

static void test_switch_assets(void **state)
{
    (void)state;
    fixture a;
    fix_init(&a, zero3());
    orr_assets *other;
    assert_int_equal(orr_assets_create(NULL, &other, NULL), ORR_OK);
    orr_material m = orr_material_default();
    m.base_color[1] = 0.2f;
    orr_material_id mat;
    assert_int_equal(orr_assets_add_material(other, &m, &mat), ORR_OK);
    orr_mesh_id quad = copy_mesh(other, a.assets, a.quad, mat); /* index 0, like a's cube */
    assert_true(orr_id_eq(quad, a.cube));
    fixture b;
    fix_init(&b, zero3());
    orr_assets_destroy(b.assets);
    b.assets = other;
    b.snapshot.instance_count = 0;
    b.snapshot.light_count = 0;
    orr_mat4d world;
    orr_mat4d_from_trs((orr_vec3d){0, 0.5, 0}, ORR_QUAT_IDENTITY, (orr_vec3d){2, 2, 1}, &world);
    fix_add(&b, 10, quad, mat, world);

    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    uint8_t *a1 = render_two(r, &a, zero3(), ORR_STRATEGY_INDIRECT, ORR_ORDER_MESH, NULL);
    uint8_t *b1 = render_two(r, &b, zero3(), ORR_STRATEGY_INDIRECT, ORR_ORDER_MESH, NULL);
    uint8_t *a2 = render_two(r, &a, zero3(), ORR_STRATEGY_INDIRECT, ORR_ORDER_MESH, NULL);
    fix_renderer_done(r, &logged);
    r = fix_renderer(&logged);
    uint8_t *b0 = render_two(r, &b, zero3(), ORR_STRATEGY_INDIRECT, ORR_ORDER_MESH, NULL);
    fix_renderer_done(r, &logged);
    assert_memory_equal(b0, b1, (size_t)W * H * 4);
    assert_memory_equal(a1, a2, (size_t)W * H * 4);
    free(a1);
    free(b1);
    free(a2);
    free(b0);
    fix_fini(&b);
    fix_fini(&a);
}

/* GPU culling: cameras inside a grid of 900 cubes and glass panes (half of it behind them, some hidden,
 * some on a layer the views do not show) render the same bytes culled on the GPU as culled on the CPU,
 * in both draw orders, and batched draws the same bytes too; the GPU did cull (its count of visible
 * draws is below the scene's). */
static void test_gpu_cull_equals_cpu_cull(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    f.snapshot.instance_count = 0;
    const orr_material_id mats[3] = {f.red, f.green, f.blue};
    uint32_t id = 1;
    for (int z = 0; z < 30; z++)
        for (int x = 0; x < 30; x++) {
            orr_mat4d m;
            bool glass = (x * 7 + z * 3) % 17 == 0;
            orr_mat4d_from_trs((orr_vec3d){(x - 14.5) * 1.5, glass ? 0.75 : 0.0, (z - 14.5) * 1.5},
                               orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, 0.1 * x), (orr_vec3d){0.6, 0.6, 0.6}, &m);
            orr_render_instance *in = fix_add(&f, id++, glass ? f.quad : f.cube, glass ? f.glass : mats[(x + z) % 3], m);
            if ((x + 2 * z) % 13 == 0) in->visible = false;
            if ((3 * x + z) % 7 == 0) in->layers = 2;
        }
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    for (int order = 0; order < 2; order++) {
        fix_view v[2] = {
            {.viewport = {0, 0, W / 2, H}, .pose = fix_look((orr_vec3d){0, 1.0, 0.25}, (orr_vec3d){-2, 0.5, -6}),
             .strategy = ORR_STRATEGY_INDIRECT, .order = (orr_draw_order)order, .cull = ORR_CULL_GPU},
            {.viewport = {W / 2, 0, W - W / 2, H}, .pose = fix_look((orr_vec3d){3, 2.0, 3}, (orr_vec3d){8, 0, 1}),
             .strategy = ORR_STRATEGY_INDIRECT, .order = (orr_draw_order)order, .cull = ORR_CULL_GPU},
        };
        orr_render_stats gpu_stats, cpu_stats;
        uint8_t *gpu = fix_render(r, &f, W, H, v, 2, &gpu_stats);
        v[0].cull = v[1].cull = ORR_CULL_CPU;
        uint8_t *cpu = fix_render(r, &f, W, H, v, 2, &cpu_stats);
        v[0].strategy = v[1].strategy = ORR_STRATEGY_BATCHED;
        uint8_t *batched = fix_render(r, &f, W, H, v, 2, NULL);
        print_message("order %d: %u draws of %u instances in two views culled on the GPU, %u on the CPU (%u culled)\n",
                      order, gpu_stats.draws.surfaces, f.snapshot.instance_count, cpu_stats.draws.surfaces, cpu_stats.cull.culled);
        assert_int_equal(gpu_stats.views.gpu_culled, 2);
        assert_int_equal(cpu_stats.views.gpu_culled, 0);
        assert_true(cpu_stats.cull.culled > f.snapshot.instance_count / 2); /* over the two views */
        assert_true(gpu_stats.draws.surfaces < f.snapshot.instance_count);
        assert_true(gpu_stats.draws.surfaces >= cpu_stats.draws.surfaces); /* the GPU test is conservative */
        assert_true(fix_count_drawn(gpu, W, 0, 0, W, H) > W * H / 4);
        assert_memory_equal(gpu, cpu, (size_t)W * H * 4);
        assert_memory_equal(gpu, batched, (size_t)W * H * 4);
        free(gpu);
        free(cpu);
        free(batched);
    }
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* Kept draw commands: a live renderer whose views are culled on the GPU submits a slot's recording
 * again while nothing it is made from changed, and records again when something did. After every
 * frame the live renderer's image equals a fresh renderer's image of the same snapshot and views (a
 * stale recording would draw the old viewport, size or scene). The fresh renderer draws a twin
 * fixture, changed alike (a fixture's library is bound to one renderer at a time). */
typedef struct kept {
    orr_renderer *r, *fresh;
    fixture f[2]; /* the live renderer's, the fresh one's */
    orr_target_id target;
    orr_view_id views[2];
    fix_view desc[2];
    uint32_t w, h;
    orr_render_stats last; /* the live renderer's last frame */
} kept;

static bool kept_frame(kept *k, uint8_t **out)
{
    orr_render_desc d = fix_desc(k->r, &k->f[0], k->target);
    orr_render_stats st;
    if (orr_renderer_render(k->r, &d, &st) != ORR_OK) fail_msg("render: %s", orr_renderer_last_error(k->r)->message);
    k->last = st;
    size_t size = (size_t)k->w * k->h * 4;
    uint8_t *px = malloc(size);
    assert_non_null(px);
    assert_int_equal(orr_renderer_read_target(k->r, k->target, px, size), ORR_OK);
    uint8_t *ref = fix_render(k->fresh, &k->f[1], k->w, k->h, k->desc, 2, NULL);
    assert_memory_equal(px, ref, size);
    assert_true(fix_count_drawn(px, k->w, 0, 0, k->w, k->h) > 0);
    free(ref);
    if (out) *out = px;
    else free(px);
    return st.commands_reused;
}

/* After a change: each slot records again (and a slot's first frames make objects, which counts as a
 * change for the other), then both keep their recordings. */
static void kept_settle(kept *k)
{
    uint32_t frames = 1;
    while (!kept_frame(k, NULL)) {
        frames++;
        assert_true(frames <= 4);
    }
    assert_true(kept_frame(k, NULL));
    assert_true(kept_frame(k, NULL));
}

static void kept_set_view(kept *k, uint32_t i, orr_cull cull)
{
    k->desc[i].cull = cull;
    orr_view_desc vd = {.target = k->target, .slot = i, .viewport = k->desc[i].viewport, .pose = k->desc[i].pose,
                        .layer_mask = ORR_LAYERS_ALL, .order = ORR_ORDER_MESH, .strategy = ORR_STRATEGY_INDIRECT,
                        .cull = cull};
    if (k->views[i].generation) assert_int_equal(orr_renderer_update_view(k->r, k->views[i], &vd), ORR_OK);
    else assert_int_equal(orr_renderer_create_view(k->r, &vd, &k->views[i]), ORR_OK);
}

static void test_draw_commands_kept(void **state)
{
    (void)state;
    kept *k = calloc(1, sizeof *k);
    assert_non_null(k);
    uint32_t id = 1;
    for (int t = 0; t < 2; t++) {
        fixture *f = &k->f[t];
        fix_init(f, zero3());
        f->snapshot.instance_count = 0;
        const orr_material_id mats[3] = {f->red, f->green, f->blue};
        id = 1;
        for (int z = 0; z < 8; z++)
            for (int x = 0; x < 8; x++) {
                orr_mat4d m;
                orr_mat4d_from_trs((orr_vec3d){(x - 3.5) * 1.2, 0.0, (z - 3.5) * 1.2}, ORR_QUAT_IDENTITY,
                                   (orr_vec3d){0.5, 0.5, 0.5}, &m);
                fix_add(f, id++, f->cube, mats[(x + z) % 3], m);
            }
    }
    fix_log logged, fresh_logged;
    k->r = fix_renderer(&logged);
    k->fresh = fix_renderer(&fresh_logged);
    k->w = W;
    k->h = H;
    orr_target_desc td = {.width = W, .height = H, .readback = true, .samples = 1};
    memcpy(td.clear_color, FIX_CLEAR, sizeof td.clear_color);
    assert_int_equal(orr_renderer_create_target(k->r, &td, &k->target), ORR_OK);
    fix_two_views(zero3(), W, H, ORR_STRATEGY_INDIRECT, ORR_ORDER_MESH, k->desc);
    for (uint32_t i = 0; i < 2; i++) kept_set_view(k, i, ORR_CULL_GPU);
    /* each slot records, then submits its recording again */
    assert_false(kept_frame(k, NULL));
    kept_settle(k);
    uint8_t *still;
    assert_true(kept_frame(k, &still));
    assert_true(k->last.uploads_reused); /* (the views' copies alone, the same as the slot's) */
    /* moves and hiding are uploads: the commands stay, the image follows */
    uint32_t moved[2] = {5, 40};
    orr_mat4d to;
    orr_mat4d_from_trs((orr_vec3d){0.3, 0.9, 0.2}, ORR_QUAT_IDENTITY, (orr_vec3d){0.8, 0.8, 0.8}, &to);
    for (int t = 0; t < 2; t++) {
        orr_affine3d_from_mat4d(&to, &k->f[t].instances[4].world);
        k->f[t].instances[39].visible = false;
        fix_delta(&k->f[t], moved, 2, NULL, 0, false);
    }
    uint8_t *after;
    assert_true(kept_frame(k, &after));
    assert_false(k->last.uploads_reused); /* (the records went up) */
    assert_memory_not_equal(still, after, (size_t)W * H * 4);
    free(still);
    free(after);
    /* a camera moved: the view block says so, the commands stay */
    k->desc[1].pose = fix_look((orr_vec3d){-3.0, 2.5, 4.0}, (orr_vec3d){0.5, 0, 0});
    kept_set_view(k, 1, ORR_CULL_GPU);
    assert_true(kept_frame(k, NULL));
    /* a view moved to another part of the target (its size kept: the same depth image): both slots
     * record again, then keep; then one of another size */
    k->desc[0].viewport = (orr_viewport){W / 4, 0, W / 2, H};
    kept_set_view(k, 0, ORR_CULL_GPU);
    assert_false(kept_frame(k, NULL));
    assert_false(kept_frame(k, NULL));
    kept_settle(k);
    k->desc[0].viewport = (orr_viewport){W / 8, H / 8, W / 2, H / 2};
    kept_set_view(k, 0, ORR_CULL_GPU);
    assert_false(kept_frame(k, NULL));
    assert_false(kept_frame(k, NULL));
    kept_settle(k);
    /* a new batch (another pipeline: the double-sided ground material) */
    for (int t = 0; t < 2; t++) {
        orr_mat4d m;
        orr_mat4d_from_trs((orr_vec3d){0, -0.6, 0}, ORR_QUAT_IDENTITY, (orr_vec3d){6, 1, 6}, &m);
        fix_add(&k->f[t], id, k->f[t].quad, k->f[t].ground, m);
        fix_delta(&k->f[t], &id, 1, NULL, 0, true);
    }
    assert_false(kept_frame(k, NULL));
    kept_settle(k);
    /* another size */
    k->w = W / 2;
    k->h = H / 2;
    assert_int_equal(orr_renderer_resize_target(k->r, k->target, k->w, k->h), ORR_OK);
    fix_two_views(zero3(), k->w, k->h, ORR_STRATEGY_INDIRECT, ORR_ORDER_MESH, k->desc);
    for (uint32_t i = 0; i < 2; i++) kept_set_view(k, i, ORR_CULL_GPU);
    assert_false(kept_frame(k, NULL));
    assert_false(kept_frame(k, NULL));
    kept_settle(k);
    /* views culled on the CPU are recorded every frame */
    for (uint32_t i = 0; i < 2; i++) kept_set_view(k, i, ORR_CULL_CPU);
    for (int n = 0; n < 3; n++) assert_false(kept_frame(k, NULL));
    /* A view keeps its cull only while its camera, its scene and the instances stay: a camera turned
     * from the grid (a few cubes in view) and back (most of them), then a cube moved out of view and
     * back into it, the camera kept; each frame equals the fresh renderer's (a kept cull would leave
     * out what came into view). */
    fix_view home = k->desc[1];
    k->desc[1].pose = fix_look((orr_vec3d){-3.5, 1.0, -3.0}, (orr_vec3d){-9.0, 0.5, -3.5});
    kept_set_view(k, 1, ORR_CULL_GPU); /* (culled on the GPU, then on the CPU: culled again) */
    kept_frame(k, NULL);
    kept_set_view(k, 1, ORR_CULL_CPU);
    assert_false(kept_frame(k, NULL));
    assert_false(kept_frame(k, NULL)); /* (the same snapshot again) */
    k->desc[1] = home;
    kept_set_view(k, 1, ORR_CULL_CPU);
    assert_false(kept_frame(k, NULL));
    uint32_t mover = 28; /* in the middle of the grid: in view of both cameras */
    orr_affine3d at = k->f[0].instances[mover - 1].world;
    for (int step = 0; step < 2; step++) {
        for (int t = 0; t < 2; t++) {
            orr_affine3d *w = &k->f[t].instances[mover - 1].world;
            if (step == 0) {
                orr_mat4d away;
                orr_mat4d_from_trs((orr_vec3d){0.0, 0.0, 400.0}, ORR_QUAT_IDENTITY, (orr_vec3d){0.5, 0.5, 0.5}, &away);
                orr_affine3d_from_mat4d(&away, w);
            } else {
                *w = at;
            }
            fix_delta(&k->f[t], &mover, 1, NULL, 0, false);
        }
        assert_false(kept_frame(k, NULL));
        assert_false(kept_frame(k, NULL));
        if (step == 0) { /* the camera nudged: its cull, made again, leaves the cube out */
            k->desc[1].pose = fix_look((orr_vec3d){-3.45, 4.0, -3.0}, (orr_vec3d){0, 0, 0});
            kept_set_view(k, 1, ORR_CULL_CPU);
            assert_false(kept_frame(k, NULL));
        }
    }
    fix_renderer_done(k->fresh, &fresh_logged);
    fix_renderer_done(k->r, &logged);
    fix_fini(&k->f[0]);
    fix_fini(&k->f[1]);
    free(k);
}

/* An allocator that hands a freed block of the library's own size back to the next library: the new
 * library then stands at the old one's address, the case a renderer that knew libraries by address
 * got wrong. */
typedef struct reuse {
    void *kept;
    size_t size;
} reuse;

static void *reuse_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    reuse *u = user;
    if (new_size == 0) {
        if (ptr && !u->kept && old_size == u->size) {
            u->kept = ptr; /* the library's own block: kept for the next one */
            return NULL;
        }
        free(ptr);
        return NULL;
    }
    if (!ptr && u->kept && new_size == u->size) {
        void *p = u->kept;
        u->kept = NULL;
        memset(p, 0, new_size);
        return p;
    }
    if (!ptr && !u->size) u->size = new_size; /* the first allocation is the library itself */
    return realloc(ptr, new_size);
}

/* A library destroyed and another made at its address are two bindings: the second draws its own mesh
 * 0, exactly as a fresh renderer draws it, and the first binding's id fails. */
static void test_library_binding(void **state)
{
    (void)state;
    fixture a, b;
    reuse u = {0};
    orr_allocator same_place = {reuse_realloc, &u};
    fix_init_with(&a, zero3(), &same_place);
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    free(render_two(r, &a, zero3(), ORR_STRATEGY_INDIRECT, ORR_ORDER_MESH, NULL));
    orr_library_id first = a.library;
    const void *old_address = (const void *)a.assets;
    orr_assets_destroy(a.assets);
    a.assets = NULL;

    fix_init(&b, zero3()); /* b's mesh 0 is a cube too: make it a quad in a new library */
    orr_assets_destroy(b.assets);
    orr_assets *other;
    assert_int_equal(orr_assets_create(&(orr_assets_desc){.allocator = same_place}, &other, NULL), ORR_OK);
    assert_ptr_equal(other, old_address);
    orr_material m = orr_material_default();
    m.base_color[2] = 0.3f;
    orr_material_id mat;
    assert_int_equal(orr_assets_add_material(other, &m, &mat), ORR_OK);
    float pos[12] = {-0.5f, -0.5f, 0, 0.5f, -0.5f, 0, 0.5f, 0.5f, 0, -0.5f, 0.5f, 0};
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    orr_primitive_desc pd = {.vertex_count = 4, .positions = pos, .index_count = 6, .indices = idx, .material = mat};
    orr_mesh_id quad;
    assert_int_equal(orr_assets_add_mesh(other, &(orr_mesh_desc){.primitive_count = 1, .primitives = &pd}, &quad), ORR_OK);
    assert_int_equal(quad.index, 0); /* the index the old library's cube had */
    b.assets = other;
    b.snapshot.instance_count = 0;
    orr_mat4d world;
    orr_mat4d_from_trs((orr_vec3d){0, 0.5, 0}, ORR_QUAT_IDENTITY, (orr_vec3d){2, 2, 1}, &world);
    fix_add(&b, 10, quad, mat, world);
    uint8_t *after = render_two(r, &b, zero3(), ORR_STRATEGY_INDIRECT, ORR_ORDER_MESH, NULL);
    /* the old binding is gone */
    orr_target_desc td = {.width = 8, .height = 8, .samples = 1};
    orr_target_id target;
    assert_int_equal(orr_renderer_create_target(r, &td, &target), ORR_OK);
    assert_int_equal(orr_renderer_unbind_library(r, first), ORR_ERROR_STALE_HANDLE);
    /* with none bound, a frame says what is missing */
    assert_int_equal(orr_renderer_unbind_library(r, b.library), ORR_OK);
    orr_render_desc unbound = {.target = target, .snapshot = &b.snapshot};
    assert_int_equal(orr_renderer_render(r, &unbound, NULL), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_renderer_last_error(r)->message, "orr_renderer_bind_library"));
    fix_renderer_done(r, &logged);
    r = fix_renderer(&logged);
    uint8_t *fresh = render_two(r, &b, zero3(), ORR_STRATEGY_INDIRECT, ORR_ORDER_MESH, NULL);
    fix_renderer_done(r, &logged);
    assert_memory_equal(after, fresh, (size_t)W * H * 4);
    free(after);
    free(fresh);
    fix_fini(&b);
    free(u.kept);
}

/* The golden image: a two-view PNG compared byte for byte on the device that made it. */
static void test_golden(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    uint8_t *px = render_two(r, &f, zero3(), ORR_STRATEGY_INDIRECT, ORR_ORDER_MESH, NULL);
    char golden[1024], device_file[1024], actual[1024];
    snprintf(golden, sizeof golden, "%s/tests/golden/gpu_two_views.png", orrt_source_dir());
    snprintf(device_file, sizeof device_file, "%s/tests/golden/gpu_two_views.device.txt", orrt_source_dir());
    snprintf(actual, sizeof actual, "%s/gpu_two_views.actual.png", orrt_binary_dir());
    char note[1024]; /* what a person checked in the golden */
    snprintf(note, sizeof note, "%s/tests/golden/gpu_two_views.txt", orrt_source_dir());
    FILE *nf = fopen(note, "r");
    if (!nf) fail_msg("%s: no note beside the golden saying what a person checked in it", note);
    fclose(nf);
    const char *device = orrt_golden_device(orr_renderer_device_name(r));
    const char *update = getenv("ORRERY_UPDATE_GOLDEN");
    orr_error err;
    if (update && *update && strcmp(update, "0") != 0) {
        assert_int_equal(orr_gpu_write_png(golden, W, H, px, &err), ORR_OK);
        FILE *fp = fopen(device_file, "w");
        assert_non_null(fp);
        fprintf(fp, "%s\n", device);
        fclose(fp);
        print_message("golden image written: %s (%s)\n", golden, device);
    }
    assert_int_equal(orr_gpu_write_png(actual, W, H, px, &err), ORR_OK);
    int gw = 0, gh = 0, gc = 0;
    uint8_t *g = stbi_load(golden, &gw, &gh, &gc, 4);
    if (!g) fail_msg("golden image %s is missing (ORRERY_UPDATE_GOLDEN=1 writes it)", golden);
    assert_int_equal(gw, W);
    assert_int_equal(gh, H);
    char recorded[256] = "";
    FILE *fp = fopen(device_file, "r");
    if (fp) {
        if (!fgets(recorded, sizeof recorded, fp)) recorded[0] = 0;
        fclose(fp);
        recorded[strcspn(recorded, "\n")] = 0;
    }
    if (strcmp(recorded, device) == 0) {
        if (memcmp(g, px, (size_t)W * H * 4) != 0)
            fail_msg("image differs from the golden %s (actual: %s)", golden, actual);
    } else {
        /* Another device rasterises differently: byte equality is promised per device only. */
        uint64_t sum = 0;
        for (size_t k = 0; k < (size_t)W * H * 4; k++) sum += (uint64_t)abs((int)g[k] - (int)px[k]);
        double mean = (double)sum / ((double)W * H * 4);
        print_message("golden made on '%s', this is '%s': mean difference %.3f\n", recorded, device, mean);
        assert_true(mean < 2.0);
    }
    stbi_image_free(g);
    free(px);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* ---- a frame that fails half way ------------------------------------------------------------ */

/* An allocator that fails one chosen allocation (or growth) once it is armed. */
typedef struct failing_allocator {
    uint32_t countdown; /* armed when non-zero: the countdown-th allocation from now fails */
    bool failed;        /* it did */
} failing_allocator;

static void *failing_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    (void)old_size;
    failing_allocator *fa = user;
    if (new_size == 0) {
        free(ptr);
        return NULL;
    }
    if (fa->countdown && --fa->countdown == 0) {
        fa->failed = true;
        return NULL;
    }
    return realloc(ptr, new_size);
}

/* A flat grid of n x n vertices: 72 bytes each in the pool, so n = 40 outgrows its first 64 KiB. */
static orr_mesh_id add_grid(orr_assets *a, uint32_t n, orr_material_id material)
{
    uint32_t vn = n * n, in = (n - 1) * (n - 1) * 6;
    float *pos = calloc(vn * 3, sizeof *pos), *uv = calloc(vn * 2, sizeof *uv);
    uint32_t *idx = calloc(in, sizeof *idx);
    assert_true(pos && uv && idx);
    for (uint32_t y = 0; y < n; y++)
        for (uint32_t x = 0; x < n; x++) {
            uint32_t k = y * n + x;
            pos[k * 3 + 0] = (float)x / (float)(n - 1) - 0.5f;
            pos[k * 3 + 1] = (float)y / (float)(n - 1) - 0.5f;
            uv[k * 2 + 0] = (float)x / (float)(n - 1);
            uv[k * 2 + 1] = 1.0f - (float)y / (float)(n - 1);
        }
    uint32_t *t = idx;
    for (uint32_t y = 0; y + 1 < n; y++)
        for (uint32_t x = 0; x + 1 < n; x++) {
            uint32_t k = y * n + x;
            uint32_t quad[6] = {k, k + 1, k + n + 1, k, k + n + 1, k + n};
            memcpy(t, quad, sizeof quad);
            t += 6;
        }
    orr_primitive_desc p = {.vertex_count = vn, .positions = pos, .texcoords0 = uv, .index_count = in, .indices = idx,
                            .material = material};
    orr_mesh_desc d = {.name = "grid", .primitive_count = 1, .primitives = &p};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &d, &id), ORR_OK);
    free(pos);
    free(uv);
    free(idx);
    return id;
}

/* A target of W x H with the two-view layout (indirect, by mesh). */
static orr_target_id make_two_view_target(orr_renderer *r)
{
    orr_target_desc td = {.width = W, .height = H, .readback = true, .samples = 1};
    memcpy(td.clear_color, FIX_CLEAR, sizeof td.clear_color);
    orr_target_id target;
    assert_int_equal(orr_renderer_create_target(r, &td, &target), ORR_OK);
    fix_view views[2];
    fix_two_views(zero3(), W, H, ORR_STRATEGY_INDIRECT, ORR_ORDER_MESH, views);
    for (uint32_t i = 0; i < 2; i++) {
        orr_view_desc vd = {.target = target, .slot = i, .viewport = views[i].viewport, .pose = views[i].pose,
                            .layer_mask = ORR_LAYERS_ALL, .order = views[i].order, .strategy = views[i].strategy};
        orr_view_id view;
        assert_int_equal(orr_renderer_create_view(r, &vd, &view), ORR_OK);
    }
    return target;
}

static void read_frame(orr_renderer *r, orr_target_id target, uint8_t *px)
{
    if (orr_renderer_read_target(r, target, px, (size_t)W * H * 4) != ORR_OK)
        fail_msg("read_target: %s", orr_renderer_last_error(r)->message);
}

/* A frame that fails after it began recording (one allocation fails, in turn every allocation the
 * frame makes) returns the error, and the next frame of the same snapshot is byte-identical to a
 * fresh renderer's: nothing the failed frame meant to upload (a new mesh that grows the geometry
 * pool, a new texture, a new and a moved instance, an edited material) is taken as done. */
static void test_failed_frame_recovers(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    uint8_t texels[16 * 16 * 4];
    for (int i = 0; i < 16 * 16; i++) {
        texels[i * 4 + 0] = (uint8_t)(i * 7);
        texels[i * 4 + 1] = (uint8_t)((i % 16) * 16);
        texels[i * 4 + 2] = (i / 16 + i % 16) % 2 ? 230 : 20;
        texels[i * 4 + 3] = 255;
    }
    orr_texture_desc td = {.width = 16, .height = 16, .rgba8 = texels, .color_space = ORR_COLOR_SPACE_SRGB,
                           .sampler = {.mipmaps = true}};
    orr_texture_id tex;
    assert_int_equal(orr_assets_add_texture(f.assets, &td, &tex), ORR_OK);
    orr_material mat = orr_material_default();
    mat.base_color_texture.texture = tex;
    mat.double_sided = true;
    orr_material_id textured;
    assert_int_equal(orr_assets_add_material(f.assets, &mat, &textured), ORR_OK);
    orr_mesh_id grid = add_grid(f.assets, 40, textured);
    uint32_t first = f.snapshot.instance_count;

    /* frame 2's snapshot: frame 1's plus the grid, one cube moved, the red material edited */
    orr_mat4d m;
    orr_mat4d_from_trs((orr_vec3d){0.5, 0.5, 0.5}, orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, 0.4),
                       (orr_vec3d){1.5, 1.5, 1}, &m);
    fix_add(&f, 40, grid, textured, m);
    uint32_t second = f.snapshot.instance_count;
    orr_affine3d moved = f.instances[1].world;
    moved.m[10] += 0.375;

    /* the reference: a fresh renderer draws frame 2's snapshot with the edit */
    orr_material *red = orr_assets_try_edit_material(f.assets, f.red);
    red->base_color[1] = 0.6f;
    orr_affine3d plain = f.instances[1].world;
    f.instances[1].world = moved;
    const uint32_t frame2_changed[2] = {f.instances[1].id, 40};
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    orr_target_id target = make_two_view_target(r);
    uint8_t *expect = malloc((size_t)W * H * 4), *got = malloc((size_t)W * H * 4);
    assert_true(expect && got);
    assert_int_equal(render(r, &f, target, NULL), ORR_OK);
    read_frame(r, target, expect);
    fix_renderer_done(r, &logged);

    uint32_t failures = 0;
    for (uint32_t k = 1;; k++) {
        assert_true(k < 100000);
        failing_allocator fa = {0};
        orr_allocator allocator = {.realloc = failing_realloc, .user = &fa};
        r = fix_renderer_with(&logged, &allocator);
        target = make_two_view_target(r);
        /* frame 1: the fixture as it was */
        red = orr_assets_try_edit_material(f.assets, f.red);
        red->base_color[1] = 0.1f;
        f.instances[1].world = plain;
        f.snapshot.instance_count = first;
        f.snapshot.frame = 1;
        f.snapshot.delta_base = 0;
        assert_int_equal(render(r, &f, target, NULL), ORR_OK);
        /* frame 2 (a delta: one moved, one new), the k-th allocation failing */
        red = orr_assets_try_edit_material(f.assets, f.red);
        red->base_color[1] = 0.6f;
        f.instances[1].world = moved;
        f.snapshot.instance_count = second;
        fix_delta(&f, frame2_changed, 2, NULL, 0, true);
        fa.countdown = k;
        orr_result rc = render(r, &f, target, NULL);
        fa.countdown = 0;
        bool done = !fa.failed;
        if (fa.failed) {
            failures++;
            if (rc == ORR_OK) fail_msg("allocation %u failed, and the frame said ORR_OK", k);
            assert_int_equal(orr_renderer_last_error(r)->code, rc);
            assert_true(logged.errors > 0); /* and logged it */
        } else if (rc != ORR_OK) {
            fail_msg("frame 2 failed with no allocation failing: %s", orr_renderer_last_error(r)->message);
        }
        /* frame 3: the same snapshot again (taken whole when frame 2 failed) */
        rc = render(r, &f, target, NULL);
        if (rc != ORR_OK) fail_msg("the frame after allocation %u failed: %s", k, orr_renderer_last_error(r)->message);
        read_frame(r, target, got);
        if (memcmp(expect, got, (size_t)W * H * 4) != 0) {
            uint32_t n = 0;
            for (size_t p = 0; p < (size_t)W * H * 4; p++) n += expect[p] != got[p];
            char path[1024];
            snprintf(path, sizeof path, "%s/gpu_failed_frame.png", orrt_binary_dir());
            orr_gpu_write_png(path, W, H, got, NULL);
            fail_msg("after allocation %u failed in frame 2, frame 3 differs from a fresh renderer in %u bytes (%s)", k, n,
                     path);
        }
        fix_renderer_done(r, &logged);
        if (done) break;
    }
    print_message("a failed frame recovers: %u allocation points of the frame failed in turn\n", failures);
    assert_true(failures >= 3); /* planning, recording and the step before the submit each allocate */
    free(expect);
    free(got);
    fix_fini(&f);
}

/* Objects still alive when the device goes are reported by the validation layer inside
 * orr_renderer_destroy, after orr_renderer_validation_messages can be read: the fixture's logger
 * counts them. (Leaks one sampler on purpose, through the renderer's internals.) */
static void test_teardown_messages_counted(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    VkSamplerCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO, .maxLod = 0.0f};
    VkSampler leaked = VK_NULL_HANDLE;
    assert_int_equal(vkCreateSampler(r->device, &si, NULL, &leaked), VK_SUCCESS);
    assert_int_equal(orr_renderer_validation_messages(r), 0);
    assert_int_equal(logged.validation, 0);
    print_message("a sampler left alive on purpose: the validation messages below are expected\n");
    fix_renderer_destroy(r);
    print_message("validation messages at teardown: %u\n", logged.validation);
    assert_true(logged.validation >= 1);
}

/* No device is a clear error (ORR_ERROR_NO_DEVICE), not a crash: the loader is pointed at no driver. */
static void test_no_device(void **state)
{
    (void)state;
    const char *names[2] = {"VK_ICD_FILENAMES", "VK_DRIVER_FILES"};
    char *saved[2];
    for (int i = 0; i < 2; i++) {
        const char *v = getenv(names[i]);
        saved[i] = v ? strdup(v) : NULL;
        setenv(names[i], "/nonexistent/orrery_no_driver.json", 1);
    }
    orr_renderer *r = NULL;
    orr_error err = {0};
    orr_result rc = orr_renderer_create(NULL, &r, &err);
    for (int i = 0; i < 2; i++) {
        if (saved[i]) setenv(names[i], saved[i], 1);
        else unsetenv(names[i]);
        free(saved[i]);
    }
    print_message("without a driver: %s: %s\n", orr_result_name(rc), err.message);
    assert_int_equal(rc, ORR_ERROR_NO_DEVICE);
    assert_null(r);
    assert_non_null(strstr(err.message, "no Vulkan device"));
}

/* An offscreen target resized: its views keep their halves; a frame is read back only when it asks. */
static void test_resize_and_readback_on_request(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, zero3());
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    orr_target_desc td = {.width = W / 2, .height = H / 2, .samples = 1};
    memcpy(td.clear_color, FIX_CLEAR, sizeof td.clear_color);
    orr_target_id target;
    assert_int_equal(orr_renderer_create_target(r, &td, &target), ORR_OK);
    fix_view views[2];
    fix_two_views(zero3(), W / 2, H / 2, ORR_STRATEGY_BATCHED, ORR_ORDER_MESH, views);
    for (uint32_t i = 0; i < 2; i++) {
        orr_view_desc vd = {.target = target, .slot = i, .viewport = views[i].viewport, .pose = views[i].pose,
                            .strategy = views[i].strategy, .order = views[i].order};
        orr_view_id id;
        assert_int_equal(orr_renderer_create_view(r, &vd, &id), ORR_OK);
    }
    size_t size = (size_t)W * H * 4;
    uint8_t *px = malloc(size);
    orr_render_desc d = fix_desc(r, &f, target);
    assert_int_equal(orr_renderer_render(r, &d, NULL), ORR_OK);
    assert_int_equal(orr_renderer_read_target(r, target, px, size), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_renderer_last_error(r)->message, "not read back"));

    assert_int_equal(orr_renderer_resize_target(r, target, W, H), ORR_OK);
    uint32_t w = 0, h = 0;
    assert_int_equal(orr_renderer_target_size(r, target, &w, &h), ORR_OK);
    assert_int_equal(w, W);
    assert_int_equal(h, H);
    d = fix_desc(r, &f, target);
    d.readback = true;
    assert_int_equal(orr_renderer_render(r, &d, NULL), ORR_OK);
    assert_int_equal(orr_renderer_read_target(r, target, px, size), ORR_OK);
    fix_view full[2];
    fix_two_views(zero3(), W, H, ORR_STRATEGY_BATCHED, ORR_ORDER_MESH, full);
    uint8_t *expect = fix_render(r, &f, W, H, full, 2, NULL);
    assert_memory_equal(px, expect, size); /* the halves of the new size, drawn as a fresh W x H target */
    /* sizes a target cannot take; 0 x 0 only for a window */
    assert_int_equal(orr_renderer_resize_target(r, target, 0, 0), ORR_ERROR_INVALID_ARGUMENT);
    assert_int_equal(orr_renderer_resize_target(r, target, 1u << 30, 4), ORR_ERROR_INVALID_ARGUMENT);
    free(expect);
    free(px);
    assert_int_equal(orr_renderer_destroy_target(r, target), ORR_OK);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

void test_skinning_thousand_joints(void **state); /* test_gpu_skin.c */

/* Groups: "own" (every device) and "mesh_shaders" (task and mesh shaders against the meshlet fallback:
 * on a device without VK_EXT_mesh_shader, the fallback's selection); CTest runs them as gpu and gpu_mesh_shaders. */
int main(void)
{
    struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strategy_and_cull_names), cmocka_unit_test(test_look_at_pose_sees_target),
        cmocka_unit_test(test_default_samples),
        cmocka_unit_test(test_two_views),         cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_strategies_identical), cmocka_unit_test(test_large_coordinates),
        cmocka_unit_test(test_visibility_rules),  cmocka_unit_test(test_uploads),
        cmocka_unit_test(test_viewport_scissor),  cmocka_unit_test(test_material_edit_and_slots),
        cmocka_unit_test(test_pool_growth),       cmocka_unit_test(test_skinning),
        cmocka_unit_test(test_skinning_thousand_joints),
        cmocka_unit_test(test_mirrored),
        cmocka_unit_test(test_switch_assets),     cmocka_unit_test(test_failed_frame_recovers),
        cmocka_unit_test(test_teardown_messages_counted),
        cmocka_unit_test(test_golden),            cmocka_unit_test(test_no_device),
        cmocka_unit_test(test_gpu_cull_equals_cpu_cull), cmocka_unit_test(test_draw_commands_kept),
        cmocka_unit_test(test_library_binding),   cmocka_unit_test(test_baseline_gpu),
        cmocka_unit_test(test_pool_reuse),        cmocka_unit_test(test_resize_and_readback_on_request),
        ORRT_GPU_MORE_TESTS,
        ORRT_GPU_SHELL_TESTS,
        ORRT_GPU_TECHNIQUE_TESTS,
        ORRT_GPU_PICK_TESTS,
        ORRT_GPU_DEBUG_DRAW_TESTS,
    };
    /* needs a device with VK_EXT_mesh_shader: skipped (with the reason) elsewhere */
    struct CMUnitTest mesh_shaders[] = {cmocka_unit_test(test_mesh_shaders_equal_fallback),
                                        cmocka_unit_test(test_technique_mesh_equals_vertex)};
    fix_with_teardown(tests, sizeof tests / sizeof tests[0]); /* a failed test's renderer goes with it */
    fix_with_teardown(mesh_shaders, sizeof mesh_shaders / sizeof mesh_shaders[0]);
    const char *only = getenv("ORRT_FILTER"); /* a pattern of test names (cmocka's: * and ?) */
    if (only && *only) cmocka_set_test_filter(only);
    int failed = 0;
    if (orrt_group_selected("own")) failed += cmocka_run_group_tests_name("gpu", tests, NULL, NULL);
    if (orrt_group_selected("mesh_shaders"))
        failed += cmocka_run_group_tests_name("gpu: mesh shaders", mesh_shaders, NULL, NULL);
    /* Only when named: on a driver that takes static TLS at each load (NVIDIA's) it is meant to fail,
     * showing why renderers share an instance. */
    const struct CMUnitTest unshared[] = {cmocka_unit_test(test_renderer_cycles_unshared)};
    const char *groups = getenv("ORRT_GROUPS");
    if (groups && *groups && orrt_group_selected("cycles_unshared"))
        failed += cmocka_run_group_tests_name("gpu: renderers with an instance each", unshared, NULL, NULL);
    return orrt_exit_status(failed);
}
