/* gpu shadows: metamorphic checks where no reference image exists. A box between a directional light and
 * a floor darkens the floor where the light's ray through the box meets it, and the dark region follows
 * the light; a box that casts no shadow, or a light that casts none, gives the image without shadows to
 * the byte (which also says the lit floor has no acne); the same scene 1e7 m from the origin gives the
 * same bytes; on a tilted plane seen across the cascade boundaries, a slab's shadow is exactly dark
 * inside and the plane exactly lit outside (no leak, no acne in any cascade), its edge where the slab's
 * edge projects and its penumbra without a jump where one cascade hands over to the next; the
 * strategies and culls draw the same shadows. */
#include "gpu_fixture.h"
#include "gpu_tests.h"
#include "shadow_scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The floor point under the box's centre along the light: (0, 1.5, 0) + t shine, y = 0. */
static orr_vec3d shadow_centre(orr_vec3d shine)
{
    orr_vec3d d = orr_vec3d_normalize(shine);
    double t = -1.5 / d.y;
    return (orr_vec3d){d.x * t, 0, d.z * t};
}

void test_shadow_box_darkens_floor(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    const orr_vec3d shines[2] = {{0.5, -1, 0.2}, {-0.6, -1, -0.3}};
    double centre_x[2], centre_y[2];
    for (int k = 0; k < 2; k++) {
        fixture f;
        shadow_scene(&f, (orr_vec3d){0, 0, 0}, shines[k], true, true);
        orr_view_desc off = shadow_view((orr_vec3d){0, 0, 0}, false, ORR_STRATEGY_BATCHED, ORR_CULL_AUTO);
        orr_view_desc on = shadow_view((orr_vec3d){0, 0, 0}, true, ORR_STRATEGY_BATCHED, ORR_CULL_AUTO);
        orr_render_stats st;
        uint8_t *plain = shadow_render(r, &f, &off, NULL), *shadowed = shadow_render(r, &f, &on, &st);
        assert_int_equal(st.views.shadow_views, 4); /* the default: four cascades */
        assert_true(st.memory.shadow_bytes >= 4ull * 512 * 512 * 4);
        shadow_keep_png(k ? "box_light1" : "box_light0", shadowed);
        if (!k) shadow_keep_png("box_plain", plain);
        double cx, cy;
        uint32_t n = shadow_darkened(plain, shadowed, &cx, &cy);
        double ex, ey;
        shadow_project(shadow_centre(shines[k]), &ex, &ey);
        print_message("light %d: %u pixels darker, centred at %.1f,%.1f; the box's shadow centre projects to %.1f,%.1f\n",
                      k, n, cx, cy, ex, ey);
        /* a unit box's shadow on a floor seen from 11 m: a few hundred pixels, centred where the ray
         * through the box's centre meets the floor (within a few pixels: the shadow of a box is not
         * symmetric about that point when the light is oblique) */
        assert_true(n > 100 && n < 2500);
        assert_true(fabs(cx - ex) < 6 && fabs(cy - ey) < 6);
        centre_x[k] = cx;
        centre_y[k] = cy;
        free(plain);
        free(shadowed);
        fix_fini(&f);
    }
    /* the dark region moved with the light: far apart, each where its light puts it */
    assert_true(fabs(centre_x[0] - centre_x[1]) + fabs(centre_y[0] - centre_y[1]) > 20);
    fix_renderer_done(r, &log);
}

void test_shadow_off_is_unshadowed_bytes(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    const orr_vec3d shine = {0.5, -1, 0.2};
    fixture f;
    shadow_scene(&f, (orr_vec3d){0, 0, 0}, shine, true, true);
    orr_view_desc off = shadow_view((orr_vec3d){0, 0, 0}, false, ORR_STRATEGY_BATCHED, ORR_CULL_AUTO);
    orr_view_desc on = shadow_view((orr_vec3d){0, 0, 0}, true, ORR_STRATEGY_BATCHED, ORR_CULL_AUTO);
    uint8_t *plain = shadow_render(r, &f, &off, NULL);
    fix_fini(&f);
    /* the box casts none: the floor (which casts, onto nothing but itself) is lit as without shadows */
    shadow_scene(&f, (orr_vec3d){0, 0, 0}, shine, false, true);
    uint8_t *box_off = shadow_render(r, &f, &on, NULL);
    assert_memory_equal(plain, box_off, (size_t)W * H * 4);
    fix_fini(&f);
    /* the light casts none: no shadow views at all */
    shadow_scene(&f, (orr_vec3d){0, 0, 0}, shine, true, false);
    orr_render_stats st;
    uint8_t *light_off = shadow_render(r, &f, &on, &st);
    assert_int_equal(st.views.shadow_views, 0);
    assert_memory_equal(plain, light_off, (size_t)W * H * 4);
    fix_fini(&f);
    free(plain);
    free(box_off);
    free(light_off);
    fix_renderer_done(r, &log);
}

