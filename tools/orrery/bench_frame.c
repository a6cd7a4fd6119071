/* bench frame: the live loop at scale, as a host drives it through the public API.
 *
 * N renderables (copies of FILE's scene, or a built-in cube), optionally in fur (--fur: every one's
 * materials shade fur, drawn on the shell path with --shells shells each), each frame PCT percent of them moved to a
 * new place (a fresh random set each frame; at 100 all of them, in the host's order), then: propagation, extraction (incremental), the renderer
 * (V views of one WxH target). Figures per frame, medians over the measured frames (the first ones, which
 * take the scene whole, are warm-up):
 *   cpu_ms     the calling thread's CPU time for the whole frame (moves, propagation, extraction, the
 *              renderer's planning, uploads, recording and submission), waits for the GPU excluded
 *   gpu_ms     Vulkan timestamps around the frame's GPU work (read once the frame completed)
 *   baseline_gpu_ms  the same frame's visible instances drawn again by the leanest pipeline that can
 *              draw them (orr_renderer_desc.baseline_gpu), timed apart: the device's floor, so that
 *              gpu_ms / baseline_gpu_ms says how far the frame's shading is from it
 *   shadow_gpu_ms, views_gpu_ms  of gpu_ms, the shadow views' (--shadows; -1 without) and the views'
 *              after them (timestamps around each)
 *   wall_ms    wall-clock time per frame in the loop, waits included
 * baseline_changed, measured in the same run over the same changed instances in the same order: a flat
 * array loop that writes the new local translation, recomputes the binary64 world matrix, writes a
 * 96-byte snapshot record and copies an 80-byte record into a mapped buffer: the memory traffic a frame
 * cannot avoid. */
#include "tool.h"

#include <math.h>
#include <orrery/gpu.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static double thread_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static uint64_t rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%lu %lu", &size, &resident) != 2) resident = 0;
        fclose(f);
    }
    return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Counts what an allocator holds: the library's own memory, apart from the driver's and the bench's. */
typedef struct counted {
    size_t bytes;
} counted;

static void *count_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    counted *c = user;
    orr_allocator a = orr_allocator_default(); /* what the library does without one: large blocks on huge pages */
    if (new_size == 0) {
        a.realloc(a.user, ptr, old_size, 0);
        c->bytes -= old_size;
        return NULL;
    }
    void *p = a.realloc(a.user, ptr, old_size, new_size);
    if (p) c->bytes += new_size - (ptr ? old_size : 0);
    return p;
}

/* xorshift64*: the same sequence on every run. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile of n values (sorted in place). */
static double quantile(double *v, uint32_t n, double q)
{
    if (!n) return 0;
    qsort(v, n, sizeof *v, cmp_double);
    uint32_t k = (uint32_t)floor(q * (n - 1) + 0.5);
    return v[k];
}

/* A box of size `size` (metres), centred on the origin, or standing on it (base: its lowest face at y 0). */
static orr_result add_box(orr_assets *assets, const char *name, orr_vec3d size, bool base, bool meshlets,
                          orr_mesh_id *out)
{
    float pos[24 * 3], nrm[24 * 3], uv[24 * 2];
    const double dims[3] = {size.x, size.y, size.z};
    uint32_t idx[36];
    for (int f = 0; f < 6; f++) { /* face f: axis f / 2, sign by f % 2 */
        int axis = f / 2, u = (axis + 1) % 3, v = (axis + 2) % 3;
        float sign = f % 2 ? -1.0f : 1.0f;
        for (int c = 0; c < 4; c++) {
            float *p = pos + (f * 4 + c) * 3, *n = nrm + (f * 4 + c) * 3;
            p[axis] = (float)(0.5 * sign * dims[axis]);
            p[u] = (float)(((c == 1 || c == 2) ? 0.5 : -0.5) * dims[u]);
            p[v] = (float)(((c >= 2) ? 0.5 : -0.5) * dims[v]);
            if (base) p[1] += (float)(0.5 * dims[1]);
            n[0] = n[1] = n[2] = 0.0f;
            n[axis] = sign;
            uv[(f * 4 + c) * 2 + 0] = (c == 1 || c == 2) ? 1.0f : 0.0f; /* each face the unit square (fur noise) */
            uv[(f * 4 + c) * 2 + 1] = (c >= 2) ? 1.0f : 0.0f;
        }
        /* counter-clockwise seen from outside */
        static const int front[6] = {0, 1, 2, 0, 2, 3}, back[6] = {0, 2, 1, 0, 3, 2};
        for (int k = 0; k < 6; k++) idx[f * 6 + k] = (uint32_t)(f * 4 + (sign > 0 ? front[k] : back[k]));
    }
    orr_primitive_desc p = {.vertex_count = 24, .positions = pos, .normals = nrm, .texcoords0 = uv, .index_count = 36,
                            .indices = idx};
    return orr_assets_add_mesh(
        assets, &(orr_mesh_desc){.name = name, .primitive_count = 1, .primitives = &p, .build_meshlets = meshlets}, out);
}

static orr_result add_cube(orr_assets *assets, bool meshlets, orr_mesh_id *out)
{
    return add_box(assets, "cube", ORR_VEC3_ONE, false, meshlets, out);
}

/* --scene city: the buildings, one mesh each, a footprint within a plot of CITY_PLOT metres (the rest
 * of it the streets), picked per plot by a hash of its place. */
#define CITY_PLOT 24.0
#define CITY_KINDS 4u
static const struct {
    const char *name;
    orr_vec3d size;
} city_kinds[CITY_KINDS] = {
    {"house", {10, 7, 12}}, {"block", {16, 18, 16}}, {"slab", {18, 30, 9}}, {"tower", {12, 60, 12}},
};

static uint32_t city_kind(uint32_t i)
{
    uint32_t h = i * 2654435761u;
    h ^= h >> 15;
    return (h >> 8) % CITY_KINDS;
}

/* A UV sphere of radius 0.5: `rings` x 2 `rings` quads, 4 rings^2 triangles (the poles' degenerate
 * ones included), counter-clockwise outside, with meshlets. */
static orr_result add_sphere(orr_assets *assets, uint32_t rings, uint32_t lods, orr_mesh_id *out)
{
    uint32_t segments = 2 * rings, nv = (rings + 1) * (segments + 1);
    uint64_t nt = 2ull * rings * segments;
    float *pos = malloc(sizeof(float) * 3 * nv), *nrm = malloc(sizeof(float) * 3 * nv);
    uint32_t *idx = malloc(sizeof(uint32_t) * 3 * nt);
    orr_result rc = ORR_ERROR_OUT_OF_MEMORY;
    if (pos && nrm && idx) {
        for (uint32_t r = 0; r <= rings; r++)
            for (uint32_t k = 0; k <= segments; k++) {
                double th = ORR_PI * r / rings, ph = 2 * ORR_PI * k / segments;
                uint32_t v = r * (segments + 1) + k;
                nrm[v * 3 + 0] = (float)(sin(th) * cos(ph));
                nrm[v * 3 + 1] = (float)cos(th);
                nrm[v * 3 + 2] = (float)(-sin(th) * sin(ph));
                for (int c = 0; c < 3; c++) pos[v * 3 + c] = 0.5f * nrm[v * 3 + c];
            }
        uint64_t t = 0;
        for (uint32_t r = 0; r < rings; r++)
            for (uint32_t k = 0; k < segments; k++) {
                uint32_t a = r * (segments + 1) + k, b = a + segments + 1;
                uint32_t q[6] = {a, b, a + 1, a + 1, b, b + 1};
                memcpy(idx + t * 3, q, sizeof q);
                t += 2;
            }
        orr_primitive_desc p = {.vertex_count = nv, .positions = pos, .normals = nrm, .index_count = (uint32_t)(3 * nt),
                                .indices = idx};
        rc = orr_assets_add_mesh(assets, &(orr_mesh_desc){.name = "sphere", .primitive_count = 1, .primitives = &p,
                                                          .build_meshlets = true, .lod_levels = lods},
                                 out);
    }
    free(pos);
    free(nrm);
    free(idx);
    return rc;
}

typedef struct bench_options {
    const char *file;
    uint32_t n, views, frames, width, height;
    uint32_t shells; /* the views' shell count (0 = the fur's own) */
    double fur;      /* metres of fur on every renderable; 0 = none */
    double moving; /* percent */
    double churn;  /* percent of renderables destroyed and created again each frame */
    orr_strategy strategy;
    orr_cull cull;
    int camera; /* 0 outside, 1 inside, 2 away */
    bool city;      /* --scene city: buildings on a square grid of plots, the cameras in its streets */
    bool occlusion; /* --occlusion: the views cull by occlusion too (orr_view_desc.occlusion) */
    bool json;
    uint32_t sphere_rings; /* --mesh sphere:N (0 = the cube) */
    bool meshlets;         /* build meshlets (--meshlets, or the meshlet strategy) */
    uint32_t lods;         /* --lods [N]: levels of detail beyond the full one (0: none) */
    double lod_pixels;     /* --lod-pixels PX (default 1 with --lods) */
    bool n_given;
    orr_visibility_range range; /* --range NEAR,FAR[,MARGIN]: every renderable's (the mesh's; not FILE's) */
    const char *scene;     /* --scene spheres: 1,000 spheres of 10,000 triangles (unless --n, --mesh) */
    bool meshlet_fallback;
    const char *record; /* --record PATH: every frame recorded there too */
    const char *png;    /* --png PATH: the last frame's image written there */
    uint32_t threads;   /* --threads T (0: not given: the calling thread's CPU time, the world's default threads) */
    bool no_baseline;   /* --no-baseline-gpu: the floor is not drawn */
    bool settle;        /* --settle: each frame starts with the GPU idle (untimed) */
    bool shadows;       /* --shadows: the default key light casts 4 cascades in every view */
    uint32_t pick_every; /* --pick K: a pick of view 0's centre pixel every K measured frames (0: none) */
    uint32_t tick_every; /* --tick-every K: a simulation tick (and the moves) every K frames (1: every frame) */
    bool interpolate;    /* --interpolate: the session and renderer interpolate between ticks (orr_session_desc and
                            orr_renderer_desc .interpolate) */
} bench_options;

