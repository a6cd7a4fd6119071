/* gpu shadows: which casters a shadow view draws, and how. An alpha-masked caster casts the shadow of
 * its opaque texels only (its holes let the light through, as the cut-out pass lets the view through
 * them); a caster cut away whole casts nothing. */
#include "gpu_tests.h"
#include "shadow_scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The cut-out caster: a CELLS x CELLS checker 3 m across whose cells alternate opaque (the corners and
 * the centre) and cut away (alpha 0), 1.5 m over the floor, level, in place of the box. */
#define CELLS 3
#define GRID_SIZE 3.0
#define GRID_Y 1.5

static bool cell_opaque(int i, int j) { return (i + j) % 2 == 0; }

/* A quad GRID_SIZE across in the XZ plane, facing +Y, its texture's u along x and v along z. */
static orr_mesh_id add_grid_quad(fixture *f, orr_material_id material)
{
    const float h = (float)(GRID_SIZE / 2);
    float pos[12] = {-h, 0, -h, h, 0, -h, h, 0, h, -h, 0, h};
    float nrm[12] = {0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0};
    float uv[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    uint32_t idx[6] = {0, 2, 1, 0, 3, 2};
    orr_primitive_desc p = {.vertex_count = 4, .positions = pos, .normals = nrm, .texcoords0 = uv, .index_count = 6,
                            .indices = idx, .material = material};
    orr_mesh_desc d = {.name = "grid", .primitive_count = 1, .primitives = &p};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(f->assets, &d, &id), ORR_OK);
    return id;
}

/* The checker's alpha-masked material: a texel per cell (nearest, clamped), cut below 0.5. */
static orr_material_id add_checker_material(fixture *f)
{
    uint8_t texels[CELLS * CELLS * 4];
    for (int j = 0; j < CELLS; j++)
        for (int i = 0; i < CELLS; i++) {
            uint8_t *t = texels + (j * CELLS + i) * 4;
            t[0] = 200, t[1] = 180, t[2] = 60;
            t[3] = cell_opaque(i, j) ? 255 : 0;
        }
    orr_texture_desc td = {.width = CELLS, .height = CELLS, .rgba8 = texels, .color_space = ORR_COLOR_SPACE_SRGB,
                           .sampler = {.mag_filter = ORR_FILTER_NEAREST, .min_filter = ORR_FILTER_NEAREST,
                                       .wrap_s = ORR_WRAP_CLAMP, .wrap_t = ORR_WRAP_CLAMP}};
    orr_texture_id tex;
    assert_int_equal(orr_assets_add_texture(f->assets, &td, &tex), ORR_OK);
    orr_material m = orr_material_default();
    m.metallic = 0;
    m.alpha_mode = ORR_ALPHA_MASK;
    m.alpha_cutoff = 0.5f;
    m.double_sided = true;
    m.base_color_texture.texture = tex;
    orr_material_id id;
    assert_int_equal(orr_assets_add_material(f->assets, &m, &id), ORR_OK);
    return id;
}

/* The shadow scene with the box replaced by the checker (drawn with `material`: the checker's, or one
 * that cuts it all away), casting or not. */
static void checker_scene(fixture *f, orr_vec3d shine, bool whole_cut, bool casts)
{
    shadow_scene(f, (orr_vec3d){0, 0, 0}, shine, true, true);
    f->snapshot.instance_count = 1; /* the floor only */
    orr_material_id m = whole_cut ? f->cutout : add_checker_material(f);
    orr_mat4d world;
    orr_mat4d_from_trs((orr_vec3d){0, GRID_Y, 0}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &world);
    fix_add(f, 2, add_grid_quad(f, m), m, world)->casts_shadows = casts;
}

/* What the floor at pixel (x, y) should show under the checker lit along `shine`: SHADE (an opaque cell
 * on the way to the light), HOLE (lit through a hole), LIT (the light passes the checker by), or NONE,
 * left out: off the
 * floor, seen through the checker's square (its own pixels, or the floor through its holes) or within
 * `margin` metres of a cell's edge (the filter's penumbra and the pixel's own extent). */
