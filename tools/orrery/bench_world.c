/* orrery bench world: entity creation, transform propagation (all, 1 %, none) and memory per entity,
 * each beside a baseline measured in the same run on plain flat arrays in pre-order that compose the
 * same binary64 TRS (orr_mat4d_from_trs) and multiply parent x local (orr_mat4d_mul).
 *
 * Shapes: wide = 1000 roots with the other entities split evenly among them as direct children;
 * deep = chains of 100 levels. Every entity has a local transform and a MeshRenderer. ns_per_item is
 * always the time divided by N (the whole world). Each figure is the fastest of R repetitions, world
 * and baseline interleaved, so that load from other processes hits both alike. */
#include "tool.h"

#include <orrery/world.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int orr_tool_bench_world(int argc, char **argv);

typedef struct bw_trs {
    orr_vec3d t;
    orr_quatd r;
    orr_vec3d s;
} bw_trs;

typedef struct bw_scene {
    uint32_t n;
    int32_t *parent; /* pre-order position of the parent, -1 for a root */
    uint32_t *end;   /* last pre-order position of the subtree */
    bw_trs *local;
    orr_mat4d *world;
} bw_scene;

static double bw_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t bw_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static double bw_unit(uint64_t *s) { return (double)(bw_rand(s) >> 11) / 9007199254740992.0; }

/* The scene in pre-order, the order in which the world is built too. */
static bool bw_build_scene(bw_scene *sc, uint32_t n, bool deep)
{
    sc->n = n;
    sc->parent = tool_flat_alloc((size_t)n * sizeof *sc->parent);
    sc->end = tool_flat_alloc((size_t)n * sizeof *sc->end);
    sc->local = tool_flat_alloc((size_t)n * sizeof *sc->local);
    sc->world = tool_flat_alloc((size_t)n * sizeof *sc->world);
    if (!sc->parent || !sc->end || !sc->local || !sc->world) return false;
    if (deep) {
        for (uint32_t i = 0; i < n; i++) sc->parent[i] = i % 100 == 0 ? -1 : (int32_t)i - 1;
    } else {
        uint32_t roots = n < 1000 ? n : 1000, rest = n - roots, i = 0;
        for (uint32_t r = 0; r < roots; r++) {
            uint32_t kids = rest / roots + (r < rest % roots ? 1 : 0);
            uint32_t root = i;
            sc->parent[i++] = -1;
            for (uint32_t k = 0; k < kids; k++) sc->parent[i++] = (int32_t)root;
        }
    }
    /* Subtree ends, from the back: a node's subtree ends where its last descendant's does. */
    for (uint32_t i = 0; i < n; i++) sc->end[i] = i;
    for (uint32_t i = n; i-- > 0;)
        if (sc->parent[i] >= 0 && sc->end[i] > sc->end[sc->parent[i]]) sc->end[sc->parent[i]] = sc->end[i];
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    for (uint32_t i = 0; i < n; i++) {
        bw_trs *l = &sc->local[i];
        l->t = (orr_vec3d){bw_unit(&seed) * 2 - 1, bw_unit(&seed) * 2 - 1, bw_unit(&seed) * 2 - 1};
        l->r = orr_quatd_normalize(
            (orr_quatd){bw_unit(&seed) - 0.5, bw_unit(&seed) - 0.5, bw_unit(&seed) - 0.5, bw_unit(&seed) - 0.5});
        double s = 0.99 + 0.02 * bw_unit(&seed);
        l->s = (orr_vec3d){s, s, s};
    }
    return true;
}

static void bw_free_scene(bw_scene *sc)
{
    tool_flat_free(sc->parent, (size_t)sc->n * sizeof *sc->parent);
    tool_flat_free(sc->end, (size_t)sc->n * sizeof *sc->end);
    tool_flat_free(sc->local, (size_t)sc->n * sizeof *sc->local);
    tool_flat_free(sc->world, (size_t)sc->n * sizeof *sc->world);
}

