/* Culling between ticks: an instance drawn at the blend of its two poses is culled where it is drawn,
 * by every cull that decides what a frame draws (the GPU cull and its occlusion phases, the CPU cull of
 * the batched strategy and of every view's transparent items, the shadow views' cull), so that it never
 * pops near an edge. A body crosses an edge between two ticks (fast: from well inside to well beyond);
 * each frame between them, at lags 1 .. 0, must show exactly what a renderer shows that draws the body
 * standing at the blended pose (lag 0, its own record there), pixel for pixel within rounding; the
 * frames where only the blended pose is in view are counted, so that the test cannot pass on frames
 * that never crossed the edge. A pick of a blended frame hits the body where it is drawn. */
#include "gpu_fixture.h"
#include "gpu_tests.h"

#include <orrery/pick.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 64
#define H 64
#define STEPS 10

typedef struct edge_case {
    const char *name;
    orr_strategy strategy;
    orr_cull cull;
    bool occlusion;
    bool glass;         /* the body transparent: culled on the CPU whatever the view's cull */
    bool wall;          /* a wall (instance 11) in front of where the body goes: the edge is the wall's */
    bool shadow;        /* a floor (instance 11) that the body, above the camera and out of its view,
                           shadows (a light straight down): the edge is a shadow view's */
    orr_vec3d from, to; /* the body's earlier and current place */
    double turn;        /* and its turn about Y between them (radians) */
    bool meshlets;      /* meshes with meshlets (the meshlet strategy culls each one) */
} edge_case;

static orr_mat4d body_pose(orr_vec3d t, double angle)
{
    orr_mat4d m;
    orr_mat4d_from_trs(t, orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, angle), ORR_VEC3_ONE, &m);
    return m;
}

/* The fixture with the body (id 10) at `pose` and, for a wall case, the wall (id 11). */
static void scene(fixture *f, const edge_case *c, orr_mat4d pose)
{
    if (c->meshlets) fix_init_meshlets(f, (orr_vec3d){0, 0, 0});
    else fix_init(f, (orr_vec3d){0, 0, 0});
    f->snapshot.instance_count = 0;
    f->snapshot.material_binding_count = 0;
    fix_add(f, 10, f->cube, c->glass ? f->glass : f->red, pose)->casts_shadows = true;
    orr_mat4d m;
    if (c->wall) {
        orr_mat4d_from_trs((orr_vec3d){3.5, 0, 3}, ORR_QUAT_IDENTITY, (orr_vec3d){5, 5, 0.2}, &m);
        fix_add(f, 11, f->cube, f->green, m);
    }
    if (c->shadow) {
        orr_mat4d_from_trs((orr_vec3d){0, -0.1, 0}, ORR_QUAT_IDENTITY, (orr_vec3d){40, 0.2, 40}, &m);
        fix_add(f, 11, f->cube, f->ground, m)->casts_shadows = true;
        orr_render_light *l = &f->light;
        l->type = ORR_LIGHT_DIRECTIONAL;
        l->intensity = 3.0f;
        l->casts_shadows = true;
        orr_mat4d lm; /* shining straight down */
        orr_mat4d_from_trs((orr_vec3d){0, 0, 0}, orr_quatd_look_rotation((orr_vec3d){0, -1, 0}, (orr_vec3d){1, 0, 0}), ORR_VEC3_ONE,
                           &lm);
        orr_affine3d_from_mat4d(&lm, &l->world);
    }
}

/* The case's scene without the body. */
static void scene_without_body(fixture *f, const edge_case *c)
{
    scene(f, c, body_pose(c->from, 0.0));
    uint32_t n = --f->snapshot.instance_count;
    for (uint32_t k = 0; k < n; k++) {
        f->instances[k] = f->instances[k + 1];
        f->instances[k].material_offset = k;
        f->bindings[k] = f->bindings[k + 1];
    }
    f->snapshot.material_binding_count = n;
}

static orr_view_id view_of(orr_renderer *r, orr_target_id target, const edge_case *c)
{
    orr_view_desc vd = {.target = target, .pose = fix_look((orr_vec3d){0, 0, 10}, (orr_vec3d){0, 0, 0}), .yfov = 0.9,
                        .strategy = c->strategy, .cull = c->cull, .occlusion = c->occlusion};
    if (c->shadow) { /* looking down at the floor */
        vd.pose = fix_look((orr_vec3d){0, 6, 4}, (orr_vec3d){0, 0, 0});
        vd.shadows = (orr_shadow_settings){.enabled = true, .map_size = 256, .distance = 30};
    }
    return fix_add_view(r, &vd);
}

