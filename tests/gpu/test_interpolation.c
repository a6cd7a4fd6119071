/* Interpolation between ticks on the GPU (orr_snapshot.lag): a frame whose snapshot has a lag draws each
 * instance that changed at the snapshot's tick at the blend of its earlier pose and its current one,
 * with nothing uploaded per instance. Read back through vertex capture (each vertex's world position
 * as the vertex stage placed it): translation blends linearly, rotation by normalised quaternion (a
 * rotating cube keeps every edge length and stands at the half-way rotation at lag 0.5), a teleported
 * or new instance stands where it is now, an instance that changed at an earlier tick does not move
 * again, and lag 0 draws exactly what a frame without interpolation draws. */
#include "gpu_fixture.h"
#include "gpu_tests.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VERTS 24 /* the fixture's cube */

typedef struct interp {
    fixture f;
    fix_log log;
    orr_renderer *r;
    orr_target_id target;
    uint64_t tick;
} interp;

static orr_mat4d pose(orr_vec3d t, double angle)
{
    orr_mat4d m;
    orr_mat4d_from_trs(t, orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, angle), ORR_VEC3_ONE, &m);
    return m;
}

static void start(interp *t)
{
    fix_init(&t->f, (orr_vec3d){0, 0, 0});
    t->f.snapshot.instance_count = 0; /* the fixture's scene out: one cube of our own */
    t->f.snapshot.material_binding_count = 0;
    fix_add(&t->f, 10, t->f.cube, t->f.red, pose((orr_vec3d){0, 0, 0}, 0));
    t->r = fix_renderer_interpolating(&t->log, true);
    assert_int_equal(orr_renderer_create_target(t->r, &(orr_target_desc){.width = 64, .height = 64, .samples = 1}, &t->target),
                     ORR_OK);
    orr_view_id v;
    orr_view_desc vd = {.target = t->target, .pose = fix_look((orr_vec3d){0, 3, 12}, (orr_vec3d){0, 0, 0}), .yfov = 0.9};
    assert_int_equal(orr_renderer_create_view(t->r, &vd, &v), ORR_OK);
    t->tick = 1;
    t->f.snapshot.tick = t->tick;
}

/* Renders the snapshot as it is (with `lag`) and reads instance `id`'s cube back. */
static void draw(interp *t, float lag, uint32_t id, float xyz[VERTS * 3])
{
    t->f.snapshot.lag = lag;
    t->f.snapshot.tick = t->tick;
    orr_render_desc d = fix_desc(t->r, &t->f, t->target);
    orr_render_stats st;
    assert_int_equal(orr_renderer_render(t->r, &d, &st), ORR_OK);
    assert_int_equal(orr_renderer_read_vertices(t->r, id, t->f.cube, 0, xyz, VERTS), ORR_OK);
    for (int k = 0; k < VERTS * 3; k++) assert_false(isnan(xyz[k]));
}

/* The next tick: instance 10 at `p` (changed), the snapshot a delta; `teleport` marks the jump. */
static void tick_to(interp *t, orr_mat4d p, bool teleport)
{
    t->tick++;
    orr_affine3d_from_mat4d(&p, &t->f.instances[0].world);
    t->f.instances[0].reserved[0] = teleport ? ORR_RENDER_INSTANCE_TELEPORT : 0u;
    uint32_t changed = 10;
    fix_delta(&t->f, &changed, 1, NULL, 0, false);
}

/* A frame between ticks: a delta with nothing changed. */
static void between(interp *t) { fix_delta(&t->f, NULL, 0, NULL, 0, false); }

static double max_gap(const float *a, const float *b)
{
    double m = 0;
    for (int k = 0; k < VERTS * 3; k++) m = fmax(m, fabs((double)a[k] - b[k]));
    return m;
}

static void centroid(const float *xyz, double c[3])
{
    c[0] = c[1] = c[2] = 0;
    for (int v = 0; v < VERTS; v++)
        for (int k = 0; k < 3; k++) c[k] += xyz[v * 3 + k] / VERTS;
}

