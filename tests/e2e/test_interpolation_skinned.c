/* Interpolation between ticks of a real skinned sample: CesiumMan walking in a session that interpolates,
 * ticks at 32 Hz and frames at 128 Hz (both exact in binary: each tick's frames come at lag 1, 0.75, 0.5
 * and 0.25). Skinning is linear in the joint matrices, so a palette blended row by row places every
 * vertex at the same blend of where the two ticks place it: each vertex a frame at lag L of tick T draws
 * (vertex capture) must be B_T + L (B_T-1 - B_T), where B_T is what a renderer shown the same snapshot at
 * lag 0 draws. Then the walk again without capture: the validation layer (synchronization on) silent,
 * and the process's memory flat from frame to frame (lavapipe compiles a shader specialised on the view
 * block's values at every bind when a branch hangs on them alone, and keeps it: vertex.glsl). */
#include "e2e_tests.h"

#include <math.h>
#include <orrery/anim.h>
#include <orrery/frame.h>
#include <orrery/gpu.h>
#include <orrery/scene.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Under AddressSanitizer freed memory waits in its quarantine, so the RSS check is the plain build's
 * (as in test_soak.c). */
#if defined(__SANITIZE_ADDRESS__)
#define SKIN_RSS_MEANINGFUL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SKIN_RSS_MEANINGFUL 0
#endif
#endif
#ifndef SKIN_RSS_MEANINGFUL
#define SKIN_RSS_MEANINGFUL 1
#endif

static uint32_t skin_messages;

static void skin_log(void *user, orr_log_level level, const char *message)
{
    (void)user;
    (void)level;
    if (!strncmp(message, ORR_GPU_VALIDATION_PREFIX, strlen(ORR_GPU_VALIDATION_PREFIX))) {
        skin_messages++;
        fprintf(stderr, "%s\n", message);
    }
}

static uint64_t skin_rss(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%lu %lu", &size, &resident), 2);
    fclose(f);
    return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

typedef struct walk {
    const orr_assets *assets;
    orr_renderer *r, *ref; /* ref: NULL in the memory run */
    orr_target_id target, ref_target;
    bool placed;           /* the views are made (from the first snapshot's skinned instance) */
    uint32_t count;        /* the skinned primitive's vertices */
    float *x, *b;          /* this frame's capture and the reference's (the snapshot's tick T) */
    float *now, *before;   /* the reference's at the latest tick and at the tick before it */
    uint64_t now_tick, before_tick; /* the ticks they are of; UINT64_MAX: none */
    uint32_t compared;     /* frames checked vertex for vertex */
    double worst;          /* largest distance from the expected blend, metres */
    double widest;         /* largest distance of a vertex between two ticks, metres */
    double widest_drawn;   /* largest distance of a drawn vertex from its tick's pose (lag >= 0.5) */
    uint32_t frames;
    uint64_t rss[512];
    char error[512];
} walk;

static const orr_render_instance *skinned(const orr_snapshot *s)
{
    for (uint32_t i = 0; i < s->instance_count; i++)
        if (s->instances[i].joint_count) return &s->instances[i];
    return NULL;
}

/* A view of the man, three of his radii away. */
static orr_target_id walk_target(walk *w, orr_renderer *r, const orr_render_instance *man)
{
    orr_target_id t;
    assert_int_equal(orr_renderer_create_target(r, &(orr_target_desc){.width = 64, .height = 64, .samples = 1}, &t),
                     ORR_OK);
    const orr_mesh *mesh = orr_assets_try_get_mesh(w->assets, man->mesh);
    assert_non_null(mesh);
    const double *m = man->world.m;
    orr_vec3d c = mesh->sphere_center;
    orr_vec3d centre = {m[0] * c.x + m[3] * c.y + m[6] * c.z + m[9], m[1] * c.x + m[4] * c.y + m[7] * c.z + m[10],
                        m[2] * c.x + m[5] * c.y + m[8] * c.z + m[11]};
    double scale = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]), radius = mesh->sphere_radius * scale;
    orr_vec3d eye = {centre.x + 0.5 * radius, centre.y + 0.5 * radius, centre.z + 4.0 * radius};
    orr_view_desc vd = {.target = t, .yfov = 0.9, .znear = radius * 0.01};
    orr_mat4d_look_at_pose(eye, centre, (orr_vec3d){0, 1, 0}, &vd.pose);
    orr_view_id v;
    assert_int_equal(orr_renderer_create_view(r, &vd, &v), ORR_OK);
    return t;
}