void test_shadow_far_from_origin_same_bytes(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    const orr_vec3d shine = {0.5, -1, 0.2};
    /* a translation that is a whole number of ORR_SHADOW_ANCHOR on each axis */
    const orr_vec3d far = {1e7, 2e4, -1e7};
    fixture f;
    shadow_scene(&f, (orr_vec3d){0, 0, 0}, shine, true, true);
    orr_view_desc near_view = shadow_view((orr_vec3d){0, 0, 0}, true, ORR_STRATEGY_INDIRECT, ORR_CULL_GPU);
    uint8_t *at_origin = shadow_render(r, &f, &near_view, NULL);
    fix_fini(&f);
    shadow_scene(&f, far, shine, true, true);
    orr_view_desc far_view = shadow_view(far, true, ORR_STRATEGY_INDIRECT, ORR_CULL_GPU);
    uint8_t *at_far = shadow_render(r, &f, &far_view, NULL);
    fix_fini(&f);
    double cx, cy;
    shadow_scene(&f, (orr_vec3d){0, 0, 0}, shine, true, true);
    orr_view_desc off = shadow_view((orr_vec3d){0, 0, 0}, false, ORR_STRATEGY_INDIRECT, ORR_CULL_GPU);
    uint8_t *plain = shadow_render(r, &f, &off, NULL);
    fix_fini(&f);
    assert_true(shadow_darkened(plain, at_origin, &cx, &cy) > 100); /* there is a shadow to compare */
    assert_memory_equal(at_origin, at_far, (size_t)W * H * 4);
    free(plain);
    free(at_origin);
    free(at_far);
    fix_renderer_done(r, &log);
}

void test_shadow_strategies_agree(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    fixture f;
    shadow_scene(&f, (orr_vec3d){0, 0, 0}, (orr_vec3d){0.5, -1, 0.2}, true, true);
    orr_view_desc a = shadow_view((orr_vec3d){0, 0, 0}, true, ORR_STRATEGY_BATCHED, ORR_CULL_CPU);
    orr_view_desc b = shadow_view((orr_vec3d){0, 0, 0}, true, ORR_STRATEGY_INDIRECT, ORR_CULL_GPU);
    orr_view_desc c = shadow_view((orr_vec3d){0, 0, 0}, true, ORR_STRATEGY_DIRECT, ORR_CULL_CPU);
    uint8_t *pa = shadow_render(r, &f, &a, NULL), *pb = shadow_render(r, &f, &b, NULL), *pc = shadow_render(r, &f, &c, NULL);
    assert_memory_equal(pa, pb, (size_t)W * H * 4);
    assert_memory_equal(pa, pc, (size_t)W * H * 4);
    free(pa), free(pb), free(pc);
    fix_fini(&f);
    fix_renderer_done(r, &log);
}

/* The seam scene's geometry (test_shadow_cascade_seams): a plane 40 x 200 m tilted SEAM_TILT about x,
 * centred at (0, 0, -80); a slab 10 x 36 m whose underside is at y = 11.9 over x -8..2, z -38..-2; a
 * light shining along SEAM_SHINE; a camera at SEAM_EYE looking at (0, 0, -30). */
#define SEAM_TILT 0.17
static const orr_vec3d SEAM_SHINE = {0.3, -1, -0.4}, SEAM_EYE = {0, 4, 10};

/* Where pixel (x, y) (fractions allowed) sees the plane's top, relative to the slab's shadow: > 0 the
 * metres (at the slab's underside, along the light) by which its way to the light passes outside the
 * slab's edge, < 0 inside it; false where the pixel misses the plane. */
