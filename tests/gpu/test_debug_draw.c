/* gpu debug drawing (debug_draw.h): lines a host adds for one frame. A line with no depth test lands on
 * the pixels its end points project to (computed here from the camera in binary64), at the origin and
 * 1e7 m from it, and changes no other pixel than its own (each to its colour); one with the depth test
 * behind a cube leaves the image as it was, byte for byte; the list is forgotten after its frame (the
 * next frame is the image without debug drawing, byte for byte); the built-in bounds, frusta and shadow
 * cascades draw (the cascades' boxes where they project), and turned off leave nothing. Validation and synchronization validation are on: any message fails. */
#include "gpu_fixture.h"
#include "gpu_tests.h"
#include "gpu/gpu_state.h" /* test_debug_cascades reads the frame's shadow views */

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

/* The fixture moved by o, seen through the usual camera in one full view of a new target (*target): its
 * image before any debug drawing (the caller frees it). */
static uint8_t *one_view_before(orr_renderer *r, fixture *f, orr_vec3d o, orr_target_id *target)
{
    fix_init(f, o);
    *target = add_target(r);
    add_view(r, *target, (orr_viewport){0, 0, 0, 0}, fix_camera(o));
    return frame(r, f, *target);
}

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
        orr_target_id target;
        uint8_t *before = one_view_before(r, &f, o, &target);
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
    orr_target_id target;
    uint8_t *before = one_view_before(r, &f, o, &target);
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
    orr_target_id target;
    uint8_t *before = one_view_before(r, &f, o, &target);
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

/* Where world point p lands in a view at `pose` (yfov 0.8, near 0.05) over viewport columns x0 .. x0 + w
 * of the target: false behind the camera. */
static bool project_in(const orr_mat4d *pose, double x0, double w, orr_vec3d p, double *x, double *y)
{
    orr_mat4d view, proj;
    assert_true(orr_mat4d_inverse(pose, &view));
    orr_mat4d_perspective_reversed_infinite(0.8, w / H, 0.05, &proj);
    orr_vec3d c = orr_mat4d_transform_point(&view, p);
    if (c.z > -0.1) return false;
    const double *m = proj.m;
    double clip[4];
    for (int row = 0; row < 4; row++) clip[row] = m[row] * c.x + m[4 + row] * c.y + m[8 + row] * c.z + m[12 + row];
    *x = x0 + (clip[0] / clip[3] + 1.0) * 0.5 * w;
    *y = (clip[1] / clip[3] + 1.0) * 0.5 * H;
    return true;
}

static uint8_t srgb8(float linear)
{
    double s = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055;
    return (uint8_t)lrint(s * 255.0);
}

/* The cascades drawn (ORR_DEBUG_CASCADES): a view with shadows on (four cascades to 24 m) beside an
 * overview from high above; in the overview, points along each edge of each cascade's box (the box the
 * frame made: its map's clip space back to the world) have a pixel of that cascade's colour within one
 * pixel; turned off, the image is the one without it, to the byte. */
