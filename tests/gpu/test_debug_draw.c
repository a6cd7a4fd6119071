/* gpu debug drawing (debug_draw.h): lines a host adds for one frame. A line with no depth test lands on
 * the pixels its end points project to (computed here from the camera in binary64), at the origin and
 * 1e7 m from it, and changes no other pixel than its own (each to its colour); one with the depth test
 * behind a cube leaves the image as it was, byte for byte; the list is forgotten after its frame (the
 * next frame is the image without debug drawing, byte for byte); the built-in bounds and frusta draw,
 * and turned off leave nothing. Validation and synchronization validation are on: any message fails. */
#include "gpu_fixture.h"
#include "gpu_tests.h"

#include <orrery/debug_draw.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 96, H = 72 };
#define PX ((size_t)W * H * 4)

static orr_target_id add_target(orr_renderer *r) { return fix_target(r, W, H, NULL, NULL); }

static void add_view(orr_renderer *r, orr_target_id target, orr_viewport vp, orr_mat4d pose)
{
    fix_add_view(r, &(orr_view_desc){.target = target, .viewport = vp, .strategy = ORR_STRATEGY_BATCHED, .pose = pose});
}

static uint8_t *frame(orr_renderer *r, fixture *f, orr_target_id target) { return fix_frame(r, f, target, W, H); }

/* Where world point p lands in the one full view (pixel coordinates, 0,0 the top left corner). */
static void project(orr_vec3d o, orr_vec3d p, double *x, double *y)
{
    orr_mat4d pose = fix_camera(o), view, proj;
    assert_true(orr_mat4d_inverse(&pose, &view));
    orr_mat4d_perspective_reversed_infinite(0.8, (double)W / H, 0.05, &proj);
    orr_vec3d e = fix_eye(o);
    orr_vec3d rel = {p.x - e.x, p.y - e.y, p.z - e.z}; /* in binary64, as the view's origin does */
    view.m[12] = view.m[13] = view.m[14] = 0.0;
    orr_vec3d c = orr_mat4d_transform_point(&view, rel);
    const double *m = proj.m;
    double clip[4];
    for (int row = 0; row < 4; row++) clip[row] = m[row] * c.x + m[4 + row] * c.y + m[8 + row] * c.z + m[12 + row];
    *x = (clip[0] / clip[3] + 1.0) * 0.5 * W;
    *y = (clip[1] / clip[3] + 1.0) * 0.5 * H;
}

static bool green(const uint8_t *p) { return p[0] == 0 && p[1] == 255 && p[2] == 0 && p[3] == 255; }

/* Whether a pixel within one of x,y (pixel coordinates) is green. */
static bool green_near(const uint8_t *px, double x, double y)
{
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int ix = (int)floor(x) + dx, iy = (int)floor(y) + dy;
            if (ix >= 0 && iy >= 0 && ix < W && iy < H && green(px + ((size_t)iy * W + ix) * 4)) return true;
        }
    return false;
}

static const orr_debug_style GREEN = {{0.0f, 1.0f, 0.0f, 1.0f}, false};
static const orr_debug_style GREEN_TESTED = {{0.0f, 1.0f, 0.0f, 1.0f}, true};

/* A line over the scene, at the origin and 1e7 m from it: its pixels where its points project, every
 * changed pixel its colour; the next frame without it is the image before, byte for byte. */
void test_debug_lines_where_projected(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    const orr_vec3d offsets[] = {{0, 0, 0}, {1e7, -2e6, 1e7}};
    for (int k = 0; k < 2; k++) {
        orr_vec3d o = offsets[k];
        fixture f;
        fix_init(&f, o);
        orr_target_id target = add_target(r);
        add_view(r, target, (orr_viewport){0, 0, 0, 0}, fix_camera(o));
        uint8_t *before = frame(r, &f, target);
        orr_vec3d a = {o.x - 1.2, o.y + 1.7, o.z + 0.4}, b = {o.x + 1.4, o.y + 1.2, o.z - 0.3};
        assert_int_equal(orr_renderer_debug_line(r, a, b, &GREEN), ORR_OK);
        assert_int_equal(orr_renderer_debug_line_count(r), 1);
        uint8_t *with = frame(r, &f, target);
        assert_int_equal(orr_renderer_debug_line_count(r), 0); /* drawn, forgotten */
        uint32_t changed = 0;
        for (size_t i = 0; i < PX; i += 4)
            if (memcmp(before + i, with + i, 4)) {
                changed++;
                if (!green(with + i)) fail_msg("pixel %zu,%zu changed to %u,%u,%u: not the line's colour", (i / 4) % W,
                                               (i / 4) / W, with[i], with[i + 1], with[i + 2]);
            }
        assert_true(changed >= 20);
        for (int s = 1; s < 10; s++) {
            double t = s / 10.0, x, y;
            project(o, (orr_vec3d){a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z)}, &x, &y);
            if (!green_near(with, x, y)) fail_msg("offset %g: the line's point %.1f projects to %.2f,%.2f: not drawn there",
                                                  o.x, t, x, y);
        }
        uint8_t *after = frame(r, &f, target);
        assert_memory_equal(before, after, PX);
        free(before), free(with), free(after);
        assert_int_equal(orr_renderer_destroy_target(r, target), ORR_OK);
        fix_fini(&f);
    }
    fix_renderer_done(r, &log);
}

/* A short line straight behind the red cube: depth tested, the image is the one without it, byte for
 * byte; not tested, it shows over the cube. */
