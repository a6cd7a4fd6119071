/* bench extract | draw: the per-frame CPU path, each beside a baseline measured in the same run.
 *   extract: world -> snapshot for N MeshRenderer entities: 1000 roots, each created with its share
 *            of children right after it (as instantiating a prefab does); baseline_extract copies the
 *            same poses and ids from flat arrays. --interleaved creates the children round-robin over
 *            the roots instead, so components sit far from pre-order (the slow case).
 *            --moving PCT: PCT percent of the entities move before each timed frame, and both paths
 *            are timed: orr_extract_update (incremental, per changed instance) and orr_extract (full,
 *            per instance), beside baseline_changed_extract, the ideal for the same changes: a 96-byte
 *            pose copied from a flat world array to a flat snapshot array at each changed instance's
 *            place, in the same order; extract_update_none is a frame in which nothing moved.
 *   draw:    orr_draw_prepare for N snapshot instances in mesh order, culling on;
 *            baseline_draw builds one record per instance from flat arrays and sorts them by mesh. */
#include "tool.h"

#include <math.h>
#include <orrery/draw.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void emit(bool json, const char *name, uint32_t n, double ns_per_item)
{
    if (json) printf("{\"name\": \"%s\", \"n\": %u, \"ns_per_item\": %.3f}\n", name, n, ns_per_item);
    else printf("%-20s n=%-9u %10.3f ns/item\n", name, n, ns_per_item);
}

typedef struct flat_record {
    orr_affine3d world;
    uint32_t id, mesh, layers, visible;
} flat_record;

