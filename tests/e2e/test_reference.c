/* The vertices the GPU drew against an independent reference (gltf_reference.c), for every animated
 * sample in the shared set, at three times of each of its animations, with every strategy.
 *
 * The library plays the animation (orr_anim_apply at a tick), extracts a snapshot and renders it with
 * vertex capture on (orr_renderer_desc.vertex_capture: the vertex shader also writes each vertex's
 * world position, as it placed it, to a buffer read back with orr_renderer_read_vertices). The
 * reference reads the same file with cJSON and poses it at the same clip time (the tick's, looped),
 * and gives every vertex of every mesh node; each drawn vertex must lie within a tolerance of it (1e-4
 * of the scene's size: float rounding, never a morph or skin error, which moves vertices by whole
 * deltas); every vertex must have been drawn, except those of rigid meshes that the meshlet strategy
 * culls by meshlet. For the morphed samples the test also checks that it could fail: at some time the
 * drawn vertices lie far from the reference's rest shape (the shape a renderer ignoring animated weights
 * would draw).
 *
 * Why vertex capture: it compares the very positions the vertex shader produced (the same function
 * every strategy's vertex or mesh shader calls, fed by each strategy's own vertex input and records),
 * per vertex and exactly, with no rasterisation, coverage or depth in between that a comparison of
 * images would have to tolerate; a float target of positions would give interpolated values per pixel
 * and lose the vertices hidden behind others. */
#include "e2e_tests.h"
#include "gltf_reference.h"

#include <math.h>
#include <orrery/anim.h>
#include <orrery/frame.h>
#include <orrery/gpu.h>
#include <orrery/scene.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void test_reference_vertices(void **state);