void test_interpolation_between_ticks(void **state)
{
    (void)state;
    interp t;
    start(&t);
    float a[VERTS * 3], b[VERTS * 3], x[VERTS * 3], ref[VERTS * 3];

    /* translation: at 0, 0, 0 (tick 1), then at 2, 0, -1 (tick 2); frames between at lags 1 .. 0 */
    draw(&t, 0.0f, 10, a);
    tick_to(&t, pose((orr_vec3d){2, 0, -1}, 0), false);
    draw(&t, 0.0f, 10, b); /* lag 0: the current pose */
    double ca[3], cb[3], cx[3];
    centroid(a, ca);
    centroid(b, cb);
    assert_true(fabs(cb[0] - ca[0] - 2.0) < 1e-5 && fabs(cb[2] - ca[2] + 1.0) < 1e-5);
    for (int k = 5; k >= 0; k--) {
        float lag = (float)k / 5.0f;
        between(&t);
        draw(&t, lag, 10, x);
        centroid(x, cx);
        for (int c = 0; c < 3; c++) /* linear in the lag, so linear in presentation time */
            if (fabs(cx[c] - (cb[c] + lag * (ca[c] - cb[c]))) > 1e-5)
                fail_msg("lag %.1f: centroid axis %d at %.7f, the line says %.7f", lag, c, cx[c],
                         cb[c] + lag * (ca[c] - cb[c]));
        /* the shape is the cube's, translated */
        for (int v = 0; v < VERTS; v++)
            for (int c = 0; c < 3; c++) assert_true(fabs((x[v * 3 + c] - cx[c]) - (b[v * 3 + c] - cb[c])) < 1e-5);
    }
    between(&t);
    draw(&t, 0.0f, 10, x); /* lag 0 between ticks: the same vertices as the tick's own frame */
    assert_true(max_gap(x, b) == 0.0);

    /* rotation: 0 rad (tick 2's pose turned) to 0.8 rad about Y at the same place; at lag 0.5 the cube
     * stands at 0.4 rad exactly as a frame drawing 0.4 rad as its pose, and every edge keeps its length */
    tick_to(&t, pose((orr_vec3d){2, 0, -1}, 0.0), false);
    draw(&t, 0.0f, 10, a);
    tick_to(&t, pose((orr_vec3d){2, 0, -1}, 0.8), false);
    draw(&t, 0.0f, 10, b);
    double worst_edge = 0;
    for (int k = 1; k < 10; k++) {
        between(&t);
        draw(&t, (float)k / 10.0f, 10, x);
        for (int v = 0; v < VERTS; v++)
            for (int w = v + 1; w < VERTS; w++) {
                double d0 = 0, d1 = 0;
                for (int c = 0; c < 3; c++) {
                    d0 += pow(b[v * 3 + c] - b[w * 3 + c], 2);
                    d1 += pow(x[v * 3 + c] - x[w * 3 + c], 2);
                }
                worst_edge = fmax(worst_edge, fabs(sqrt(d1) - sqrt(d0)));
            }
        if (k == 5) memcpy(ref, x, sizeof ref);
    }
    print_message("interpolation: rotating cube, every vertex pair's distance within %.2g of its length\n", worst_edge);
    assert_true(worst_edge < 1e-5); /* rigid: no shear, no shrink */
    assert_true(max_gap(ref, a) > 0.1 && max_gap(ref, b) > 0.1); /* really between */
    tick_to(&t, pose((orr_vec3d){2, 0, -1}, 0.4), false);
    draw(&t, 0.0f, 10, x);
    assert_true(max_gap(ref, x) < 1e-5);

    /* an instance that changed at an earlier tick does not move again between later ticks */
    t.tick++;
    between(&t);
    draw(&t, 0.7f, 10, a);
    assert_true(max_gap(a, x) == 0.0);

    /* teleport: from 2, 0, -1 to -3, 1, 0: at any lag it stands at the new place */
    tick_to(&t, pose((orr_vec3d){-3, 1, 0}, 0.4), true);
    draw(&t, 0.0f, 10, b);
    for (int k = 1; k <= 5; k++) {
        between(&t);
        draw(&t, (float)k / 5.0f, 10, x);
        assert_true(max_gap(x, b) == 0.0);
    }

    /* a new instance at a tick stands where it is from its first frame */
    t.tick++;
    fix_add(&t.f, 20, t.f.cube, t.f.green, pose((orr_vec3d){0, 2, 0}, 0.2));
    uint32_t fresh = 20;
    fix_delta(&t.f, &fresh, 1, NULL, 0, true);
    draw(&t, 0.0f, 20, b);
    between(&t);
    draw(&t, 0.6f, 20, x);
    assert_true(max_gap(x, b) == 0.0);

    assert_int_equal(orr_renderer_finish(t.r, NULL), ORR_OK);
    fix_renderer_done(t.r, &t.log);
    fix_fini(&t.f);
}