/* Pixels whose channels differ by more than 2. */
static uint32_t differing(const uint8_t *a, const uint8_t *b)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < W * H; i++)
        for (int k = 0; k < 3; k++)
            if (abs((int)a[i * 4 + k] - (int)b[i * 4 + k]) > 2) {
                n++;
                break;
            }
    return n;
}

/* The case's frames at lags 1 .. 0: each against the reference. Returns the frames where the body is
 * drawn and the body at its current place alone would show nothing (or be hidden). With `pick_lag` in
 * (0, 1], that frame also picks its whole view, and *hit is the body's hit (found: true). */
static uint32_t run_case(const edge_case *c, float pick_lag, orr_pick_hit *hit, bool *found)
{
    fixture f, ref;
    orr_mat4d before = body_pose(c->from, 0.0), now = body_pose(c->to, c->turn);
    scene(&f, c, before);
    scene(&ref, c, now);
    fix_log log, ref_log;
    orr_renderer *r = fix_renderer_interpolating(&log, false), *q = fix_renderer(&ref_log);
    orr_target_id target = fix_target(r, W, H, NULL, NULL), ref_target = fix_target(q, W, H, NULL, NULL);
    orr_view_id view = view_of(r, target, c);
    view_of(q, ref_target, c);
    /* the body where it stands now, drawn alone: what a cull at the current pose keeps */
    uint8_t *empty = NULL;
    bool extras = c->wall || c->shadow;
    if (extras) { /* hidden behind the wall, or casting outside the view: the scene without the body */
        fixture bare;
        scene_without_body(&bare, c);
        fix_log bare_log;
        orr_renderer *b = fix_renderer(&bare_log);
        orr_target_id bt = fix_target(b, W, H, NULL, NULL);
        view_of(b, bt, c);
        empty = fix_frame(b, &bare, bt, W, H);
        fix_renderer_done(b, &bare_log);
        fix_fini(&bare);
    }
    uint8_t *now_px = fix_frame(q, &ref, ref_target, W, H);
    if (extras) assert_int_equal(differing(now_px, empty), 0); /* hidden there */
    else assert_int_equal(fix_count_drawn(now_px, W, 0, 0, W, H), 0); /* out of view there */
    free(now_px);

    /* tick 1 at the earlier place, then tick 2 at the current one and frames at lags 1 .. 0 */
    f.snapshot.tick = 1;
    free(fix_frame(r, &f, target, W, H));
    f.snapshot.tick = 2;
    orr_affine3d_from_mat4d(&now, &f.instances[0].world);
    uint32_t changed = 10, crossing = 0;
    fix_delta(&f, &changed, 1, NULL, 0, false);
    *found = false;
    for (int k = STEPS; k >= 0; k--) {
        float lag = (float)k / STEPS;
        if (k != STEPS) fix_delta(&f, NULL, 0, NULL, 0, false); /* a frame between ticks */
        f.snapshot.lag = lag;
        orr_pick_id pick;
        bool picking = pick_lag > 0 && lag == pick_lag;
        if (picking)
            assert_int_equal(orr_renderer_pick_rect(r, &(orr_pick_desc){.view = view, .rect = {0, 0, W, H}}, &pick), ORR_OK);
        uint8_t *px = fix_frame(r, &f, target, W, H);
        /* the reference: the body's own record at the blended pose */
        orr_affine3d a, b, blended;
        orr_affine3d_from_mat4d(&now, &a);
        orr_affine3d_from_mat4d(&before, &b);
        orr_draw_motion_pose(&a, &b, lag, &blended);
        ref.instances[0].world = blended;
        ref.snapshot.frame++;
        ref.snapshot.delta_base = 0; /* taken whole */
        uint8_t *want = fix_frame(q, &ref, ref_target, W, H);
        uint32_t diff = differing(px, want);
        bool shown = extras ? differing(want, empty) > 0 : fix_count_drawn(want, W, 0, 0, W, H) > 0;
        if (diff > 3)
            fail_msg("%s, lag %.1f: %u pixels differ from the body drawn at its blended pose (%u of its pixels)", c->name,
                     lag, diff, extras ? differing(want, empty) : fix_count_drawn(want, W, 0, 0, W, H));
        crossing += shown;
        if (picking) {
            orr_pick_hit hits[8];
            orr_pick_result res;
            assert_int_equal(orr_renderer_pick_result(r, pick, true, &res, hits, 8), ORR_OK);
            assert_int_equal(res.state, ORR_PICK_DONE);
            for (uint32_t h = 0; h < res.hit_count && h < 8; h++)
                if (hits[h].instance_id == 10) *hit = hits[h], *found = true;
        }
        free(px);
        free(want);
    }
    free(empty);
    assert_int_equal(orr_renderer_finish(r, NULL), ORR_OK);
    fix_renderer_done(r, &log);
    fix_renderer_done(q, &ref_log);
    fix_fini(&f);
    fix_fini(&ref);
    print_message("interpolation cull, %s: %u of %u frames show the body only at its blended pose, as drawn\n",
                  c->name, crossing, STEPS + 1);
    return crossing;
}