void test_debug_cascades(void **state)
{
    (void)state;
    static const float colors[4][3] = {{1.0f, 0.15f, 0.15f}, {0.15f, 1.0f, 0.15f}, {0.25f, 0.35f, 1.0f}, {1.0f, 0.2f, 1.0f}};
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    fixture f;
    orr_vec3d o = {0, 0, 0};
    fix_init(&f, o);
    f.snapshot.instance_count = 0; /* nothing in front of the lines */
    f.snapshot.material_binding_count = 0;
    f.light.casts_shadows = true;
    orr_target_id target = add_target(r);
    orr_mat4d camera = fix_look((orr_vec3d){0, 2, 0}, (orr_vec3d){0, 1, -10});
    orr_view_desc shadowed = {.target = target, .viewport = {0, 0, W / 2, H}, .strategy = ORR_STRATEGY_BATCHED,
                              .pose = camera};
    shadowed.shadows = (orr_shadow_settings){.enabled = true, .map_size = 256, .distance = 24,
                                             .split = ORR_SHADOW_SPLIT_UNIFORM};
    orr_view_id id;
    if (orr_renderer_create_view(r, &shadowed, &id) != ORR_OK) fail_msg("view: %s", orr_renderer_last_error(r)->message);
    orr_mat4d overview = fix_look((orr_vec3d){30, 70, 30}, (orr_vec3d){0, 0, -8});
    add_view(r, target, (orr_viewport){W / 2, 0, W - W / 2, H}, overview);
    uint8_t *before = frame(r, &f, target);
    orr_renderer_set_debug_draw(r, ORR_DEBUG_CASCADES);
    uint8_t *drawn = frame(r, &f, target);
    assert_int_equal(r->shadows.count, 4);
    const char *dir = getenv("ORRT_SHADOW_PNG"); /* the image, to be looked at */
    if (dir) {
        char path[512];
        snprintf(path, sizeof path, "%s/debug_cascades.png", dir);
        orr_error err;
        if (orr_gpu_write_png(path, W, H, drawn, &err) != ORR_OK) fail_msg("%s", err.message);
    }
    /* each cascade's edges as the overview sees them (segments in pixels; both ends in front of it) */
    double seg[4][12][4];
    bool seen[4][12];
    for (uint32_t k = 0; k < r->shadows.count; k++) {
        const orri_shadow_view *sv = &r->shadows.views[k];
        assert_int_equal(sv->cascade, k);
        orr_mat4d inv;
        assert_true(orr_mat4d_inverse(&sv->clip, &inv));
        orr_vec3d c[8];
        for (uint32_t i = 0; i < 8; i++) {
            orr_vec3d n = {i & 1 ? 1.0 : -1.0, i & 2 ? 1.0 : -1.0, i & 4 ? 1.0 : 0.0};
            c[i] = orr_vec3d_add(orr_mat4d_transform_point(&inv, n), sv->origin); /* orthographic: w stays 1 */
        }
        uint32_t e = 0;
        for (uint32_t a = 0; a < 8; a++)
            for (uint32_t bit = 1; bit < 8; bit <<= 1) {
                if (a & bit) continue;
                double *q = seg[k][e];
                seen[k][e++] = project_in(&overview, W / 2, W - W / 2, c[a], &q[0], &q[1]) &&
                               project_in(&overview, W / 2, W - W / 2, c[a | bit], &q[2], &q[3]);
            }
    }
    /* Points along each edge: a pixel of its cascade's colour within one pixel, unless a later
     * cascade's line (drawn over it) passes within two pixels. */
    uint32_t hits[4] = {0}, samples[4] = {0};
    for (uint32_t k = 0; k < 4; k++) {
        uint8_t want[3] = {srgb8(colors[k][0]), srgb8(colors[k][1]), srgb8(colors[k][2])};
        for (uint32_t e = 0; e < 12; e++) {
            if (!seen[k][e]) continue;
            for (int s = 1; s < 16; s++) {
                double t = s / 16.0, x = seg[k][e][0] + (seg[k][e][2] - seg[k][e][0]) * t,
                       y = seg[k][e][1] + (seg[k][e][3] - seg[k][e][1]) * t;
                if (x < W / 2 + 2 || x > W - 2 || y < 2 || y > H - 2) continue;
                bool covered = false;
                for (uint32_t j = k + 1; j < 4 && !covered; j++)
                    for (uint32_t g = 0; g < 12 && !covered; g++) {
                        if (!seen[j][g]) continue;
                        const double *q = seg[j][g];
                        double dx = q[2] - q[0], dy = q[3] - q[1], l2 = dx * dx + dy * dy;
                        double u = l2 > 0 ? fmin(1, fmax(0, ((x - q[0]) * dx + (y - q[1]) * dy) / l2)) : 0;
                        covered = hypot(x - (q[0] + u * dx), y - (q[1] + u * dy)) < 2.0;
                    }
                if (covered) continue;
                samples[k]++;
                bool found = false;
                for (int dy = -1; dy <= 1 && !found; dy++)
                    for (int dx = -1; dx <= 1 && !found; dx++) {
                        const uint8_t *q = drawn + ((size_t)((int)floor(y) + dy) * W + (size_t)((int)floor(x) + dx)) * 4;
                        found = abs(q[0] - want[0]) <= 2 && abs(q[1] - want[1]) <= 2 && abs(q[2] - want[2]) <= 2;
                    }
                hits[k] += found;
            }
        }
    }
    orr_renderer_set_debug_draw(r, 0);
    uint8_t *after = frame(r, &f, target);
    assert_memory_equal(before, after, PX);
    for (int k = 0; k < 4; k++) {
        print_message("cascade %d: %u of %u points along its box's edges have its colour within a pixel\n", k, hits[k],
                      samples[k]);
        assert_true(samples[k] >= 20);
        assert_true(hits[k] * 20 >= samples[k] * 19); /* lines of the same colour crossing: a few */
    }
    free(before), free(drawn), free(after);
    fix_fini(&f);
    fix_renderer_done(r, &log);
}