static bool seam_pixel(double x, double y, double *outside)
{
    orr_mat4d pose = fix_look(SEAM_EYE, (orr_vec3d){0, 0, -30});
    double t = tan(0.4), aspect = (double)W / H;
    orr_vec3d d = orr_mat4d_transform_dir(&pose, (orr_vec3d){(2 * x / W - 1) * t * aspect, -(2 * y / H - 1) * t, -1});
    orr_quatd q = orr_quatd_from_axis_angle((orr_vec3d){1, 0, 0}, SEAM_TILT);
    orr_vec3d n = orr_quatd_rotate(q, (orr_vec3d){0, 1, 0}), centre = {0, 0, -80};
    orr_vec3d top = orr_vec3d_add(centre, orr_quatd_rotate(q, (orr_vec3d){0, 0.1, 0}));
    double k = orr_vec3d_dot(orr_vec3d_sub(top, SEAM_EYE), n) / orr_vec3d_dot(d, n);
    if (!(k > 0)) return false;
    orr_vec3d hit = orr_vec3d_add(SEAM_EYE, orr_vec3d_scale(d, k));
    orr_quatd back = orr_quatd_from_axis_angle((orr_vec3d){1, 0, 0}, -SEAM_TILT);
    orr_vec3d local = orr_quatd_rotate(back, orr_vec3d_sub(hit, centre));
    if (fabs(local.x) > 20 || fabs(local.z) > 100) return false;
    orr_vec3d l = orr_vec3d_normalize(SEAM_SHINE);
    double u = (11.9 - hit.y) / -l.y; /* towards the light, up to the slab's underside */
    double sx = hit.x - l.x * u, sz = hit.z - l.z * u;
    double ox = fmax(-8 - sx, sx - 2), oz = fmax(-38 - sz, sz - (-2));
    *outside = ox > 0 && oz > 0 ? sqrt(ox * ox + oz * oz) : fmax(ox, oz);
    return true;
}

