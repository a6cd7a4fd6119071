/* Lean vertex stages: each batch draws with a pipeline that carries only what its mesh has and its
 * material shows (texcoords, tangents, colours, joints, morph targets), and must shade the same bytes as
 * the full shaders. The reference is the same renderer made with vertex capture on, which draws every
 * batch with the full shaders (capture is written there only); both render each sample (textured,
 * normal-mapped, vertex-coloured, skinned and morphed, masked and blended, unlit, transformed
 * texcoords) posed mid-animation, with each indexed strategy. */
#include "e2e_tests.h"

#include <math.h>
#include <orrery/anim.h>
#include <orrery/frame.h>
#include <orrery/gpu.h>
#include <orrery/scene.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE 96

static void quiet_log(void *user, orr_log_level level, const char *message)
{
    if (strstr(message, ORR_GPU_VALIDATION_PREFIX)) {
        (*(uint32_t *)user)++;
        fprintf(stderr, "%s\n", message);
    }
    (void)level;
}

/* From above and in front of the scene's box, at three times its radius. */
static orr_mat4d camera_for(orr_aabbd box, double *radius)
{
    orr_vec3d c = orr_vec3d_scale(orr_vec3d_add(box.min, box.max), 0.5);
    double r = fmax(orr_vec3d_length(orr_vec3d_sub(box.max, box.min)) / 2, 1e-3);
    *radius = r;
    orr_vec3d eye = {c.x + 0.6 * r, c.y + 0.8 * r, c.z + 2.8 * r};
    orr_vec3d f = orr_vec3d_normalize(orr_vec3d_sub(c, eye));
    orr_vec3d x = orr_vec3d_normalize(orr_vec3d_cross(f, (orr_vec3d){0, 1, 0}));
    orr_vec3d y = orr_vec3d_cross(x, f);
    orr_mat4d m;
    double cols[16] = {x.x, x.y, x.z, 0, y.x, y.y, y.z, 0, -f.x, -f.y, -f.z, 0, eye.x, eye.y, eye.z, 1};
    memcpy(m.m, cols, sizeof cols);
    return m;
}

/* One frame of `snap` into a new target; the pixels (caller frees) and the renderer's pipeline count. */
static uint8_t *draw(orr_renderer *r, const orr_snapshot *snap, orr_mat4d pose, double radius, orr_strategy strategy,
                     uint32_t *pipelines)
{
    orr_target_desc td = {.width = SIZE, .height = SIZE, .readback = true};
    orr_target_id target;
    assert_int_equal(orr_renderer_create_target(r, &td, &target), ORR_OK);
    orr_view_desc vd = {.target = target, .pose = pose, .yfov = 0.9, .znear = radius * 0.01, .strategy = strategy};
    orr_view_id view;
    assert_int_equal(orr_renderer_create_view(r, &vd, &view), ORR_OK);
    orr_render_desc desc = {.target = target, .snapshot = snap};
    orr_render_stats st;
    if (orr_renderer_render(r, &desc, &st) != ORR_OK) fail_msg("render: %s", orr_renderer_last_error(r)->message);
    uint8_t *px = malloc((size_t)SIZE * SIZE * 4);
    assert_non_null(px);
    assert_int_equal(orr_renderer_read_target(r, target, px, (size_t)SIZE * SIZE * 4), ORR_OK);
    assert_int_equal(orr_renderer_destroy_target(r, target), ORR_OK);
    *pipelines = st.draws.pipelines;
    return px;
}

