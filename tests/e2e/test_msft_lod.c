/* MSFT_lod drawn: a .gltf written here names the Box sample's buffer as a fine mesh (12 triangles) and
 * a coarse one (the first 6), the coarse node the fine node's level, with MSFT_screencoverage 0.25. At
 * lod_pixels = view height / 1080 (where the coverage is honoured exactly, docs/gltf.md), a camera that
 * sees the box's bounding sphere cover half the view's height draws the fine level and one that sees
 * it cover a tenth draws the coarse one, culled on the GPU and on the CPU reference alike (the same
 * draws and triangles per level, the same bytes); with lod_pixels 0 both draw the fine level. */
#include "e2e_tests.h"

#include <math.h>
#include <orrery/frame.h>
#include <orrery/gpu.h>
#include <orrery/scene.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void test_msft_lod_drawn(void **state);

#define LOD_SIZE 128

static void lod_validation(void *user, orr_log_level level, const char *msg)
{
    if (strstr(msg, ORR_GPU_VALIDATION_PREFIX)) {
        (*(uint32_t *)user)++;
        fprintf(stderr, "%s\n", msg);
    }
    (void)level;
}

static const char box_lod_gltf[] =
    "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"MSFT_lod\"],"
    "\"buffers\":[{\"byteLength\":648,\"uri\":\"Box0.bin\"}],"
    "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":576,\"byteLength\":72,\"target\":34963},"
    "{\"buffer\":0,\"byteOffset\":0,\"byteLength\":576,\"byteStride\":12,\"target\":34962}],"
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5123,\"count\":36,\"type\":\"SCALAR\"},"
    "{\"bufferView\":1,\"componentType\":5126,\"count\":24,\"type\":\"VEC3\",\"max\":[1,1,1],\"min\":[-1,-1,-1]},"
    "{\"bufferView\":1,\"byteOffset\":288,\"componentType\":5126,\"count\":24,\"type\":\"VEC3\","
    "\"max\":[0.5,0.5,0.5],\"min\":[-0.5,-0.5,-0.5]},"
    "{\"bufferView\":0,\"componentType\":5123,\"count\":18,\"type\":\"SCALAR\"}],"
    "\"materials\":[{\"name\":\"Red\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.8,0,0,1],\"metallicFactor\":0}}],"
    "\"meshes\":[{\"name\":\"fine\",\"primitives\":[{\"attributes\":{\"NORMAL\":1,\"POSITION\":2},\"indices\":0,\"material\":0}]},"
    "{\"name\":\"coarse\",\"primitives\":[{\"attributes\":{\"NORMAL\":1,\"POSITION\":2},\"indices\":3,\"material\":0}]}],"
    "\"nodes\":[{\"name\":\"box\",\"mesh\":0,\"rotation\":[0.2,0.3,0.1,0.927],"
    "\"extensions\":{\"MSFT_lod\":{\"ids\":[1]}},\"extras\":{\"MSFT_screencoverage\":[0.25]}},"
    "{\"name\":\"box_coarse\",\"mesh\":1,\"rotation\":[0.2,0.3,0.1,0.927]}],"
    "\"scenes\":[{\"nodes\":[0]}]}";

/* One frame of `snap` seen from `eye` (looking at the origin) into a new target: its pixels into px and
 * the frame's completed stats into *st. */
static void lod_frame(orr_renderer *r, const orr_snapshot *snap, double eye, orr_cull cull, float lod_pixels, uint8_t *px,
                      orr_render_stats *st)
{
    orr_target_desc td = {.width = LOD_SIZE, .height = LOD_SIZE, .readback = true};
    orr_target_id target;
    assert_int_equal(orr_renderer_create_target(r, &td, &target), ORR_OK);
    orr_mat4d pose;
    orr_mat4d_look_at_pose((orr_vec3d){0, 0, eye}, (orr_vec3d){0, 0, 0}, (orr_vec3d){0, 1, 0}, &pose);
    orr_view_desc vd = {.target = target, .pose = pose, .yfov = 0.9, .znear = 0.05, .strategy = ORR_STRATEGY_INDIRECT,
                        .cull = cull, .lod_pixels = lod_pixels};
    orr_view_id view;
    assert_int_equal(orr_renderer_create_view(r, &vd, &view), ORR_OK);
    orr_render_desc desc = {.target = target, .snapshot = snap};
    if (orr_renderer_render(r, &desc, st) != ORR_OK) fail_msg("render: %s", orr_renderer_last_error(r)->message);
    assert_int_equal(orr_renderer_finish(r, st), ORR_OK);
    assert_int_equal(orr_renderer_read_target(r, target, px, (size_t)LOD_SIZE * LOD_SIZE * 4), ORR_OK);
    assert_int_equal(orr_renderer_destroy_target(r, target), ORR_OK);
}