void test_shadow_cascade_seams(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    fixture f;
    shadow_scene(&f, (orr_vec3d){0, 0, 0}, SEAM_SHINE, false, true);
    /* a plane 200 m long, tilted 10 degrees about x, running away from a low camera: the four cascades
     * (uniform split up to 60 m: boundaries at 15, 30 and 45 m) all cross it */
    f.snapshot.instance_count = 0;
    f.snapshot.material_binding_count = 0;
    orr_mat4d m;
    orr_mat4d_from_trs((orr_vec3d){0, 0, -80}, orr_quatd_from_axis_angle((orr_vec3d){1, 0, 0}, SEAM_TILT),
                       (orr_vec3d){40, 0.2, 200}, &m);
    fix_add(&f, 1, f.cube, f.ground, m)->casts_shadows = true;
    /* and a slab above it, whose shadow is a band across the plane from about 17 to 53 m from the
     * camera: across the boundaries at 30 and 45 m */
    orr_mat4d_from_trs((orr_vec3d){-3, 12, -20}, ORR_QUAT_IDENTITY, (orr_vec3d){10, 0.2, 36}, &m);
    fix_add(&f, 2, f.cube, f.red, m)->casts_shadows = true;
    orr_view_desc vd = {.pose = fix_look(SEAM_EYE, (orr_vec3d){0, 0, -30}), .yfov = 0.8, .order = ORR_ORDER_MESH};
    orr_view_desc on = vd;
    on.shadows = (orr_shadow_settings){.enabled = true, .map_size = 256, .distance = 60, .split = ORR_SHADOW_SPLIT_UNIFORM};
    uint8_t *plain = shadow_render(r, &f, &vd, NULL), *shadowed = shadow_render(r, &f, &on, NULL);
    f.light.intensity = 0; /* the light's share gone: what a point that it does not reach looks like */
    uint8_t *unlit = shadow_render(r, &f, &vd, NULL);
    shadow_keep_png("seams", shadowed);
    shadow_keep_png("seams_plain", plain);
    shadow_keep_png("seams_unlit", unlit);
    /* Where the filter's reach (2 texels of the coarsest cascade, 0.33 m, with the normal offset, the
     * map's own rasterisation and the blend into the next cascade: under 1.5 m) cannot reach the
     * slab's edge, the image is exact: inside the band it is what the light does not reach, to the
     * byte (no light leaks through a boundary between cascades, whatever filter or cascade a pixel
     * gets), outside it the unshadowed image, to the byte (no acne in any cascade). */
    const double margin = 2.0;
    uint32_t inside = 0, outside = 0, dark_bad = 0, lit_bad = 0, rows_lo = H, rows_hi = 0;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            double o;
            if (!seam_pixel(x + 0.5, y + 0.5, &o)) continue;
            size_t i = ((size_t)y * W + x) * 4;
            if (o < -margin) {
                inside++;
                dark_bad += memcmp(shadowed + i, unlit + i, 4) != 0;
                rows_lo = y < rows_lo ? y : rows_lo;
                rows_hi = y > rows_hi ? y : rows_hi;
            } else if (o > margin) {
                outside++;
                lit_bad += memcmp(shadowed + i, plain + i, 4) != 0;
            }
        }
    /* The rows where the plane is 30 and 45 m from the camera along its axis. */
    orr_mat4d pose = fix_look(SEAM_EYE, (orr_vec3d){0, 0, -30});
    double boundary_row[2];
    for (int b = 0; b < 2; b++) {
        boundary_row[b] = -1;
        for (double y = 0.5; y < H; y += 0.25) {
            double o;
            if (!seam_pixel(W / 2.0, y, &o)) continue;
            /* the point the centre column sees at row y: its depth along the camera's axis */
            double t = tan(0.4);
            orr_vec3d d = orr_mat4d_transform_dir(&pose, (orr_vec3d){0, -(2 * y / H - 1) * t, -1});
            orr_quatd q = orr_quatd_from_axis_angle((orr_vec3d){1, 0, 0}, SEAM_TILT);
            orr_vec3d n = orr_quatd_rotate(q, (orr_vec3d){0, 1, 0});
            orr_vec3d top = orr_vec3d_add((orr_vec3d){0, 0, -80}, orr_quatd_rotate(q, (orr_vec3d){0, 0.1, 0}));
            double k = orr_vec3d_dot(orr_vec3d_sub(top, SEAM_EYE), n) / orr_vec3d_dot(d, n);
            if (k <= (b ? 45.0 : 30.0)) { /* depth along the axis = k (d's camera z is -1) */
                boundary_row[b] = y;
                break;
            }
        }
    }
    /* Each side edge of the band, row by row: where the light reaches half way (the shadow's edge, sub-pixel)
     * against where the slab's edge projects. */
    double worst_edge = 0;
    uint32_t edge_rows = 0;
    for (uint32_t y = 0; y < H; y++) {
        for (int side = 0; side < 2; side++) {
            /* the analytic edge: scan from the centre of the band outwards */
            double ex = -1, prev_o = 0, px = -1;
            for (double x = 0.5; x < W; x += 0.05) {
                double o;
                double xx = side ? x : W - x;
                if (!seam_pixel(xx, y + 0.5, &o)) {
                    px = -1;
                    continue;
                }
                if (px >= 0 && (prev_o < 0) != (o < 0) && fabs(o) < 1 && fabs(prev_o) < 1) {
                    ex = px + (xx - px) * prev_o / (prev_o - o);
                    if (side) break;
                }
                px = xx, prev_o = o;
            }
            if (ex < 0) continue;
            /* the image's: the light's share (its fraction of the unshadowed light) crossing 1/2 nearest ex */
            double best = 1e9;
            for (uint32_t x = 1; x < W; x++) {
                size_t a = ((size_t)y * W + x - 1) * 4, b = a + 4;
                double la = shadow_sum3(plain + a) - (double)shadow_sum3(unlit + a), lb = shadow_sum3(plain + b) - (double)shadow_sum3(unlit + b);
                if (la < 30 || lb < 30) continue;
                double fa = (shadow_sum3(shadowed + a) - (double)shadow_sum3(unlit + a)) / la - 0.5;
                double fb = (shadow_sum3(shadowed + b) - (double)shadow_sum3(unlit + b)) / lb - 0.5;
                if ((fa < 0) == (fb < 0)) continue;
                double cx = x - 0.5 + fa / (fa - fb); /* between the two pixel centres */
                if (fabs(cx - ex) < fabs(best - ex)) best = cx;
            }
            if (best > 1e8) continue;
            edge_rows++;
            worst_edge = fmax(worst_edge, fabs(best - ex));
        }
    }
    /* The penumbra's width, row by row (the sum over the row of 4 f (1 - f), f the light's share: about
     * the pixels it takes the light to go from none to all, both side edges): it grows with the texel
     * size of the cascade a row is in, and must not jump where one cascade hands over to the next (a
     * hard switch between filter footprints of two sizes: at 256 texels, a jump of 1 to 1.6 pixels at
     * the 30 and 45 m boundaries; rows elsewhere change by 0.3 at most). Rows of the band's inside only
     * (its ends' penumbrae left out). */
    double worst_width_step = 0, prev_width = -1;
    for (uint32_t y = rows_lo; y <= rows_hi; y++) {
        double width = 0;
        for (uint32_t x = 0; x < W; x++) {
            size_t i = ((size_t)y * W + x) * 4;
            double light = shadow_sum3(plain + i) - (double)shadow_sum3(unlit + i);
            if (light < 30) continue;
            double share = fmin(1, fmax(0, (shadow_sum3(shadowed + i) - (double)shadow_sum3(unlit + i)) / light));
            width += 4 * share * (1 - share);
        }
        if (prev_width >= 0) worst_width_step = fmax(worst_width_step, fabs(width - prev_width));
        prev_width = width;
    }
    print_message("plane pixels: %u inside the band's shadow (rows %u..%u; the 30 m and 45 m boundaries at "
                  "rows %.1f, %.1f), %u outside it; inside not the unlit bytes %u, outside not the unshadowed bytes "
                  "%u; the band's edge in %u rows, at worst %.2f pixels from the slab's projected edge; the "
                  "penumbra's width changes by %.2f pixels at most from row to row\n",
                  inside, rows_lo, rows_hi, boundary_row[0], boundary_row[1], outside, dark_bad, lit_bad, edge_rows,
                  worst_edge, worst_width_step);
    assert_true(inside > 500 && outside > W * H / 4);
    assert_true(rows_lo < boundary_row[1] && boundary_row[0] < rows_hi); /* the band crosses both boundaries */
    assert_int_equal(dark_bad, 0);
    assert_int_equal(lit_bad, 0);
    assert_true(edge_rows > 20);
    assert_true(worst_edge < 1.5);
    assert_true(worst_width_step < 0.6);
    free(plain);
    free(shadowed);
    free(unlit);
    fix_fini(&f);
    fix_renderer_done(r, &log);
}