void test_lean_pipelines_shade_like_full(void **state)
{
    (void)state;
    static const char *const files[] = {
        "gltf/Box/Box.gltf",
        "gltf/BoxTextured/BoxTextured.gltf",
        "gltf/VertexColorTest/VertexColorTest.gltf",
        "gltf/CesiumMan/CesiumMan.gltf",
        "gltf/SimpleSkin/SimpleSkin.gltf",
        "gltf/AnimatedMorphCube/AnimatedMorphCube.gltf",
        "gltf/MorphPrimitivesTest/MorphPrimitivesTest.gltf",
        "gltf/CesiumMilkTruck/CesiumMilkTruck.gltf",
        "gltf/Blender_01_alpha_mask/01_alpha_mask.gltf",
        "gltf/Blender_01_alpha_blend/01_alpha_blend.gltf",
        "gltf/UnlitTest/UnlitTest.gltf",
        "gltf/TextureTransformTest/TextureTransformTest.gltf",
    };
    static const orr_strategy strategies[] = {ORR_STRATEGY_DIRECT, ORR_STRATEGY_BATCHED, ORR_STRATEGY_INDIRECT};
    uint32_t validation = 0;
    orr_renderer *lean, *full;
    orr_error err;
    orr_renderer_desc ld = {.validation = true, .logger = {quiet_log, &validation}};
    orr_renderer_desc fd = {.validation = true, .vertex_capture = true, .logger = {quiet_log, &validation}};
    if (orr_renderer_create(&ld, &lean, &err) != ORR_OK) fail_msg("renderer: %s", err.message);
    if (orr_renderer_create(&fd, &full, &err) != ORR_OK) fail_msg("renderer with vertex capture: %s", err.message);
    uint32_t lean_pipelines = 0, full_pipelines = 0;
    for (size_t c = 0; c < sizeof files / sizeof files[0]; c++) {
        const char *file = orrt_asset(files[c]);
        orr_assets *assets;
        assert_int_equal(orr_assets_create(NULL, &assets, NULL), ORR_OK);
        orr_prefab_id prefab;
        if (orr_gltf_load(assets, file, NULL, &prefab, &err) != ORR_OK) fail_msg("%s: %s", file, err.message);
        orr_gltf_info info;
        assert_int_equal(orr_gltf_info_file(file, NULL, NULL, &info, &err), ORR_OK);
        orr_world *w;
        assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
        orr_entity root;
        assert_int_equal(orr_prefab_instantiate(w, assets, prefab, ORR_ENTITY_NONE, NULL, &root), ORR_OK);
        orr_clip_id clip;
        if (orr_prefab_clips(assets, prefab, &clip, 1)) { /* posed mid-animation: skins and morphs deformed */
            orr_animation_player *player = orr_animation_player_edit(w, root);
            assert_non_null(player);
            player->clip = clip;
            orr_anim_apply(w, assets, 37, 1.0 / 60.0);
        }
        orr_world_update_transforms(w);
        orr_snapshot snap;
        orr_snapshot_init(&snap, NULL);
        assert_int_equal(orr_frame_extract(w, assets, 1, 37, NULL, &snap), ORR_OK);
        double radius;
        orr_mat4d pose = camera_for(info.bounds, &radius);
        orr_library_id lean_lib, full_lib;
        assert_int_equal(orr_renderer_bind_library(lean, assets, &lean_lib), ORR_OK);
        assert_int_equal(orr_renderer_bind_library(full, assets, &full_lib), ORR_OK);
        for (size_t s = 0; s < sizeof strategies / sizeof strategies[0]; s++) {
            uint8_t *a = draw(lean, &snap, pose, radius, strategies[s], &lean_pipelines);
            uint8_t *b = draw(full, &snap, pose, radius, strategies[s], &full_pipelines);
            uint32_t drawn = 0, differ = 0; /* (the clear colour is transparent black) */
            for (size_t p = 0; p < (size_t)SIZE * SIZE; p++) {
                drawn += (a[p * 4] | a[p * 4 + 1] | a[p * 4 + 2] | a[p * 4 + 3]) != 0;
                differ += memcmp(a + p * 4, b + p * 4, 4) != 0;
            }
            if (differ) fail_msg("%s, strategy %zu: %u of %u pixels differ from the full shaders'", files[c], s, differ,
                                 SIZE * SIZE);
            if (drawn < SIZE * SIZE / 50) fail_msg("%s: only %u pixels drawn (two blank images agree)", files[c], drawn);
            free(a);
            free(b);
        }
        print_message("%s: pipelines so far lean %u, full %u\n", files[c], lean_pipelines, full_pipelines);
        orr_snapshot_fini(&snap);
        orr_world_destroy(w);
        assert_int_equal(orr_renderer_unbind_library(lean, lean_lib), ORR_OK);
        assert_int_equal(orr_renderer_unbind_library(full, full_lib), ORR_OK);
        orr_assets_destroy(assets);
    }
    /* the lean renderer chose other variants than the full one's single one per drawing state */
    assert_true(lean_pipelines > full_pipelines);
    orr_renderer_destroy(lean);
    orr_renderer_destroy(full);
    assert_int_equal(validation, 0);
}