/* ---- baseline ---------------------------------------------------------------------------- */

static void bw_base_range(bw_scene *sc, uint32_t a, uint32_t b)
{
    for (uint32_t i = a; i <= b; i++) {
        orr_mat4d l;
        orr_mat4d_from_trs(sc->local[i].t, sc->local[i].r, sc->local[i].s, &l);
        int32_t p = sc->parent[i];
        if (p < 0) sc->world[i] = l;
        else orr_mat4d_mul(&sc->world[p], &l, &sc->world[i]);
    }
}

/* Sort the touched positions, then recompute each touched subtree's range once. */
static void bw_base_touched(bw_scene *sc, uint32_t *touched, uint32_t *tmp, uint32_t count)
{
    orr_sort_u32(touched, tmp, count, sc->n - 1); /* the world's own sort, so only the walk differs */
    bool covered = false;
    uint32_t covered_end = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t s = touched[i];
        if (covered && s <= covered_end) continue;
        bw_base_range(sc, s, sc->end[s]);
        covered = true;
        covered_end = sc->end[s];
    }
}

/* ---- the baselines on threads ----------------------------------------------------------------
 * The same flat loops shared out as the world shares its passes out: fixed chunks, taken by the
 * threads of a kept pool. All: chunks of BW_CHUNK positions, each recomputing the subtrees of the
 * roots that start in it. 1%: the sorted positions in chunks of BW_TOUCHED_CHUNK; each chunk's greatest
 * subtree end first (in parallel), then each chunk recomputes its subtrees past the greatest end of the
 * chunks before it (what those already cover). */
#define BW_CHUNK 1024u
#define BW_TOUCHED_CHUNK 256u

typedef struct bw_par {
    bw_scene *sc;
    const uint32_t *touched;
    uint32_t count;
    uint32_t *chunk_end; /* per chunk of touched: its greatest subtree end, then the greatest before it */
} bw_par;

static void bw_all_job(void *ctx, uint32_t c)
{
    bw_par *p = ctx;
    bw_scene *sc = p->sc;
    uint32_t a = c * BW_CHUNK, b = a + BW_CHUNK < sc->n ? a + BW_CHUNK : sc->n;
    for (uint32_t i = a; i < b; i++)
        if (sc->parent[i] < 0) {
            bw_base_range(sc, i, sc->end[i]);
            i = sc->end[i] > i ? sc->end[i] : i; /* (a subtree may run on past b: this chunk's still) */
        }
}

static void bw_ends_job(void *ctx, uint32_t c)
{
    bw_par *p = ctx;
    uint32_t a = c * BW_TOUCHED_CHUNK, b = a + BW_TOUCHED_CHUNK < p->count ? a + BW_TOUCHED_CHUNK : p->count, e = 0;
    for (uint32_t i = a; i < b; i++)
        if (p->sc->end[p->touched[i]] + 1 > e) e = p->sc->end[p->touched[i]] + 1;
    p->chunk_end[c] = e; /* one past, 0: none */
}

static void bw_touched_job(void *ctx, uint32_t c)
{
    bw_par *p = ctx;
    uint32_t a = c * BW_TOUCHED_CHUNK, b = a + BW_TOUCHED_CHUNK < p->count ? a + BW_TOUCHED_CHUNK : p->count;
    uint32_t covered_end = p->chunk_end[c]; /* one past what earlier chunks cover */
    for (uint32_t i = a; i < b; i++) {
        uint32_t s = p->touched[i];
        if (s < covered_end) continue;
        bw_base_range(p->sc, s, p->sc->end[s]);
        covered_end = p->sc->end[s] + 1;
    }
}

static void bw_base_all_par(bw_scene *sc, tool_pool *pool)
{
    bw_par p = {.sc = sc};
    tool_pool_run(pool, (sc->n + BW_CHUNK - 1) / BW_CHUNK, bw_all_job, &p);
}