void test_shadow_spot_light(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    const orr_vec3d at = {1, 6, 0.5};
    for (int casts = 1; casts >= 0; casts--) {
        fixture f;
        shadow_scene(&f, (orr_vec3d){0, 0, 0}, (orr_vec3d){0, -1, 0}, true, true);
        /* a spot light 6 m up, its cone (30 degrees off its axis) over the box and the floor round it */
        orr_render_light *l = &f.light;
        orr_vec3d shine = orr_vec3d_normalize((orr_vec3d){-0.2, -1, -0.1});
        orr_mat4d lm;
        orr_mat4d_from_trs(at, orr_quatd_look_rotation(shine, (orr_vec3d){1, 0, 0}), ORR_VEC3_ONE, &lm);
        orr_affine3d_from_mat4d(&lm, &l->world);
        l->type = ORR_LIGHT_SPOT;
        l->intensity = 120.0f;
        l->cos_inner = (float)cos(0.3);
        l->cos_outer = (float)cos(0.52);
        l->casts_shadows = casts;
        orr_view_desc off = shadow_view((orr_vec3d){0, 0, 0}, false, ORR_STRATEGY_BATCHED, ORR_CULL_AUTO);
        orr_view_desc on = shadow_view((orr_vec3d){0, 0, 0}, true, ORR_STRATEGY_INDIRECT, ORR_CULL_GPU);
        orr_render_stats st;
        uint8_t *plain = shadow_render(r, &f, &off, NULL), *shadowed = shadow_render(r, &f, &on, &st);
        shadow_keep_png(casts ? "spot" : "spot_off", shadowed);
        double cx, cy;
        uint32_t n = shadow_darkened(plain, shadowed, &cx, &cy);
        if (casts) {
            /* the ray from the light through the box's centre meets the floor at */
            double t = at.y / (at.y - 1.5);
            orr_vec3d hit = {at.x + (0 - at.x) * t, 0, at.z + (0 - at.z) * t};
            double ex, ey;
            shadow_project(hit, &ex, &ey);
            print_message("spot: %u pixels darker, centred at %.1f,%.1f; the box's shadow centre projects to %.1f,%.1f\n",
                          n, cx, cy, ex, ey);
            assert_int_equal(st.views.shadow_views, 1);
            assert_true(n > 100 && n < 3000);
            assert_true(fabs(cx - ex) < 6 && fabs(cy - ey) < 6);
        } else {
            assert_int_equal(st.views.shadow_views, 0);
            assert_memory_equal(plain, shadowed, (size_t)W * H * 4);
        }
        free(plain);
        free(shadowed);
        fix_fini(&f);
    }
    fix_renderer_done(r, &log);
}

void test_shadow_settings_checked(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    orr_target_desc td = {.width = 8, .height = 8};
    orr_target_id target;
    assert_int_equal(orr_renderer_create_target(r, &td, &target), ORR_OK);
    const orr_shadow_settings bad[] = {
        {.enabled = true, .map_size = 8},   {.enabled = true, .map_size = 9000}, {.enabled = true, .cascades = 5},
        {.enabled = true, .distance = -1},  {.enabled = true, .depth_bias = -1}, {.enabled = true, .pcf = 6},
        {.enabled = true, .split = (orr_shadow_split)7}, {.enabled = true, .max_lights = ORR_SHADOW_MAX_LIGHTS + 1},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        orr_view_desc vd = {.target = target, .shadows = bad[k]};
        orr_view_id id;
        assert_int_equal(orr_renderer_create_view(r, &vd, &id), ORR_ERROR_INVALID_ARGUMENT);
        assert_non_null(strstr(orr_renderer_last_error(r)->message, "desc.shadows"));
    }
    fix_renderer_done(r, &log);
}

