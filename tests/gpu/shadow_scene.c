/* The shadow tests' scene (shadow_scene.h). */
#include "shadow_scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The floor (a cube 12 x 0.2 x 12 whose top is y = 0), a unit box at (0, 1.5, 0), a directional light
 * shining along `shine`, everything moved by `offset`. */
void shadow_scene(fixture *f, orr_vec3d offset, orr_vec3d shine, bool box_casts, bool light_casts)
{
    fix_init(f, offset);
    f->snapshot.instance_count = 0;
    f->snapshot.material_binding_count = 0;
    f->snapshot.camera_count = 0;
    orr_mat4d m;
    orr_mat4d_from_trs(orr_vec3d_add(offset, (orr_vec3d){0, -0.1, 0}), ORR_QUAT_IDENTITY, (orr_vec3d){12, 0.2, 12}, &m);
    fix_add(f, 1, f->cube, f->ground, m)->casts_shadows = true;
    orr_mat4d_from_trs(orr_vec3d_add(offset, (orr_vec3d){0, 1.5, 0}), ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &m);
    fix_add(f, 2, f->cube, f->red, m)->casts_shadows = box_casts;
    orr_render_light *l = &f->light;
    memset(l, 0, sizeof *l);
    l->type = ORR_LIGHT_DIRECTIONAL;
    l->color[0] = l->color[1] = l->color[2] = 1.0f;
    l->intensity = 3.0f;
    l->casts_shadows = light_casts;
    orr_mat4d lm;
    orr_mat4d_from_trs(offset, orr_quatd_look_rotation(orr_vec3d_normalize(shine), (orr_vec3d){1, 0, 0}), ORR_VEC3_ONE, &lm);
    orr_affine3d_from_mat4d(&lm, &l->world);
    f->snapshot.lights = l;
    f->snapshot.light_count = 1;
}

const orr_vec3d SHADOW_EYE = {0, 9, 7};

orr_view_desc shadow_view(orr_vec3d offset, bool shadows, orr_strategy strategy, orr_cull cull)
{
    orr_view_desc vd = {.pose = fix_look(orr_vec3d_add(offset, SHADOW_EYE), offset), .yfov = 0.8, .strategy = strategy,
                        .cull = cull, .order = ORR_ORDER_MESH};
    vd.shadows = (orr_shadow_settings){.enabled = shadows, .map_size = 512, .distance = 30};
    return vd;
}

uint8_t *shadow_render(orr_renderer *r, fixture *f, const orr_view_desc *view, orr_render_stats *stats)
{
    orr_target_desc td = {.width = W, .height = H, .readback = true, .samples = 1};
    memcpy(td.clear_color, FIX_CLEAR, sizeof td.clear_color);
    orr_target_id target;
    if (orr_renderer_create_target(r, &td, &target) != ORR_OK) fail_msg("target: %s", orr_renderer_last_error(r)->message);
    orr_view_desc vd = *view;
    vd.target = target;
    orr_view_id id;
    if (orr_renderer_create_view(r, &vd, &id) != ORR_OK) fail_msg("view: %s", orr_renderer_last_error(r)->message);
    orr_render_desc desc = fix_desc(r, f, target);
    if (orr_renderer_render(r, &desc, stats) != ORR_OK) fail_msg("render: %s", orr_renderer_last_error(r)->message);
    uint8_t *px = malloc((size_t)W * H * 4);
    assert_non_null(px);
    if (orr_renderer_read_target(r, target, px, (size_t)W * H * 4) != ORR_OK)
        fail_msg("read_target: %s", orr_renderer_last_error(r)->message);
    if (stats) assert_int_equal(orr_renderer_finish(r, stats), ORR_OK);
    assert_int_equal(orr_renderer_destroy_target(r, target), ORR_OK);
    return px;
}

/* ORRT_SHADOW_PNG=DIR writes the images the tests compare, to be looked at. */
void shadow_keep_png(const char *name, const uint8_t *px)
{
    const char *dir = getenv("ORRT_SHADOW_PNG");
    if (!dir) return;
    char path[512];
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    orr_error err;
    if (orr_gpu_write_png(path, W, H, px, &err) != ORR_OK) fail_msg("%s", err.message);
}

/* The pixel the world point p (relative to the scene's offset) lands on, seen from SHADOW_EYE. */
void shadow_project(orr_vec3d p, double *x, double *y)
{
    orr_mat4d pose = fix_look(SHADOW_EYE, (orr_vec3d){0, 0, 0}), inv;
    assert_true(orr_mat4d_inverse_affine(&pose, &inv));
    orr_vec3d c = orr_mat4d_transform_point(&inv, p);
    double f = 1.0 / tan(0.4), aspect = (double)W / H;
    *x = ((f / aspect) * c.x / -c.z * 0.5 + 0.5) * W;
    *y = (-f * c.y / -c.z * 0.5 + 0.5) * H;
}

