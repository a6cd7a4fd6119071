/* Levels of detail on the GPU: 400 spheres of four levels at distances from 2 to 300 metres, seen by
 * two views, culled on the GPU and on the CPU: the same level for every instance (the same draws per
 * level, the same bytes), several levels in use, far fewer triangles than at full detail, and the image
 * within a stated difference of the full-detail one. */
#include "gpu_fixture.h"
#include "gpu_tests.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { LW = 256, LH = 128 };

static uint64_t g_lod_rng = 0x9e3779b97f4a7c15ull;
static double lod_rand(void)
{
    g_lod_rng = g_lod_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(g_lod_rng >> 11) / 9007199254740992.0;
}

static uint64_t triangles(const orr_render_stats *st)
{
    uint64_t t = 0;
    for (uint32_t l = 0; l < ORR_MESH_MAX_LODS; l++) t += st->draws.lod_triangles[l];
    return t;
}

void test_lod_gpu_equals_cpu(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    f.snapshot.instance_count = 0;
    orr_mesh_id sphere = fix_sphere_lods(&f, 32, 64, f.red, 4);
    const orr_mesh *m = orr_assets_try_get_mesh(f.assets, sphere);
    assert_true(m->lod_count >= 4);
    for (uint32_t i = 0; i < 400; i++) {
        double d = 2.0 + 298.0 * pow(lod_rand(), 2.0), x = (lod_rand() - 0.5) * 0.8 * d, y = (lod_rand() - 0.5) * 0.3 * d;
        double s = 0.5 + 1.5 * lod_rand();
        orr_mat4d w;
        orr_mat4d_from_trs((orr_vec3d){x, y, -d}, orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, lod_rand() * 6.0),
                           (orr_vec3d){s, s, s}, &w);
        fix_add(&f, i + 1, sphere, i % 3 ? f.red : f.green, w);
    }
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fix_view v[2] = {
        {.viewport = {0, 0, LW / 2, LH}, .pose = fix_look((orr_vec3d){0, 0, 0}, (orr_vec3d){0, 0, -1}),
         .strategy = ORR_STRATEGY_INDIRECT, .order = ORR_ORDER_MESH, .cull = ORR_CULL_GPU, .lod_pixels = 1.0f},
        {.viewport = {LW / 2, 0, LW - LW / 2, LH}, .pose = fix_look((orr_vec3d){0, 1, 5}, (orr_vec3d){3, 0, -40}),
         .strategy = ORR_STRATEGY_INDIRECT, .order = ORR_ORDER_HIERARCHY, .cull = ORR_CULL_GPU, .lod_pixels = 1.0f},
    };
    orr_render_stats gs, cs, fs;
    uint8_t *gpu = fix_render(r, &f, LW, LH, v, 2, &gs);
    v[0].cull = v[1].cull = ORR_CULL_CPU;
    uint8_t *cpu = fix_render(r, &f, LW, LH, v, 2, &cs);
    v[0].lod_pixels = v[1].lod_pixels = 0.0f;
    uint8_t *full = fix_render(r, &f, LW, LH, v, 2, &fs);
    uint32_t used = 0;
    for (uint32_t l = 0; l < ORR_MESH_MAX_LODS; l++) {
        print_message("level %u: %u draws, %llu triangles (GPU cull); %u, %llu (CPU)\n", l, gs.draws.lod_surfaces[l],
                      (unsigned long long)gs.draws.lod_triangles[l], cs.draws.lod_surfaces[l],
                      (unsigned long long)cs.draws.lod_triangles[l]);
        assert_int_equal(gs.draws.lod_surfaces[l], cs.draws.lod_surfaces[l]);
        assert_true(gs.draws.lod_triangles[l] == cs.draws.lod_triangles[l]);
        used += gs.draws.lod_surfaces[l] > 0;
    }
    assert_true(used >= 3);
    assert_int_equal(fs.draws.lod_surfaces[0], fs.draws.surfaces); /* off: level 0 alone */
    assert_int_equal(fs.draws.surfaces, cs.draws.surfaces);        /* the same instances, other levels */
    print_message("triangles: %llu at full detail, %llu with levels (%.1fx fewer)\n", (unsigned long long)triangles(&fs),
                  (unsigned long long)triangles(&cs), (double)triangles(&fs) / (double)triangles(&cs));
    assert_true(triangles(&cs) * 3 < triangles(&fs));
    assert_memory_equal(gpu, cpu, (size_t)LW * LH * 4);
    /* against full detail: few pixels differ, and those little (silhouettes moved by under a pixel) */
    uint32_t drawn = fix_count_drawn(full, LW, 0, 0, LW, LH), differ = 0, large = 0;
    for (size_t p = 0; p < (size_t)LW * LH; p++) {
        int worst = 0;
        for (int c = 0; c < 3; c++) {
            int dlt = abs((int)cpu[p * 4 + c] - (int)full[p * 4 + c]);
            worst = dlt > worst ? dlt : worst;
        }
        differ += worst > 0;
        large += worst > 64;
    }
    print_message("against full detail: %u of %u drawn pixels differ, %u by more than 64/255\n", differ, drawn, large);
    assert_true(drawn > LW * LH / 50);
    assert_true(differ * 10 <= drawn); /* at most 10% of the drawn pixels differ */
    assert_true(large * 50 <= drawn);  /* at most 2% by more than a quarter of the range */
    free(gpu);
    free(cpu);
    free(full);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* Visibility ranges on the GPU: a row of cubes from 3 to 60 metres, those past 20 (margin 1) and those
 * nearer than 6 hidden by their range: the same bytes culled on the GPU and on the CPU, the hidden
 * ones counted, and not the image without ranges. */