/* The floor point on the ray from a light at `at` through the box's centre (0, 1.5, 0). */
static orr_vec3d point_shadow_centre(orr_vec3d at)
{
    double t = at.y / (at.y - 1.5);
    return (orr_vec3d){at.x - at.x * t, 0, at.z - at.z * t};
}

/* A point light casts a cube of six shadow views: the box's shadow lies where the ray from the light
 * through it meets the floor, below the light (its -Y face) and, with the light off to one side, across
 * the edge between its -Y and +X faces; it follows the light; a light that casts none, or a box that
 * casts none, gives the unshadowed bytes; 1e7 m from the origin gives the same bytes. */
void test_shadow_point_light(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    /* below the light; and off to -X, where the shadow (x 0..3 m on the floor) crosses x = 2, the edge of
     * the cube's -Y and +X faces */
    const orr_vec3d ats[2] = {{0.75, 5, 0.375}, {-2, 4, 0}};
    double centre_x[2], centre_y[2];
    for (int k = 0; k < 2; k++) {
        fixture f;
        shadow_scene(&f, (orr_vec3d){0, 0, 0}, (orr_vec3d){0, -1, 0}, true, true);
        shadow_point_light(&f, ats[k], 60.0f, true);
        orr_view_desc off = shadow_view((orr_vec3d){0, 0, 0}, false, ORR_STRATEGY_BATCHED, ORR_CULL_AUTO);
        orr_view_desc on = shadow_view((orr_vec3d){0, 0, 0}, true, ORR_STRATEGY_INDIRECT, ORR_CULL_GPU);
        orr_render_stats st;
        uint8_t *plain = shadow_render(r, &f, &off, NULL), *shadowed = shadow_render(r, &f, &on, &st);
        shadow_keep_png(k ? "point1" : "point0", shadowed);
        assert_int_equal(st.views.shadow_views, 6);
        assert_int_equal(st.views.shadow_lights, 1);
        assert_int_equal(st.views.shadow_lights_over, 0);
        assert_true(st.memory.shadow_bytes >= 6ull * 512 * 512 * 4);
        double ex, ey;
        shadow_project(point_shadow_centre(ats[k]), &ex, &ey);
        /* and against the exact shadow, pixel by pixel: they differ only along its edge (the filter's
         * penumbra, a texel of the map) */
        shadow_match sm = shadow_against_exact(plain, shadowed, ats[k]);
        uint32_t n = sm.dark, an = sm.exact, differ = sm.differ;
        double cx = sm.dark_x, cy = sm.dark_y, ax = sm.exact_x, ay = sm.exact_y;
        print_message("point light %d: %u pixels darker, centred at %.1f,%.1f; the box's shadow centre projects to "
                      "%.1f,%.1f; the exact shadow: %u pixels centred at %.1f,%.1f, %u pixels differ\n",
                      k, n, cx, cy, ex, ey, an, ax, ay, differ);
        assert_true(n > 100 && n < 4000);
        /* below the light, near where the ray through the box's centre lands (the shadow of a box is not
         * symmetric about it: the side light's, stretched away from it, is off by more) */
        if (!k) assert_true(fabs(cx - ex) < 6 && fabs(cy - ey) < 6);
        assert_true(fabs(cx - ax) < 1.5 && fabs(cy - ay) < 1.5);
        assert_true(differ < an / 15);
        centre_x[k] = cx;
        centre_y[k] = cy;
        /* the lit floor round it has no acne: away from the shadow (and the box), the unshadowed bytes */
        uint32_t lit_differ = 0;
        for (uint32_t y = 0; y < H; y++)
            for (uint32_t x = 0; x < W; x++)
                if (hypot(x + 0.5 - ex, y + 0.5 - ey) > 40 && hypot(x + 0.5 - W / 2.0, y + 0.5 - H / 2.0) > 30)
                    lit_differ += memcmp(plain + ((size_t)y * W + x) * 4, shadowed + ((size_t)y * W + x) * 4, 4) != 0;
        assert_int_equal(lit_differ, 0);
        free(plain);
        free(shadowed);
        fix_fini(&f);
    }
    assert_true(fabs(centre_x[0] - centre_x[1]) + fabs(centre_y[0] - centre_y[1]) > 20);

    /* casts_shadows off on the light, then on the box: the unshadowed bytes */
    fixture f;
    shadow_scene(&f, (orr_vec3d){0, 0, 0}, (orr_vec3d){0, -1, 0}, true, true);
    shadow_point_light(&f, ats[1], 60.0f, false);
    orr_view_desc off = shadow_view((orr_vec3d){0, 0, 0}, false, ORR_STRATEGY_BATCHED, ORR_CULL_AUTO);
    orr_view_desc on = shadow_view((orr_vec3d){0, 0, 0}, true, ORR_STRATEGY_INDIRECT, ORR_CULL_GPU);
    orr_render_stats st;
    uint8_t *plain = shadow_render(r, &f, &off, NULL), *light_off = shadow_render(r, &f, &on, &st);
    assert_int_equal(st.views.shadow_views, 0);
    assert_memory_equal(plain, light_off, (size_t)W * H * 4);
    fix_fini(&f);
    shadow_scene(&f, (orr_vec3d){0, 0, 0}, (orr_vec3d){0, -1, 0}, false, true);
    shadow_point_light(&f, ats[1], 60.0f, true);
    uint8_t *box_off = shadow_render(r, &f, &on, NULL);
    assert_memory_equal(plain, box_off, (size_t)W * H * 4);
    fix_fini(&f);

    /* the same scene 1e7 m out: the same bytes */
    shadow_scene(&f, (orr_vec3d){0, 0, 0}, (orr_vec3d){0, -1, 0}, true, true);
    shadow_point_light(&f, ats[1], 60.0f, true);
    uint8_t *at_origin = shadow_render(r, &f, &on, NULL);
    fix_fini(&f);
    const orr_vec3d far = {1e7, 2e4, -1e7};
    shadow_scene(&f, far, (orr_vec3d){0, -1, 0}, true, true);
    shadow_point_light(&f, orr_vec3d_add(far, ats[1]), 60.0f, true);
    orr_view_desc far_view = shadow_view(far, true, ORR_STRATEGY_INDIRECT, ORR_CULL_GPU);
    uint8_t *at_far = shadow_render(r, &f, &far_view, NULL);
    fix_fini(&f);
    double cx, cy;
    assert_true(shadow_darkened(plain, at_origin, &cx, &cy) > 100);
    assert_memory_equal(at_origin, at_far, (size_t)W * H * 4);
    free(plain), free(light_off), free(box_off), free(at_origin), free(at_far);
    fix_renderer_done(r, &log);
}