enum { NONE, SHADE, HOLE, LIT };
static int checker_expected(uint32_t x, uint32_t y, orr_vec3d shine, double margin)
{
    orr_mat4d pose = fix_look(SHADOW_EYE, (orr_vec3d){0, 0, 0});
    double f = 1.0 / tan(0.4), aspect = (double)W / H, h = GRID_SIZE / 2;
    double nx = ((x + 0.5) / W * 2 - 1) * aspect / f, ny = -((y + 0.5) / H * 2 - 1) / f;
    orr_vec3d dir = orr_mat4d_transform_dir(&pose, (orr_vec3d){nx, ny, -1});
    double t = -SHADOW_EYE.y / dir.y, tg = (GRID_Y - SHADOW_EYE.y) / dir.y;
    if (!(t > 0)) return NONE;
    orr_vec3d p = orr_vec3d_add(SHADOW_EYE, orr_vec3d_scale(dir, t));
    orr_vec3d g = orr_vec3d_add(SHADOW_EYE, orr_vec3d_scale(dir, tg));
    if (fabs(p.x) > 5.5 || fabs(p.z) > 5.5) return NONE;
    if (fabs(g.x) < h + margin && fabs(g.z) < h + margin) return NONE;
    orr_vec3d to_light = orr_vec3d_scale(orr_vec3d_normalize(shine), -1.0);
    orr_vec3d q = orr_vec3d_add(p, orr_vec3d_scale(to_light, GRID_Y / to_light.y)); /* at the checker's height */
    double u = (q.x + h) / GRID_SIZE * CELLS, v = (q.z + h) / GRID_SIZE * CELLS, cell = GRID_SIZE / CELLS;
    if (u < -margin / cell || v < -margin / cell || u > CELLS + margin / cell || v > CELLS + margin / cell) return LIT;
    double du = fabs(u - round(u)) * cell, dv = fabs(v - round(v)) * cell;
    if (du < margin || dv < margin) return NONE;
    return cell_opaque((int)floor(u), (int)floor(v)) ? SHADE : HOLE;
}

/* A checker of opaque cells and holes over the floor: under each opaque cell the floor is in shadow,
 * under each hole it is lit with the bytes of the image without shadows; cut away whole, the caster
 * casts nothing (the bytes of the scene where it casts no shadow). */
void test_shadow_cutout_holes(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    /* towards the camera and a little to the side: the checker's shadow falls in front of it */
    const orr_vec3d shine = {0.2, -1, 0.9};
    fixture f;
    checker_scene(&f, shine, false, true);
    orr_view_desc off = shadow_view((orr_vec3d){0, 0, 0}, false, ORR_STRATEGY_INDIRECT, ORR_CULL_GPU);
    orr_view_desc on = shadow_view((orr_vec3d){0, 0, 0}, true, ORR_STRATEGY_INDIRECT, ORR_CULL_GPU);
    /* texels a few centimetres wide where the checker's shadow falls (the filter's penumbra and the
     * receiver's offsets well inside the margin) */
    on.shadows.map_size = 1024;
    on.shadows.distance = 15;
    uint8_t *plain = shadow_render(r, &f, &off, NULL), *shadowed = shadow_render(r, &f, &on, NULL);
    shadow_keep_png("cutout_plain", plain);
    shadow_keep_png("cutout", shadowed);
    /* per expectation: pixels, those darker than without shadows, those with its bytes */
    uint32_t count[4] = {0}, dark[4] = {0}, same[4] = {0};
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            const uint8_t *a = plain + ((size_t)y * W + x) * 4, *b = shadowed + ((size_t)y * W + x) * 4;
            int e = checker_expected(x, y, shine, 0.15);
            count[e]++;
            dark[e] += shadow_sum3(b) + 30 < shadow_sum3(a);
            same[e] += memcmp(a, b, 4) == 0;
        }
    print_message("cut-out checker: %u floor pixels under its opaque cells (%u in shadow), %u under its holes (%u "
                  "with the unshadowed bytes), %u past it (%u with the unshadowed bytes)\n",
                  count[SHADE], dark[SHADE], count[HOLE], same[HOLE], count[LIT], same[LIT]);
    /* five opaque cells and four holes of 1 m, each some 10 x 10 pixels less its margins */
    assert_true(count[SHADE] > 150 && count[HOLE] > 100 && count[LIT] > W * H / 4);
    assert_int_equal(dark[SHADE], count[SHADE]);
    assert_int_equal(same[HOLE], count[HOLE]); /* the light passes the holes: no shadow, no acne */
    assert_int_equal(same[LIT], count[LIT]);

    /* cut away whole: it casts nothing */
    fix_fini(&f);
    checker_scene(&f, shine, true, false);
    uint8_t *cast_none = shadow_render(r, &f, &on, NULL);
    fix_fini(&f);
    checker_scene(&f, shine, true, true);
    uint8_t *cut_whole = shadow_render(r, &f, &on, NULL);
    double cx, cy;
    assert_true(shadow_darkened(cast_none, shadowed, &cx, &cy) > 150); /* (a comparison that can fail) */
    assert_memory_equal(cast_none, cut_whole, (size_t)W * H * 4);
    free(cast_none);
    free(cut_whole);
    free(plain);
    free(shadowed);
    fix_fini(&f);
    fix_renderer_done(r, &log);
}