static void bw_base_touched_par(bw_scene *sc, uint32_t *touched, uint32_t *tmp, uint32_t count, uint32_t *chunk_end,
                                tool_pool *pool)
{
    orr_sort_u32(touched, tmp, count, sc->n - 1);
    uint32_t chunks = (count + BW_TOUCHED_CHUNK - 1) / BW_TOUCHED_CHUNK;
    bw_par p = {.sc = sc, .touched = touched, .count = count, .chunk_end = chunk_end};
    tool_pool_run(pool, chunks, bw_ends_job, &p);
    for (uint32_t c = 0, before = 0; c < chunks; c++) { /* greatest end of the chunks before each */
        uint32_t own = chunk_end[c];
        chunk_end[c] = before;
        if (own > before) before = own;
    }
    tool_pool_run(pool, chunks, bw_touched_job, &p);
}

/* ---- the run ----------------------------------------------------------------------------- */

/* base > 0: the line also names its baseline and the ratio to it. */
static void bw_emit(bool json, uint32_t threads, const char *name, uint32_t n, const char *shape, double ns_per_item, double base,
                    const char *base_name)
{
    if (json) {
        printf("{\"name\": \"%s\", \"n\": %u, \"shape\": \"%s\", \"threads\": %u, \"ns_per_item\": %.6g", name, n,
               shape, threads, ns_per_item);
        if (base > 0) printf(", \"baseline\": \"%s\", \"ratio\": %.3f", base_name, ns_per_item / base);
        printf("}\n");
    } else {
        printf("  %-26s %12.6g ns/entity", name, ns_per_item);
        if (base > 0) printf("   (%.3fx baseline)", ns_per_item / base);
        printf("\n");
    }
}

