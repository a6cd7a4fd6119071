/* The live loop over thousands of frames, through the public API as a host drives it: a session whose
 * world changes every frame (moves, hide and show, material swaps, creates, destroys, reparents), meshes
 * added to and removed from the library while frames are in flight (residency), views created and
 * destroyed while frames are in flight, two frames in flight, the validation layer with synchronization
 * validation on. No message may appear, and after the warm-up neither the process's memory (RSS) nor the
 * renderer's GPU memory may keep growing. */
#include "e2e_tests.h"

#include <orrery/frame.h>
#include <orrery/gpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t rss_now(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%lu %lu", &size, &resident), 2);
    fclose(f);
    return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Under AddressSanitizer freed memory waits in its quarantine (a quarter of a gigabyte), so the process's
 * RSS grows for reasons of the sanitizer's own; there the library's own memory (counted by its
 * allocator) is what is held flat, and the RSS check is the plain build's. */
#if defined(__SANITIZE_ADDRESS__)
#define SOAK_RSS_MEANINGFUL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SOAK_RSS_MEANINGFUL 0
#endif
#endif
#ifndef SOAK_RSS_MEANINGFUL
#define SOAK_RSS_MEANINGFUL 1
#endif

static uint32_t validation_messages;

static void count_validation(void *user, orr_log_level level, const char *message)
{
    (void)user;
    if (!strncmp(message, ORR_GPU_VALIDATION_PREFIX, strlen(ORR_GPU_VALIDATION_PREFIX))) validation_messages++;
    if (level >= ORR_LOG_WARNING) fprintf(stderr, "[soak] %s\n", message);
}

/* What an allocator holds (the library's own memory, apart from the driver's and the layer's). */
typedef struct held {
    size_t bytes;
} held;

static void *held_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    held *h = user;
    if (!new_size) {
        free(ptr);
        h->bytes -= old_size;
        return NULL;
    }
    void *p = realloc(ptr, new_size);
    if (p) h->bytes += new_size - (ptr ? old_size : 0);
    return p;
}

typedef struct soak_rng {
    uint64_t s;
} soak_rng;

static uint32_t roll(soak_rng *r, uint32_t n)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)(r->s % n);
}

static orr_mesh_id add_box(orr_assets *a, float size, orr_material_id material)
{
    float pos[24], s = size * 0.5f;
    for (int c = 0; c < 8; c++) {
        pos[c * 3 + 0] = c & 1 ? s : -s;
        pos[c * 3 + 1] = c & 2 ? s : -s;
        pos[c * 3 + 2] = c & 4 ? s : -s;
    }
    static const uint32_t idx[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                     2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    orr_primitive_desc p = {.vertex_count = 8, .positions = pos, .index_count = 36, .indices = idx, .material = material};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &p}, &id), ORR_OK);
    return id;
}

static orr_view_id add_view(orr_renderer *r, orr_target_id target, uint32_t slot, orr_strategy strategy)
{
    orr_mat4d pose;
    orr_mat4d_from_trs((orr_vec3d){slot * 2.0, 6, 18},
                       orr_quatd_look_rotation((orr_vec3d){-(double)slot * 2.0, -6, -18}, (orr_vec3d){0, 1, 0}), ORR_VEC3_ONE,
                       &pose);
    orr_view_desc vd = {.target = target, .slot = slot, .viewport = {slot % 2 ? 32 : 0, 0, 32, 48}, .pose = pose,
                        .strategy = strategy, .order = slot % 2 ? ORR_ORDER_HIERARCHY : ORR_ORDER_MESH};
    orr_view_id id;
    assert_int_equal(orr_renderer_create_view(r, &vd, &id), ORR_OK);
    return id;
}