static void walk_present(void *user, const orr_snapshot *s, const orr_assets *assets)
{
    (void)assets;
    walk *w = user;
    if (w->error[0]) return;
    const orr_render_instance *man = skinned(s);
    if (!man) {
        snprintf(w->error, sizeof w->error, "frame %llu: no skinned instance", (unsigned long long)s->frame);
        return;
    }
    if (!w->placed) {
        w->target = walk_target(w, w->r, man);
        if (w->ref) { /* and the skinned primitive's vertices, to capture */
            w->ref_target = walk_target(w, w->ref, man);
            const orr_mesh *mesh = orr_assets_try_get_mesh(w->assets, man->mesh);
            w->count = mesh->primitives[0].vertex_count;
            w->x = malloc(sizeof *w->x * w->count * 3);
            w->b = malloc(sizeof *w->b * w->count * 3);
            w->now = malloc(sizeof *w->now * w->count * 3);
            w->before = malloc(sizeof *w->before * w->count * 3);
            assert_true(w->x && w->b && w->now && w->before);
        }
        w->placed = true;
    }
    if (orr_renderer_render(w->r, &(orr_render_desc){.target = w->target, .snapshot = s}, NULL) != ORR_OK) {
        snprintf(w->error, sizeof w->error, "frame %llu: %.400s", (unsigned long long)s->frame,
                 orr_renderer_last_error(w->r)->message);
        return;
    }
    if (w->frames < 512) w->rss[w->frames] = skin_rss();
    w->frames++;
    if (!w->ref) return;
    orr_snapshot now = *s; /* the same snapshot at lag 0: the tick's own poses */
    now.lag = 0.0f;
    if (orr_renderer_render(w->ref, &(orr_render_desc){.target = w->ref_target, .snapshot = &now}, NULL) != ORR_OK ||
        orr_renderer_read_vertices(w->r, man->id, man->mesh, 0, w->x, w->count) != ORR_OK ||
        orr_renderer_read_vertices(w->ref, man->id, man->mesh, 0, w->b, w->count) != ORR_OK) {
        snprintf(w->error, sizeof w->error, "frame %llu: capture failed", (unsigned long long)s->frame);
        return;
    }
    if (w->now_tick != s->tick) { /* the first frame of a tick */
        float *t = w->before;
        w->before = w->now, w->before_tick = w->now_tick;
        w->now = t, w->now_tick = s->tick;
        memcpy(w->now, w->b, sizeof *w->b * w->count * 3);
    }
    /* from the third tick on: the first snapshots hold the man new (drawn as he is, no earlier pose) */
    if (w->before_tick == s->tick - 1 && s->tick >= 3) {
        double lag = s->lag;
        for (uint32_t k = 0; k < w->count; k++) {
            double dist = 0, moved = 0, off = 0;
            for (int c = 0; c < 3; c++) {
                double x = w->x[k * 3 + c], b = w->b[k * 3 + c], a = w->before[k * 3 + c];
                if (!(isfinite(x) && isfinite(a) && isfinite(b))) {
                    snprintf(w->error, sizeof w->error, "frame %llu: vertex %u not drawn", (unsigned long long)s->frame, k);
                    return;
                }
                double want = b + lag * (a - b);
                dist += (x - want) * (x - want);
                moved += (a - b) * (a - b);
                off += (x - b) * (x - b);
            }
            w->worst = fmax(w->worst, sqrt(dist));
            w->widest = fmax(w->widest, sqrt(moved));
            if (lag >= 0.5) w->widest_drawn = fmax(w->widest_drawn, sqrt(off));
        }
        w->compared++;
    }
}