/* ---- lights and cameras (gpu_motion.c): blended on the CPU by the same rule ---- */

typedef struct lit {
    fixture f;
    orr_render_camera camera;
} lit;

/* The fixture's scene lit by a point light at `light`, seen through snapshot camera 7 at `eye`
 * (looking along -Z and down a little), at `tick`. */
static void lit_pose(lit *t, orr_vec3d light, orr_vec3d eye, uint64_t tick)
{
    orr_mat4d m;
    orr_mat4d_from_trs(light, ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &m);
    orr_affine3d_from_mat4d(&m, &t->f.light.world);
    orr_mat4d_from_trs(eye, orr_quatd_from_axis_angle((orr_vec3d){1, 0, 0}, -0.3), ORR_VEC3_ONE, &m);
    orr_affine3d_from_mat4d(&m, &t->camera.world);
    t->f.snapshot.tick = tick;
}

static void lit_start(lit *t, orr_renderer *r, orr_target_id *target)
{
    fix_init(&t->f, (orr_vec3d){0, 0, 0});
    t->f.light.type = ORR_LIGHT_POINT;
    t->f.light.intensity = 40.0f;
    t->camera = (orr_render_camera){.entity = {7, 1}, .projection = ORR_PERSPECTIVE, .yfov = 0.9, .znear = 0.05};
    t->f.snapshot.cameras = &t->camera;
    t->f.snapshot.camera_count = 1;
    *target = fix_target(r, 64, 48, NULL, NULL);
    fix_add_view(r, &(orr_view_desc){.target = *target, .camera = t->camera.entity});
}

static void lit_fini(lit *t)
{
    t->f.snapshot.cameras = NULL;
    t->f.snapshot.camera_count = 0;
    fix_fini(&t->f);
}