/* Out of view at its current place: from x = 1.5 (in view) to 9 (beyond the right edge at about 4.8),
 * turning, across 10 frames. */
void test_interpolation_cull_frustum_edge(void **state)
{
    (void)state;
    static const edge_case cases[] = {
        {"GPU cull", ORR_STRATEGY_INDIRECT, ORR_CULL_GPU, false, false, false, false, {1.5, 0.5, 0}, {9, -0.5, 0}, 1.2},
        {"CPU cull", ORR_STRATEGY_BATCHED, ORR_CULL_CPU, false, false, false, false, {1.5, 0.5, 0}, {9, -0.5, 0}, 1.2},
        {"direct, CPU cull", ORR_STRATEGY_DIRECT, ORR_CULL_CPU, false, false, false, false, {-1.5, 0, 0}, {-9, 1, 0}, -0.7},
        {"transparent", ORR_STRATEGY_INDIRECT, ORR_CULL_GPU, false, true, false, false, {1.5, 0.5, 0}, {9, -0.5, 0}, 1.2},
        {"occlusion", ORR_STRATEGY_INDIRECT, ORR_CULL_GPU, true, false, false, false, {0, 1.5, 0}, {0, 9, 0}, 0.4},
        {"meshlets", ORR_STRATEGY_MESHLET, ORR_CULL_AUTO, false, false, false, false, {1.5, 0.5, 0}, {9, -0.5, 0}, 1.2, true},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        orr_pick_hit hit;
        bool found;
        assert_true(run_case(&cases[k], 0.0f, &hit, &found) >= 3);
    }
}

/* Hidden at its current place behind a wall that the occlusion phases cull by: from beside it to behind
 * it. */
void test_interpolation_cull_occluded(void **state)
{
    (void)state;
    edge_case c = {"behind a wall", ORR_STRATEGY_INDIRECT, ORR_CULL_GPU, true, false, true, false, {-2.5, 0, 0}, {3.5, 0, 0}, 0.0};
    orr_pick_hit hit;
    bool found;
    assert_true(run_case(&c, 0.0f, &hit, &found) >= 3);
}

/* Casting outside the view at its current place: above the camera (out of its view at both places), a
 * body moves from over the floor the camera sees to 14 m aside; between ticks its shadow crosses into
 * the view, drawn by the shadow views' cull at the blended pose. */
void test_interpolation_cull_shadow(void **state)
{
    (void)state;
    static const edge_case cases[] = {
        {"shadow, GPU cull", ORR_STRATEGY_INDIRECT, ORR_CULL_GPU, false, false, false, true, {1, 8, 0}, {14, 8, 0}, 0.5},
        {"shadow, CPU cull", ORR_STRATEGY_BATCHED, ORR_CULL_CPU, false, false, false, true, {1, 8, 0}, {14, 8, 0}, 0.5},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        orr_pick_hit hit;
        bool found;
        assert_true(run_case(&cases[k], 0.0f, &hit, &found) >= 3);
    }
}

/* A pick of a frame between ticks hits the body where that frame draws it: at lag 0.8 the body stands
 * at x = 9 + 0.8 x (1.5 - 9) = 3 (in view; its current place is out of it), and the point seen lies on
 * its box there. */
void test_interpolation_pick(void **state)
{
    (void)state;
    edge_case c = {"pick", ORR_STRATEGY_INDIRECT, ORR_CULL_GPU, false, false, false, false, {1.5, 0, 0}, {9, 0, 0}, 0.0};
    orr_pick_hit hit;
    bool found = false;
    run_case(&c, 0.8f, &hit, &found);
    assert_true(found);
    print_message("interpolation pick: the body hit at (%.4f, %.4f, %.4f), its box spans x 2.5 .. 3.5 there\n",
                  hit.position.x, hit.position.y, hit.position.z);
    assert_true(hit.position.x > 2.5 - 1e-3 && hit.position.x < 3.5 + 1e-3);
    assert_true(fabs(hit.position.y) < 0.5 + 1e-3 && fabs(hit.position.z) < 0.5 + 1e-3);
}