void test_debug_depth_test_hides(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    fixture f;
    orr_vec3d o = {0, 0, 0};
    fix_init(&f, o);
    orr_target_id target = add_target(r);
    add_view(r, target, (orr_viewport){0, 0, 0, 0}, fix_camera(o));
    uint8_t *before = frame(r, &f, target);
    /* 1.5 m behind the cube's centre along the ray from the eye through it; 0.3 m across */
    orr_vec3d e = fix_eye(o), c = {0, 0, 0};
    orr_vec3d ray = orr_vec3d_normalize(orr_vec3d_sub(c, e));
    orr_vec3d q = orr_vec3d_add(c, orr_vec3d_scale(ray, 1.5));
    orr_vec3d across = orr_vec3d_scale(orr_vec3d_normalize(orr_vec3d_cross(ray, (orr_vec3d){0, 1, 0})), 0.15);
    assert_int_equal(orr_renderer_debug_line(r, orr_vec3d_sub(q, across), orr_vec3d_add(q, across), &GREEN_TESTED), ORR_OK);
    uint8_t *hidden = frame(r, &f, target);
    assert_memory_equal(before, hidden, PX);
    assert_int_equal(orr_renderer_debug_line(r, orr_vec3d_sub(q, across), orr_vec3d_add(q, across), &GREEN), ORR_OK);
    uint8_t *shown = frame(r, &f, target);
    double x, y;
    project(o, q, &x, &y);
    assert_true(green_near(shown, x, y));
    free(before), free(hidden), free(shown);
    fix_fini(&f);
    fix_renderer_done(r, &log);
}

/* The shapes add their lines (a box 12, a sphere 3 circles, a frustum 12, axes 3) and draw; bad frustum
 * values are refused. */
void test_debug_shapes(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    fixture f;
    orr_vec3d o = {0, 0, 0};
    fix_init(&f, o);
    orr_target_id target = add_target(r);
    add_view(r, target, (orr_viewport){0, 0, 0, 0}, fix_camera(o));
    uint8_t *before = frame(r, &f, target);
    orr_mat4d id;
    orr_mat4d_identity(&id);
    assert_int_equal(orr_renderer_debug_box(r, (orr_aabbd){{-0.6, -0.6, -0.6}, {0.6, 0.6, 0.6}}, NULL, &GREEN), ORR_OK);
    assert_int_equal(orr_renderer_debug_line_count(r), 12);
    assert_int_equal(orr_renderer_debug_sphere(r, (orr_vec3d){1.5, 0, 0}, 0.8, &GREEN), ORR_OK);
    assert_int_equal(orr_renderer_debug_line_count(r), 12 + 3 * ORR_DEBUG_SPHERE_SEGMENTS);
    orr_mat4d cam = fix_look((orr_vec3d){-1, 1, 1}, (orr_vec3d){0, 0, -3});
    assert_int_equal(orr_renderer_debug_frustum(r, &cam, 0.6, 1.5, 0.1, 1.0, &GREEN), ORR_OK);
    assert_int_equal(orr_renderer_debug_axes(r, &id, 1.0, &GREEN), ORR_OK);
    assert_int_equal(orr_renderer_debug_line_count(r), 12 + 3 * ORR_DEBUG_SPHERE_SEGMENTS + 12 + 3);
    assert_int_equal(orr_renderer_debug_frustum(r, &cam, 0.6, 1.5, 1.0, 0.5, &GREEN), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_renderer_last_error(r)->message, "znear < zfar"));
    uint8_t *with = frame(r, &f, target);
    uint32_t changed = 0, red = 0;
    for (size_t i = 0; i < PX; i += 4) {
        changed += memcmp(before + i, with + i, 4) != 0;
        red += with[i] == 255 && with[i + 1] == 0 && with[i + 2] == 0; /* the X axis */
    }
    assert_true(changed >= 150);
    assert_true(red >= 5);
    free(before), free(with);
    fix_fini(&f);
    fix_renderer_done(r, &log);
}

/* Bounds and frusta: each instance's box drawn over the image, another view's frustum seen from above;
 * turned off, the image without them to the byte. */
void test_debug_builtin(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    fixture f;
    orr_vec3d o = {0, 0, 0};
    fix_init(&f, o);
    orr_target_id target = add_target(r);
    add_view(r, target, (orr_viewport){0, 0, W / 2, H}, fix_camera(o));
    add_view(r, target, (orr_viewport){W / 2, 0, W - W / 2, H}, fix_look((orr_vec3d){0.5, 14, 6}, (orr_vec3d){0.5, 0, 0}));
    uint8_t *before = frame(r, &f, target);
    orr_renderer_set_debug_draw(r, ORR_DEBUG_BOUNDS);
    uint8_t *bounds = frame(r, &f, target);
    orr_renderer_set_debug_draw(r, ORR_DEBUG_FRUSTA);
    uint8_t *frusta = frame(r, &f, target);
    orr_renderer_set_debug_draw(r, 0);
    uint8_t *after = frame(r, &f, target);
    assert_memory_equal(before, after, PX);
    uint32_t yellow = 0, cyan_right = 0;
    for (size_t i = 0; i < PX; i += 4) {
        if (memcmp(before + i, bounds + i, 4) && bounds[i] == 255 && bounds[i + 2] < 120) yellow++;
        if (memcmp(before + i, frusta + i, 4) && (i / 4) % W >= W / 2 && frusta[i] < 100 && frusta[i + 1] > 200)
            cyan_right++;
    }
    assert_true(yellow >= 40);
    assert_true(cyan_right >= 10); /* the left view's frustum, seen by the right one from above */
    free(before), free(bounds), free(frusta), free(after);
    fix_fini(&f);
    fix_renderer_done(r, &log);
}