void test_interpolation_lights_and_cameras(void **state)
{
    (void)state;
    fix_log log, log2;
    orr_renderer *r = fix_renderer_interpolating(&log, false);
    lit t;
    orr_target_id target;
    lit_start(&t, r, &target);
    /* tick 1: the light at -2, 2, 1 and the camera at -1, 2, 6; tick 2: both 4 m to the right */
    lit_pose(&t, (orr_vec3d){-2, 2, 1}, (orr_vec3d){-1, 2, 6}, 1);
    uint8_t *a = fix_frame(r, &t.f, target, 64, 48);
    lit_pose(&t, (orr_vec3d){2, 2, 1}, (orr_vec3d){3, 2, 6}, 2);
    uint8_t *b = fix_frame(r, &t.f, target, 64, 48);
    fix_assert_varied(b, 64 * 48);
    t.f.snapshot.lag = 0.5f; /* a frame half-way between the ticks */
    uint8_t *half = fix_frame(r, &t.f, target, 64, 48);
    t.f.snapshot.lag = 0.0f; /* lag 0 between ticks: the tick's own frame */
    uint8_t *zero = fix_frame(r, &t.f, target, 64, 48);
    assert_memory_equal(zero, b, 64 * 48 * 4);
    t.f.snapshot.tick = 3; /* a later tick where neither changed: no blend, whatever the lag */
    t.f.snapshot.lag = 0.5f;
    uint8_t *later = fix_frame(r, &t.f, target, 64, 48);
    assert_memory_equal(later, b, 64 * 48 * 4);

    /* the half-way frame is the frame of a renderer that sees both half-way, at their own tick */
    orr_renderer *r2 = fix_renderer(&log2);
    lit u;
    orr_target_id target2;
    lit_start(&u, r2, &target2);
    lit_pose(&u, (orr_vec3d){0, 2, 1}, (orr_vec3d){1, 2, 6}, 2);
    uint8_t *mid = fix_frame(r2, &u.f, target2, 64, 48);
    assert_memory_equal(half, mid, 64 * 48 * 4);
    assert_memory_not_equal(half, a, 64 * 48 * 4);
    assert_memory_not_equal(half, b, 64 * 48 * 4);

    free(a), free(b), free(half), free(zero), free(later), free(mid);
    fix_renderer_done(r2, &log2);
    lit_fini(&u);
    fix_renderer_done(r, &log);
    lit_fini(&t);
}

/* A renderer made without orr_renderer_desc.interpolate ignores the lag: a frame between ticks at lag
 * 0.8 (a body, the light and the camera all moved at the tick) is the tick's own frame at lag 0, byte
 * for byte; the same frames from a renderer that interpolates differ (so the comparison can fail). */
static void off_frames(orr_renderer *r, uint8_t **zero, uint8_t **late)
{
    lit t;
    orr_target_id target;
    lit_start(&t, r, &target);
    orr_mat4d p = pose((orr_vec3d){-1.5, 0, 0}, 0);
    fix_add(&t.f, 50, t.f.cube, t.f.red, p);
    lit_pose(&t, (orr_vec3d){-2, 2, 1}, (orr_vec3d){-1, 2, 6}, 1);
    free(fix_frame(r, &t.f, target, 64, 48));
    lit_pose(&t, (orr_vec3d){2, 2, 1}, (orr_vec3d){0, 2, 6}, 2);
    p = pose((orr_vec3d){1.5, 0, 0}, 0.7);
    orr_affine3d_from_mat4d(&p, &t.f.instances[t.f.snapshot.instance_count - 1].world);
    uint32_t changed = 50;
    fix_delta(&t.f, &changed, 1, NULL, 0, false);
    *zero = fix_frame(r, &t.f, target, 64, 48);
    fix_assert_varied(*zero, 64 * 48);
    fix_delta(&t.f, NULL, 0, NULL, 0, false); /* between ticks: nothing changed */
    t.f.snapshot.lag = 0.8f;
    *late = fix_frame(r, &t.f, target, 64, 48);
    lit_fini(&t);
}

void test_interpolation_off(void **state)
{
    (void)state;
    fix_log log, log2;
    orr_renderer *r = fix_renderer(&log);
    uint8_t *zero, *late;
    off_frames(r, &zero, &late);
    assert_memory_equal(late, zero, 64 * 48 * 4);
    fix_renderer_done(r, &log);
    orr_renderer *r2 = fix_renderer_interpolating(&log2, false);
    uint8_t *zero2, *late2;
    off_frames(r2, &zero2, &late2);
    assert_memory_equal(zero2, zero, 64 * 48 * 4); /* lag 0: the same frame either way */
    assert_memory_not_equal(late2, zero, 64 * 48 * 4);
    fix_renderer_done(r2, &log2);
    free(zero), free(late), free(zero2), free(late2);
}

/* ---- skinned joints: the palette written at the snapshot's tick blends with the one it replaced ---- */