static int bw_run(uint32_t n, bool deep, bool json, int reps, orr_workers *workers, tool_pool *pool)
{
    uint32_t threads = orr_workers_threads(workers);
    const char *shape = deep ? "deep" : "wide";
    bw_scene sc;
    if (!bw_build_scene(&sc, n, deep)) {
        fprintf(stderr, "orrery bench world: out of memory\n");
        bw_free_scene(&sc);
        return 1;
    }
    orr_entity *h = malloc((size_t)n * sizeof *h);
    uint32_t touched_n = n / 100 ? n / 100 : 1;
    uint32_t *touched = malloc((size_t)touched_n * sizeof *touched), *tmp = malloc((size_t)touched_n * sizeof *tmp);
    uint32_t *chunk_end = malloc(((size_t)touched_n / BW_TOUCHED_CHUNK + 1) * sizeof *chunk_end);
    if (!h || !touched || !tmp || !chunk_end) {
        fprintf(stderr, "orrery bench world: out of memory\n");
        return 1;
    }
    if (!json) printf("world, n = %u, shape = %s, %u thread%s (fastest of %d)\n", n, shape, threads, threads > 1 ? "s" : "", reps);
    fflush(stdout);
    /* progress on a terminal, between the timed parts (never inside one) */
    char what[64];
    snprintf(what, sizeof what, "bench world %s %u", shape, n);
    tool_progress progress;
    tool_progress_begin(&progress, what);

    /* create: entity with its local transform, plus a MeshRenderer. `create` builds into a world that
     * reserved room for N entities and N MeshRenderers first (orr_world_desc.reserve and
     * orr_component_reserve, as an engine that knows its level's size does): the world's own work per
     * entity. `create_cold` builds into a world with nothing reserved, so it also pays for growing the
     * tables and first-touching fresh memory; `reserve` is what the reservation itself cost. Both
     * bytes_per_entity figures are everything the world holds, divided by N. */
    orr_world *w = NULL;
    double best_create = 1e300, best_cold = 1e300, best_reserve = 1e300, bytes_cold = 0;
    orr_mesh_renderer mr = orr_mesh_renderer_default();
    mr.mesh = (orr_mesh_id){1, 1};
    for (int rep = 0; rep < 2 * (reps < 3 ? reps : 3); rep++) {
        bool reserved = rep % 2 == 1;
        tool_progress_update(&progress, "create", (uint64_t)rep, (uint64_t)(2 * (reps < 3 ? reps : 3)));
        orr_world_destroy(w);
        w = NULL;
        double t0 = bw_now();
        if (orr_world_create(&(orr_world_desc){.reserve = reserved ? n : 0, .workers = workers, .threads = threads}, &w, NULL) !=
                ORR_OK ||
            (reserved && orr_component_reserve(w, ORR_COMPONENT_MESH_RENDERER, n) != ORR_OK)) {
            fprintf(stderr, "orrery bench world: out of memory\n");
            return 1;
        }
        double t1 = bw_now();
        for (uint32_t i = 0; i < n; i++) {
            orr_transform l = {.translation = sc.local[i].t, .rotation = sc.local[i].r, .scale = sc.local[i].s};
            orr_entity_desc d = {.parent = sc.parent[i] < 0 ? ORR_ENTITY_NONE : h[sc.parent[i]], .local = &l};
            if (orr_entity_create(w, &d, &h[i]) != ORR_OK ||
                orr_component_add(w, h[i], ORR_COMPONENT_MESH_RENDERER, &mr, NULL) != ORR_OK) {
                fprintf(stderr, "orrery bench world: %s\n", orr_world_last_error(w)->message);
                return 1;
            }
        }
        double t2 = bw_now();
        if (reserved) {
            if (t2 - t1 < best_create) best_create = t2 - t1;
            if (t1 - t0 < best_reserve) best_reserve = t1 - t0;
        } else {
            if (t2 - t1 < best_cold) best_cold = t2 - t1;
            bytes_cold = (double)orr_world_memory_bytes(w) / n;
        }
    }
    tool_progress_end(&progress); /* the line is erased before anything is printed; later updates redraw it */
    bw_emit(json, threads, "create", n, shape, best_create / n, 0, NULL);
    bw_emit(json, threads, "create_cold", n, shape, best_cold / n, 0, NULL);
    bw_emit(json, threads, "reserve", n, shape, best_reserve / n, 0, NULL);
    double bytes = (double)orr_world_memory_bytes(w) / n; /* the (reserved) world as built */
    orr_world_update_transforms(w);
    bw_base_range(&sc, 0, n - 1);

    /* propagate_all */
    double best_all = 1e300, best_base_all = 1e300;
    for (int rep = 0; rep < reps; rep++) {
        tool_progress_update(&progress, "propagate_all", (uint64_t)rep, (uint64_t)reps);
        orr_world_invalidate_transforms(w);
        double t0 = bw_now();
        orr_world_update_transforms(w);
        double t1 = bw_now();
        if (threads > 1) bw_base_all_par(&sc, pool);
        else bw_base_range(&sc, 0, n - 1);
        double t2 = bw_now();
        if (t1 - t0 < best_all) best_all = t1 - t0;
        if (t2 - t1 < best_base_all) best_base_all = t2 - t1;
    }
    /* The world and the baseline must agree to the last bit. */
    for (uint32_t i = 0; i < n; i += 1 + n / 1000) {
        orr_mat4d m;
        if (orr_entity_cached_world(w, h[i], &m) != ORR_OK || memcmp(&m, &sc.world[i], sizeof m) != 0) {
            fprintf(stderr, "orrery bench world: world matrix %u differs from the baseline\n", i);
            return 1;
        }
    }

    /* propagate_1pct: N/100 random entities moved (not timed), then the propagation call */
    double best_1 = 1e300, best_base_1 = 1e300;
    uint64_t seed = 12345;
    for (int rep = 0; rep < reps; rep++) {
        tool_progress_update(&progress, "propagate_1pct", (uint64_t)rep, (uint64_t)reps);
        for (uint32_t k = 0; k < touched_n; k++) {
            uint32_t i = (uint32_t)(bw_rand(&seed) % n);
            touched[k] = i;
            sc.local[i].t.x += 0.001;
            orr_entity_set_translation(w, h[i], sc.local[i].t);
        }
        double t0 = bw_now();
        orr_world_update_transforms(w);
        double t1 = bw_now();
        if (threads > 1) bw_base_touched_par(&sc, touched, tmp, touched_n, chunk_end, pool);
        else bw_base_touched(&sc, touched, tmp, touched_n);
        double t2 = bw_now();
        if (t1 - t0 < best_1) best_1 = t1 - t0;
        if (t2 - t1 < best_base_1) best_base_1 = t2 - t1;
    }
    for (uint32_t i = 0; i < n; i += 1 + n / 1000) {
        orr_mat4d m;
        if (orr_entity_cached_world(w, h[i], &m) != ORR_OK || memcmp(&m, &sc.world[i], sizeof m) != 0) {
            fprintf(stderr, "orrery bench world: world matrix %u differs from the baseline after 1%% moved\n", i);
            return 1;
        }
    }

    /* propagate_none */
    double best_none = 1e300;
    for (int rep = 0; rep < 1000; rep++) {
        double t0 = bw_now();
        orr_world_update_transforms(w);
        double t = bw_now() - t0;
        if (t < best_none) best_none = t;
    }

    /* Churn: N/10 random non-root entities made roots and put back (last among their siblings), which
     * scatters the node table. The first update puts it back in pre-order (timed apart, per entity of
     * the world); propagate_all_churned is a full propagation after that. */
    double relinearize = 0, best_churned = 1e300, best_base_churned = 1e300;
    if (n >= 2) {
        uint64_t cs = 777;
        for (uint32_t k = 0; k < n / 10; k++) {
            uint32_t i = (uint32_t)(bw_rand(&cs) % n);
            if (sc.parent[i] < 0) continue;
            orr_entity_set_parent(w, h[i], ORR_ENTITY_NONE, ORR_KEEP_LOCAL);
            orr_entity_set_parent(w, h[i], h[sc.parent[i]], ORR_KEEP_LOCAL);
        }
        double t0 = bw_now();
        orr_world_update_transforms(w);
        relinearize = bw_now() - t0;
        for (int rep = 0; rep < reps; rep++) {
            tool_progress_update(&progress, "propagate_all_churned", (uint64_t)rep, (uint64_t)reps);
            orr_world_invalidate_transforms(w);
            double t1 = bw_now();
            orr_world_update_transforms(w);
            double t2 = bw_now();
            if (threads > 1) bw_base_all_par(&sc, pool);
            else bw_base_range(&sc, 0, n - 1);
            double t3 = bw_now();
            if (t2 - t1 < best_churned) best_churned = t2 - t1;
            if (t3 - t2 < best_base_churned) best_base_churned = t3 - t2;
        }
    }

    tool_progress_end(&progress);
    bw_emit(json, threads, "propagate_all", n, shape, best_all / n, best_base_all / n, "baseline_propagate_all");
    bw_emit(json, threads, "baseline_propagate_all", n, shape, best_base_all / n, 0, NULL);
    bw_emit(json, threads, "propagate_1pct", n, shape, best_1 / n, best_base_1 / n, "baseline_propagate_1pct");
    bw_emit(json, threads, "baseline_propagate_1pct", n, shape, best_base_1 / n, 0, NULL);
    bw_emit(json, threads, "propagate_none", n, shape, best_none / n, 0, NULL);
    if (n >= 2) {
        bw_emit(json, threads, "churn_first_update", n, shape, relinearize / n, 0, NULL);
        bw_emit(json, threads, "propagate_all_churned", n, shape, best_churned / n, best_base_churned / n,
                "baseline_propagate_all");
    }
    /* What first touching that much fresh memory costs on this machine: a floor under `create`, which
     * has to write every byte of a new world at least once. */
    double best_touch = 1e300;
    for (int rep = 0; rep < 3; rep++) {
        size_t size = (size_t)(bytes * n);
        double t0 = bw_now();
        unsigned char *volatile block = malloc(size);
        if (!block) break;
        memset(block, 1, size);
        double t = bw_now() - t0;
        if (block[size / 2] == 1 && t < best_touch) best_touch = t;
        free(block);
    }
    if (best_touch < 1e300) bw_emit(json, threads, "baseline_first_touch", n, shape, best_touch / n, 0, NULL);
    if (json) {
        printf("{\"name\": \"bytes_per_entity\", \"n\": %u, \"shape\": \"%s\", \"value\": %.1f}\n", n, shape, bytes);
        printf("{\"name\": \"bytes_per_entity_cold\", \"n\": %u, \"shape\": \"%s\", \"value\": %.1f}\n", n, shape,
               bytes_cold);
    } else {
        printf("  %-26s %12.1f bytes\n", "bytes_per_entity", bytes);
        printf("  %-26s %12.1f bytes\n", "bytes_per_entity_cold", bytes_cold);
    }
    fflush(stdout);

    orr_world_destroy(w);
    bw_free_scene(&sc);
    free(h);
    free(touched);
    free(tmp);
    free(chunk_end);
    return 0;
}

