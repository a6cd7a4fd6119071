/* bench frame --threaded: the live loop with the render thread (orr_session_desc.render_thread) against
 * the same loop on the caller's thread, in the same run.
 *
 * N cubes on a grid, PCT percent of them moved each tick by a system that also spends SIM ms of CPU
 * per tick (the simulation's cost; by default the median render time measured in a calibration run
 * first, so that simulation and rendering cost about the same), one 1/60 s tick per frame, the present
 * callback rendering V views of one WxH target. Figures per frame, medians over the measured frames:
 *   wall_ms      wall-clock time per frame of the loop (waits included), unthreaded and threaded;
 *                threaded, it tends to the longer of simulation and rendering, not their sum
 *   sim_ms       the tick's CPU time (the system's spin and its moves), render_ms the present
 *                callback's wall time (orr_renderer_render) */
#include "tool.h"

#include <math.h>
#include <orrery/gpu.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

typedef struct threaded_options {
    uint32_t n, frames, views, width, height;
    double moving, sim_ms;
    bool json, sim_given;
} threaded_options;

/* One loop's state: the session's system and present callback write here. */
typedef struct loop {
    const threaded_options *o;
    orr_renderer *renderer;
    orr_target_id target;
    orr_entity *cubes;
    uint64_t seed;
    double sim_ms;          /* the CPU the system spends per tick */
    double *render_ms;      /* per frame id */
    double *tick_ms;        /* per tick */
    uint32_t frames, ticks; /* recorded */
    bool failed;
    volatile double sink;   /* the spin's result, kept */
} loop;

static void simulate(void *user, orr_world *w, orr_assets *a, uint64_t tick, double step)
{
    (void)a, (void)step;
    loop *l = user;
    double c0 = cpu_now();
    uint32_t moves = (uint32_t)llround(l->o->n * l->o->moving / 100.0);
    for (uint32_t k = 0; k < moves; k++) {
        l->seed ^= l->seed << 13, l->seed ^= l->seed >> 7, l->seed ^= l->seed << 17;
        orr_entity e = l->cubes[l->seed % l->o->n];
        orr_transform t;
        orr_entity_get_local(w, e, &t);
        t.translation.y += (tick % 2) ? 0.25 : -0.25;
        orr_entity_set_translation(w, e, t.translation);
    }
    double x = l->sink; /* the rest of the tick's budget: arithmetic, no memory traffic */
    while (cpu_now() - c0 < l->sim_ms)
        for (int i = 0; i < 1000; i++) x = x * 0.999999 + 1e-7;
    l->sink = x;
    if (l->ticks < l->o->frames * 2 + 64) l->tick_ms[l->ticks++] = cpu_now() - c0;
}

