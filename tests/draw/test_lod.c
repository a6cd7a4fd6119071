/* Levels of detail in the retained scene: each instance's primitive is drawn at exactly one level per
 * view, the level the projected-error rule picks (checked against the rule in binary64 wherever the
 * two cannot round apart), coarser levels further away, level 0 alone with the setting off, and a
 * mesh without levels untouched. */
#include "draw_tests.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct lod_scene {
    orr_assets *assets;
    orr_mesh_id sphere, plain;
    orr_snapshot snap;
    orr_render_instance inst[600];
} lod_scene;

static orr_mesh_id lod_sphere(orr_assets *a, uint32_t levels)
{
    enum { ST = 24, SL = 48 };
    static float pos[(ST + 1) * (SL + 1) * 3], nrm[(ST + 1) * (SL + 1) * 3];
    static uint32_t idx[ST * SL * 6];
    uint32_t k = 0;
    for (uint32_t i = 0, v = 0; i <= ST; i++)
        for (uint32_t j = 0; j <= SL; j++, v++) {
            double th = ORR_PI * i / ST, ph = 2.0 * ORR_PI * j / SL;
            float p[3] = {(float)(sin(th) * cos(ph)), (float)cos(th), (float)(sin(th) * sin(ph))};
            memcpy(pos + v * 3, p, sizeof p);
            memcpy(nrm + v * 3, p, sizeof p);
        }
    for (uint32_t i = 0; i < ST; i++)
        for (uint32_t j = 0; j < SL; j++) {
            uint32_t a0 = i * (SL + 1) + j, b = a0 + 1, c = a0 + SL + 1, d = c + 1;
            idx[k++] = a0, idx[k++] = d, idx[k++] = b, idx[k++] = a0, idx[k++] = c, idx[k++] = d;
        }
    orr_primitive_desc p = {.vertex_count = (ST + 1) * (SL + 1), .positions = pos, .normals = nrm, .index_count = k,
                            .indices = idx};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &p, .lod_levels = levels},
                                         &id), ORR_OK);
    return id;
}

static uint64_t g_rng = 0x1234567;
static double frand(void)
{
    g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(g_rng >> 11) / 9007199254740992.0;
}

/* The level the rule picks, in binary64, and whether binary32 could pick another (a ratio within 1e-4
 * of a threshold). */
static uint32_t reference_level(const orr_mesh *m, const orr_render_instance *in, double k, bool *close)
{
    double s = 0;
    for (int c = 0; c < 3; c++) {
        double l2 = in->world.m[c * 3] * in->world.m[c * 3] + in->world.m[c * 3 + 1] * in->world.m[c * 3 + 1] +
                    in->world.m[c * 3 + 2] * in->world.m[c * 3 + 2];
        s = fmax(s, sqrt(l2));
    }
    double ce[3], he[3];
    for (int i = 0; i < 3; i++) {
        ce[i] = in->world.m[9 + i] - (i == 0 ? 1000.0 : 0.0), he[i] = 0; /* the view origin: x 1000 */
        for (int j = 0; j < 3; j++) he[i] += fabs(in->world.m[j * 3 + i]) * 1.0; /* the unit sphere's box */
    }
    double d = fmax(sqrt(ce[0] * ce[0] + ce[1] * ce[1] + ce[2] * ce[2]) - sqrt(he[0] * he[0] + he[1] * he[1] + he[2] * he[2]), 0);
    uint32_t level = 0;
    *close = false;
    for (uint32_t l = 1; l < m->lod_count; l++) {
        double lhs = m->lod_error[l] * s, rhs = k * d;
        if (fabs(lhs - rhs) <= 1e-4 * fmax(lhs, rhs)) *close = true;
        if (lhs <= rhs) level = l;
    }
    return level;
}