/* Pixels darker than in `plain` within `radius` pixels of (x, y). */
static uint32_t darkened_near(const uint8_t *plain, const uint8_t *shadowed, double x, double y, double radius)
{
    uint32_t n = 0;
    for (uint32_t py = 0; py < H; py++)
        for (uint32_t px = 0; px < W; px++) {
            size_t i = ((size_t)py * W + px) * 4;
            n += hypot(px + 0.5 - x, py + 0.5 - y) <= radius && shadow_sum3(shadowed + i) + 30 < shadow_sum3(plain + i);
        }
    return n;
}

/* Several lights cast in one view: a directional light's cascades and a point light's cube share the
 * shadow map, each receiver reading its own light's layers (each light's shadow where its ray through
 * the box meets the floor); with max_lights 1 the directional light casts (it comes first), the point
 * light lights unshadowed and is counted. */
void test_shadow_several_lights(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    const orr_vec3d shine = {0.5, -1, 0.2}, at = {2.5, 5, 0.5};
    fixture f;
    shadow_scene(&f, (orr_vec3d){0, 0, 0}, shine, true, true);
    orr_render_light lights[2];
    lights[0] = f.light;
    shadow_point_light(&f, at, 60.0f, true);
    lights[1] = f.light;
    f.snapshot.lights = lights;
    f.snapshot.light_count = 2;
    orr_view_desc off = shadow_view((orr_vec3d){0, 0, 0}, false, ORR_STRATEGY_BATCHED, ORR_CULL_AUTO);
    orr_view_desc on = shadow_view((orr_vec3d){0, 0, 0}, true, ORR_STRATEGY_INDIRECT, ORR_CULL_GPU);
    orr_view_desc one = on;
    one.shadows.max_lights = 1;
    orr_render_stats st_on, st_one;
    uint8_t *plain = shadow_render(r, &f, &off, NULL), *both = shadow_render(r, &f, &on, &st_on),
            *first = shadow_render(r, &f, &one, &st_one);
    shadow_keep_png("two_lights", both);
    shadow_keep_png("two_lights_max1", first);
    assert_int_equal(st_on.views.shadow_lights, 2);
    assert_int_equal(st_on.views.shadow_lights_over, 0);
    assert_int_equal(st_on.views.shadow_views, 4 + 6);
    assert_true(st_on.memory.shadow_bytes >= 10ull * 512 * 512 * 4);
    assert_int_equal(st_one.views.shadow_lights, 1);
    assert_int_equal(st_one.views.shadow_lights_over, 1);
    assert_int_equal(st_one.views.shadow_views, 4);
    double dx, dy, px, py;
    shadow_project(shadow_centre(shine), &dx, &dy);
    shadow_project(point_shadow_centre(at), &px, &py);
    uint32_t both_d = darkened_near(plain, both, dx, dy, 6), both_p = darkened_near(plain, both, px, py, 6);
    uint32_t one_d = darkened_near(plain, first, dx, dy, 6), one_p = darkened_near(plain, first, px, py, 6);
    print_message("two lights: darker pixels round the directional shadow's centre %u, the point light's %u; "
                  "with max_lights 1: %u and %u\n", both_d, both_p, one_d, one_p);
    assert_true(both_d > 60 && both_p > 60);
    assert_true(one_d > 60 && one_p == 0);
    free(plain), free(both), free(first);
    fix_fini(&f);
    fix_renderer_done(r, &log);
}