int orr_tool_bench_world(int argc, char **argv)
{
    uint32_t n = 100000, reps = 0, threads = 1;
    bool json = false, wide = true, deep = true, ended = false;
    for (int i = 1; i < argc; i++) {
        if (tool_arg_kind(argv[i], &ended) == 1) continue;
        if (ended || argv[i][0] != '-') return tool_usage_error("bench world", "unexpected argument '%s'", argv[i]);
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            puts("usage: orrery bench world [--n N] [--shape wide|deep] [--reps R] [--threads T] [--json]\n"
                 "  --n N        entities, 1..100000000 (default 100000)\n"
                 "  --shape S    wide: 1000 roots with direct children; deep: chains of 100 levels (default: both)\n"
                 "  --reps R     repetitions, 1..10000, the fastest is reported (default: by N)\n"
                 "  --threads T  threads for the world's passes (orr_workers of T) and for the baselines, which\n"
                 "               then run the same flat loops shared out in fixed chunks, 1..256 (default 1)\n"
                 "  --json       one JSON object per line, baselines included");
            return 0;
        } else if (!strcmp(argv[i], "--n")) {
            if (!tool_opt_u32(argc, argv, &i, 1, 100000000, &n)) return 2;
        } else if (!strcmp(argv[i], "--shape")) {
            const char *v = tool_opt_value(argc, argv, &i);
            if (!v) return 2;
            wide = !strcmp(v, "wide");
            deep = !strcmp(v, "deep");
            if (!wide && !deep) {
                fprintf(stderr, "orrery %s: --shape must be wide or deep (got '%s')\n", argv[0], v);
                return 2;
            }
        } else if (!strcmp(argv[i], "--threads")) {
            if (!tool_opt_u32(argc, argv, &i, 1, 256, &threads)) return 2;
        } else if (!strcmp(argv[i], "--reps")) {
            if (!tool_opt_u32(argc, argv, &i, 1, 10000, &reps)) return 2;
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else {
            return tool_unknown_option("bench world", argv[i]);
        }
    }
    if (reps < 1) reps = n >= 1000000 ? 5 : n >= 100000 ? 15 : 50;
    orr_workers *workers = NULL;
    tool_pool *pool = NULL;
    if (threads > 1 && (orr_workers_create(&(orr_workers_desc){.threads = threads}, &workers, NULL) != ORR_OK ||
                        !(pool = tool_pool_create(threads)))) {
        fprintf(stderr, "orrery bench world: could not start %u threads\n", threads);
        orr_workers_destroy(workers);
        return 1;
    }
    int rc = 0;
    if (wide) rc |= bw_run(n, false, json, (int)reps, workers, pool);
    if (deep) rc |= bw_run(n, true, json, (int)reps, workers, pool);
    tool_pool_destroy(pool);
    orr_workers_destroy(workers);
    return rc;
}