void test_msft_lod_drawn(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", orrt_asset("gltf/Box"));
    orr_assets *assets;
    assert_int_equal(orr_assets_create(NULL, &assets, NULL), ORR_OK);
    orr_prefab_id prefab;
    orr_error err;
    if (orr_gltf_load_memory(assets, box_lod_gltf, strlen(box_lod_gltf), dir, NULL, NULL, &prefab, &err) != ORR_OK)
        fail_msg("%s", err.message);
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_entity root;
    assert_int_equal(orr_prefab_instantiate(w, assets, prefab, ORR_ENTITY_NONE, NULL, &root), ORR_OK);
    orr_world_update_transforms(w);
    orr_snapshot snap;
    orr_snapshot_init(&snap, NULL);
    assert_int_equal(orr_frame_extract(w, assets, 1, 0, NULL, &snap), ORR_OK);
    assert_int_equal(snap.instance_count, 1); /* the coarse node is in no scene */
    const orr_mesh *m = orr_assets_try_get_mesh(assets, snap.instances[0].mesh);
    assert_non_null(m);
    assert_int_equal(m->lod_count, 2);
    assert_int_equal(m->lod_triangles[0], 12);
    assert_int_equal(m->lod_triangles[1], 6);

    /* the camera distances at which the bounding sphere's projected diameter D x P / 2d (d to its
     * nearest point) is half the view's height, and a tenth */
    double diameter = 2.0 * m->sphere_radius, p = 1.0 / tan(0.45);
    double near_eye = diameter * p / (2.0 * 0.5) + m->sphere_radius, far_eye = diameter * p / (2.0 * 0.1) + m->sphere_radius;
    float honoured = (float)LOD_SIZE / 1080.0f;

    uint32_t validation = 0;
    orr_renderer_desc rd = {.validation = true, .logger = {lod_validation, &validation}};
    orr_renderer *r;
    if (orr_renderer_create(&rd, &r, &err) != ORR_OK) fail_msg("renderer: %s", err.message);
    orr_library_id lib;
    assert_int_equal(orr_renderer_bind_library(r, assets, &lib), ORR_OK);
    size_t bytes = (size_t)LOD_SIZE * LOD_SIZE * 4;
    uint8_t *gpu = malloc(bytes), *cpu = malloc(bytes), *full = malloc(bytes);
    assert_true(gpu && cpu && full);
    const struct {
        double eye;
        uint32_t level;
    } cases[2] = {{near_eye, 0}, {far_eye, 1}};
    for (int c = 0; c < 2; c++) {
        orr_render_stats gs, cs, fs;
        lod_frame(r, &snap, cases[c].eye, ORR_CULL_GPU, honoured, gpu, &gs);
        lod_frame(r, &snap, cases[c].eye, ORR_CULL_CPU, honoured, cpu, &cs);
        lod_frame(r, &snap, cases[c].eye, ORR_CULL_GPU, 0.0f, full, &fs);
        print_message("camera at %.2f m: level draws GPU [%u %u], CPU [%u %u], triangles [%llu %llu]\n", cases[c].eye,
                      gs.draws.lod_surfaces[0], gs.draws.lod_surfaces[1], cs.draws.lod_surfaces[0], cs.draws.lod_surfaces[1],
                      (unsigned long long)gs.draws.lod_triangles[0], (unsigned long long)gs.draws.lod_triangles[1]);
        uint32_t l = cases[c].level;
        for (uint32_t k = 0; k < 2; k++) {
            assert_int_equal(gs.draws.lod_surfaces[k], k == l ? 1 : 0);
            assert_int_equal(cs.draws.lod_surfaces[k], k == l ? 1 : 0);
            assert_true(gs.draws.lod_triangles[k] == (k == l ? m->lod_triangles[l] : 0));
            assert_true(cs.draws.lod_triangles[k] == gs.draws.lod_triangles[k]);
            assert_int_equal(fs.draws.lod_surfaces[k], k == 0 ? 1 : 0); /* lod_pixels 0: the fine level */
        }
        assert_memory_equal(gpu, cpu, bytes);
        uint32_t drawn = 0, differ = 0;
        for (size_t i = 0; i < bytes; i += 4) {
            drawn += (gpu[i] | gpu[i + 1] | gpu[i + 2] | gpu[i + 3]) != 0;
            differ += memcmp(gpu + i, full + i, 4) != 0;
        }
        assert_true(drawn > 0);
        if (l == 0) assert_memory_equal(gpu, full, bytes); /* the fine level is the full mesh */
        else assert_true(differ > 0);                        /* half the box's faces are gone */
    }
    assert_int_equal(validation, 0);
    free(gpu), free(cpu), free(full);
    assert_int_equal(orr_renderer_unbind_library(r, lib), ORR_OK);
    orr_renderer_destroy(r);
    orr_snapshot_fini(&snap);
    orr_world_destroy(w);
    orr_assets_destroy(assets);
}