/* Where the floor got darker than in `plain`: the count and the centroid. */
uint32_t shadow_darkened(const uint8_t *plain, const uint8_t *shadowed, double *cx, double *cy)
{
    uint32_t n = 0;
    double sx = 0, sy = 0;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            const uint8_t *a = plain + ((size_t)y * W + x) * 4, *b = shadowed + ((size_t)y * W + x) * 4;
            if (shadow_sum3(b) + 30 < shadow_sum3(a)) {
                n++;
                sx += x + 0.5;
                sy += y + 0.5;
            }
        }
    *cx = n ? sx / n : -1;
    *cy = n ? sy / n : -1;
    return n;
}

/* The scene's light made a point light of `candela` at `at`, casting or not. */
void shadow_point_light(fixture *f, orr_vec3d at, float candela, bool casts)
{
    orr_render_light *l = &f->light;
    orr_mat4d lm;
    orr_mat4d_from_trs(at, ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &lm);
    orr_affine3d_from_mat4d(&lm, &l->world);
    l->type = ORR_LIGHT_POINT;
    l->intensity = candela;
    l->casts_shadows = casts;
}


/* Whether the segment from a to b (0 < t < 1) passes through the box (0, 1.5, 0) +- 0.5 (slabs). */
static bool segment_hits_box(orr_vec3d a, orr_vec3d b)
{
    const double lo[3] = {-0.5, 1, -0.5}, hi[3] = {0.5, 2, 0.5};
    const double pa[3] = {a.x, a.y, a.z}, d[3] = {b.x - a.x, b.y - a.y, b.z - a.z};
    double t0 = 1e-9, t1 = 1 - 1e-9;
    for (int i = 0; i < 3; i++) {
        if (fabs(d[i]) < 1e-15) {
            if (pa[i] < lo[i] || pa[i] > hi[i]) return false;
            continue;
        }
        double u = (lo[i] - pa[i]) / d[i], v = (hi[i] - pa[i]) / d[i];
        if (u > v) {
            double w = u;
            u = v;
            v = w;
        }
        t0 = fmax(t0, u);
        t1 = fmin(t1, v);
        if (t0 > t1) return false;
    }
    return true;
}

/* The floor pixels (seen from SHADOW_EYE, not behind the box) whose point on y = 0 does not see the light at
 * `at` past the box: the exact shadow, pixel centres. Writes the mask; returns its count and centroid. */
uint32_t shadow_analytic(orr_vec3d at, bool *mask, double *cx, double *cy)
{
    orr_mat4d pose = fix_look(SHADOW_EYE, (orr_vec3d){0, 0, 0});
    double f = 1.0 / tan(0.4), aspect = (double)W / H, sx = 0, sy = 0;
    uint32_t n = 0;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            double nx = ((x + 0.5) / W * 2 - 1) * aspect / f, ny = -((y + 0.5) / H * 2 - 1) / f;
            orr_vec3d dir = orr_mat4d_transform_dir(&pose, (orr_vec3d){nx, ny, -1});
            double t = -SHADOW_EYE.y / dir.y;
            orr_vec3d p = orr_vec3d_add(SHADOW_EYE, orr_vec3d_scale(dir, t));
            bool in = t > 0 && fabs(p.x) < 6 && fabs(p.z) < 6 && !segment_hits_box(SHADOW_EYE, p) && segment_hits_box(p, at);
            mask[y * W + x] = in;
            if (in) {
                n++;
                sx += x + 0.5;
                sy += y + 0.5;
            }
        }
    *cx = n ? sx / n : -1;
    *cy = n ? sy / n : -1;
    return n;
}

shadow_match shadow_against_exact(const uint8_t *plain, const uint8_t *shadowed, orr_vec3d at)
{
    static bool exact[W * H];
    shadow_match m = {0};
    m.dark = shadow_darkened(plain, shadowed, &m.dark_x, &m.dark_y);
    m.exact = shadow_analytic(at, exact, &m.exact_x, &m.exact_y);
    for (uint32_t i = 0; i < W * H; i++)
        m.differ += exact[i] != (shadow_sum3(shadowed + (size_t)i * 4) + 30 < shadow_sum3(plain + (size_t)i * 4));
    return m;
}
