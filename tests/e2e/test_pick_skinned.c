/* Picking a skinned, animated sample: CesiumMan posed mid-walk. The pick's id pass must draw the
 * deformed vertices, as the view does: at a pixel that the posed man covers and that his mesh left
 * unskinned does not (neither as stored, which is the glTF bind pose, nor placed by his node's world
 * matrix, which is what an id pass that ignored the skin would draw), the pick answers his entity, mesh
 * and primitive, at a point on the posed surface (within a few centimetres of a vertex of an
 * independent reference's pose, gltf_reference.c); at a pixel that only the unskinned mesh covers, it
 * answers nothing. With every strategy, culled on the CPU and on the GPU. */
#include "e2e_tests.h"
#include "gltf_reference.h"

#include <math.h>
#include <orrery/anim.h>
#include <orrery/frame.h>
#include <orrery/gpu.h>
#include <orrery/pick.h>
#include <orrery/scene.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void test_pick_skinned_sample(void **state);

#define SIZE 128
#define MARGIN 2 /* pixels: a chosen pixel's neighbourhood that must agree */

static void count_validation(void *user, orr_log_level level, const char *msg)
{
    if (strstr(msg, ORR_GPU_VALIDATION_PREFIX)) {
        (*(uint32_t *)user)++;
        fprintf(stderr, "%s\n", msg);
    }
    (void)level;
}

typedef struct nearest {
    orr_vec3d p;
    double best;
} nearest;

static void nearer(void *user, const double x[3])
{
    nearest *n = user;
    n->best = fmin(n->best, sqrt((x[0] - n->p.x) * (x[0] - n->p.x) + (x[1] - n->p.y) * (x[1] - n->p.y) +
                                 (x[2] - n->p.z) * (x[2] - n->p.z)));
}

/* The nearest vertex of the posed reference to p. */
static double nearest_vertex(const ref_doc *ref, orr_vec3d p)
{
    nearest n = {p, 1e30};
    ref_each_vertex(ref, nearer, &n);
    return n.best;
}

static orr_renderer *new_renderer(uint32_t *validation)
{
    orr_renderer_desc rd = {.validation = true, .logger = {count_validation, validation}};
    orr_renderer *r;
    orr_error err;
    if (orr_renderer_create(&rd, &r, &err) != ORR_OK) fail_msg("renderer: %s", err.message);
    return r;
}

/* One frame of `snap` on `r` seen from `pose` into a new SIZE x SIZE target: its pixels (NULL: not read),
 * and a pick at pixel `pick` (NULL: none) answered into *hit (the hit count returned). */
static uint32_t frame(orr_renderer *r, const orr_snapshot *snap, orr_mat4d pose, double radius, orr_strategy strategy,
                      orr_cull cull, uint8_t *px, const uint32_t *pick, orr_pick_hit *hit)
{
    orr_target_desc td = {.width = SIZE, .height = SIZE, .readback = px != NULL};
    orr_target_id target;
    assert_int_equal(orr_renderer_create_target(r, &td, &target), ORR_OK);
    orr_view_desc vd = {.target = target, .pose = pose, .yfov = 0.9, .znear = radius * 0.01, .strategy = strategy,
                        .cull = cull};
    orr_view_id view;
    assert_int_equal(orr_renderer_create_view(r, &vd, &view), ORR_OK);
    orr_pick_id id = {0};
    if (pick && orr_renderer_pick(r, view, pick[0], pick[1], &id) != ORR_OK)
        fail_msg("pick: %s", orr_renderer_last_error(r)->message);
    orr_render_desc desc = {.target = target, .snapshot = snap};
    if (orr_renderer_render(r, &desc, NULL) != ORR_OK) fail_msg("render: %s", orr_renderer_last_error(r)->message);
    if (px) assert_int_equal(orr_renderer_read_target(r, target, px, (size_t)SIZE * SIZE * 4), ORR_OK);
    uint32_t hits = 0;
    if (pick) {
        orr_pick_result res;
        assert_int_equal(orr_renderer_pick_result(r, id, true, &res, hit, 1), ORR_OK);
        assert_int_equal(res.state, ORR_PICK_DONE);
        hits = res.hit_count;
    }
    assert_int_equal(orr_renderer_destroy_target(r, target), ORR_OK);
    return hits;
}

static bool drawn(const uint8_t *px, int x, int y) /* the clear colour is transparent black */
{
    const uint8_t *p = px + ((size_t)y * SIZE + x) * 4;
    return (p[0] | p[1] | p[2] | p[3]) != 0;
}