void test_range_gpu_equals_cpu(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    f.snapshot.instance_count = 0;
    uint32_t hidden = 0;
    for (uint32_t i = 0; i < 40; i++) {
        double d = 3.0 + 57.0 * i / 39.0;
        orr_mat4d w;
        orr_mat4d_from_trs((orr_vec3d){(i % 2 ? 0.3 : -0.3) * d, 0, -d}, ORR_QUAT_IDENTITY, (orr_vec3d){1, 1, 1}, &w);
        orr_render_instance *in = fix_add(&f, i + 1, f.cube, i % 2 ? f.red : f.green, w);
        in->range_near = 6.0f, in->range_far = 20.0f, in->range_margin = 1.0f;
        double centre = d * sqrt(1.0 + 0.3 * 0.3); /* the distance to the cube's centre */
        hidden += centre < 6.0 || centre > 20.0;
    }
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fix_view v[1] = {{.viewport = {0, 0, LW, LH}, .pose = fix_look((orr_vec3d){0, 0, 0}, (orr_vec3d){0, 0, -1}),
                      .strategy = ORR_STRATEGY_INDIRECT, .order = ORR_ORDER_MESH, .cull = ORR_CULL_GPU}};
    orr_render_stats gs, cs;
    uint8_t *gpu = fix_render(r, &f, LW, LH, v, 1, &gs);
    v[0].cull = ORR_CULL_CPU;
    uint8_t *cpu = fix_render(r, &f, LW, LH, v, 1, &cs);
    f.snapshot.layout_version++; /* the ranges gone: a layout change */
    for (uint32_t i = 0; i < f.snapshot.instance_count; i++)
        f.snapshot.instances[i].range_near = f.snapshot.instances[i].range_far = 0.0f;
    uint8_t *all = fix_render(r, &f, LW, LH, v, 1, NULL);
    print_message("%u of 40 cubes out of range (GPU cull %u, CPU cull %u)\n", hidden, gs.cull.out_of_range, cs.cull.out_of_range);
    assert_int_equal(gs.cull.out_of_range, hidden);
    assert_int_equal(cs.cull.out_of_range, hidden);
    assert_memory_equal(gpu, cpu, (size_t)LW * LH * 4);
    assert_true(fix_count_drawn(gpu, LW, 0, 0, LW, LH) > 0);
    assert_true(memcmp(gpu, all, (size_t)LW * LH * 4) != 0);
    free(gpu);
    free(cpu);
    free(all);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* Instances counted once whatever their levels: 90 spheres of four levels, a third behind the camera,
 * a third with a visibility range that hides those past 12 m, two views culled on the GPU and on the CPU:
 * each instance a view may show is one of visible, culled (frustum) or out of range, the GPU's counts are
 * the CPU's, and several levels are drawn (so that items of levels not chosen would count, were they
 * counted). */