static void test_lod_pick_per_view(void **state)
{
    (void)state;
    lod_scene *f = calloc(1, sizeof *f);
    assert_int_equal(orr_assets_create(NULL, &f->assets, NULL), ORR_OK);
    f->sphere = lod_sphere(f->assets, 4);
    f->plain = lod_sphere(f->assets, 0);
    const orr_mesh *m = orr_assets_try_get_mesh(f->assets, f->sphere);
    print_message("sphere levels: %u, errors %g %g %g %g %g\n", m->lod_count, (double)m->lod_error[0], (double)m->lod_error[1],
                  (double)m->lod_error[2], (double)m->lod_error[3], (double)m->lod_error[4]);
    assert_true(m->lod_count >= 4);
    uint32_t n = 600;
    for (uint32_t i = 0; i < n; i++) {
        orr_render_instance *in = &f->inst[i];
        *in = (orr_render_instance){.id = i + 1, .mesh = i % 10 == 9 ? f->plain : f->sphere, .layers = 1, .visible = true};
        double scale = 0.5 + 2.0 * frand(), dist = 2.0 + pow(10.0, 3.0 * frand()), az = 2.0 * ORR_PI * frand();
        orr_affine3d_identity(&in->world);
        for (int c = 0; c < 3; c++) in->world.m[c * 4] = scale; /* m[0], m[4], m[8] */
        in->world.m[9] = dist * cos(az) + 1000.0, in->world.m[10] = 3.0 * frand(), in->world.m[11] = dist * sin(az);
        in->bounds = m->primitives[0].bounds;
    }
    f->snap.instances = f->inst;
    f->snap.instance_count = n;
    orr_draw_scene sc;
    orr_draw_scene_init(&sc, NULL);
    assert_int_equal(orr_draw_scene_build(&sc, &f->snap, f->assets, ORR_ORDER_MESH), ORR_OK);
    orr_draw_visible vis;
    orr_draw_visible_init(&vis, NULL);
    orr_draw_view view = {.layer_mask = ORR_LAYERS_ALL, .order = ORR_ORDER_MESH, .cull = false, .origin = {1000, 0, 0},
                          .lod_pixels = 1.0f, .lod_height = 1080.0f};
    orr_mat4d_identity(&view.view);
    orr_mat4d_perspective_reversed_infinite(0.8, 16.0 / 9.0, 0.1, &view.proj);
    double k = 1.0 / (fabs(view.proj.m[5]) * 1080.0 * 0.5);
    uint32_t per_level[ORR_MESH_MAX_LODS] = {0}, checked = 0;
    for (int setting = 0; setting < 2; setting++) {
        view.lod_pixels = setting ? 1.0f : 0.0f;
        assert_int_equal(orr_draw_scene_cull(&sc, &f->snap, &view, &vis), ORR_OK);
        uint32_t *level_of = calloc(n, sizeof *level_of), *seen = calloc(n, sizeof *seen);
        for (uint32_t r = 0; r < vis.opaque_ranges; r++) {
            const orr_draw_range *rg = &vis.ranges[r];
            const orr_draw_batch *b = &sc.batches[rg->batch];
            for (uint32_t j = 0; j < rg->count; j++) {
                uint32_t i = vis.items[rg->first + j];
                seen[i]++;
                level_of[i] = b->lod;
                if (orr_id_eq(b->mesh, f->plain)) assert_int_equal(b->lod, 0);
            }
        }
        for (uint32_t i = 0; i < n; i++) {
            assert_int_equal(seen[i], 1); /* one level of its one primitive */
            if (!setting) {
                assert_int_equal(level_of[i], 0);
                continue;
            }
            if (orr_id_eq(f->inst[i].mesh, f->plain)) continue;
            bool close;
            uint32_t want = reference_level(m, &f->inst[i], k, &close);
            per_level[level_of[i]]++;
            if (close) continue;
            checked++;
            assert_int_equal(level_of[i], want);
        }
        free(level_of);
        free(seen);
    }
    print_message("levels picked at 1 px: %u %u %u %u %u (%u checked against binary64)\n", per_level[0], per_level[1],
                  per_level[2], per_level[3], per_level[4], checked);
    for (uint32_t l = 0; l < 4; l++) assert_true(per_level[l] > 0); /* every level is somewhere */
    orr_draw_visible_fini(&vis);
    orr_draw_scene_fini(&sc);
    orr_assets_destroy(f->assets);
    free(f);
}

int orrt_draw_lods(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_lod_pick_per_view)};
    return cmocka_run_group_tests_name("draw: levels of detail", tests, NULL, NULL);
}