static void present(void *user, const orr_snapshot *s, const orr_assets *a)
{
    (void)a;
    loop *l = user;
    double t0 = wall_now();
    if (orr_renderer_render(l->renderer, &(orr_render_desc){.target = l->target, .snapshot = s}, NULL) != ORR_OK) {
        if (!l->failed) fprintf(stderr, "orrery: %s\n", orr_renderer_last_error(l->renderer)->message);
        l->failed = true;
    }
    if (s->frame < (uint64_t)l->o->frames * 2 + 64) l->render_ms[s->frame] = wall_now() - t0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, uint32_t n)
{
    if (!n) return 0;
    qsort(v, n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct result {
    double wall_ms, sim_ms, render_ms;
} result;

/* One loop of `frames` measured frames (after 5 of warm-up). */
static bool run_loop(const threaded_options *o, bool threaded, double sim_ms, uint32_t frames, result *out)
{
    uint32_t warm = 5, total = frames + warm;
    loop l = {.o = o, .seed = 0x9E3779B97F4A7C15ull, .sim_ms = sim_ms};
    l.cubes = malloc((size_t)o->n * sizeof *l.cubes);
    l.render_ms = calloc((size_t)o->frames * 2 + 64, sizeof *l.render_ms);
    l.tick_ms = calloc((size_t)o->frames * 2 + 64, sizeof *l.tick_ms);
    double *wall = calloc(total, sizeof *wall);
    orr_session *session = NULL;
    bool ok = false;
    orr_error err = {0};
    if (!l.cubes || !l.render_ms || !l.tick_ms || !wall) goto done;
    if (orr_session_create(&(orr_session_desc){.present = present, .present_user = &l, .render_thread = threaded, .threads = 1},
                           &session, &err) != ORR_OK) {
        fprintf(stderr, "orrery: %s\n", err.message);
        goto done;
    }
    if (orr_renderer_create(&(orr_renderer_desc){.threads = 1}, &l.renderer, &err) != ORR_OK) {
        fprintf(stderr, "orrery: %s\n", err.message);
        goto done;
    }
    orr_assets *assets = orr_session_assets(session);
    orr_world *w = orr_session_world(session);
    static const float pos[24] = {-.5f, -.5f, -.5f, .5f, -.5f, -.5f, -.5f, .5f, -.5f, .5f, .5f, -.5f,
                                  -.5f, -.5f, .5f,  .5f, -.5f, .5f,  -.5f, .5f, .5f,  .5f, .5f, .5f};
    static const uint32_t idx[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                     2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    orr_primitive_desc p = {.vertex_count = 8, .positions = pos, .index_count = 36, .indices = idx};
    orr_mesh_id cube;
    if (orr_assets_add_mesh(assets, &(orr_mesh_desc){.primitive_count = 1, .primitives = &p}, &cube) != ORR_OK) goto done;
    uint32_t side = (uint32_t)ceil(cbrt((double)o->n));
    for (uint32_t i = 0; i < o->n; i++) {
        orr_transform t = orr_transform_identity();
        t.translation = (orr_vec3d){(i % side) * 2.0, ((i / side) % side) * 2.0, (i / side / side) * 2.0};
        orr_mesh_renderer mr = orr_mesh_renderer_default();
        mr.mesh = cube;
        if (orr_entity_create(w, &(orr_entity_desc){.local = &t}, &l.cubes[i]) != ORR_OK ||
            orr_component_add(w, l.cubes[i], ORR_COMPONENT_MESH_RENDERER, &mr, NULL) != ORR_OK)
            goto done;
    }
    if (orr_session_add_system(session, &(orr_system_desc){simulate, &l, NULL}) != ORR_OK) goto done;
    if (orr_renderer_bind_library(l.renderer, assets, NULL) != ORR_OK ||
        orr_renderer_create_target(l.renderer, &(orr_target_desc){.width = o->width, .height = o->height, .samples = 1},
                                   &l.target) != ORR_OK)
        goto done;
    double extent = side * 2.0;
    for (uint32_t v = 0; v < o->views; v++) {
        uint32_t x0 = (uint32_t)((uint64_t)o->width * v / o->views), x1 = (uint32_t)((uint64_t)o->width * (v + 1) / o->views);
        orr_vec3d eye = {extent * (0.5 + 0.3 * v), extent * 0.8, extent * 2.0};
        orr_vec3d centre = {extent * 0.5, extent * 0.5, extent * 0.5};
        orr_view_desc vd = {.target = l.target, .slot = v, .viewport = {x0, 0, x1 - x0, o->height}, .yfov = 0.9,
                            .znear = 0.1, .strategy = ORR_STRATEGY_INDIRECT, .cull = ORR_CULL_GPU};
        orr_mat4d_from_trs(eye, orr_quatd_look_rotation(orr_vec3d_sub(centre, eye), (orr_vec3d){0, 1, 0}), ORR_VEC3_ONE,
                           &vd.pose);
        orr_view_id id;
        if (orr_renderer_create_view(l.renderer, &vd, &id) != ORR_OK) goto done;
    }
    for (uint32_t f = 0; f < total; f++) {
        double t0 = wall_now();
        if (orr_session_run_frame(session, 1.0 / 60.0) != ORR_OK) {
            fprintf(stderr, "orrery: %s\n", orr_session_last_error(session)->message);
            goto done;
        }
        wall[f] = wall_now() - t0;
    }
    orr_session_flush(session);
    if (l.failed) goto done;
    out->wall_ms = median(wall + warm, frames);
    out->sim_ms = median(l.tick_ms + warm, l.ticks > warm ? l.ticks - warm : 0);
    out->render_ms = median(l.render_ms + warm + 1, frames); /* frame ids from 1 */
    ok = true;
done:
    if (!ok) fprintf(stderr, "orrery bench frame --threaded: the %s loop failed\n", threaded ? "threaded" : "unthreaded");
    if (session) orr_session_flush(session);
    if (l.renderer) orr_renderer_finish(l.renderer, NULL);
    orr_renderer_destroy(l.renderer);
    orr_session_destroy(session);
    free(l.cubes), free(l.render_ms), free(l.tick_ms), free(wall);
    return ok;
}

static const char threaded_help[] =
    "usage: orrery bench frame --threaded [--n N] [--moving PCT] [--frames F] [--views V] [--size WxH]\n"
    "                          [--sim-ms MS] [--json]\n"
    "  the live loop with the session's render thread against the same loop on the caller's thread:\n"
    "  N cubes (default 10000), PCT percent moved each tick (default 1), F measured frames (default 100)\n"
    "  of V views (default 1) of a WxH target (default 640x360), one 1/60 s tick per frame whose system\n"
    "  also spends MS ms of CPU (default: the median render time of a calibration run, so that simulation\n"
    "  and rendering cost about the same). Reports wall ms per frame of each loop and their ratio.\n";

int orr_tool_bench_frame_threaded(int argc, char **argv)
{
    threaded_options o = {.n = 10000, .frames = 100, .views = 1, .width = 640, .height = 360, .moving = 1.0};
    bool ended = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int kind = tool_arg_kind(a, &ended);
        if (kind == 1) continue;
        if (!strcmp(a, "--threaded")) {
            continue;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(threaded_help, stdout);
            return 0;
        } else if (!strcmp(a, "--n")) {
            if (!tool_opt_u32(argc, argv, &i, 1, 10000000, &o.n)) return 2;
        } else if (!strcmp(a, "--frames")) {
            if (!tool_opt_u32(argc, argv, &i, 1, 100000, &o.frames)) return 2;
        } else if (!strcmp(a, "--views")) {
            if (!tool_opt_u32(argc, argv, &i, 1, TOOL_MAX_VIEWS, &o.views)) return 2;
        } else if (!strcmp(a, "--moving")) {
            if (!tool_opt_number(argc, argv, &i, 0, 100, &o.moving)) return 2;
        } else if (!strcmp(a, "--sim-ms")) {
            if (!tool_opt_number(argc, argv, &i, 0, 1000, &o.sim_ms)) return 2;
            o.sim_given = true;
        } else if (!strcmp(a, "--size")) {
            const char *v = tool_opt_value(argc, argv, &i);
            if (!v) return 2;
            if (!tool_parse_size(v, &o.width, &o.height))
                return tool_usage_error("bench frame", "--size must be WxH with W and H each within 1..%u (got '%s')",
                                        TOOL_MAX_SIZE, v);
        } else if (!strcmp(a, "--json")) {
            o.json = true;
        } else {
            return tool_unknown_option("bench frame --threaded", a);
        }
    }
    if (o.views > o.width) return tool_usage_error("bench frame", "--views %u needs a target that wide", o.views);
    result calib = {0}, plain = {0}, threaded = {0};
    if (!o.sim_given) { /* the render time with no simulation cost */
        if (!run_loop(&o, false, 0.0, o.frames < 30 ? o.frames : 30, &calib)) return 1;
        o.sim_ms = calib.render_ms;
    }
    if (!run_loop(&o, false, o.sim_ms, o.frames, &plain) || !run_loop(&o, true, o.sim_ms, o.frames, &threaded)) return 1;
    double ratio = threaded.wall_ms / plain.wall_ms;
    if (o.json) {
        printf("{\"name\": \"frame_threaded\", \"n\": %u, \"frames\": %u, \"sim_ms\": %.3f, \"render_ms\": %.3f, "
               "\"value\": %.3f, \"baseline_unthreaded_wall_ms\": %.3f, \"ratio\": %.3f, "
               "\"unthreaded_sim_ms\": %.3f, \"unthreaded_render_ms\": %.3f}\n",
               o.n, o.frames, threaded.sim_ms, threaded.render_ms, threaded.wall_ms, plain.wall_ms, ratio, plain.sim_ms,
               plain.render_ms);
    } else {
        printf("bench frame --threaded: %u cubes, %.1f%% moving, %u views of %ux%u, %u frames (medians)\n", o.n, o.moving,
               o.views, o.width, o.height, o.frames);
        printf("  simulation %.2f ms per tick%s\n", o.sim_ms, o.sim_given ? "" : " (set to the calibrated render time)");
        printf("  unthreaded: wall %.2f ms per frame (sim %.2f + render %.2f)\n", plain.wall_ms, plain.sim_ms, plain.render_ms);
        printf("  threaded:   wall %.2f ms per frame (sim %.2f, render %.2f on the render thread)\n", threaded.wall_ms,
               threaded.sim_ms, threaded.render_ms);
        printf("  threaded / unthreaded: %.2f (ideal max(sim, render) / (sim + render) = %.2f)\n", ratio,
               fmax(plain.sim_ms, plain.render_ms) / (plain.sim_ms + plain.render_ms));
    }
    return 0;
}