/* Whether every pixel within MARGIN of x,y is drawn in a (want true) or none is (want false). */
static bool around(const uint8_t *a, int x, int y, bool want)
{
    for (int dy = -MARGIN; dy <= MARGIN; dy++)
        for (int dx = -MARGIN; dx <= MARGIN; dx++) {
            int xx = x + dx, yy = y + dy;
            if (xx < 0 || yy < 0 || xx >= SIZE || yy >= SIZE) {
                if (want) return false;
                continue;
            }
            if (drawn(a, xx, yy) != want) return false;
        }
    return true;
}

void test_pick_skinned_sample(void **state)
{
    (void)state;
    const char *file = orrt_asset("gltf/CesiumMan/CesiumMan.gltf");
    uint32_t validation = 0;
    orr_assets *assets;
    assert_int_equal(orr_assets_create(NULL, &assets, NULL), ORR_OK);
    orr_prefab_id prefab;
    orr_error err;
    if (orr_gltf_load(assets, file, NULL, &prefab, &err) != ORR_OK)
        fail_msg("%s: %s", file, err.message);
    orr_clip_id clip;
    assert_int_equal(orr_prefab_clips(assets, prefab, &clip, 1), 1);
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_entity root;
    assert_int_equal(orr_prefab_instantiate(w, assets, prefab, ORR_ENTITY_NONE, NULL, &root), ORR_OK);
    orr_animation_player *player = orr_animation_player_edit(w, root);
    assert_non_null(player);
    player->clip = clip;
    ref_doc *ref = ref_load(file);
    double duration = ref_animation_duration(ref, 0);
    uint64_t tick = (uint64_t)llround(0.3 * duration * 60.0); /* mid-stride */
    orr_anim_apply(w, assets, tick, 1.0 / 60.0);
    orr_world_update_transforms(w);
    orr_snapshot snap;
    orr_snapshot_init(&snap, NULL);
    assert_int_equal(orr_frame_extract(w, assets, 1, tick, NULL, &snap), ORR_OK);
    ref_pose(ref, 0, fmod((double)tick / 60.0, duration), true);

    /* the skinned instance */
    const orr_render_instance *man = NULL;
    for (uint32_t i = 0; i < snap.instance_count; i++)
        if (snap.instances[i].joint_count) man = &snap.instances[i];
    assert_non_null(man);

    /* a camera in front of the posed man, at three times his radius */
    double c[3], radius;
    ref_posed_sphere(ref, c, &radius);
    orr_vec3d target = {c[0], c[1], c[2]}, eye = {c[0] + 0.4 * radius, c[1] + 0.3 * radius, c[2] + 3.0 * radius};
    orr_mat4d pose;
    orr_mat4d_look_at_pose(eye, target, (orr_vec3d){0, 1, 0}, &pose);

    orr_renderer *r = new_renderer(&validation);
    orr_library_id lib;
    assert_int_equal(orr_renderer_bind_library(r, assets, &lib), ORR_OK);
    uint8_t *posed = malloc((size_t)SIZE * SIZE * 4), *bind = calloc((size_t)SIZE * SIZE * 4, 1),
            *px = malloc((size_t)SIZE * SIZE * 4);
    assert_true(posed && bind && px);
    frame(r, &snap, pose, radius, ORR_STRATEGY_BATCHED, ORR_CULL_CPU, posed, NULL, NULL);

    /* the mesh unskinned: as stored (the bind pose, in world space), and placed by its node's matrix;
     * each drawn by a renderer of its own (the snapshot's instances changed behind the first's back) */
    orr_render_instance *copy = malloc(sizeof *copy * snap.instance_count);
    assert_non_null(copy);
    for (int variant = 0; variant < 2; variant++) {
        memcpy(copy, snap.instances, sizeof *copy * snap.instance_count);
        for (uint32_t i = 0; i < snap.instance_count; i++) {
            if (!copy[i].joint_count) continue;
            copy[i].joint_count = 0;
            if (variant == 0) {
                orr_mat4d identity;
                orr_mat4d_identity(&identity);
                orr_affine3d_from_mat4d(&identity, &copy[i].world);
            }
        }
        orr_snapshot unskinned = snap;
        unskinned.instances = copy;
        orr_renderer *rb = new_renderer(&validation);
        orr_library_id blib;
        assert_int_equal(orr_renderer_bind_library(rb, assets, &blib), ORR_OK);
        frame(rb, &unskinned, pose, radius, ORR_STRATEGY_BATCHED, ORR_CULL_CPU, px, NULL, NULL);
        for (size_t i = 0; i < (size_t)SIZE * SIZE * 4; i++) bind[i] |= px[i];
        assert_int_equal(orr_renderer_unbind_library(rb, blib), ORR_OK);
        orr_renderer_destroy(rb);
    }
    free(copy);

    /* the pixels: one deep inside the posed man and well away from the unskinned mesh (the nearest such
     * to the image's centre), and one the other way round (if any) */
    int only_posed[2] = {-1, -1}, only_bind[2] = {-1, -1};
    long best_posed = -1, best_bind = -1;
    uint32_t posed_count = 0, bind_count = 0;
    for (int y = 0; y < SIZE; y++)
        for (int x = 0; x < SIZE; x++) {
            posed_count += drawn(posed, x, y);
            bind_count += drawn(bind, x, y);
            long d = (long)(x - SIZE / 2) * (x - SIZE / 2) + (long)(y - SIZE / 2) * (y - SIZE / 2);
            if (around(posed, x, y, true) && around(bind, x, y, false) && (best_posed < 0 || d < best_posed))
                best_posed = d, only_posed[0] = x, only_posed[1] = y;
            if (around(bind, x, y, true) && around(posed, x, y, false) && (best_bind < 0 || d < best_bind))
                best_bind = d, only_bind[0] = x, only_bind[1] = y;
        }
    print_message("CesiumMan at %.3f s: %u pixels posed, %u unskinned; picking %d,%d (posed only) and %d,%d "
                  "(unskinned only)\n",
                  fmod((double)tick / 60.0, duration), posed_count, bind_count, only_posed[0], only_posed[1],
                  only_bind[0], only_bind[1]);
    assert_true(posed_count > SIZE * SIZE / 20); /* the man is there, not a blank image */
    if (only_posed[0] < 0) fail_msg("no pixel of the posed man lies away from the unskinned mesh: the test cannot tell");

    static const struct {
        orr_strategy strategy;
        orr_cull cull;
    } ways[] = {{ORR_STRATEGY_DIRECT, ORR_CULL_CPU},  {ORR_STRATEGY_BATCHED, ORR_CULL_CPU},
                {ORR_STRATEGY_INDIRECT, ORR_CULL_CPU}, {ORR_STRATEGY_INDIRECT, ORR_CULL_GPU},
                {ORR_STRATEGY_SHELL, ORR_CULL_CPU},    {ORR_STRATEGY_MESHLET, ORR_CULL_GPU}};
    double view_distance = sqrt((eye.x - c[0]) * (eye.x - c[0]) + (eye.y - c[1]) * (eye.y - c[1]) +
                                (eye.z - c[2]) * (eye.z - c[2]));
    for (size_t k = 0; k < sizeof ways / sizeof ways[0]; k++) {
        orr_pick_hit hit;
        uint32_t at[2] = {(uint32_t)only_posed[0], (uint32_t)only_posed[1]};
        uint32_t n = frame(r, &snap, pose, radius, ways[k].strategy, ways[k].cull, NULL, at, &hit);
        assert_int_equal(n, 1);
        double off = nearest_vertex(ref, hit.position);
        print_message("%s, %s cull: picked entity %u:%u primitive %u, depth %.5f, %.3f m away, %.4f m from the "
                      "nearest posed vertex (radius %.3f m)\n",
                      orr_strategy_name(ways[k].strategy), orr_cull_name(ways[k].cull), hit.entity.index, hit.entity.generation, hit.primitive, (double)hit.depth,
                      hit.distance, off, radius);
        assert_true(orr_entity_eq(hit.entity, man->entity));
        assert_int_equal(hit.instance_id, man->id);
        assert_true(orr_mesh_id_eq(hit.mesh, man->mesh));
        assert_false(hit.gone);
        /* in front of the camera, within the man's sphere, on his posed surface */
        assert_true(hit.depth > 0.0f && hit.depth <= 1.0f);
        assert_true(hit.distance > view_distance - radius && hit.distance < view_distance + radius);
        assert_true(off < 0.05 * radius);
        if (only_bind[0] >= 0) {
            uint32_t bat[2] = {(uint32_t)only_bind[0], (uint32_t)only_bind[1]};
            assert_int_equal(frame(r, &snap, pose, radius, ways[k].strategy, ways[k].cull, NULL, bat, &hit), 0);
        }
    }
    free(posed), free(bind), free(px);
    assert_int_equal(orr_renderer_unbind_library(r, lib), ORR_OK);
    orr_renderer_destroy(r);
    orr_snapshot_fini(&snap);
    orr_world_destroy(w);
    orr_assets_destroy(assets);
    ref_free(ref);
    assert_int_equal(validation, 0);
}