/* The shadow scene lit by a point light of `candela` at `at` reaching `range` metres (0: without end),
 * with a second box far off (at (17, 2, -2): 17 m along +X from a light at (0, 12, -2), in its +X
 * face alone, past a range of 14 m) that casts or not. */
static void ranged_scene(fixture *f, orr_vec3d at, float candela, float range, bool far_box_casts)
{
    shadow_scene(f, (orr_vec3d){0, 0, 0}, (orr_vec3d){0, -1, 0}, true, true);
    shadow_point_light(f, at, candela, true);
    f->light.range = range;
    orr_mat4d m;
    orr_mat4d_from_trs((orr_vec3d){17, 2, -2}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &m);
    fix_add(f, 3, f->cube, f->red, m)->casts_shadows = far_box_casts;
}

/* A point light's range bounds its cube: each face's far plane is the range and casters past it are not
 * drawn (a box 17 m off casts or not: the same count of drawn casters; without a range it is drawn);
 * the faces that hold nothing the view sees (up, and away over the top of the camera's view) are not
 * drawn,
 * and the box's shadow is where the exact one is; a light whose range reaches nothing the view sees
 * gets no map at all, and the image is the one without shadows. */
void test_shadow_point_range(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    /* 12 m over the floor and behind the box as the camera sees it: its +Y and -Z faces look past the
     * top of the camera's view (the top plane of the view's frustum has every corner of them outside) */
    const orr_vec3d at = {0, 12, -2};
    const float range = 14.0f, candela = 400.0f;
    orr_view_desc off = shadow_view((orr_vec3d){0, 0, 0}, false, ORR_STRATEGY_INDIRECT, ORR_CULL_GPU);
    orr_view_desc on = shadow_view((orr_vec3d){0, 0, 0}, true, ORR_STRATEGY_INDIRECT, ORR_CULL_GPU);
    fixture f;
    ranged_scene(&f, at, candela, range, true);
    orr_render_stats st, st_far_off, st_unranged, st_unranged_off;
    uint8_t *plain = shadow_render(r, &f, &off, NULL), *shadowed = shadow_render(r, &f, &on, &st);
    shadow_keep_png("point_range", shadowed);
    fix_fini(&f);
    ranged_scene(&f, at, candela, range, false);
    free(shadow_render(r, &f, &on, &st_far_off));
    fix_fini(&f);
    ranged_scene(&f, at, candela, 0.0f, true);
    free(shadow_render(r, &f, &on, &st_unranged));
    fix_fini(&f);
    ranged_scene(&f, at, candela, 0.0f, false);
    free(shadow_render(r, &f, &on, &st_unranged_off));
    fix_fini(&f);
    print_message("point light with a range: %u shadow views (%u casters drawn; %u with the far box casting none), "
                  "without one: %u (%u casters; %u)\n",
                  st.views.shadow_views, st.views.shadow_casters, st_far_off.views.shadow_casters,
                  st_unranged.views.shadow_views, st_unranged.views.shadow_casters,
                  st_unranged_off.views.shadow_casters);
    assert_int_equal(st.views.shadow_views, 4); /* +Y and -Z: up, and away over the top of the view */
    assert_int_equal(st_unranged.views.shadow_views, 6);
    assert_true(st.views.shadow_casters > 0);
    assert_int_equal(st.views.shadow_casters, st_far_off.views.shadow_casters); /* past the range: not drawn */
    assert_true(st_unranged.views.shadow_casters > st_unranged_off.views.shadow_casters); /* drawn */

    /* the box's shadow, against the exact one pixel by pixel (they differ along its edge only) */
    shadow_match sm = shadow_against_exact(plain, shadowed, at);
    print_message("the box's shadow: %u pixels darker, centred at %.1f,%.1f; the exact one %u pixels at %.1f,%.1f; "
                  "%u pixels differ\n",
                  sm.dark, sm.dark_x, sm.dark_y, sm.exact, sm.exact_x, sm.exact_y, sm.differ);
    assert_true(sm.exact > 100);
    assert_true(fabs(sm.dark_x - sm.exact_x) < 1.5 && fabs(sm.dark_y - sm.exact_y) < 1.5);
    assert_true(sm.differ < sm.exact / 15);
    free(plain);
    free(shadowed);

    /* behind the camera and reaching nothing it sees: no map, the unshadowed bytes */
    ranged_scene(&f, (orr_vec3d){0, 9, 20}, candela, 5.0f, true);
    uint8_t *unlit_plain = shadow_render(r, &f, &off, NULL), *unlit = shadow_render(r, &f, &on, &st);
    assert_int_equal(st.views.shadow_views, 0);
    assert_int_equal(st.views.shadow_lights, 0);
    fix_assert_varied(unlit, W * H);
    assert_memory_equal(unlit_plain, unlit, (size_t)W * H * 4);
    free(unlit_plain);
    free(unlit);
    fix_fini(&f);
    fix_renderer_done(r, &log);
}