/* The largest sphere --mesh takes: 4 x 2048^2 = 16.8M triangles, 8.4M vertices (840 MB of pool). */
#define SPHERE_MAX_RINGS 2048u

/* The host's own record of a thing it moves: where it is and its entity, side by side (read at random
 * in the moves: one line, as a game keeps its objects). */
typedef struct hosted {
    orr_vec3d translation;
    orr_entity entity;
} hosted;

static const char frame_help[] =
    "usage: orrery bench frame [FILE] [--n N] [--moving PCT] [--churn PCT] [--views V] [--frames F]\n"
    "                          [--strategy direct|batched|indirect|shell|meshlet] [--cull cpu|gpu]\n"
    "                          [--size WxH] [--camera outside|inside|away] [--fur LENGTH] [--shells S]\n"
    "                          [--mesh cube|sphere:R] [--meshlets] [--lods [N]] [--lod-pixels PX]\n"
    "                          [--range NEAR,FAR[,MARGIN]] [--meshlet-fallback] [--record PATH]\n"
    "                          [--threads T] [--no-baseline-gpu] [--settle] [--shadows] [--pick K]\n"
    "                          [--tick-every K] [--interpolate] [--scene cubes|city|spheres] [--occlusion]\n"
    "                          [--png PATH] [--json]\n"
    "       orrery bench frame --threaded [...]: the render thread against the caller's (--threaded --help)\n"
    "  the live loop: N renderables (copies of FILE's scene, or a mesh; default 100000), PCT percent of\n"
    "  them moved each frame (default 1; a fresh random set, all of them at 100), V views (default 2)\n"
    "  of one WxH target (default 1920x1080), F measured frames (default 100); cull defaults to gpu for\n"
    "  indirect and meshlet, cpu otherwise.\n"
    "  --camera inside puts the cameras in the middle of the scene, half of it behind them; away turns\n"
    "  them from it (nothing in view: the CPU side measured without drawing, as on a CPU driver). --fur LENGTH\n"
    "  (metres, 0 < LENGTH <= 1e6) dresses every renderable in fur (16 shells, or --shells S, 1..256, for\n"
    "  every fur surface), drawn on the shell path whatever the strategy; shell draws plain surfaces a\n"
    "  record at a time. --mesh: the renderable without FILE, a unit cube (default) or a sphere of R rings\n"
    "  (1..2048, 4 R^2 triangles, always with meshlets). --lods [N]: N levels of detail (1..7, default 4)\n"
    "  for FILE's meshes or the sphere, each about a quarter of the last's triangles, each instance drawn\n"
    "  at the coarsest whose error is within --lod-pixels PX on screen (default 1); the frame line then\n"
    "  gives the draws and triangles per level and the cut against full detail. --scene spheres: 1,000\n"
    "  spheres of 10,000 triangles (--mesh sphere:50, --n 1000 unless given). --range NEAR,FAR[,MARGIN]: every\n"
    "  renderable (without FILE) gets that visibility range; the frame line counts those out of range.\n"
    "  --meshlets builds meshlets for FILE or the cube\n"
    "  (the meshlet strategy implies it); --meshlet-fallback: the meshlet strategy's compute fallback even\n"
    "  with mesh shaders. Triangles: submitted (what the strategy sends: every triangle of the visible\n"
    "  renderables, or the meshlet strategy's sent meshlets) and rasterised (after the meshlet culling),\n"
    "  per frame and per second of GPU time; known for the meshlet strategy, and for the others without\n"
    "  FILE. --record PATH records every frame (orrery record's format) and reports what it costs, two\n"
    "  figures apart, each as a share of the frame's CPU (cpu above, recording included): the frame\n"
    "  thread's (what the frame pays: orr_frame_record's CPU, median of the delta frames; the first\n"
    "  frame's whole copy apart) and the recorder thread's (on another core: comparing, encoding,\n"
    "  writing; per delta frame, per key frame, and per frame with a key frame every 300, its steady\n"
    "  state; the run's own average beside it); and bytes per changed instance.\n"
    "  --churn PCT (0..100, default 0): each frame also PCT percent of the renderables (a fresh random\n"
    "  set) destroyed and made again in their places, new entities (structural changes: the snapshot and\n"
    "  the draw scenes rebuilt); the host's calls count in the move phase.\n"
    "  --threads T (1..256): the session's and the renderer's per-frame passes on T threads (orr_workers of T), the baseline\n"
    "  the same flat loop shared out on T threads in fixed chunks, and every CPU figure wall-clock time\n"
    "  (waits for the GPU excluded) instead of the calling thread's CPU time, at 1 thread too, so that\n"
    "  runs at several T compare like with like.\n"
    "  baseline_gpu: each frame the same visible instances are drawn again by the leanest pipeline\n"
    "  (position plus the instance's translation, a constant colour, one indirect draw per view) into\n"
    "  scratch images, timed apart: gpu / baseline_gpu says how far the frame is from the device's\n"
    "  floor. --no-baseline-gpu leaves it out (its GPU time then does not lengthen wall_ms).\n"
    "  --settle: each frame (and its baseline) starts once the GPU has finished every frame before\n"
    "  (orr_renderer_finish, untimed), so that the CPU figures are the frame's alone: on a CPU driver\n"
    "  (lavapipe) the rendering of the frames in flight otherwise takes the cores the phases run on.\n"
    "  --shadows: the scene's directional light (the default key light: the scene has no lights) casts\n"
    "  shadows in every view, 4 cascades of 2048x2048 up to 100 m, every renderable a caster: per view\n"
    "  4 shadow views, each culled on the GPU and drawn depth-only (the library's defaults).\n"
    "  --pick K (1..1000): every K measured frames, a pick of view 0's centre pixel asked before the frame\n"
    "  (orr_renderer_pick; one at a time), its answer polled after each later frame without waiting:\n"
    "  the latency in frames (0: ready after the frame that drew it) and in ms (asked to answered), and\n"
    "  the median CPU and GPU ms of the frames that picked beside the others'.\n"
    "  --scene city: N buildings (four meshes: house, block, slab, tower) on a square grid of 24 m plots,\n"
    "  the cameras at street level (1.7 m) in the middle of the city, looking down its streets: most of it\n"
    "  behind the first rows. --occlusion: the views also cull by occlusion (two phases against a depth\n"
    "  pyramid of what was visible the frame before; --cull gpu). The frame line counts the surfaces\n"
    "  culled by frustum and by occlusion (GPU-culled views: as of their latest completed frame).\n"
    "  --png PATH: the last frame's image (every view; that frame alone read back) written as a PNG: the\n"
    "  moves are the same on every run, so two runs that differ only in --occlusion write the same bytes.\n"
    "  --tick-every K (1..64): frames at 256 Hz, a simulation tick every K of them (the session's fixed step\n"
    "  K/256 s), the moves and churn only in the frames that tick; the frames between ticks (nothing moved)\n"
    "  and the ticking ones are reported apart (cpu and gpu medians). --interpolate: the session and the\n"
    "  renderer interpolate (orr_snapshot.lag), so that frames between ticks draw the instances moved at the last tick between\n"
    "  their poses on the GPU: pair a run with one without it for the cost of interpolation.\n";

