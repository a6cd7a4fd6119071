/* Occlusion culling (orr_view_desc.occlusion): conservative, so the same image bytes as without, and
 * it does cull. */
#include "gpu_fixture.h"
#include "gpu_tests.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Two odd-sized views side by side (odd sizes: the pyramid's halving rounds up). */
#define OCC_W 128u
#define OCC_H 47u
#define OCC_SPLIT 61u
#define OCC_GRID 14
#define OCC_HIDDEN 16u /* cubes behind the wall */

static uint64_t occ_random(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

static double occ_unit(uint64_t *s) { return (double)(occ_random(s) >> 11) * (1.0 / 9007199254740992.0); }

static orr_mat4d occ_trs(orr_vec3d t, orr_vec3d scale)
{
    orr_mat4d m;
    orr_mat4d_from_trs(t, ORR_QUAT_IDENTITY, scale, &m);
    return m;
}

/* A dense block of a city: a grid of boxes of random heights on a ground (some pairs of twins in the
 * same place with another material: surfaces at equal depth, whose winner is the draw order's), a
 * cut-out and a glass quad, and far off a wall with cubes behind it. */
static void occ_scene(fixture *f, uint64_t seed)
{
    fix_init(f, (orr_vec3d){0, 0, 0});
    f->snapshot.instance_count = 0;
    const orr_material_id mats[3] = {f->red, f->green, f->blue};
    uint32_t id = 1;
    orr_mat4d ground;
    orr_mat4d_from_trs((orr_vec3d){0, -0.5, 0}, orr_quatd_from_axis_angle((orr_vec3d){1, 0, 0}, -ORR_PI / 2),
                       (orr_vec3d){80, 80, 1}, &ground);
    fix_add(f, id++, f->quad, f->ground, ground);
    for (int z = 0; z < OCC_GRID; z++)
        for (int x = 0; x < OCC_GRID; x++) {
            if (occ_unit(&seed) < 0.15) continue; /* a gap */
            double h = 0.4 + 3.0 * occ_unit(&seed), side = 0.6 + 0.35 * occ_unit(&seed);
            orr_mat4d m = occ_trs((orr_vec3d){(x - OCC_GRID / 2) * 1.3, -0.5 + h / 2, (z - OCC_GRID / 2) * 1.3},
                                  (orr_vec3d){side, h, side});
            uint32_t k = (uint32_t)(occ_random(&seed) % 3);
            fix_add(f, id++, f->cube, mats[k], m);
            if (occ_unit(&seed) < 0.1) fix_add(f, id++, f->cube, mats[(k + 1) % 3], m); /* its twin */
        }
    orr_mat4d q = occ_trs((orr_vec3d){0.3, 0.4, 0.2}, (orr_vec3d){1.0, 1.0, 1.0});
    fix_add(f, id++, f->quad, f->cutout, q);
    q = occ_trs((orr_vec3d){-1.9, 0.6, 1.1}, (orr_vec3d){1.4, 1.0, 1.0});
    fix_add(f, id++, f->quad, f->glass, q);
    /* the wall, at z = -40 facing +z, and the cubes it hides */
    fix_add(f, id++, f->cube, f->blue, occ_trs((orr_vec3d){0, 4.5, -40}, (orr_vec3d){60, 10, 0.5}));
    for (uint32_t k = 0; k < OCC_HIDDEN; k++)
        fix_add(f, id++, f->cube, mats[k % 3],
                occ_trs((orr_vec3d){(k % 8 - 3.5) * 2.0, -0.2 + (k / 8) * 1.5, -46}, (orr_vec3d){0.8, 0.8, 0.8}));
    assert_true(f->snapshot.instance_count < FIX_MAX_INSTANCES);
}

typedef struct occ_pair {
    orr_target_id target[2]; /* with occlusion, without */
    orr_view_id view[2][2];
} occ_pair;

static void occ_set_views(orr_renderer *r, occ_pair *p, const orr_mat4d poses[2], bool create)
{
    for (int t = 0; t < 2; t++)
        for (uint32_t v = 0; v < 2; v++) {
            orr_view_desc d = {.target = p->target[t], .slot = v,
                               .viewport = v ? (orr_viewport){OCC_SPLIT, 0, OCC_W - OCC_SPLIT, OCC_H}
                                             : (orr_viewport){0, 0, OCC_SPLIT, OCC_H},
                               .pose = poses[v], .yfov = 1.0, .znear = 0.05, .order = ORR_ORDER_MESH,
                               .strategy = ORR_STRATEGY_INDIRECT, .cull = ORR_CULL_GPU, .occlusion = t == 0};
            if (create) p->view[t][v] = fix_add_view(r, &d);
            else assert_int_equal(orr_renderer_update_view(r, p->view[t][v], &d), ORR_OK);
        }
}

/* One frame into both targets; their bytes must be the same. Returns the occluding target's stats. */
static orr_render_stats occ_frame(orr_renderer *r, fixture *f, occ_pair *p, uint32_t frame)
{
    uint8_t *px[2];
    orr_render_stats st[2];
    for (int t = 0; t < 2; t++) {
        orr_render_desc d = fix_desc(r, f, p->target[t]);
        if (orr_renderer_render(r, &d, &st[t]) != ORR_OK) fail_msg("render: %s", orr_renderer_last_error(r)->message);
        px[t] = malloc((size_t)OCC_W * OCC_H * 4);
        assert_non_null(px[t]);
        assert_int_equal(orr_renderer_read_target(r, p->target[t], px[t], (size_t)OCC_W * OCC_H * 4), ORR_OK);
    }
    if (memcmp(px[0], px[1], (size_t)OCC_W * OCC_H * 4) != 0) {
        uint32_t differ = 0;
        for (uint32_t i = 0; i < OCC_W * OCC_H; i++)
            if (memcmp(px[0] + 4 * i, px[1] + 4 * i, 4) != 0) {
                if (!differ++)
                    print_message("first at %u,%u: %u %u %u with, %u %u %u without\n", i % OCC_W, i / OCC_W,
                                  px[0][4 * i], px[0][4 * i + 1], px[0][4 * i + 2], px[1][4 * i], px[1][4 * i + 1],
                                  px[1][4 * i + 2]);
            }
        fail_msg("frame %u: %u pixels differ with occlusion culling on", frame, differ);
    }
    assert_true(fix_count_drawn(px[0], OCC_W, 0, 0, OCC_W, OCC_H) > 0);
    free(px[0]);
    free(px[1]);
    return st[0];
}

/* Random camera paths through the dense scene, with cuts (a new place from one frame to the next) and
 * boxes moving: every frame, the first included, the same bytes with occlusion culling as without,
 * with validation (synchronization on) silent. Then a wall with cubes behind it: they are culled. */
void test_occlusion_same_bytes(void **state)
{
    (void)state;
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    uint64_t seed = 0x5EEDC0FFEE123457ull;
    occ_scene(f, seed);
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    occ_pair p;
    for (int t = 0; t < 2; t++) p.target[t] = fix_target(r, OCC_W, OCC_H, NULL, NULL);
    orr_vec3d eye[2], dir[2];
    orr_mat4d poses[2];
    uint32_t occluded_max = 0, frame = 0;
    for (int path = 0; path < 3; path++) {
        for (uint32_t step = 0; step < 9; step++, frame++) {
            for (int v = 0; v < 2; v++) {
                bool cut = step == 0 || occ_unit(&seed) < 0.15;
                if (cut) { /* somewhere in the streets, at a person's height or above the roofs */
                    double a = 2 * ORR_PI * occ_unit(&seed);
                    eye[v] = (orr_vec3d){(occ_unit(&seed) - 0.5) * OCC_GRID * 1.3, -0.3 + 4.0 * occ_unit(&seed) *
                                                                                       occ_unit(&seed),
                                         (occ_unit(&seed) - 0.5) * OCC_GRID * 1.3};
                    dir[v] = (orr_vec3d){cos(a), -0.3 * occ_unit(&seed), sin(a)};
                } else { /* a walk: forward, turning a little */
                    eye[v] = orr_vec3d_add(eye[v], orr_vec3d_scale(dir[v], 0.35));
                    double turn = (occ_unit(&seed) - 0.5) * 0.4, c = cos(turn), s = sin(turn);
                    dir[v] = (orr_vec3d){c * dir[v].x - s * dir[v].z, dir[v].y, s * dir[v].x + c * dir[v].z};
                }
                poses[v] = fix_look(eye[v], orr_vec3d_add(eye[v], dir[v]));
            }
            occ_set_views(r, &p, poses, frame == 0);
            /* a few boxes jump (hidden ones come out, visible ones go behind) */
            uint32_t moved[3];
            for (int k = 0; k < 3; k++) {
                uint32_t i = 1 + (uint32_t)(occ_random(&seed) % (f->snapshot.instance_count - 1));
                orr_mat4d m;
                orr_affine3d_to_mat4d(&f->instances[i].world, &m);
                m.m[13] += occ_unit(&seed) < 0.5 ? 1.5 : -1.5;
                orr_affine3d_from_mat4d(&m, &f->instances[i].world);
                moved[k] = f->instances[i].id;
            }
            if (frame) fix_delta(f, moved, 3, NULL, 0, false);
            orr_render_stats st = occ_frame(r, f, &p, frame);
            occluded_max = st.cull.occluded > occluded_max ? st.cull.occluded : occluded_max;
        }
    }
    assert_true(occluded_max > 0);
    /* In front of the wall, both views: once the visibility has settled, every cube behind it culled. */
    poses[0] = poses[1] = fix_look((orr_vec3d){0, 1.0, -30}, (orr_vec3d){0, 1.0, -45});
    occ_set_views(r, &p, poses, false);
    orr_render_stats st;
    for (int k = 0; k < 5; k++) st = occ_frame(r, f, &p, frame++);
    assert_int_equal(st.cull.occluded, 2 * OCC_HIDDEN);
    /* each instance once per view: drawn, outside the frustum or hidden by the pyramid */
    assert_int_equal(st.cull.visible + st.cull.culled + st.cull.occluded + st.cull.out_of_range, 2 * f->snapshot.instance_count);
    fix_renderer_done(r, &log);
    fix_fini(f);
    free(f);
}