void test_lod_counts_instances(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    f.snapshot.instance_count = 0;
    orr_mesh_id sphere = fix_sphere_lods(&f, 16, 32, f.red, 4);
    enum { N = 90 };
    for (uint32_t i = 0; i < N; i++) {
        double d = 2.0 + 40.0 * (double)(i / 3) / (N / 3), x = (lod_rand() - 0.5) * 0.5 * d;
        orr_mat4d w;
        orr_mat4d_from_trs((orr_vec3d){x, 0, i % 3 == 1 ? d : -d}, ORR_QUAT_IDENTITY, (orr_vec3d){1, 1, 1}, &w);
        orr_render_instance *in = fix_add(&f, i + 1, sphere, f.red, w);
        if (i % 3 == 2) in->range_far = 12.0f, in->range_margin = 0.5f;
    }
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fix_view v[2] = {
        {.viewport = {0, 0, LW / 2, LH}, .pose = fix_look((orr_vec3d){0, 0, 0}, (orr_vec3d){0, 0, -1}),
         .strategy = ORR_STRATEGY_INDIRECT, .order = ORR_ORDER_MESH, .cull = ORR_CULL_GPU, .lod_pixels = 1.0f},
        {.viewport = {LW / 2, 0, LW - LW / 2, LH}, .pose = fix_look((orr_vec3d){0, 0, 0}, (orr_vec3d){0.3, 0, -1}),
         .strategy = ORR_STRATEGY_INDIRECT, .order = ORR_ORDER_HIERARCHY, .cull = ORR_CULL_GPU, .lod_pixels = 1.0f},
    };
    orr_render_stats gs, cs;
    free(fix_render(r, &f, LW, LH, v, 2, &gs));
    v[0].cull = v[1].cull = ORR_CULL_CPU;
    free(fix_render(r, &f, LW, LH, v, 2, &cs));
    const orr_render_stats *st[2] = {&gs, &cs};
    for (int k = 0; k < 2; k++) {
        const orr_render_stats *x = st[k];
        uint32_t levels = 0;
        for (uint32_t l = 0; l < ORR_MESH_MAX_LODS; l++) levels += x->draws.lod_surfaces[l] > 0;
        print_message("%s cull: visible %u, culled %u, occluded %u, out of range %u (of %u over 2 views); %u levels drawn\n",
                      k ? "CPU" : "GPU", x->cull.visible, x->cull.culled, x->cull.occluded, x->cull.out_of_range, 2 * N, levels);
        assert_int_equal(x->cull.visible + x->cull.culled + x->cull.occluded + x->cull.out_of_range, 2 * N);
        assert_int_equal(x->cull.visible, x->draws.surfaces); /* one primitive each */
        assert_true(levels >= 2);
        assert_true(x->cull.culled >= 2 * N / 3 && x->cull.out_of_range > 0 && x->cull.visible > 0);
    }
    assert_int_equal(gs.cull.visible, cs.cull.visible);
    assert_int_equal(gs.cull.culled, cs.cull.culled);
    assert_int_equal(gs.cull.out_of_range, cs.cull.out_of_range);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}