static int parse(int argc, char **argv, bench_options *o)
{
    *o = (bench_options){.n = 100000, .views = 2, .frames = 100, .width = 1920, .height = 1080, .moving = 1.0,
                         .tick_every = 1,
                         .strategy = ORR_STRATEGY_INDIRECT};
    bool cull_given = false, ended = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int kind = tool_arg_kind(a, &ended);
        if (kind == 1) continue;
        if (kind == 2) {
            if (o->file) {
                fprintf(stderr, "orrery bench frame: unexpected argument '%s' (one FILE: '%s')\n", a, o->file);
                return 2;
            }
            o->file = a;
            continue;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(frame_help, stdout);
            return 0;
        } else if (!strcmp(a, "--n")) {
            if (!tool_opt_u32(argc, argv, &i, 1, TOOL_MAX_INSTANCES * 16, &o->n)) return 2;
            o->n_given = true;
        } else if (!strcmp(a, "--scene")) {
            const char *v = tool_opt_value(argc, argv, &i);
            if (!v) return 2;
            if (!strcmp(v, "cubes") || !strcmp(v, "city") || !strcmp(v, "spheres")) {
                o->city = !strcmp(v, "city");
                o->scene = !strcmp(v, "spheres") ? v : NULL;
            } else {
                fprintf(stderr, "orrery bench frame: --scene must be cubes, city or spheres (got '%s')\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--range")) {
            const char *v = tool_opt_value(argc, argv, &i);
            if (!v) return 2;
            double nf[3] = {0, 0, 0};
            int got = sscanf(v, "%lf,%lf,%lf", &nf[0], &nf[1], &nf[2]);
            if (got < 2 || !(nf[0] >= 0) || !(nf[1] >= 0) || !(nf[2] >= 0) || (nf[1] > 0 && nf[1] < nf[0]) || nf[1] > 1e9 ||
                nf[2] > 1e9) {
                fprintf(stderr, "orrery bench frame: --range must be NEAR,FAR[,MARGIN] in metres, 0 <= NEAR <= FAR (FAR 0: "
                                "none), MARGIN >= 0 (got '%s')\n", v);
                return 2;
            }
            o->range = (orr_visibility_range){(float)nf[0], (float)nf[1], (float)nf[2]};
        } else if (!strcmp(a, "--lod-pixels")) {
            if (!tool_opt_number(argc, argv, &i, 0, TOOL_MAX_LOD_PIXELS, &o->lod_pixels)) return 2;
        } else if (!strcmp(a, "--views")) {
            if (!tool_opt_u32(argc, argv, &i, 1, TOOL_MAX_VIEWS, &o->views)) return 2;
        } else if (!strcmp(a, "--threads")) {
            if (!tool_opt_u32(argc, argv, &i, 1, 256, &o->threads)) return 2;
        } else if (!strcmp(a, "--frames")) {
            if (!tool_opt_u32(argc, argv, &i, 1, 100000, &o->frames)) return 2;
        } else if (!strcmp(a, "--moving")) {
            if (!tool_opt_number(argc, argv, &i, 0, 100, &o->moving)) return 2;
        } else if (!strcmp(a, "--churn")) {
            if (!tool_opt_number(argc, argv, &i, 0, 100, &o->churn)) return 2;
        } else if (!strcmp(a, "--shells")) {
            if (!tool_opt_u32(argc, argv, &i, 1, ORR_FUR_MAX_SHELLS, &o->shells)) return 2;
        } else if (!strcmp(a, "--fur")) {
            if (!tool_opt_number(argc, argv, &i, 0, TOOL_MAX_FUR, &o->fur)) return 2;
            if (!(o->fur > 0)) {
                fprintf(stderr, "orrery bench frame: --fur must be above 0 metres\n");
                return 2;
            }
        } else if (!strcmp(a, "--size")) {
            const char *v = tool_opt_value(argc, argv, &i);
            if (!v) return 2;
            if (!tool_parse_size(v, &o->width, &o->height)) {
                fprintf(stderr, "orrery bench frame: --size must be WxH with W and H each within 1..%u (got '%s')\n",
                        TOOL_MAX_SIZE, v);
                return 2;
            }
        } else if (!strcmp(a, "--mesh")) {
            const char *v = tool_opt_value(argc, argv, &i);
            if (!v) return 2;
            uint64_t rings = 0;
            if (!strcmp(v, "cube")) {
                o->sphere_rings = 0;
            } else if (!strncmp(v, "sphere:", 7) && tool_parse_uint(v + 7, 1, SPHERE_MAX_RINGS, &rings)) {
                o->sphere_rings = (uint32_t)rings;
            } else {
                fprintf(stderr, "orrery bench frame: --mesh must be cube or sphere:R with R rings within 1..%u (got '%s')\n",
                        SPHERE_MAX_RINGS, v);
                return 2;
            }
        } else if (!strcmp(a, "--meshlets")) {
            o->meshlets = true;
        } else if (!strcmp(a, "--lods")) {
            o->lods = TOOL_LODS;
            if (i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9' &&
                !tool_opt_u32(argc, argv, &i, 1, ORR_MESH_MAX_LODS - 1, &o->lods))
                return 2;
        } else if (!strcmp(a, "--meshlet-fallback")) {
            o->meshlet_fallback = true;
        } else if (!strcmp(a, "--no-baseline-gpu")) {
            o->no_baseline = true;
        } else if (!strcmp(a, "--settle")) {
            o->settle = true;
        } else if (!strcmp(a, "--strategy")) {
            if (!tool_opt_strategy("bench frame", argc, argv, &i, &o->strategy)) return 2;
        } else if (!strcmp(a, "--cull")) {
            if (!tool_opt_cull("bench frame", argc, argv, &i, &o->cull)) return 2;
            cull_given = o->cull != ORR_CULL_AUTO; /* auto: the strategy's own choice below */
        } else if (!strcmp(a, "--camera")) {
            const char *v = tool_opt_value(argc, argv, &i);
            if (!v) return 2;
            if (!strcmp(v, "outside") || !strcmp(v, "inside") || !strcmp(v, "away")) {
                o->camera = !strcmp(v, "inside") ? 1 : !strcmp(v, "away") ? 2 : 0;
            } else {
                fprintf(stderr, "orrery bench frame: --camera must be outside, inside or away (got '%s')\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--occlusion")) {
            o->occlusion = true;
        } else if (!strcmp(a, "--shadows")) {
            o->shadows = true;
        } else if (!strcmp(a, "--pick")) {
            if (!tool_opt_u32(argc, argv, &i, 1, 1000, &o->pick_every)) return 2;
        } else if (!strcmp(a, "--tick-every")) {
            if (!tool_opt_u32(argc, argv, &i, 1, 64, &o->tick_every)) return 2;
        } else if (!strcmp(a, "--interpolate")) {
            o->interpolate = true;
        } else if (!strcmp(a, "--json")) {
            o->json = true;
        } else if (!strcmp(a, "--record")) {
            if (!(o->record = tool_opt_value(argc, argv, &i))) return 2;
        } else if (!strcmp(a, "--png")) {
            if (!(o->png = tool_opt_value(argc, argv, &i))) return 2;
        } else if (a[0] != '-' && !o->file) {
            o->file = a;
        } else {
            return tool_unknown_option("bench frame", a);
        }
    }
    bool gpu_cullable = o->strategy == ORR_STRATEGY_INDIRECT || o->strategy == ORR_STRATEGY_MESHLET;
    if (!cull_given) o->cull = gpu_cullable ? ORR_CULL_GPU : ORR_CULL_CPU;
    if (o->cull == ORR_CULL_GPU && !gpu_cullable) {
        fprintf(stderr, "orrery bench frame: --cull gpu needs --strategy indirect or meshlet\n");
        return 2;
    }
    if (o->occlusion && o->cull != ORR_CULL_GPU) {
        fprintf(stderr, "orrery bench frame: --occlusion needs the GPU cull (--strategy indirect, --cull gpu)\n");
        return 2;
    }
    if (o->city && (o->file || o->sphere_rings)) {
        fprintf(stderr, "orrery bench frame: --scene city is its own buildings: no FILE and no --mesh\n");
        return 2;
    }
    if (o->file && o->sphere_rings) {
        fprintf(stderr, "orrery bench frame: --mesh is the renderable without FILE; FILE's scene is copied instead\n");
        return 2;
    }
    if (o->strategy == ORR_STRATEGY_MESHLET) o->meshlets = true;
    if (o->scene && !strcmp(o->scene, "spheres")) { /* seen from outside the grid: the default camera */
        if (o->file) {
            fprintf(stderr, "orrery bench frame: --scene spheres draws its own spheres, not FILE\n");
            return 2;
        }
        if (!o->sphere_rings) o->sphere_rings = 50; /* 4 x 50^2 = 10,000 triangles */
        if (!o->n_given) o->n = 1000;
    }
    if (!(o->lod_pixels > 0) && o->lods) o->lod_pixels = 1.0;
    if (o->views > o->width) {
        fprintf(stderr, "orrery bench frame: --views %u needs a target at least %u pixels wide\n", o->views, o->views);
        return 2;
    }
    return -1;
}

/* What a renderable is made of: a copy of FILE's prefab, or the mesh. */
typedef struct maker {
    orr_prefab_id prefab;
    orr_mesh_id cube;
    orr_mesh_id city[CITY_KINDS]; /* --scene city */
} maker;

/* Renderable i, a root at `t`. */
static bool make_renderable(orr_world *w, const orr_assets *assets, const bench_options *o, const maker *mk,
                            uint32_t i, const orr_transform *t, orr_entity *e)
{
    if (o->file) {
        if (orr_prefab_instantiate(w, assets, mk->prefab, ORR_ENTITY_NONE, t, e) != ORR_OK) {
            fprintf(stderr, "%s: instantiate: %s\n", o->file, orr_world_last_error(w)->message);
            return false;
        }
        return true;
    }
    orr_mesh_renderer mr = orr_mesh_renderer_default();
    mr.mesh = o->city ? mk->city[city_kind(i)] : mk->cube;
    mr.range = o->range;
    if (orr_entity_create(w, &(orr_entity_desc){.local = t}, e) != ORR_OK ||
        orr_component_add(w, *e, ORR_COMPONENT_MESH_RENDERER, &mr, NULL) != ORR_OK) {
        fprintf(stderr, "orrery: %s\n", orr_world_last_error(w)->message);
        return false;
    }
    return true;
}

/* The renderables: N copies of the prefab (or cubes) as roots on a cubic grid; *extent is the grid's. */
static bool build(orr_session *session, const bench_options *o, orr_entity *movers, double *extent, double *spacing,
                  uint64_t *triangles, maker *mk)
{
    orr_world *w = orr_session_world(session);
    orr_assets *assets = orr_session_assets(session);
    orr_error err = {0};
    orr_prefab_id prefab = {0, 0};
    orr_mesh_id cube = {0, 0};
    *spacing = 2.0;
    if (o->file) {
        orr_gltf_options load = {.build_meshlets = o->meshlets, .lod_levels = o->lods};
        if (orr_gltf_load(assets, o->file, &load, &prefab, &err) != ORR_OK) {
            fprintf(stderr, "%s: %s\n", o->file, err.message);
            return false;
        }
        orr_gltf_info info;
        if (orr_gltf_info_file(o->file, NULL, NULL, &info, &err) == ORR_OK && !orr_aabbd_is_empty(info.bounds)) {
            orr_vec3d e = orr_vec3d_sub(info.bounds.max, info.bounds.min);
            *spacing = fmax(fmax(e.x, e.y), e.z) * 1.5;
        }
        uint64_t per_copy = orr_world_entity_count(orr_prefab_world(assets, prefab));
        if ((uint64_t)o->n * per_copy > TOOL_MAX_ENTITIES) {
            fprintf(stderr, "%s: --n %u: %u copies of %llu entities exceed the limit of %u entities\n", o->file, o->n,
                    o->n, (unsigned long long)per_copy, TOOL_MAX_ENTITIES);
            return false;
        }
        orr_world_reserve(w, (uint32_t)((uint64_t)o->n * per_copy));
    } else if (o->city) {
        for (uint32_t k = 0; k < CITY_KINDS; k++) {
            orr_result rc = add_box(assets, city_kinds[k].name, city_kinds[k].size, true, o->meshlets, &mk->city[k]);
            if (rc != ORR_OK) {
                fprintf(stderr, "orrery bench frame: the buildings: %s\n", orr_result_name(rc));
                return false;
            }
        }
        cube = mk->city[0];
        *triangles = 12; /* every building is a box */
        *spacing = CITY_PLOT;
        orr_world_reserve(w, o->n);
        orr_component_reserve(w, ORR_COMPONENT_MESH_RENDERER, o->n);
    } else {
        orr_result rc = o->sphere_rings ? add_sphere(assets, o->sphere_rings, o->lods, &cube)
                                        : add_cube(assets, o->meshlets, &cube);
        if (rc != ORR_OK) {
            fprintf(stderr, "orrery bench frame: the mesh: %s\n", orr_result_name(rc));
            return false;
        }
        *triangles = orr_assets_try_get_mesh(assets, cube)->primitives[0].index_count / 3;
        orr_world_reserve(w, o->n);
        orr_component_reserve(w, ORR_COMPONENT_MESH_RENDERER, o->n);
    }
    mk->prefab = prefab;
    mk->cube = cube;
    uint32_t side = (uint32_t)ceil(cbrt((double)o->n));
    *extent = o->city ? ceil(sqrt((double)o->n)) * CITY_PLOT : side * *spacing;
    bool progress = isatty(2) && o->n >= 100000;
    for (uint32_t i = 0; i < o->n; i++) {
        orr_transform t = orr_transform_identity();
        t.translation = (orr_vec3d){(i % side) * *spacing, ((i / side) % side) * *spacing, (i / side / side) * *spacing};
        orr_entity e;
        if (o->city) { /* a square grid of plots on the ground, each building in the middle of its plot */
            uint32_t row = (uint32_t)ceil(sqrt((double)o->n));
            t.translation = (orr_vec3d){(i % row + 0.5) * CITY_PLOT, 0.0, (i / row + 0.5) * CITY_PLOT};
        }
        if (!make_renderable(w, assets, o, mk, i, &t, &e)) return false;
        movers[i] = e;
        if (progress && i % 65536 == 0) fprintf(stderr, "\rbench frame: building %u of %u", i, o->n);
    }
    if (progress) fprintf(stderr, "\r%60s\r", "");
    return o->fur <= 0 || tool_dress_in_fur(w, assets, o->fur, 0.0) == 0;
}

/* View k of V: side by side; outside, the cameras look at the whole grid from beyond one corner;
 * inside, they stand at its centre looking along +x (half of the scene behind them); away, they stand
 * where outside puts them, looking the other way. */
static void view_pose(const bench_options *o, uint32_t k, double extent, orr_mat4d *pose)
{
    orr_vec3d centre = {extent * 0.5, extent * 0.5, extent * 0.5}, eye, target;
    double turn = (k - (o->views - 1) * 0.5) * 0.15;
    if (o->city) {
        /* At eye height in the street between the middle two columns of plots, looking down it (each
         * view turned a little): the facades of the first rows hide most of the city. */
        double row = ceil(extent / CITY_PLOT), street = floor(row * 0.5) * CITY_PLOT;
        eye = (orr_vec3d){street, 1.7, extent * 0.25};
        target = orr_vec3d_add(eye, (orr_vec3d){sin(turn), 0.0, cos(turn)});
        orr_mat4d_look_at_pose(eye, target, (orr_vec3d){0, 1, 0}, pose);
        return;
    }
    if (o->camera == 1) {
        eye = centre;
        target = orr_vec3d_add(centre, (orr_vec3d){cos(turn), 0.0, sin(turn)});
    } else {
        eye = orr_vec3d_add(centre, (orr_vec3d){extent * (0.9 + 0.3 * sin(turn)), extent * 0.7, extent * (1.4 + 0.3 * cos(turn))});
        target = o->camera == 2 ? orr_vec3d_add(eye, orr_vec3d_sub(eye, centre)) : centre;
    }
    orr_mat4d_look_at_pose(eye, target, (orr_vec3d){0, 1, 0}, pose);
}

static const char *const camera_name[3] = {"outside", "inside", "away"};


/* The baseline's loop over changed instances [from, to): the new translation, the binary64 world
 * matrix, the snapshot record and the 80-byte GPU record. */
typedef struct base_pass {
    const uint32_t *picks;
    const hosted *flat_t;
    orr_affine3d *flat_world, *flat_snap;
    float *flat_mapped;
    double jitter;
    uint32_t count;
} base_pass;

#define BASE_CHUNK 256u /* instances per job of the threaded baseline, as the library's passes */

static void base_range(const base_pass *b, uint32_t from, uint32_t to)
{
    for (uint32_t k = from; k < to; k++) {
        uint32_t i = b->picks[k];
        orr_vec3d t = b->flat_t[i].translation;
        t.y += b->jitter;
        orr_mat4d m;
        orr_mat4d_from_trs(t, ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &m);
        /* (an instance picked twice is written twice with the same bytes, by one chunk or two) */
        orr_affine3d_from_mat4d(&m, &b->flat_world[i]);
        b->flat_snap[i] = b->flat_world[i];
        float *rec = b->flat_mapped + (size_t)k * 20;
        for (int c = 0; c < 9; c++) rec[c] = (float)b->flat_snap[i].m[c];
        for (int c = 0; c < 3; c++) orr_split_double(b->flat_snap[i].m[9 + c], &rec[9 + c], &rec[12 + c]);
    }
}

static void base_job(void *ctx, uint32_t c)
{
    const base_pass *b = ctx;
    uint32_t from = c * BASE_CHUNK;
    base_range(b, from, b->count - from < BASE_CHUNK ? b->count : from + BASE_CHUNK);
}

/* The host's gathering of a frame's moves [from, to): each picked thing's entity and new place. */
typedef struct gather_pass {
    const uint32_t *picks;
    const hosted *flat_t;
    orr_entity *e;
    orr_vec3d *t;
    double jitter;
    uint32_t count;
} gather_pass;

static void gather_range(const gather_pass *g, uint32_t from, uint32_t to)
{
    for (uint32_t k = from; k < to; k++) {
        const hosted *h = &g->flat_t[g->picks[k]];
        g->e[k] = h->entity;
        g->t[k] = h->translation;
        g->t[k].y += g->jitter;
    }
}

static void gather_job(void *ctx, uint32_t c)
{
    const gather_pass *g = ctx;
    uint32_t from = c * BASE_CHUNK;
    gather_range(g, from, g->count - from < BASE_CHUNK ? g->count : from + BASE_CHUNK);
}

int orr_tool_bench_frame(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--threaded")) return orr_tool_bench_frame_threaded(argc, argv);
    bench_options o;
    int parsed = parse(argc, argv, &o);
    if (parsed >= 0) return parsed;
    if (o.png && tool_output_check("bench frame", "--png", o.png, o.file)) return 1;

    orr_session *session = NULL;
    orr_renderer *renderer = NULL;
    orr_entity *movers = tool_flat_alloc((size_t)o.n * sizeof *movers);
    uint32_t changed_per_frame = (uint32_t)llround(o.n * o.moving / 100.0);
    uint32_t churn_per_frame = (uint32_t)llround(o.n * o.churn / 100.0);
    uint32_t *picks = malloc((size_t)(changed_per_frame ? changed_per_frame : 1) * sizeof *picks);
    orr_entity *move_e = malloc((size_t)(changed_per_frame ? changed_per_frame : 1) * sizeof *move_e);
    orr_vec3d *move_t = malloc((size_t)(changed_per_frame ? changed_per_frame : 1) * sizeof *move_t);
    uint32_t warmup = 5, total = o.frames + warmup;
    double *cpu = calloc(total, sizeof *cpu), *gpu = calloc(total, sizeof *gpu), *wall = calloc(total, sizeof *wall),
           *base_gpu = calloc(total, sizeof *base_gpu), *shadow_gpu = calloc(total, sizeof *shadow_gpu),
           *views_gpu = calloc(total, sizeof *views_gpu),
           *base = calloc(total, sizeof *base), *changed = calloc(total, sizeof *changed),
           *uploaded = calloc(total, sizeof *uploaded), *recorded = calloc(total, sizeof *recorded),
           *phase[ORR_PHASE_COUNT + 3];
    orr_recorder *recorder = NULL;
    orr_workers *workers = NULL;
    tool_pool *pool = NULL;
    for (int p = 0; p < ORR_PHASE_COUNT + 3; p++) phase[p] = calloc(total, sizeof(double));
    /* the baseline's arrays, as large as the scene */
    size_t flat_t_size = (size_t)o.n * sizeof(hosted), flat_size = (size_t)o.n * sizeof(orr_affine3d);
    size_t flat_mapped_size = (size_t)(changed_per_frame ? changed_per_frame : 1) * 20 * sizeof(float);
    hosted *flat_t = tool_flat_alloc(flat_t_size);
    orr_affine3d *flat_world = tool_flat_alloc(flat_size), *flat_snap = tool_flat_alloc(flat_size);
    float *flat_mapped = tool_flat_alloc(flat_mapped_size);
    int status = 1;
    uint8_t *asked = NULL; /* --pick's arrays (made once the views are) */
    uint8_t *ticked = calloc(total, 1); /* per frame: it ticked (--tick-every) */
    uint64_t *frame_of = NULL, *gpu_frame_of = NULL;
    double *lat_frames = NULL, *lat_ms = NULL;
    if (!ticked || !movers || !picks || !move_e || !move_t || !cpu || !gpu || !base_gpu || !shadow_gpu || !views_gpu || !wall || !base || !changed || !uploaded ||
        !recorded ||
        !flat_t || !flat_world ||
        !flat_snap || !flat_mapped) {
        fprintf(stderr, "orrery bench frame: out of memory\n");
        goto done;
    }
    for (int p = 0; p < ORR_PHASE_COUNT + 3; p++)
        if (!phase[p]) goto done;
    counted session_mem = {0}, renderer_mem = {0};
    uint64_t rss_start = rss_bytes();
    /* without --threads, one thread: the calling thread's CPU time is then the frame's */
    orr_session_desc sd = {.allocator = {count_realloc, &session_mem}, .threads = 1, .interpolate = o.interpolate};
    /* --tick-every: frames of 1/256 s and a step of K of them, both exact in binary, so that a tick comes
     * in every K-th frame exactly */
    bool paced = o.tick_every > 1 || o.interpolate;
    double frame_s = paced ? 1.0 / 256.0 : 1.0 / 60.0;
    if (paced) sd.fixed_step = o.tick_every / 256.0;
    if (o.threads) {
        if (orr_workers_create(&(orr_workers_desc){.threads = o.threads}, &workers, NULL) != ORR_OK ||
            (o.threads > 1 && !(pool = tool_pool_create(o.threads)))) {
            fprintf(stderr, "orrery bench frame: could not start %u threads\n", o.threads);
            goto done;
        }
        sd.workers = workers, sd.threads = o.threads;
    }
    double (*clock_ms)(void) = o.threads ? wall_ms : thread_ms;
    if (orr_session_create(&sd, &session, NULL) != ORR_OK) goto done;
    double extent = 1.0, spacing = 2.0;
    uint64_t mesh_triangles = 0; /* of the one renderable mesh (0: FILE's scene) */
    maker mk = {0};
    if (!build(session, &o, movers, &extent, &spacing, &mesh_triangles, &mk)) goto done;
    for (uint32_t i = 0; i < o.n; i++) {
        orr_transform t;
        orr_entity_get_local(orr_session_world(session), movers[i], &t);
        flat_t[i] = (hosted){t.translation, movers[i]};
        orr_affine3d_identity(&flat_world[i]);
        flat_snap[i] = flat_world[i];
    }

    orr_error err = {0};
    /* the renderer's per-frame passes on the same threads (without --threads: one, as the session) */
    orr_renderer_desc rdesc = {.allocator = {count_realloc, &renderer_mem}, .meshlet_fallback = o.meshlet_fallback,
                               .baseline_gpu = !o.no_baseline, .threads = o.threads ? o.threads : 1,
                               .workers = workers, .interpolate = o.interpolate};
    if (orr_renderer_create(&rdesc, &renderer, &err) != ORR_OK) {
        fprintf(stderr, "orrery: %s\n", err.message);
        goto done;
    }
    orr_target_id target;
    orr_target_desc td = {.width = o.width, .height = o.height, .clear_color = {0.01f, 0.01f, 0.015f, 1.0f},
                          .samples = 1}; /* the figures measure the draws, not the resolve */
    if (orr_renderer_bind_library(renderer, orr_session_assets(session), NULL) != ORR_OK ||
        orr_renderer_create_target(renderer, &td, &target) != ORR_OK) {
        fprintf(stderr, "orrery: %s\n", orr_renderer_last_error(renderer)->message);
        goto done;
    }
    orr_view_id view0 = {0, 0};
    uint32_t pick_x = 0, pick_y = o.height / 2;
    for (uint32_t v = 0; v < o.views; v++) {
        uint32_t x0 = (uint32_t)((uint64_t)o.width * v / o.views), x1 = (uint32_t)((uint64_t)o.width * (v + 1) / o.views);
        if (!v) pick_x = x0 + (x1 - x0) / 2;
        orr_view_desc vd = {.target = target, .slot = v, .viewport = {x0, 0, x1 - x0, o.height}, .yfov = 0.9,
                            .znear = 0.1, .order = ORR_ORDER_MESH, .strategy = o.strategy, .cull = o.cull,
                            .shells = o.shells, .shadows = {.enabled = o.shadows}, .occlusion = o.occlusion,
                            .lod_pixels = (float)o.lod_pixels};
        view_pose(&o, v, extent, &vd.pose);
        orr_view_id id;
        if (orr_renderer_create_view(renderer, &vd, &id) != ORR_OK) {
            fprintf(stderr, "orrery: %s\n", orr_renderer_last_error(renderer)->message);
            goto done;
        }
        if (!v) view0 = id;
    }
    /* --pick: per frame whether it asked, the frame its stats' gpu_ms is of, each pick's latency */
    asked = calloc(total, 1);
    frame_of = calloc(total, sizeof *frame_of), gpu_frame_of = calloc(total, sizeof *gpu_frame_of);
    lat_frames = calloc(total, sizeof(double)), lat_ms = calloc(total, sizeof(double));
    uint32_t pick_count = 0, answered = 0, pick_frame = 0;
    bool picking = false;
    orr_pick_id pick = {0, 0};
    double pick_asked_at = 0;
    if (!asked || !frame_of || !gpu_frame_of || !lat_frames || !lat_ms) {
        fprintf(stderr, "orrery bench frame: out of memory\n");
        goto done;
    }

    if (o.record && orr_recorder_create(o.record, NULL, &recorder, &err) != ORR_OK) {
        fprintf(stderr, "orrery bench frame: --record: %s\n", err.message);
        goto done;
    }
    orr_world *w = orr_session_world(session);
    uint64_t seed = 0x9E3779B97F4A7C15ull, churn_seed = 0xD1B54A32D192ED03ull;
    orr_render_stats st = {0};
    bool progress = isatty(2);
    uint32_t reused_frames = 0; /* measured frames whose draw commands were kept from an earlier frame */
    uint32_t uploads_reused = 0; /* and whose upload commands were */
    double started = wall_ms(), last_wall = wall_ms();
    uint64_t ticks = 0;
    for (uint32_t f = 0; f < total; f++) {
        /* The moves: a fresh random set each frame that ticks (the same on every run); all of them, in
         * the host's order, when everything moves. */
        ticked[f] = (f + 1) % o.tick_every == 0;
        uint32_t moved = ticked[f] ? changed_per_frame : 0, churned = ticked[f] ? churn_per_frame : 0;
        for (uint32_t k = 0; k < moved; k++)
            picks[k] = changed_per_frame == o.n ? k : (uint32_t)(next_random(&seed) % o.n);
        double jitter = 0.25 * spacing * (((f / o.tick_every) % 2) ? 1.0 : -1.0);
        if (o.settle && orr_renderer_finish(renderer, NULL) != ORR_OK) {
            fprintf(stderr, "orrery: %s\n", orr_renderer_last_error(renderer)->message);
            goto done;
        }
        double c0 = clock_ms();
        /* One batch, as a host moving many things at once does (orr_entity_set_translations overlaps
         * the cache misses of scattered entities that one call per entity takes one by one, and shares
         * a large batch out); with --threads the host gathers it on its threads too. */
        gather_pass gp = {.picks = picks, .flat_t = flat_t, .e = move_e, .t = move_t, .jitter = jitter, .count = moved};
        if (pool) tool_pool_run(pool, (moved + BASE_CHUNK - 1) / BASE_CHUNK, gather_job, &gp);
        else gather_range(&gp, 0, moved);
        orr_entity_set_translations(w, move_e, move_t, moved);
        /* The churn: each picked renderable destroyed and made again in its place (a new entity). */
        for (uint32_t k = 0; k < churned; k++) {
            uint32_t i = (uint32_t)(next_random(&churn_seed) % o.n);
            orr_transform t = orr_transform_identity();
            t.translation = flat_t[i].translation;
            orr_entity e;
            if (orr_entity_destroy(w, flat_t[i].entity) != ORR_OK ||
                !make_renderable(w, orr_session_assets(session), &o, &mk, i, &t, &e)) {
                fprintf(stderr, "orrery bench frame: --churn: %s\n", orr_world_last_error(w)->message);
                goto done;
            }
            flat_t[i].entity = movers[i] = e;
        }
        double c1 = clock_ms();
        orr_world_update_transforms(w);
        double c2 = clock_ms();
        if (orr_session_run_frame(session, frame_s) != ORR_OK) {
            fprintf(stderr, "orrery: %s\n", orr_session_last_error(session)->message);
            goto done;
        }
        double c3 = clock_ms();
        const orr_snapshot *snap = orr_session_snapshot(session);
        if (paced && (snap->tick != ticks + ticked[f])) {
            fprintf(stderr, "orrery bench frame: --tick-every: frame %u ticked off its schedule\n", f);
            goto done;
        }
        ticks = snap->tick;
        if (recorder) {
            if (orr_frame_record(recorder, snap, orr_session_assets(session), &err) != ORR_OK) {
                fprintf(stderr, "orrery bench frame: --record: %s\n", err.message);
                goto done;
            }
            recorded[f] = clock_ms() - c3;
        }
        orr_render_desc rd = {.target = target, .snapshot = snap, .readback = o.png && f + 1 == total};
        if (o.pick_every && f >= warmup && (f - warmup) % o.pick_every == 0 && !picking) {
            if (orr_renderer_pick(renderer, view0, pick_x, pick_y, &pick) != ORR_OK) {
                fprintf(stderr, "orrery: %s\n", orr_renderer_last_error(renderer)->message);
                goto done;
            }
            asked[f] = 1;
            picking = true;
            pick_frame = f;
            pick_count++;
            pick_asked_at = wall_ms();
        }
        if (orr_renderer_render(renderer, &rd, &st) != ORR_OK) {
            fprintf(stderr, "orrery: %s\n", orr_renderer_last_error(renderer)->message);
            goto done;
        }
        frame_of[f] = snap->frame;
        gpu_frame_of[f] = st.time.gpu_frame;
        if (picking) {
            orr_pick_result pr;
            if (orr_renderer_pick_result(renderer, pick, false, &pr, NULL, 0) != ORR_OK) goto done;
            if (pr.state != ORR_PICK_PENDING) {
                lat_ms[answered] = wall_ms() - pick_asked_at;
                lat_frames[answered++] = f - pick_frame;
                picking = false;
            }
        }
        double c4 = clock_ms(), now = wall_ms();
        cpu[f] = (c4 - c0) - (o.threads ? st.time.wait_wall_ms : st.time.wait_ms);
        wall[f] = now - last_wall;
        last_wall = now;
        gpu[f] = st.time.gpu_ms;
        base_gpu[f] = st.time.baseline_gpu_ms;
        shadow_gpu[f] = st.time.shadow_gpu_ms;
        views_gpu[f] = st.time.views_gpu_ms;
        changed[f] = snap->changed_count;
        uploaded[f] = (double)(st.memory.uploaded_bytes + st.memory.view_bytes);
        if (f >= warmup && st.commands_reused) reused_frames++;
        if (f >= warmup && st.uploads_reused) uploads_reused++;
        phase[0][f] = c1 - c0;
        phase[1][f] = c2 - c1;
        phase[2][f] = c3 - c2;
        for (int p = 0; p < ORR_PHASE_COUNT; p++) phase[3 + p][f] = st.time.cpu_ms[p];

        /* The baseline over the same instances in the same order (shared out with --threads). */
        if (o.settle && orr_renderer_finish(renderer, NULL) != ORR_OK) {
            fprintf(stderr, "orrery: %s\n", orr_renderer_last_error(renderer)->message);
            goto done;
        }
        double b0 = clock_ms();
        base_pass bp = {.picks = picks, .flat_t = flat_t, .flat_world = flat_world, .flat_snap = flat_snap,
                        .flat_mapped = flat_mapped, .jitter = jitter, .count = moved};
        if (pool) tool_pool_run(pool, (moved + BASE_CHUNK - 1) / BASE_CHUNK, base_job, &bp);
        else base_range(&bp, 0, moved);
        __asm__ volatile("" ::"r"(flat_mapped) : "memory");
        base[f] = clock_ms() - b0;
        if (progress && now - started > 1000.0 && (f % 8 == 0 || f + 1 == total))
            fprintf(stderr, "\rbench frame: frame %u of %u", f + 1, total);
    }
    if (progress && wall_ms() - started > 1000.0) fprintf(stderr, "\r%60s\r", "");
    orr_render_stats fin;
    if (orr_renderer_finish(renderer, &fin) != ORR_OK) goto done;
    if (o.png) { /* the last frame's image (complete now) */
        size_t bytes = (size_t)o.width * o.height * 4;
        uint8_t *pixels = malloc(bytes);
        orr_result rc = pixels ? orr_renderer_read_target(renderer, target, pixels, bytes) : ORR_ERROR_OUT_OF_MEMORY;
        if (rc != ORR_OK) {
            fprintf(stderr, "orrery bench frame: --png: reading the target back failed: %s\n",
                    pixels ? orr_renderer_last_error(renderer)->message : "out of memory");
            free(pixels);
            goto done;
        }
        rc = orr_gpu_write_png(o.png, o.width, o.height, pixels, &err);
        free(pixels);
        if (rc != ORR_OK) {
            fprintf(stderr, "orrery bench frame: --png: %s\n", err.message);
            goto done;
        }
    }
    if (picking) { /* the last one: its frame is complete now */
        orr_pick_result pr;
        if (orr_renderer_pick_result(renderer, pick, true, &pr, NULL, 0) == ORR_OK && pr.state != ORR_PICK_PENDING) {
            lat_ms[answered] = wall_ms() - pick_asked_at;
            lat_frames[answered++] = total - pick_frame;
        }
    }
    /* the frames that picked beside the others: CPU per frame, and GPU by the frame each figure is of */
    double pick_cpu_med = -1, other_cpu_med = -1, pick_gpu_med = -1, other_gpu_med = -1;
    if (o.pick_every) {
        double *pc = calloc(total, sizeof(double)), *oc = calloc(total, sizeof(double));
        double *pg = calloc(total, sizeof(double)), *og = calloc(total, sizeof(double));
        uint32_t npc = 0, noc = 0, npg = 0, nog = 0;
        for (uint32_t f = warmup; pc && oc && pg && og && f < total; f++) {
            if (asked[f]) pc[npc++] = cpu[f];
            else oc[noc++] = cpu[f];
            double gms = f + 1 == total ? fin.time.gpu_ms : gpu[f];
            uint64_t gf = f + 1 == total ? fin.time.gpu_frame : gpu_frame_of[f];
            if (gms < 0 || gf > frame_of[f] || frame_of[f] - gf > f) continue;
            uint32_t k = f - (uint32_t)(frame_of[f] - gf); /* the frame that gpu figure is of */
            if (k < warmup) continue;
            if (asked[k]) pg[npg++] = gms;
            else og[nog++] = gms;
        }
        if (npc) pick_cpu_med = quantile(pc, npc, 0.5);
        if (noc) other_cpu_med = quantile(oc, noc, 0.5);
        if (npg) pick_gpu_med = quantile(pg, npg, 0.5);
        if (nog) other_gpu_med = quantile(og, nog, 0.5);
        free(pc), free(oc), free(pg), free(og);
    }

    /* --tick-every: the frames between ticks apart from the ticking ones, CPU per frame and GPU by the
     * frame each figure is of (as the picks') */
    double between_cpu_med = -1, tick_cpu_med = -1, between_gpu_med = -1, tick_gpu_med = -1;
    uint32_t between_frames = 0;
    if (o.tick_every > 1) {
        double *bc = calloc(total, sizeof(double)), *tc = calloc(total, sizeof(double));
        double *bgp = calloc(total, sizeof(double)), *tg = calloc(total, sizeof(double));
        uint32_t nbc = 0, ntc = 0, nbg = 0, ntg = 0;
        for (uint32_t f = warmup; bc && tc && bgp && tg && f < total; f++) {
            if (ticked[f]) tc[ntc++] = cpu[f];
            else bc[nbc++] = cpu[f];
            double gms = f + 1 == total ? fin.time.gpu_ms : gpu[f];
            uint64_t gf = f + 1 == total ? fin.time.gpu_frame : gpu_frame_of[f];
            if (gms < 0 || gf > frame_of[f] || frame_of[f] - gf > f) continue;
            uint32_t k = f - (uint32_t)(frame_of[f] - gf);
            if (k < warmup) continue;
            if (ticked[k]) tg[ntg++] = gms;
            else bgp[nbg++] = gms;
        }
        between_frames = nbc;
        if (nbc) between_cpu_med = quantile(bc, nbc, 0.5);
        if (ntc) tick_cpu_med = quantile(tc, ntc, 0.5);
        if (nbg) between_gpu_med = quantile(bgp, nbg, 0.5);
        if (ntg) tick_gpu_med = quantile(tg, ntg, 0.5);
        free(bc), free(tc), free(bgp), free(tg);
    }

    /* Medians over the measured frames. The GPU time of a frame is known one or two frames later: the
     * last frames' come from finish. */
    uint32_t m = o.frames;
    double *g = gpu + warmup, *bg = base_gpu + warmup, *sg = shadow_gpu + warmup, *vg = views_gpu + warmup;
    g[m - 1] = fin.time.gpu_ms;
    bg[m - 1] = fin.time.baseline_gpu_ms;
    sg[m - 1] = fin.time.shadow_gpu_ms;
    vg[m - 1] = fin.time.views_gpu_ms;
    uint32_t gn = 0, bn = 0, sn = 0, vn = 0;
    for (uint32_t k = 0; k < m; k++) {
        if (g[k] >= 0) g[gn++] = g[k];
        if (bg[k] >= 0) bg[bn++] = bg[k];
        if (sg[k] >= 0) sg[sn++] = sg[k];
        if (vg[k] >= 0) vg[vn++] = vg[k];
    }
    double shadow_gpu_median = sn ? quantile(sg, sn, 0.5) : -1.0; /* -1: no shadow views (or no timestamps) */
    double views_gpu_median = vn ? quantile(vg, vn, 0.5) : -1.0;
    double cpu_median = quantile(cpu + warmup, m, 0.5), cpu_p99 = quantile(cpu + warmup, m, 0.99);
    double gpu_median = quantile(g, gn, 0.5), wall_median = quantile(wall + warmup, m, 0.5);
    double base_gpu_median = bn ? quantile(bg, bn, 0.5) : -1.0; /* -1: not drawn (or no timestamps) */
    double over_base = base_gpu_median > 0 ? gpu_median / base_gpu_median : -1.0;
    double base_median = quantile(base + warmup, m, 0.5), changed_median = quantile(changed + warmup, m, 0.5);
    double up_median = quantile(uploaded + warmup, m, 0.5);
    static const char *const own[3] = {"move", "propagate", "extract"};
    /* the recording: the deltas' median, the key frame (frame 0) apart, and what a changed instance takes */
    orr_recording_stats rs = {0};
    if (recorder) {
        if (orr_recorder_finish(recorder) != ORR_OK) {
            fprintf(stderr, "orrery bench frame: --record: %s\n", orr_recorder_last_error(recorder)->message);
            goto done;
        }
        orr_recorder_get_stats(recorder, &rs);
    }
    double record_median = quantile(recorded + warmup, m, 0.5), record_key = recorded[0];
    double record_thread = total ? rs.thread_cpu_ms / total : 0; /* the recorder thread's, a frame on average */
    /* and apart: a delta frame's (resources' included), a key frame's, and a frame's with one key frame
     * every 300 (the recorder's interval): the steady state, which a short run's first key frame hides */
    uint64_t deltas = rs.frames > rs.key_frames ? rs.frames - rs.key_frames : 0;
    double thread_delta = deltas ? (rs.thread_cpu_ms - rs.key_frame_cpu_ms) / deltas : 0;
    double thread_key = rs.key_frames ? rs.key_frame_cpu_ms / rs.key_frames : 0;
    double thread_steady = thread_delta + thread_key / 300.0;
    double changed_sum = 0;
    for (uint32_t k = 1; k < total; k++) changed_sum += changed[k];
    double delta_per_changed = changed_sum > 0 ? (double)rs.delta_bytes / changed_sum : 0;
    double phase_median[ORR_PHASE_COUNT + 3];
    for (int p = 0; p < ORR_PHASE_COUNT + 3; p++) phase_median[p] = quantile(phase[p] + warmup, m, 0.5);
    uint64_t rss = rss_bytes();
    size_t bench_bytes = (size_t)o.n * (sizeof *movers + sizeof *flat_t + sizeof *flat_world + sizeof *flat_snap);
    double per_renderable = (double)(session_mem.bytes + renderer_mem.bytes) / o.n;
    const char *cull = orr_cull_name(o.cull);
    /* Triangles of the last frame (the scene and cameras are the same every frame; the moves only jitter
     * a few renderables): what the strategy sent and what reached the rasteriser. */
    double submitted = -1, rasterised = -1;
    if (o.strategy == ORR_STRATEGY_MESHLET) {
        submitted = (double)(fin.meshlets.triangles_sent + fin.meshlets.triangles_indexed);
        rasterised = (double)(fin.meshlets.triangles_kept + fin.meshlets.triangles_indexed);
    } else if (mesh_triangles) {
        submitted = rasterised = (double)fin.draws.surfaces * (double)mesh_triangles;
    }
    /* Per level of detail: the last frame's draws and triangles (level 0: meshes without levels too);
     * `full` is what level 0 alone would draw of the same surfaces, known without FILE. */
    double lod_sum = 0, full = mesh_triangles ? (double)fin.draws.surfaces * (double)mesh_triangles : -1;
    for (uint32_t l = 0; l < ORR_MESH_MAX_LODS; l++) lod_sum += (double)fin.draws.lod_triangles[l];
    if (o.lods && o.strategy != ORR_STRATEGY_MESHLET && mesh_triangles) submitted = rasterised = lod_sum;
    double per_s = gpu_median > 0 ? 1e3 / gpu_median : 0; /* frames per second of GPU time */
    const char *path = o.strategy != ORR_STRATEGY_MESHLET ? "none"
                       : fin.meshlets.mesh_shader_views            ? "mesh_shaders"
                                                          : "fallback";
    char mesh_name[32];
    if (o.file) snprintf(mesh_name, sizeof mesh_name, "file");
    else if (o.sphere_rings) snprintf(mesh_name, sizeof mesh_name, "sphere:%u", o.sphere_rings);
    else snprintf(mesh_name, sizeof mesh_name, "cube");
    if (o.json) {
        printf("{\"name\": \"frame\", \"n\": %u, \"moving\": %g, \"churn\": %g, \"views\": %u, \"frames\": %u, \"strategy\": \"%s\", "
               "\"cull\": \"%s\", \"camera\": \"%s\", \"size\": \"%ux%u\", \"threads\": %u, \"clock\": \"%s\", "
               "\"settle\": %s, \"changed_median\": %.0f, "
               "\"cpu_ms_median\": %.4f, \"cpu_ms_p99\": %.4f, \"gpu_ms_median\": %.4f, \"baseline_gpu_ms\": %.4f, "
               "\"gpu_over_baseline\": %.4f, \"shadow_gpu_ms\": %.4f, \"views_gpu_ms\": %.4f, \"wall_ms_median\": %.4f, "
               "\"uploaded_bytes_median\": %.0f, \"rss_bytes\": %llu, \"rss_growth_bytes\": %llu, \"bench_bytes\": %zu, "
               "\"session_bytes\": %zu, \"renderer_cpu_bytes\": %zu, \"bytes_per_renderable\": %.1f, \"gpu_bytes\": %llu, "
               "\"gpu_bytes_per_renderable\": %.1f, \"fur\": %g, \"shells\": %u, \"draw_calls\": %u, \"pipelines\": %u, \"fur_draws\": %u, "
               "\"shells_drawn\": %llu, \"commands_reused_frames\": %u, \"device\": ",
               o.n, o.moving, o.churn, o.views, o.frames, orr_strategy_name(o.strategy), cull, camera_name[o.camera], o.width,
               o.height, o.threads ? o.threads : 1, o.threads ? "wall" : "thread_cpu", o.settle ? "true" : "false", changed_median, cpu_median, cpu_p99, gpu_median, base_gpu_median, over_base,
               shadow_gpu_median, views_gpu_median, wall_median,
               up_median, (unsigned long long)rss, (unsigned long long)(rss - rss_start), bench_bytes, session_mem.bytes,
               renderer_mem.bytes, per_renderable, (unsigned long long)fin.memory.gpu_bytes, (double)fin.memory.gpu_bytes / o.n, o.fur,
               o.shells, fin.draws.calls, fin.draws.pipelines, fin.draws.fur_draws, (unsigned long long)fin.draws.shells, reused_frames);
        tool_json_string(stdout, orr_renderer_device_name(renderer));
        printf(", \"mesh\": \"%s\", \"mesh_triangles\": %llu, \"meshlet_path\": \"%s\", \"triangles_submitted\": %.0f, "
               "\"triangles_rasterised\": %.0f, \"triangles_submitted_per_s\": %.6g, \"triangles_rasterised_per_s\": %.6g, "
               "\"meshlets_sent\": %llu, \"meshlets_kept\": %llu, \"visible\": %u, \"scene\": \"%s\", "
               "\"occlusion\": %s, \"culled_frustum\": %u, \"culled_occlusion\": %u",
               mesh_name, (unsigned long long)mesh_triangles, path, submitted, rasterised,
               submitted >= 0 ? submitted * per_s : -1.0, rasterised >= 0 ? rasterised * per_s : -1.0,
               (unsigned long long)fin.meshlets.sent, (unsigned long long)fin.meshlets.kept, fin.cull.visible,
               o.city ? "city" : "cubes", o.occlusion ? "true" : "false", fin.cull.culled, fin.cull.occluded);
        printf(", \"out_of_range\": %u, \"lod_pixels\": %g, \"lod_draws\": [", fin.cull.out_of_range, o.lod_pixels);
        for (uint32_t l = 0; l < ORR_MESH_MAX_LODS; l++) printf("%s%u", l ? ", " : "", fin.draws.lod_surfaces[l]);
        printf("], \"lod_triangles\": [");
        for (uint32_t l = 0; l < ORR_MESH_MAX_LODS; l++)
            printf("%s%llu", l ? ", " : "", (unsigned long long)fin.draws.lod_triangles[l]);
        printf("], \"triangles_full_detail\": %.0f, \"lod_cut\": %.4g", full, full > 0 && lod_sum > 0 ? full / lod_sum : -1.0);
        printf(", \"phases\": {");
        for (int p = 0; p < ORR_PHASE_COUNT + 3; p++)
            printf("%s\"%s\": %.4f", p ? ", " : "", p < 3 ? own[p] : orr_render_phase_name((orr_render_phase)(p - 3)),
                   phase_median[p]);
        printf("}}\n");
        if (recorder)
            printf("{\"name\": \"record\", \"n\": %u, \"moving\": %g, \"record_ms_median\": %.4f, \"cpu_ms_median\": %.4f, "
                   "\"share\": %.4f, \"key_frame_ms\": %.3f, \"amortized_ms\": %.4f, \"bytes\": %llu, "
                   "\"key_frame_bytes\": %llu, \"delta_bytes\": %llu, \"delta_bytes_per_changed\": %.2f, "
                   "\"resource_bytes\": %llu, \"thread_ms\": %.4f, \"thread_share\": %.4f, \"thread_delta_ms\": %.4f, "
                   "\"thread_key_frame_ms\": %.3f, \"thread_steady_ms\": %.4f, \"thread_steady_share\": %.4f, "
                   "\"both_steady_share\": %.4f}\n",
                   o.n, o.moving, record_median, cpu_median, cpu_median > 0 ? record_median / cpu_median : 0, record_key,
                   record_median + record_key / 300.0, (unsigned long long)rs.bytes,
                   (unsigned long long)rs.key_frame_bytes, (unsigned long long)rs.delta_bytes, delta_per_changed,
                   (unsigned long long)rs.resource_bytes, record_thread, cpu_median > 0 ? record_thread / cpu_median : 0,
                   thread_delta, thread_key, thread_steady, cpu_median > 0 ? thread_steady / cpu_median : 0,
                   cpu_median > 0 ? (record_median + thread_steady) / cpu_median : 0);
        if (o.pick_every)
            printf("{\"name\": \"pick\", \"every\": %u, \"picks\": %u, \"answered\": %u, \"latency_frames_median\": %.1f, "
                   "\"latency_ms_median\": %.4f, \"cpu_ms_median_picking\": %.4f, \"cpu_ms_median_other\": %.4f, "
                   "\"gpu_ms_median_picking\": %.4f, \"gpu_ms_median_other\": %.4f}\n",
                   o.pick_every, pick_count, answered, answered ? quantile(lat_frames, answered, 0.5) : -1.0,
                   answered ? quantile(lat_ms, answered, 0.5) : -1.0, pick_cpu_med, other_cpu_med, pick_gpu_med,
                   other_gpu_med);
        if (o.tick_every > 1)
            printf("{\"name\": \"ticks\", \"tick_every\": %u, \"interpolate\": %s, \"between_frames\": %u, "
                   "\"between_cpu_ms_median\": %.4f, \"tick_cpu_ms_median\": %.4f, \"between_gpu_ms_median\": %.4f, "
                   "\"tick_gpu_ms_median\": %.4f}\n",
                   o.tick_every, o.interpolate ? "true" : "false", between_frames, between_cpu_med, tick_cpu_med,
                   between_gpu_med, tick_gpu_med);
        printf("{\"name\": \"baseline_changed\", \"n\": %u, \"threads\": %u, \"changed\": %u, \"ms_median\": %.4f, "
               "\"ns_per_item\": %.2f}\n",
               o.n, o.threads ? o.threads : 1, changed_per_frame, base_median, changed_per_frame ? base_median * 1e6 / changed_per_frame : 0.0);
    } else {
        printf("frame: n=%u moving=%g%% churn=%g%% views=%u %ux%u %s, cull %s, camera %s, %u frames on %s; %u thread%s (%s time)\n",
               o.n, o.moving, o.churn, o.views, o.width, o.height, orr_strategy_name(o.strategy), cull, camera_name[o.camera], o.frames,
               orr_renderer_device_name(renderer), o.threads ? o.threads : 1, o.threads > 1 ? "s" : "",
               o.threads ? "wall" : "calling thread's CPU");
        printf("  changed %.0f   cpu %.3f ms (p99 %.3f)   gpu %.3f ms   wall %.3f ms   uploaded %.0f bytes\n",
               changed_median, cpu_median, cpu_p99, gpu_median, wall_median, up_median);
        if (shadow_gpu_median >= 0)
            printf("  shadow_gpu %.3f ms (the shadow views), views_gpu %.3f ms (the views after them)\n",
                   shadow_gpu_median, views_gpu_median);
        if (base_gpu_median >= 0)
            printf("  baseline_gpu %.3f ms (the same visible instances, leanest pipeline): gpu / baseline_gpu %.2f\n",
                   base_gpu_median, over_base);
        if (o.pick_every)
            printf("  pick every %u frames: %u asked, %u answered, latency %.1f frames (%.3f ms) median; cpu %.3f ms "
                   "picking vs %.3f ms not, gpu %.3f vs %.3f ms\n", o.pick_every, pick_count, answered,
                   answered ? quantile(lat_frames, answered, 0.5) : -1.0, answered ? quantile(lat_ms, answered, 0.5) : -1.0,
                   pick_cpu_med, other_cpu_med, pick_gpu_med, other_gpu_med);
        printf("  scene %s: %u visible, culled by frustum %u, by occlusion %u%s\n", o.city ? "city" : "cubes",
               fin.cull.visible, fin.cull.culled, fin.cull.occluded, o.occlusion ? "" : " (--occlusion off)");
        if (o.tick_every > 1)
            printf("  a tick every %u frames%s: %u frames between ticks, cpu %.3f ms (ticking frames %.3f), gpu %.3f ms "
                   "(ticking frames %.3f)\n",
                   o.tick_every, o.interpolate ? ", interpolated" : "", between_frames, between_cpu_med, tick_cpu_med,
                   between_gpu_med, tick_gpu_med);
        printf("  draw calls %u, pipelines %u, draw commands kept in %u of %u frames (upload commands in %u)",
               fin.draws.calls, fin.draws.pipelines, reused_frames, o.frames, uploads_reused);
        if (o.fur > 0)
            printf("   fur %g m: %u fur draws, %llu shells (--shells %u)", o.fur, fin.draws.fur_draws,
                   (unsigned long long)fin.draws.shells, o.shells);
        printf("\n");
        if (submitted >= 0)
            printf("  %s (%llu triangles), %u visible: triangles submitted %.0f, rasterised %.0f; %.1f M/s submitted, "
                   "%.1f M/s rasterised (GPU time)%s%s\n",
                   mesh_name, (unsigned long long)mesh_triangles, fin.cull.visible, submitted, rasterised,
                   submitted * per_s * 1e-6, rasterised * per_s * 1e-6,
                   o.strategy == ORR_STRATEGY_MESHLET ? "; meshlets by " : "",
                   o.strategy == ORR_STRATEGY_MESHLET ? path : "");
        if (o.range.near > 0 || o.range.far > 0)
            printf("  visibility range %g..%g m (margin %g): %u instances out of range over the views\n", o.range.near,
                   o.range.far, o.range.margin, fin.cull.out_of_range);
        if (o.lods) {
            printf("  levels (lod-pixels %g):", o.lod_pixels);
            for (uint32_t l = 0; l < ORR_MESH_MAX_LODS; l++)
                if (fin.draws.lod_surfaces[l])
                    printf(" L%u %u draws %llu triangles;", l, fin.draws.lod_surfaces[l],
                           (unsigned long long)fin.draws.lod_triangles[l]);
            if (full > 0 && lod_sum > 0) printf(" %.0f at full detail: %.1fx fewer", full, full / lod_sum);
            printf("\n");
        }
        printf("  phases:");
        for (int p = 0; p < ORR_PHASE_COUNT + 3; p++)
            printf(" %s %.3f", p < 3 ? own[p] : orr_render_phase_name((orr_render_phase)(p - 3)), phase_median[p]);
        printf("\n  memory: session %.1f MB + renderer (CPU) %.1f MB = %.1f bytes per renderable; gpu %.1f MB (%.1f per "
               "renderable); rss %.1f MB, grown %.1f MB (the bench's own arrays %.1f MB)\n",
               session_mem.bytes / 1e6, renderer_mem.bytes / 1e6, per_renderable, fin.memory.gpu_bytes / 1e6,
               (double)fin.memory.gpu_bytes / o.n, rss / 1e6, (rss - rss_start) / 1e6, bench_bytes / 1e6);
        if (recorder)
            printf("  recording cost, frame thread (the frame's own CPU in orr_frame_record): %.3f ms a frame, %.1f%% of "
                   "the frame's %.3f ms; the first frame (a whole copy) %.1f ms (%.3f ms a frame over 300)\n"
                   "  recording: %llu bytes: key frame %llu, deltas %llu (%.1f bytes per changed instance)\n",
                   record_median, cpu_median > 0 ? 100.0 * record_median / cpu_median : 0.0, cpu_median, record_key,
                   record_median + record_key / 300.0, (unsigned long long)rs.bytes,
                   (unsigned long long)rs.key_frame_bytes, (unsigned long long)rs.delta_bytes, delta_per_changed);
        if (recorder)
            printf("  recording cost, recorder thread (compare, encode, write; another core) %.3f ms a delta frame, "
                   "%.1f ms a key frame: %.3f ms a frame with a key frame every 300 (%.1f%% of the frame's CPU); "
                   "over this run's %llu frames (%llu key) %.3f ms a frame (%.1f%%)\n",
                   thread_delta, thread_key, thread_steady, cpu_median > 0 ? 100.0 * thread_steady / cpu_median : 0.0,
                   (unsigned long long)rs.frames, (unsigned long long)rs.key_frames, record_thread,
                   cpu_median > 0 ? 100.0 * record_thread / cpu_median : 0.0);
        printf("  baseline_changed %.3f ms (%.1f ns per changed instance)\n", base_median,
               changed_per_frame ? base_median * 1e6 / changed_per_frame : 0.0);
    }
    status = 0;
done:
    free(asked), free(frame_of), free(gpu_frame_of), free(lat_frames), free(lat_ms), free(ticked);
    orr_recorder_destroy(recorder);
    free(recorded);
    orr_renderer_destroy(renderer);
    orr_session_destroy(session);
    tool_pool_destroy(pool);
    orr_workers_destroy(workers);
    tool_flat_free(movers, (size_t)o.n * sizeof *movers);
    free(picks);
    free(move_e);
    free(move_t);
    free(cpu);
    free(gpu);
    free(base_gpu);
    free(shadow_gpu);
    free(views_gpu);
    free(wall);
    free(base);
    free(changed);
    free(uploaded);
    for (int p = 0; p < ORR_PHASE_COUNT + 3; p++) free(phase[p]);
    tool_flat_free(flat_t, flat_t_size);
    tool_flat_free(flat_world, flat_size);
    tool_flat_free(flat_snap, flat_size);
    tool_flat_free(flat_mapped, flat_mapped_size);
    return status;
}