static int cmp_flat(const void *a, const void *b)
{
    const flat_record *x = a, *y = b;
    if (x->mesh != y->mesh) return x->mesh < y->mesh ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* The best of `reps` runs, in ns per item. */
#define TIME_BEST(reps, n, body)                                                                           \
    ({                                                                                                     \
        double best = 1e300;                                                                               \
        for (int rep_ = 0; rep_ < (reps); rep_++) {                                                        \
            double t0_ = now_ns();                                                                         \
            body;                                                                                          \
            double dt_ = now_ns() - t0_;                                                                   \
            if (dt_ < best) best = dt_;                                                                    \
        }                                                                                                  \
        best / (double)(n);                                                                                \
    })

int orr_tool_bench_extract(int argc, char **argv)
{
    bool draw = !strcmp(argv[0], "draw"), json = false, interleaved = false;
    uint32_t n = 100000;
    double moving = -1.0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) json = true;
        else if (!strcmp(argv[i], "--interleaved")) interleaved = true;
        else if (!strcmp(argv[i], "--n")) {
            if (!tool_opt_u32(argc, argv, &i, 1000, 100000000, &n)) return 2;
        } else if (!strcmp(argv[i], "--moving") && !draw) {
            if (!tool_opt_number(argc, argv, &i, 0, 100, &moving)) return 2;
        } else {
            fprintf(stderr, "orrery bench %s: bad option '%s' (--n N >= 1000, --interleaved,%s --json)\n", argv[0],
                    argv[i], draw ? "" : " --moving PCT,");
            return 2;
        }
    }
    orr_session *session;
    if (orr_session_create(NULL, &session) != ORR_OK) return 1;
    orr_world *w = orr_session_world(session);
    orr_assets *assets = orr_session_assets(session);
    static const float tri[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    orr_mesh_id meshes[8];
    for (int m = 0; m < 8; m++) {
        orr_primitive_desc p = {.vertex_count = 3, .positions = tri};
        if (orr_assets_add_mesh(assets, &(orr_mesh_desc){.primitive_count = 1, .primitives = &p}, &meshes[m]) != ORR_OK)
            return 1;
    }
    /* Entity k of root r: k = 0 is the root itself, children stand 0.1 m apart above it. */
    uint32_t made = 0, per_root = n / 1000;
    orr_entity roots[1000];
    /* progress on a terminal, outside the timed parts */
    tool_progress progress;
    tool_progress_begin(&progress, draw ? "bench draw" : "bench extract");
    for (uint32_t i = 0; i < n; i++) {
        if (i % 4096 == 0) tool_progress_update(&progress, "building entities", i, n);
        uint32_t r = interleaved ? i % 1000 : i / per_root, k = interleaved ? i / 1000 : i % per_root;
        if (!interleaved && r >= 1000) r = 999, k = i - 999 * per_root; /* the remainder joins the last root */
        orr_transform t = orr_transform_identity();
        t.translation = k == 0 ? (orr_vec3d){(double)r, 0.0, -10.0 - (double)(r % 7)} : (orr_vec3d){0.0, 0.1 * k, 0.0};
        orr_entity e;
        if (orr_entity_create(w, &(orr_entity_desc){.parent = k ? roots[r] : ORR_ENTITY_NONE, .local = &t}, &e) != ORR_OK)
            return 1;
        if (k == 0) roots[r] = e;
        orr_mesh_renderer mr = orr_mesh_renderer_default();
        mr.mesh = meshes[i % 8];
        if (orr_component_add(w, e, ORR_COMPONENT_MESH_RENDERER, &mr, NULL) != ORR_OK) return 1;
        made++;
    }
    tool_progress_update(&progress, "propagating and extracting", 0, 0);
    orr_world_update_transforms(w);
    orr_snapshot snap;
    orr_snapshot_init(&snap, NULL);
    if (orr_extract(w, assets, 1, 0, NULL, &snap) != ORR_OK) return 1;

    /* the flat arrays the baselines read: the same poses and ids, already in order */
    flat_record *flat = malloc((size_t)n * sizeof *flat), *out = malloc((size_t)n * sizeof *out);
    if (!flat || !out) return 1;
    for (uint32_t i = 0; i < n; i++)
        flat[i] = (flat_record){snap.instances[i].world, snap.instances[i].id, snap.instances[i].mesh.index, 1, 1};

    if (!draw && moving >= 0) {
        uint32_t k = (uint32_t)llround(n * moving / 100.0);
        orr_entity *all = malloc((size_t)n * sizeof *all);
        uint32_t *picks = malloc((size_t)(k ? k : 1) * sizeof *picks), count = 0;
        orr_affine3d *flat_world = malloc((size_t)n * sizeof *flat_world), *flat_snap = malloc((size_t)n * sizeof *flat_snap);
        if (!all || !picks || !flat_world || !flat_snap) return 1;
        orr_subtree_iter it;
        orr_subtree_begin(w, ORR_ENTITY_NONE, &it);
        for (orr_entity e; orr_subtree_next(&it, &e);) all[count++] = e;
        orr_subtree_end(&it);
        for (uint32_t i = 0; i < n; i++) flat_world[i] = flat_snap[i] = snap.instances[i].world;
        orr_snapshot live, full;
        orr_snapshot_init(&live, NULL);
        orr_snapshot_init(&full, NULL);
        orr_world_clear_changes(w);
        if (orr_extract_update(w, assets, 2, 0, &live) != ORR_OK) return 1;
        uint64_t seed = 0x9E3779B97F4A7C15ull;
        double best_inc = 1e300, best_full = 1e300, best_base = 1e300, best_none = 1e300, best_changed = 0;
        for (int rep = 0; rep < 20; rep++) {
            tool_progress_update(&progress, "moving frames", (uint64_t)rep, 20);
            for (uint32_t j = 0; j < k; j++) {
                seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
                picks[j] = (uint32_t)(seed % count);
                orr_transform t;
                orr_entity_get_local(w, all[picks[j]], &t);
                t.translation.z += rep % 2 ? 0.5 : -0.5;
                orr_entity_set_translation(w, all[picks[j]], t.translation);
            }
            orr_world_update_transforms(w);
            double t0 = now_ns();
            if (orr_extract_update(w, assets, 3 + rep, 0, &live) != ORR_OK) return 1;
            double t1 = now_ns();
            if (orr_extract(w, assets, 3 + rep, 0, NULL, &full) != ORR_OK) return 1;
            double t2 = now_ns();
            for (uint32_t j = 0; j < k; j++) flat_snap[picks[j]] = flat_world[(picks[j] * 2654435761u) % n];
            __asm__ volatile("" ::"r"(flat_snap) : "memory");
            double t3 = now_ns();
            uint32_t moved_changed = live.changed_count;
            if (orr_extract_update(w, assets, 100 + rep, 0, &live) != ORR_OK) return 1; /* nothing moved */
            double t4 = now_ns();
            if (t1 - t0 < best_inc) best_inc = t1 - t0, best_changed = moved_changed;
            if (t2 - t1 < best_full) best_full = t2 - t1;
            if (t3 - t2 < best_base) best_base = t3 - t2;
            if (t4 - t3 < best_none) best_none = t4 - t3;
        }
        tool_progress_end(&progress);
        double changed = best_changed; /* of the frame whose time is reported */
        double per_changed = changed ? best_inc / changed : 0;
        if (json) {
            printf("{\"name\": \"extract_update\", \"n\": %u, \"moving\": %g, \"changed\": %.0f, \"ns_per_item\": %.3f}\n", n,
                   moving, changed, per_changed);
            printf("{\"name\": \"extract_full\", \"n\": %u, \"ns_per_item\": %.3f}\n", n, best_full / n);
            printf("{\"name\": \"baseline_changed_extract\", \"n\": %u, \"changed\": %u, \"ns_per_item\": %.3f}\n", n, k,
                   k ? best_base / k : 0.0);
            printf("{\"name\": \"extract_update_none\", \"n\": %u, \"value\": %.1f, \"unit\": \"ns per frame\"}\n", n, best_none);
        } else {
            printf("extract_update     n=%-9u %10.1f ns per changed instance (%.0f changed, %.3f ms)\n", n, per_changed,
                   changed, best_inc * 1e-6);
            printf("extract_full       n=%-9u %10.1f ns per instance (%.3f ms)\n", n, best_full / n, best_full * 1e-6);
            printf("baseline_changed_extract %4u moves %10.1f ns per change\n", k, k ? best_base / k : 0.0);
            printf("extract_update_none         %10.1f ns (nothing moved)\n", best_none);
        }
        orr_snapshot_fini(&live);
        orr_snapshot_fini(&full);
        free(all);
        free(picks);
        free(flat_world);
        free(flat_snap);
    } else if (!draw) {
        orr_snapshot next;
        orr_snapshot_init(&next, NULL);
        tool_progress_update(&progress, "timing extract", 0, 0);
        double ns = TIME_BEST(5, n, orr_extract(w, assets, 2, 0, &snap, &next));
        double base = TIME_BEST(5, n, {
            for (uint32_t i = 0; i < n; i++) out[i] = flat[i];
            __asm__ volatile("" ::"r"(out) : "memory");
        });
        tool_progress_end(&progress);
        emit(json, "extract", n, ns);
        emit(json, "baseline_extract", n, base);
        orr_snapshot_fini(&next);
    } else {
        orr_draw_list list;
        orr_draw_list_init(&list, NULL);
        orr_draw_view v = {.cull = true, .layer_mask = ORR_LAYERS_ALL, .order = ORR_ORDER_MESH};
        orr_mat4d_identity(&v.view);
        orr_mat4d_perspective_reversed_infinite(1.2, 1.0, 0.1, &v.proj);
        v.origin = (orr_vec3d){500, 50, 600};
        tool_progress_update(&progress, "timing draw_prepare", 0, 0);
        double ns = TIME_BEST(5, n, orr_draw_prepare(&list, &snap, assets, &v));
        double base = TIME_BEST(5, n, {
            memcpy(out, flat, (size_t)n * sizeof *out);
            qsort(out, n, sizeof *out, cmp_flat);
        });
        tool_progress_end(&progress);
        emit(json, "draw_prepare", n, ns);
        emit(json, "baseline_draw", n, base);
        if (!json) printf("(%u of %u instances visible, %u batches)\n", list.stats.visible, n, list.stats.batches);
        orr_draw_list_fini(&list);
    }
    free(flat);
    free(out);
    orr_snapshot_fini(&snap);
    orr_session_destroy(session);
    return made == n ? 0 : 1;
}
