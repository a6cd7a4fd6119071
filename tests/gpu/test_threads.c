/* The renderer's per-frame passes on threads (orr_renderer_desc.threads, .workers): instance records,
 * draw-scene rebuilds, the CPU cull and the views' records, shared out once a frame has 1024 items. */
#include "gpu_fixture.h"
#include "gpu_tests.h"

#include <stdlib.h>
#include <string.h>

enum { GRID = 40, CROWD = GRID * GRID, W = 192, H = 64, FRAMES = 4, VIEWS = 3 };

/* xorshift64*: the same moves for every renderer. */
static uint32_t next(uint64_t *s, uint32_t n)
{
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return (uint32_t)((*s * 0x2545F4914F6CDD1Dull) >> 33) % n;
}

static orr_mat4d placed(uint32_t k, double lift, bool mirrored)
{
    orr_mat4d m;
    orr_vec3d t = {(double)(k % GRID) * 0.5 - GRID * 0.25, lift, -(double)(k / GRID) * 0.5 - 1.0};
    orr_mat4d_from_trs(t, orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, k * 0.1),
                       (orr_vec3d){mirrored ? -0.3 : 0.3, 0.3, 0.3}, &m);
    return m;
}

/* The fixture's scene and a crowd of cubes (some glass, some cut-out, some mirrored, some hidden). */
static void crowd_scene(fixture *f)
{
    fix_init(f, (orr_vec3d){0, 0, 0});
    for (uint32_t k = 0; k < CROWD; k++) {
        orr_material_id m = k % 13 == 0 ? f->glass : k % 17 == 0 ? f->cutout : k % 2 ? f->green : f->blue;
        fix_add(f, 100 + k, f->cube, m, placed(k, 0.0, k % 11 == 0))->visible = k % 29 != 0;
    }
}

/* Frame `frame` of the sequence: 1 the whole snapshot; 2 most of the crowd moved; 3 a hundred removed
 * and as many new ones, most moved (a new layout); 4 most moved, fifty turned over (a re-sort). */
static void step(fixture *f, uint32_t frame, uint64_t *seed)
{
    static uint32_t changed[FIX_MAX_INSTANCES], removed[FIX_MAX_INSTANCES];
    uint32_t nc = 0, nr = 0;
    if (frame == 3) {
        orr_snapshot *s = &f->snapshot;
        uint32_t kept = 0;
        for (uint32_t i = 0; i < s->instance_count; i++) {
            if (f->instances[i].id >= 100 && f->instances[i].id % 16 == 5) removed[nr++] = f->instances[i].id;
            else f->instances[kept++] = f->instances[i];
        }
        s->instance_count = kept;
        for (uint32_t k = 0; k < nr; k++) {
            uint32_t id = 100 + CROWD + k;
            fix_add(f, id, f->cube, k % 3 ? f->red : f->glass, placed(k * 7 % CROWD, 1.0, k % 4 == 0));
            changed[nc++] = id;
        }
    }
    for (uint32_t i = 0; i < f->snapshot.instance_count; i++) {
        orr_render_instance *in = &f->instances[i];
        if (in->id < 100 || in->id >= 100 + CROWD || next(seed, 10) < 2) continue;
        in->world.m[10] += 0.05 * (next(seed, 9) - 4.0);
        if (frame == 4 && in->id % 32 == 7) /* turned over: its handedness flips */
            for (int c = 0; c < 3; c++) in->world.m[c] = -in->world.m[c];
        changed[nc++] = in->id;
    }
    if (frame > 1) fix_delta(f, changed, nc, removed, nr, frame == 3);
}

/* The same frames rendered by renderers of 1, 2, 3 and 7 threads (their own, and workers the caller
 * keeps): every frame's pixels and counters equal the one-thread renderer's, with direct, batched (the
 * CPU cull) and indirect (the GPU's) views side by side. */
void test_frame_passes_alike_at_any_thread_count(void **state)
{
    (void)state;
    orr_workers *kept;
    assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = 3}, &kept, NULL), ORR_OK);
    struct {
        uint32_t threads;
        orr_workers *workers;
    } ways[] = {{1, NULL}, {2, NULL}, {3, kept}, {7, NULL}};
    uint8_t *first[FRAMES] = {0};
    orr_render_stats first_stats[FRAMES];
    static const orr_strategy strategies[VIEWS] = {ORR_STRATEGY_DIRECT, ORR_STRATEGY_BATCHED, ORR_STRATEGY_INDIRECT};
    fix_view views[VIEWS];
    for (uint32_t v = 0; v < VIEWS; v++)
        views[v] = (fix_view){.viewport = {v * (W / VIEWS), 0, W / VIEWS, H},
                              .pose = fix_look((orr_vec3d){0.5 + v, 4.0, 3.0}, (orr_vec3d){0, 0, -6}),
                              .strategy = strategies[v], .order = v == 1 ? ORR_ORDER_HIERARCHY : ORR_ORDER_MESH,
                              .cull = v == 2 ? ORR_CULL_GPU : ORR_CULL_CPU};
    for (size_t k = 0; k < sizeof ways / sizeof *ways; k++) {
        fixture *f = malloc(sizeof *f);
        assert_non_null(f);
        crowd_scene(f);
        fix_log logged;
        orr_renderer *r = fix_renderer_threads(&logged, ways[k].threads, ways[k].workers);
        uint64_t seed = 0x9E3779B97F4A7C15ull;
        for (uint32_t frame = 1; frame <= FRAMES; frame++) {
            step(f, frame, &seed);
            orr_render_stats st;
            uint8_t *img = fix_render(r, f, W, H, views, VIEWS, &st);
            if (!k) {
                first[frame - 1] = img, first_stats[frame - 1] = st;
                /* large enough to be shared out, and culled: most of the crowd drawn, not all */
                assert_true(st.cull.visible > 2 * 1024 && st.cull.visible < VIEWS * CROWD);
                continue;
            }
            const orr_render_stats *a = &first_stats[frame - 1];
            if (memcmp(first[frame - 1], img, (size_t)W * H * 4))
                fail_msg("frame %u on %u threads renders other bytes than on one", frame, ways[k].threads);
            if (st.cull.visible != a->cull.visible || st.cull.changed != a->cull.changed ||
                st.draws.calls != a->draws.calls || st.draws.batches != a->draws.batches ||
                st.memory.uploaded_bytes != a->memory.uploaded_bytes)
                fail_msg("frame %u on %u threads: visible %u, changed %u, calls %u, uploaded %llu; on one: %u, %u, %u, %llu",
                         frame, ways[k].threads, st.cull.visible, st.cull.changed, st.draws.calls,
                         (unsigned long long)st.memory.uploaded_bytes, a->cull.visible, a->cull.changed, a->draws.calls,
                         (unsigned long long)a->memory.uploaded_bytes);
            free(img);
        }
        fix_renderer_done(r, &logged);
        fix_fini(f);
        free(f);
    }
    for (uint32_t frame = 0; frame < FRAMES; frame++) free(first[frame]);
    orr_workers_destroy(kept);
}