/* The order lights get maps in: directional, spot, point, whatever the snapshot's order. A point, a spot
 * and a directional light (listed so) with max_lights 2: the directional and the spot light cast (their
 * 4 + 1 layers), the point light is counted over; with 3, all three (4 + 1 + 6). */
void test_shadow_light_order(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    fixture f;
    shadow_scene(&f, (orr_vec3d){0, 0, 0}, (orr_vec3d){0.5, -1, 0.2}, true, true);
    orr_render_light lights[3];
    lights[2] = f.light; /* directional, last */
    shadow_point_light(&f, (orr_vec3d){2.5, 5, 0.5}, 60.0f, true);
    lights[0] = f.light; /* point, first */
    orr_render_light *spot = &lights[1];
    *spot = lights[2];
    orr_mat4d lm;
    orr_mat4d_from_trs((orr_vec3d){-1, 6, 0.5},
                       orr_quatd_look_rotation(orr_vec3d_normalize((orr_vec3d){0.2, -1, -0.1}), (orr_vec3d){1, 0, 0}),
                       ORR_VEC3_ONE, &lm);
    orr_affine3d_from_mat4d(&lm, &spot->world);
    spot->type = ORR_LIGHT_SPOT;
    spot->intensity = 120.0f;
    spot->cos_inner = (float)cos(0.3);
    spot->cos_outer = (float)cos(0.52);
    f.snapshot.lights = lights;
    f.snapshot.light_count = 3;
    orr_view_desc plain_view = shadow_view((orr_vec3d){0, 0, 0}, false, ORR_STRATEGY_BATCHED, ORR_CULL_AUTO);
    orr_view_desc two = shadow_view((orr_vec3d){0, 0, 0}, true, ORR_STRATEGY_BATCHED, ORR_CULL_CPU);
    two.shadows.max_lights = 2;
    orr_view_desc three = two;
    three.shadows.max_lights = 3;
    orr_render_stats s2, s3;
    uint8_t *plain = shadow_render(r, &f, &plain_view, NULL), *p2 = shadow_render(r, &f, &two, &s2),
            *p3 = shadow_render(r, &f, &three, &s3);
    shadow_keep_png("three_lights", p3);
    assert_int_equal(s2.views.shadow_lights, 2);
    assert_int_equal(s2.views.shadow_lights_over, 1);
    assert_int_equal(s2.views.shadow_views, 4 + 1);
    assert_int_equal(s3.views.shadow_lights, 3);
    assert_int_equal(s3.views.shadow_lights_over, 0);
    assert_int_equal(s3.views.shadow_views, 4 + 1 + 6);
    /* the point light's shadow is there with three, not with two */
    double px, py;
    shadow_project(point_shadow_centre((orr_vec3d){2.5, 5, 0.5}), &px, &py);
    uint32_t with2 = darkened_near(plain, p2, px, py, 6), with3 = darkened_near(plain, p3, px, py, 6);
    print_message("three lights: darker pixels round the point light's shadow centre: %u of max_lights 2, %u of 3\n",
                  with2, with3);
    assert_true(with3 > 60);
    assert_true(with3 > with2 + 40);
    free(plain), free(p2), free(p3);
    fix_fini(&f);
    fix_renderer_done(r, &log);
}