/* A point light far from the view (200 m up; the view's shadows reach 30 m) casts through one map fitted
 * to what the view sees, not a cube: the box's shadow is where the exact one is. */
void test_shadow_point_focus(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    const orr_vec3d at = {30, 200, 10};
    fixture f;
    shadow_scene(&f, (orr_vec3d){0, 0, 0}, (orr_vec3d){0, -1, 0}, true, true);
    shadow_point_light(&f, at, 1.0e5f, true); /* about the light of the other tests' lights at 5 m */
    orr_view_desc off = shadow_view((orr_vec3d){0, 0, 0}, false, ORR_STRATEGY_INDIRECT, ORR_CULL_GPU);
    orr_view_desc on = shadow_view((orr_vec3d){0, 0, 0}, true, ORR_STRATEGY_INDIRECT, ORR_CULL_GPU);
    on.shadows.map_size = 2048; /* the one map spans the whole view: texels of 2.5 cm, as the cubes' */
    orr_render_stats st;
    uint8_t *plain = shadow_render(r, &f, &off, NULL), *shadowed = shadow_render(r, &f, &on, &st);
    shadow_keep_png("point_focus", shadowed);
    shadow_match sm = shadow_against_exact(plain, shadowed, at);
    print_message("a point light 200 m off: %u shadow views; its box's shadow %u pixels darker, centred at %.1f,%.1f; "
                  "the exact one %u pixels at %.1f,%.1f; %u pixels differ\n",
                  st.views.shadow_views, sm.dark, sm.dark_x, sm.dark_y, sm.exact, sm.exact_x, sm.exact_y, sm.differ);
    assert_int_equal(st.views.shadow_views, 1);
    assert_true(sm.exact > 100);
    assert_true(fabs(sm.dark_x - sm.exact_x) < 1.5 && fabs(sm.dark_y - sm.exact_y) < 1.5);
    assert_true(sm.differ <= sm.exact / 10); /* the filter's rim, round a shadow half the cube tests' size */
    free(plain);
    free(shadowed);
    fix_fini(&f);
    fix_renderer_done(r, &log);
}