void test_interpolation_joints(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    f.snapshot.instance_count = 0; /* one skinned quad of our own */
    f.snapshot.material_binding_count = 0;
    /* a quad of 4 vertices, each wholly on joint 0 */
    float pos[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    float wts[16] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    uint16_t jnt[16] = {0};
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    orr_primitive_desc pd = {.vertex_count = 4, .positions = pos, .normals = nrm, .joints = jnt, .weights = wts,
                             .index_count = 6, .indices = idx, .material = f.red};
    orr_mesh_id mesh;
    assert_int_equal(orr_assets_add_mesh(f.assets, &(orr_mesh_desc){.primitive_count = 1, .primitives = &pd}, &mesh),
                     ORR_OK);
    orr_affine3d joints[2]; /* a decoy first: the palette at joint offset 1 */
    orr_affine3d_identity(&joints[0]);
    orr_affine3d_identity(&joints[1]);
    joints[0].m[10] = 50;
    f.snapshot.joints = joints;
    f.snapshot.joint_count = 2;
    orr_mat4d identity;
    orr_mat4d_identity(&identity);
    orr_render_instance *in = fix_add(&f, 30, mesh, f.red, identity);
    in->joint_offset = 1;
    in->joint_count = 1;
    in->bounds = (orr_aabbf){{-4, -4, -4}, {4, 4, 4}};
    fix_log log;
    orr_renderer *r = fix_renderer_interpolating(&log, true);
    orr_target_id target;
    assert_int_equal(orr_renderer_create_target(r, &(orr_target_desc){.width = 32, .height = 32, .samples = 1}, &target),
                     ORR_OK);
    orr_view_id v;
    orr_view_desc vd = {.target = target, .pose = fix_look((orr_vec3d){0.5, 0.5, 8}, (orr_vec3d){0.5, 0.5, 0}), .yfov = 0.9};
    assert_int_equal(orr_renderer_create_view(r, &vd, &v), ORR_OK);

    float a[12], b[12], x[12];
    f.snapshot.tick = 1;
    orr_render_desc d = fix_desc(r, &f, target);
    assert_int_equal(orr_renderer_render(r, &d, NULL), ORR_OK);
    assert_int_equal(orr_renderer_read_vertices(r, 30, mesh, 0, a, 4), ORR_OK);
    /* tick 2: the joint moves 2 m along X and turns nothing; the instance is listed as changed */
    joints[1].m[9] = 2;
    uint32_t changed = 30;
    fix_delta(&f, &changed, 1, NULL, 0, false);
    f.snapshot.tick = 2;
    d = fix_desc(r, &f, target);
    assert_int_equal(orr_renderer_render(r, &d, NULL), ORR_OK);
    assert_int_equal(orr_renderer_read_vertices(r, 30, mesh, 0, b, 4), ORR_OK);
    for (int k = 0; k < 4; k++) assert_true(fabs(b[k * 3] - a[k * 3] - 2.0) < 1e-6);
    for (int k = 1; k <= 4; k++) { /* frames between: at lag L, the joint stands at 2 (1 - L) */
        float lag = (float)k / 4.0f;
        fix_delta(&f, NULL, 0, NULL, 0, false);
        f.snapshot.lag = lag;
        d = fix_desc(r, &f, target);
        assert_int_equal(orr_renderer_render(r, &d, NULL), ORR_OK);
        assert_int_equal(orr_renderer_read_vertices(r, 30, mesh, 0, x, 4), ORR_OK);
        for (int c = 0; c < 12; c++) {
            double want = b[c] + lag * (a[c] - b[c]);
            if (fabs(x[c] - want) > 1e-5) fail_msg("lag %.2f: coordinate %d at %.6f, want %.6f", lag, c, x[c], want);
        }
    }
    f.snapshot.lag = 0.0f;
    assert_int_equal(orr_renderer_finish(r, NULL), ORR_OK);
    fix_renderer_done(r, &log);
    f.snapshot.joints = NULL;
    f.snapshot.joint_count = 0;
    fix_fini(&f);
}