static orr_session *walk_session(walk *w, orr_entity *root)
{
    orr_session *s;
    assert_int_equal(orr_session_create(&(orr_session_desc){.fixed_step = 1.0 / 32.0, .interpolate = true,
                                                            .present = walk_present, .present_user = w},
                                        &s, NULL),
                     ORR_OK);
    orr_assets *assets = orr_session_assets(s);
    w->assets = assets;
    const char *file = orrt_asset("gltf/CesiumMan/CesiumMan.gltf");
    orr_prefab_id prefab;
    orr_error err;
    if (orr_gltf_load(assets, file, NULL, &prefab, &err) != ORR_OK) fail_msg("%s: %s", file, err.message);
    orr_clip_id clip;
    assert_int_equal(orr_prefab_clips(assets, prefab, &clip, 1), 1);
    orr_world *world = orr_session_world(s);
    assert_int_equal(orr_prefab_instantiate(world, assets, prefab, ORR_ENTITY_NONE, NULL, root), ORR_OK);
    orr_animation_player *player = orr_animation_player_edit(world, *root);
    assert_non_null(player);
    player->clip = clip;
    return s;
}

static orr_renderer *walk_renderer(orr_assets *assets, bool capture)
{
    orr_renderer_desc rd = {.validation = true, .validate_synchronization = true, .vertex_capture = capture,
                            .interpolate = true, .logger = {skin_log, NULL}};
    orr_renderer *r;
    orr_error err;
    if (orr_renderer_create(&rd, &r, &err) != ORR_OK) fail_msg("renderer: %s", err.message);
    assert_int_equal(orr_renderer_bind_library(r, assets, NULL), ORR_OK);
    return r;
}

void test_interpolation_skinned_sample(void **state)
{
    (void)state;
    skin_messages = 0;
    /* the vertex run: 10 ticks */
    walk *w = calloc(1, sizeof *w);
    assert_non_null(w);
    w->now_tick = w->before_tick = UINT64_MAX;
    orr_entity root;
    orr_session *s = walk_session(w, &root);
    orr_assets *assets = orr_session_assets(s);
    w->r = walk_renderer(assets, true);
    w->ref = walk_renderer(assets, true);
    for (uint32_t f = 0; f < 40; f++) assert_int_equal(orr_session_run_frame(s, 1.0 / 128.0), ORR_OK);
    if (w->error[0]) fail_msg("%s", w->error);
    print_message("CesiumMan, 32 Hz ticks, 128 Hz frames: %u frames between ticks compared over %u vertices, each "
                  "within %.2e m of the blend of its two ticks' places; the vertices move up to %.4f m a tick, and "
                  "frames at lag >= 0.5 draw them up to %.4f m from the tick's pose\n",
                  w->compared, w->count, w->worst, w->widest, w->widest_drawn);
    assert_true(w->compared >= 28);
    assert_true(w->worst < 1e-4);
    assert_true(w->widest > 5e-3);                    /* he walks: the test could fail */
    assert_true(w->widest_drawn > 0.4 * w->widest);   /* the frames between ticks are not the tick's pose */
    assert_int_equal(orr_renderer_finish(w->r, NULL), ORR_OK);
    assert_int_equal(orr_renderer_finish(w->ref, NULL), ORR_OK);
    orr_renderer_destroy(w->r);
    orr_renderer_destroy(w->ref);
    orr_session_destroy(s);
    free(w->x), free(w->b), free(w->now), free(w->before);
    free(w);

    /* the memory run: 480 frames (120 ticks) without capture, every frame at another lag */
    w = calloc(1, sizeof *w);
    assert_non_null(w);
    s = walk_session(w, &root);
    w->r = walk_renderer(orr_session_assets(s), false);
    for (uint32_t f = 0; f < 480; f++) assert_int_equal(orr_session_run_frame(s, 1.0 / 128.0), ORR_OK);
    if (w->error[0]) fail_msg("%s", w->error);
    assert_int_equal(orr_renderer_finish(w->r, NULL), ORR_OK);
    uint64_t early = 0, late = 0;
    for (uint32_t f = 80; f < 280; f++) early = w->rss[f] > early ? w->rss[f] : early;
    for (uint32_t f = 280; f < 480; f++) late = w->rss[f] > late ? w->rss[f] : late;
    print_message("CesiumMan interpolated, 480 frames: peak RSS %.1f MB (frames 80-279) then %.1f MB (280-479)\n",
                  early / 1e6, late / 1e6);
    orr_renderer_destroy(w->r);
    orr_session_destroy(s);
    free(w);
    assert_int_equal(skin_messages, 0);
    if (SKIN_RSS_MEANINGFUL) assert_true(late <= early + (2u << 20)); /* malloc's own noise: 2 MiB */
}