void test_soak_live_loop(void **state)
{
    (void)state;
    const char *env = getenv("ORRERY_SOAK_FRAMES");
    uint32_t frames = env ? (uint32_t)atoi(env) : 2000;
    held session_held = {0}, renderer_held = {0};
    orr_session *session;
    assert_int_equal(orr_session_create(&(orr_session_desc){.allocator = {held_realloc, &session_held}}, &session, NULL), ORR_OK);
    orr_world *w = orr_session_world(session);
    orr_assets *a = orr_session_assets(session);
    orr_material_id mats[3];
    for (int k = 0; k < 3; k++) {
        orr_material m = orr_material_default();
        m.base_color[k] = 0.2f;
        if (k == 2) m.alpha_mode = ORR_ALPHA_BLEND, m.base_color[3] = 0.5f;
        assert_int_equal(orr_assets_add_material(a, &m, &mats[k]), ORR_OK);
    }
    orr_mesh_id meshes[6] = {add_box(a, 1.0f, mats[0]), add_box(a, 0.5f, mats[1])};
    uint32_t mesh_count = 2;
    soak_rng rng = {0x5eed5eed5eedull};
    orr_entity live[400];
    uint32_t live_count = 0;

    validation_messages = 0;
    orr_renderer *r;
    orr_error err;
    bool novalidation = getenv("ORRERY_SOAK_NOVALIDATION") != NULL; /* to tell the layer's memory from ours */
    orr_renderer_desc rd = {.validation = !novalidation, .validate_synchronization = !novalidation,
                            .logger = {count_validation, NULL}, .allocator = {held_realloc, &renderer_held}};
    assert_int_equal(orr_renderer_create(&rd, &r, &err), ORR_OK);
    orr_library_id library;
    assert_int_equal(orr_renderer_bind_library(r, a, &library), ORR_OK);
    orr_target_id target;
    assert_int_equal(orr_renderer_create_target(r, &(orr_target_desc){.width = 64, .height = 48, .samples = 1}, &target), ORR_OK);
    orr_view_id views[2] = {add_view(r, target, 0, ORR_STRATEGY_INDIRECT), add_view(r, target, 1, ORR_STRATEGY_BATCHED)};

    uint64_t rss_early = 0, rss_late = 0, gpu_early = 0, gpu_late = 0, structural = 0;
    size_t held_early = 0, held_late = 0;
    uint32_t warm = frames * 15 / 100, half = frames / 2;
    for (uint32_t f = 0; f < frames; f++) {
        /* the world changes */
        uint32_t ops = 1 + roll(&rng, 8);
        for (uint32_t k = 0; k < ops; k++) {
            uint32_t op = roll(&rng, 100);
            orr_entity e = live_count ? live[roll(&rng, live_count)] : ORR_ENTITY_NONE;
            if (op < 50 && e.generation) {
                orr_entity_set_translation(w, e, (orr_vec3d){roll(&rng, 17) - 8.0, roll(&rng, 5), roll(&rng, 17) - 8.0});
            } else if (op < 60 && e.generation) {
                orr_mesh_renderer *mr = orr_mesh_renderer_edit(w, e);
                if (mr) mr->visible = !mr->visible;
            } else if (op < 68 && e.generation) {
                if (orr_component_has(w, e, ORR_COMPONENT_MESH_RENDERER))
                    assert_int_equal(orr_mesh_renderer_set_material(w, e, 0, mats[roll(&rng, 3)]), ORR_OK);
            } else if (op < 78 && live_count < 250) {
                orr_transform t = orr_transform_identity();
                t.translation = (orr_vec3d){roll(&rng, 17) - 8.0, 0, roll(&rng, 17) - 8.0};
                orr_entity parent = roll(&rng, 3) == 0 && e.generation ? e : ORR_ENTITY_NONE;
                orr_entity n;
                assert_int_equal(orr_entity_create(w, &(orr_entity_desc){.parent = parent, .local = &t}, &n), ORR_OK);
                orr_mesh_renderer mr = orr_mesh_renderer_default();
                mr.mesh = meshes[roll(&rng, mesh_count)];
                assert_int_equal(orr_component_add(w, n, ORR_COMPONENT_MESH_RENDERER, &mr, NULL), ORR_OK);
                structural++;
            } else if (op < 88 && e.generation && live_count > 100) {
                orr_entity_destroy(w, e);
                structural++;
            } else if (op < 92 && e.generation) {
                orr_entity p = live[roll(&rng, live_count)];
                if (orr_entity_set_parent(w, e, roll(&rng, 2) ? p : ORR_ENTITY_NONE, ORR_KEEP_WORLD) == ORR_OK) structural++;
            }
            /* who is alive now (destroys take subtrees) */
            live_count = 0;
            orr_subtree_iter it;
            orr_subtree_begin(w, ORR_ENTITY_NONE, &it);
            for (orr_entity x; orr_subtree_next(&it, &x);)
                if (live_count < 400) live[live_count++] = x;
            orr_subtree_end(&it);
        }
        /* residency: a mesh added now and then, an older one removed (its instances then stale) */
        if (f % 40 == 20) {
            if (mesh_count == 6) {
                assert_int_equal(orr_assets_remove_mesh(a, meshes[2]), ORR_OK);
                memmove(&meshes[2], &meshes[3], 3 * sizeof meshes[0]);
                mesh_count--;
            }
            meshes[mesh_count++] = add_box(a, 0.3f + 0.1f * roll(&rng, 8), mats[roll(&rng, 3)]);
        }
        /* views: one replaced now and then, while the previous frames are in flight */
        if (f % 100 == 50) {
            uint32_t k = roll(&rng, 2);
            assert_int_equal(orr_renderer_destroy_view(r, views[k]), ORR_OK);
            views[k] = add_view(r, target, k, roll(&rng, 2) ? ORR_STRATEGY_INDIRECT : ORR_STRATEGY_DIRECT);
        }
        assert_int_equal(orr_session_run_frame(session, 1.0 / 60.0), ORR_OK);
        orr_render_stats st;
        orr_render_desc desc = {.target = target, .snapshot = orr_session_snapshot(session)};
        if (orr_renderer_render(r, &desc, &st) != ORR_OK) fail_msg("frame %u: %s", f, orr_renderer_last_error(r)->message);
        if (f >= warm && f < half) {
            uint64_t rss = rss_now();
            if (rss > rss_early) rss_early = rss;
            if (st.memory.gpu_bytes > gpu_early) gpu_early = st.memory.gpu_bytes;
            if (session_held.bytes + renderer_held.bytes > held_early) held_early = session_held.bytes + renderer_held.bytes;
        } else if (f >= half) {
            if (session_held.bytes + renderer_held.bytes > held_late) held_late = session_held.bytes + renderer_held.bytes;
            uint64_t rss = rss_now();
            if (rss > rss_late) rss_late = rss;
            if (st.memory.gpu_bytes > gpu_late) gpu_late = st.memory.gpu_bytes;
        }
    }
    assert_int_equal(orr_renderer_finish(r, NULL), ORR_OK);
    print_message("soak: %u frames, %llu structural changes; peak RSS %.1f MB then %.1f MB, GPU memory %.2f MB then "
                  "%.2f MB, the library's own memory %.2f MB then %.2f MB\n",
                  frames, (unsigned long long)structural, rss_early / 1e6, rss_late / 1e6, gpu_early / 1e6, gpu_late / 1e6,
                  held_early / 1e6, held_late / 1e6);
    orr_renderer_destroy(r);
    orr_session_destroy(session);
    assert_int_equal(validation_messages, 0);
    assert_true(gpu_late <= gpu_early);
    assert_true(held_late <= held_early);
    if (SOAK_RSS_MEANINGFUL) assert_true(rss_late <= rss_early + (2u << 20)); /* malloc's own noise: 2 MiB */
}