static const char *strategy_name(orr_strategy s)
{
    static const char *const names[] = {"direct", "batched", "indirect", "shell", "meshlet"};
    return (uint32_t)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

static void quiet_log(void *user, orr_log_level level, const char *msg)
{
    uint32_t *validation = user;
    if (strstr(msg, ORR_GPU_VALIDATION_PREFIX)) (*validation)++;
    (void)level;
}

typedef struct sample_case {
    const char *file;
    bool morphed; /* animates weights: the check that the test can fail applies */
} sample_case;

/* What one comparison found. */
typedef struct compare_result {
    double worst;      /* largest distance of a drawn vertex from the reference's */
    double worst_rest; /* the same against the reference with the meshes' rest weights */
    uint32_t vertices; /* compared */
    uint32_t undrawn;  /* vertices no draw wrote */
    char where[160];   /* the worst one */
} compare_result;

/* The drawn vertices of every mesh node against the reference, as posed. */
static void compare(orr_renderer *r, const orr_snapshot *s, const ref_doc *ref, const ref_doc *rest,
                    const orr_entity *node_entity, uint32_t node_count, const orr_assets *assets, bool meshlets,
                    compare_result *res)
{
    for (uint32_t n = 0; n < node_count; n++) {
        int32_t mesh = ref_node_mesh(ref, n);
        if (mesh < 0 || !node_entity[n].generation) continue;
        uint32_t i = orr_snapshot_find(s, node_entity[n].index);
        if (i == UINT32_MAX) fail_msg("node %u has no instance", n);
        const orr_render_instance *in = &s->instances[i];
        const orr_mesh *m = orr_assets_try_get_mesh(assets, in->mesh);
        /* the meshlet strategy culls a rigid mesh's meshlets (frustum, back-facing cones): their vertices
         * are not drawn; skinned and morphed surfaces go its indexed path, every vertex drawn */
        bool may_cull = meshlets && !in->joint_count && !in->weight_count;
        assert_non_null(m);
        assert_int_equal(m->primitive_count, ref_primitive_count(ref, (uint32_t)mesh));
        for (uint32_t p = 0; p < m->primitive_count; p++) {
            uint32_t count = m->primitives[p].vertex_count;
            float *drawn = malloc((size_t)count * 3 * sizeof *drawn);
            assert_non_null(drawn);
            if (orr_renderer_read_vertices(r, in->id, in->mesh, p, drawn, count) != ORR_OK)
                fail_msg("read_vertices: %s", orr_renderer_last_error(r)->message);
            /* a primitive without normals is stored unwelded: its vertex k is the file's index k */
            bool unwelded = !ref_has_normals(ref, (uint32_t)mesh, p);
            if (!unwelded) assert_int_equal(count, ref_vertex_count(ref, (uint32_t)mesh, p));
            for (uint32_t v = 0; v < count; v++) {
                uint32_t fv = unwelded ? ref_index(ref, (uint32_t)mesh, p, v) : v;
                double want[3], base[3];
                ref_vertex(ref, n, p, fv, want);
                ref_vertex(rest, n, p, fv, base);
                const float *got = drawn + (size_t)v * 3;
                if (isnan(got[0]) && may_cull) continue;
                if (isnan(got[0])) {
                    snprintf(res->where, sizeof res->where, "node %u primitive %u vertex %u was not drawn", n, p, v);
                    res->undrawn++;
                    continue;
                }
                double d = 0, dr = 0;
                for (int c = 0; c < 3; c++) {
                    d += (got[c] - want[c]) * (got[c] - want[c]);
                    dr += (got[c] - base[c]) * (got[c] - base[c]);
                }
                d = sqrt(d), dr = sqrt(dr);
                if (d > res->worst) {
                    res->worst = d;
                    snprintf(res->where, sizeof res->where, "node %u primitive %u vertex %u: drawn (%g %g %g), reference (%g %g %g)",
                             n, p, fv, got[0], got[1], got[2], want[0], want[1], want[2]);
                }
                if (dr > res->worst_rest) res->worst_rest = dr;
                res->vertices++;
            }
            free(drawn);
        }
    }
}

/* A camera that sees the whole posed scene: from +Z (and a little above) at three times its radius. */
static orr_mat4d camera_for(const ref_doc *ref, double *radius)
{
    double c[3], r;
    ref_posed_sphere(ref, c, &r);
    r = fmax(r, 1e-3);
    *radius = r;
    orr_mat4d m;
    orr_vec3d eye = {c[0] + 0.3 * r, c[1] + 0.5 * r, c[2] + 3.5 * r}, target = {c[0], c[1], c[2]};
    /* camera to world: -Z toward the target, +Y up */
    orr_vec3d f = orr_vec3d_normalize(orr_vec3d_sub(target, eye));
    orr_vec3d x = orr_vec3d_normalize(orr_vec3d_cross(f, (orr_vec3d){0, 1, 0}));
    orr_vec3d y = orr_vec3d_cross(x, f);
    double cols[16] = {x.x, x.y, x.z, 0, y.x, y.y, y.z, 0, -f.x, -f.y, -f.z, 0, eye.x, eye.y, eye.z, 1};
    memcpy(m.m, cols, sizeof cols);
    return m;
}

void test_reference_vertices(void **state)
{
    (void)state;
    static const sample_case cases[] = {
        {"gltf/AnimatedMorphCube/AnimatedMorphCube.gltf", true},
        {"gltf/SimpleMorph/SimpleMorph.gltf", true},
        {"gltf/Blender_01_morphed_cube/01_morphed_cube.gltf", true},
        {"gltf/AnimatedTriangle/AnimatedTriangle.gltf", false},
        {"gltf/BoxAnimated/BoxAnimated.gltf", false},
        {"gltf/SimpleSkin/SimpleSkin.gltf", false},
        {"gltf/CesiumMan/CesiumMan.gltf", false},
        {"gltf/CesiumMilkTruck/CesiumMilkTruck.gltf", false},
        {"gltf/InterpolationTest/InterpolationTest.gltf", false},
        {"gltf/Blender_03_all_animations/03_all_animations.gltf", false},
        {"gltf/Blender_03_skinned_cylinder/03_skinned_cylinder.gltf", false},
    };
    static const orr_strategy strategies[] = {ORR_STRATEGY_DIRECT, ORR_STRATEGY_BATCHED, ORR_STRATEGY_INDIRECT,
                                              ORR_STRATEGY_SHELL, ORR_STRATEGY_MESHLET};
    static const double fractions[] = {0.13, 0.52, 0.87};
    uint32_t validation = 0;
    orr_renderer_desc rd = {.validation = true, .vertex_capture = true, .meshlet_fallback = true,
                            .logger = {quiet_log, &validation}};
    orr_renderer *r;
    orr_error rerr;
    if (orr_renderer_create(&rd, &r, &rerr) != ORR_OK) fail_msg("no renderer with vertex capture: %s", rerr.message);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *file = orrt_asset(cases[c].file);
        ref_doc *ref = ref_load(file), *rest = ref_load(file);
        orr_assets *assets;
        assert_int_equal(orr_assets_create(&(orr_assets_desc){.logger = {quiet_log, &validation}}, &assets, NULL), ORR_OK);
        orr_prefab_id prefab;
        orr_error err;
        if (orr_gltf_load(assets, file, &(orr_gltf_options){.build_meshlets = true}, &prefab, &err) != ORR_OK)
            fail_msg("%s: %s", file, err.message);
        orr_library_id lib;
        assert_int_equal(orr_renderer_bind_library(r, assets, &lib), ORR_OK);
        orr_clip_id clips[16];
        uint32_t clip_count = orr_prefab_clips(assets, prefab, clips, 16);
        assert_int_equal(clip_count, ref_animation_count(ref));
        double worst = 0, worst_rest = 0;
        uint32_t compared = 0;
        for (uint32_t k = 0; k < clip_count && k < 16; k++) {
            /* a fresh world per animation: one played before would leave its last pose */
            orr_world *w;
            assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
            orr_entity root;
            assert_int_equal(orr_prefab_instantiate(w, assets, prefab, ORR_ENTITY_NONE, NULL, &root), ORR_OK);
            orr_animation_player *player = orr_animation_player_edit(w, root);
            assert_non_null(player);
            player->clip = clips[k];
            uint32_t node_count;
            const orr_entity *nodes = orr_animation_player_targets(w, root, &node_count);
            assert_int_equal(node_count, ref_node_count(ref));
            double duration = ref_animation_duration(ref, k);
            orr_snapshot snap;
            orr_snapshot_init(&snap, NULL);
            for (size_t ti = 0; ti < sizeof fractions / sizeof fractions[0]; ti++) {
                uint64_t tick = (uint64_t)llround(fractions[ti] * duration * 60.0);
                double t = fmod((double)tick / 60.0, duration); /* the looping player's clip time */
                orr_anim_apply(w, assets, tick, 1.0 / 60.0);
                orr_world_update_transforms(w);
                assert_int_equal(orr_frame_extract(w, assets, tick + 1, tick, NULL, &snap), ORR_OK);
                ref_pose(ref, k, t, true);
                ref_pose(rest, k, t, false); /* the same pose with the rest weights */
                double radius;
                orr_mat4d pose = camera_for(ref, &radius);
                for (size_t si = 0; si < sizeof strategies / sizeof strategies[0]; si++) {
                    orr_target_desc td = {.width = 64, .height = 64, .samples = 1};
                    orr_target_id target;
                    assert_int_equal(orr_renderer_create_target(r, &td, &target), ORR_OK);
                    orr_view_desc vd = {.target = target, .pose = pose, .yfov = 1.0, .znear = radius * 0.01,
                                        .strategy = strategies[si]};
                    orr_view_id view;
                    assert_int_equal(orr_renderer_create_view(r, &vd, &view), ORR_OK);
                    orr_render_desc desc = {.target = target, .snapshot = &snap};
                    if (orr_renderer_render(r, &desc, NULL) != ORR_OK)
                        fail_msg("%s: render: %s", file, orr_renderer_last_error(r)->message);
                    compare_result cr = {0};
                    compare(r, &snap, ref, rest, nodes, node_count, assets, strategies[si] == ORR_STRATEGY_MESHLET, &cr);
                    if (cr.undrawn)
                        fail_msg("%s animation %u at %.4f s, strategy %s: %u vertices were not drawn (%s)", cases[c].file,
                                 k, t, strategy_name(strategies[si]), cr.undrawn, cr.where);
                    if (cr.worst > 1e-4 * radius)
                        fail_msg("%s animation %u at %.4f s, strategy %s: a drawn vertex is %g from the reference "
                                 "(tolerance %g): %s",
                                 cases[c].file, k, t, strategy_name(strategies[si]), cr.worst, 1e-4 * radius,
                                 cr.where);
                    worst = fmax(worst, cr.worst / radius);
                    worst_rest = fmax(worst_rest, cr.worst_rest / radius);
                    compared += cr.vertices;
                    assert_int_equal(orr_renderer_destroy_target(r, target), ORR_OK);
                }
            }
            orr_snapshot_fini(&snap);
            orr_world_destroy(w);
        }
        if (cases[c].morphed)
            print_message("%s: %u vertices compared, worst %.3g of the scene's radius; the rest shape would be off by "
                          "%.3g\n", cases[c].file, compared, worst, worst_rest);
        else
            print_message("%s: %u vertices compared, worst %.3g of the scene's radius\n", cases[c].file, compared, worst);
        if (cases[c].morphed && worst_rest < 1e-2)
            fail_msg("%s: the rest shape is within %g of what was drawn: the test could not see a morph bug",
                     cases[c].file, worst_rest);
        assert_int_equal(orr_renderer_unbind_library(r, lib), ORR_OK);
        orr_assets_destroy(assets);
        ref_free(ref);
        ref_free(rest);
    }
    orr_renderer_destroy(r);
    assert_int_equal(validation, 0);
}
