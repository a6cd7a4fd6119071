/* The render thread (orr_session_desc.render_thread): the present callback runs on a thread of the
 * session's own, one frame behind at most, and sees every extracted snapshot, in order, none skipped,
 * each equal field for field to the snapshot an unthreaded session of the same world presents; over
 * frames of random changes (test_incremental.c's: moves, edits, renames, joints, morph weights, fur,
 * creates, destroys, reparents, clones), with the asset library changed between frames and by a system,
 * the world replaced while frames are in flight, a failed extraction, and the session destroyed with a
 * frame still queued. Run under ThreadSanitizer in CI (the frame entry). */
#include "frame_tests.h"
#include "frame/frame_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KEEP 8 /* expected snapshots kept: the render thread is at most two frames behind the caller */

typedef struct watcher {
    pthread_t caller;
    orr_snapshot expected[KEEP]; /* the unthreaded session's frame f in expected[f % KEEP] */
    bool threaded;
    const struct watcher *reference; /* the threaded one's: the unthreaded watcher */
    uint64_t last_frame, presents, mismatches, off_thread, on_caller, gaps;
    const orr_snapshot *slots[4]; /* the distinct snapshots presented (the ring's slots) */
    uint32_t slot_count;
    uint64_t vertices; /* read from the asset library, so that a race with its changes would show */
} watcher;

static void watch(void *user, const orr_snapshot *s, const orr_assets *assets)
{
    watcher *wt = user;
    if (pthread_equal(pthread_self(), wt->caller)) wt->on_caller++;
    else wt->off_thread++;
    if (s->frame != wt->last_frame + 1) wt->gaps++;
    wt->last_frame = s->frame;
    wt->presents++;
    bool seen = false;
    for (uint32_t k = 0; k < wt->slot_count; k++) seen = seen || wt->slots[k] == s;
    if (!seen && wt->slot_count < 4) wt->slots[wt->slot_count++] = s;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const orr_mesh *m = orr_assets_try_get_mesh(assets, s->instances[i].mesh);
        if (m) wt->vertices += m->primitive_count ? m->primitives[0].vertex_count : 0;
    }
    if (wt->threaded) {
        if (s->frame % 16 == 0) { /* now and then slower than the caller: the ring's other slots are used */
            struct timespec t = {0, 20000000};
            nanosleep(&t, NULL);
        }
        if (!orr_snapshot_equal(s, &wt->reference->expected[s->frame % KEEP])) wt->mismatches++;
    } else {
        assert_int_equal(orr_snapshot_copy(s, &wt->expected[s->frame % KEEP]), ORR_OK);
    }
}

/* A system that adds a material every 97 ticks (it says it edits the library). */
static void add_material(void *user, orr_world *w, orr_assets *a, uint64_t tick, double step)
{
    (void)user, (void)w, (void)step;
    if (tick % 97) return;
    orr_material m = orr_material_default();
    m.base_color[1] = (float)(tick % 7) / 7.0f;
    orr_material_id id;
    assert_int_equal(orr_assets_add_material(a, &m, &id), ORR_OK);
}

static orr_session *watched(watcher *wt, bool threaded, bool asset_system)
{
    memset(wt, 0, sizeof *wt);
    wt->caller = pthread_self();
    wt->threaded = threaded;
    for (int k = 0; k < KEEP; k++) orr_snapshot_init(&wt->expected[k], NULL);
    orr_session *s;
    assert_int_equal(orr_session_create(&(orr_session_desc){.present = watch, .present_user = wt, .render_thread = threaded,
                                                            .threads = 1},
                                        &s, NULL),
                     ORR_OK);
    assert_int_equal(orr_session_threaded(s), threaded);
    if (asset_system) /* (with it, ticks wait for the render thread: no overlap) */
        assert_int_equal(orr_session_add_system(s, &(orr_system_desc){add_material, NULL, NULL, .edits_assets = true}),
                         ORR_OK);
    return s;
}

static void unwatch(watcher *wt)
{
    for (int k = 0; k < KEEP; k++) orr_snapshot_fini(&wt->expected[k]);
}

void test_render_thread_same_snapshots(void **state)
{
    (void)state;
    const char *env = getenv("ORRERY_RENDER_THREAD_FRAMES");
    uint32_t frames = env ? (uint32_t)atoi(env) : 2000;
    watcher *plain = calloc(1, sizeof *plain), *threaded = calloc(1, sizeof *threaded);
    assert_non_null(plain);
    assert_non_null(threaded);
    for (int with_system = 0; with_system < 2; with_system++, frames /= 4) {
    orr_session *a = watched(plain, false, with_system), *b = watched(threaded, true, with_system);
    threaded->reference = plain;
    /* the same seed: the same worlds, operation for operation */
    orrt_random_world *ra = orrt_random_world_create(orr_session_world(a), orr_session_assets(a), 0xfeedf00dull);
    orrt_random_world *rb = orrt_random_world_create(orr_session_world(b), orr_session_assets(b), 0xfeedf00dull);
    uint32_t replaced = 0, asset_edits = 0;
    for (uint32_t f = 1; f <= frames; f++) {
        if (f > 1 && f % 100 < 50) { /* half the frames change anything, half only move things */
            orrt_random_world_step(ra);
            orrt_random_world_step(rb);
        } else if (f > 1) {
            orrt_random_world_move(ra);
            orrt_random_world_move(rb);
        }
        if (f % 250 == 125) { /* the world replaced while the frames before are in flight */
            orrt_random_world_replace(ra);
            orrt_random_world_replace(rb);
            replaced++;
        }
        if (f % 60 == 30) { /* the host changes the library between frames (b's waits for its render thread) */
            orr_material m = orr_material_default();
            orr_material_id ma, mb;
            assert_int_equal(orr_assets_add_material(orr_session_assets(a), &m, &ma), ORR_OK);
            assert_int_equal(orr_assets_add_material(orr_session_assets(b), &m, &mb), ORR_OK);
            assert_true(orr_id_eq(ma, mb));
            asset_edits++;
        }
        double elapsed = (f % 3) ? 1.0 / 60.0 : 1.0 / 30.0;
        assert_int_equal(orr_session_run_frame(a, elapsed), ORR_OK); /* presents frame f now */
        assert_int_equal(orr_session_run_frame(b, elapsed), ORR_OK); /* hands frame f over */
        assert_true(orr_snapshot_equal(orr_session_snapshot(a), orr_session_snapshot(b)));
        /* the render thread is at most one frame behind once the caller hands the next one over */
        assert_true(orr_session_presented(b) + 2 >= f);
    }
    orr_session_flush(b);
    assert_int_equal(orr_session_presented(b), frames);
    uint64_t whole, in_place;
    orri_handover_fills(orri_session_handover(b), &whole, &in_place);
    print_message("render thread%s: %u frames, %u worlds replaced, %u library changes between frames; presented on the "
                  "render thread %llu, on the caller's %llu; slots filled in place %llu, whole %llu; %llu mismatches, %llu gaps, %u slots\n",
                  with_system ? " (a system changes the library)" : "", frames, replaced, asset_edits, (unsigned long long)threaded->off_thread,
                  (unsigned long long)threaded->on_caller, (unsigned long long)in_place, (unsigned long long)whole,
                  (unsigned long long)threaded->mismatches,
                  (unsigned long long)threaded->gaps, threaded->slot_count);
    assert_true(in_place > frames / 3); /* the changes-only path really ran */
    if (!with_system) assert_int_equal(threaded->slot_count, 3); /* the ring's three slots all drawn */
    assert_int_equal(threaded->mismatches, 0);
    assert_int_equal(threaded->gaps, 0);
    assert_int_equal(threaded->presents, frames);
    assert_int_equal(threaded->off_thread, frames);
    assert_int_equal(plain->on_caller, frames);
    assert_int_equal(threaded->vertices, plain->vertices);
    orrt_random_world_destroy(ra);
    orrt_random_world_destroy(rb);
    orr_session_destroy(a);
    orr_session_destroy(b);
    unwatch(plain);
    unwatch(threaded);
    }
    free(plain);
    free(threaded);
}

/* A slow present: the caller waits for it only when it is a whole frame behind. */
typedef struct slow {
    uint64_t presents, last_frame, gaps;
} slow;

static void slow_present(void *user, const orr_snapshot *s, const orr_assets *assets)
{
    (void)assets;
    slow *sl = user;
    if (s->frame != sl->last_frame + 1) sl->gaps++;
    sl->last_frame = s->frame;
    struct timespec t = {0, 2000000}; /* 2 ms */
    nanosleep(&t, NULL);
    sl->presents++;
}

/* An allocator that refuses every allocation while `refuse` is set. */
typedef struct gate {
    bool refuse;
} gate;

static void *gate_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    (void)old_size;
    gate *g = user;
    if (!new_size) {
        free(ptr);
        return NULL;
    }
    return __atomic_load_n(&g->refuse, __ATOMIC_SEQ_CST) ? NULL : realloc(ptr, new_size);
}

void test_render_thread_contract(void **state)
{
    (void)state;
    orr_session *s;
    orr_error err = {0};
    /* a server never presents: no render thread */
    assert_int_equal(orr_session_create(&(orr_session_desc){.profile = ORR_PROFILE_DEDICATED_SERVER, .render_thread = true},
                                        &s, &err),
                     ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "render_thread"));

    /* destroy presents every frame handed over, the last one included */
    slow sl = {0};
    gate g = {0};
    assert_int_equal(orr_session_create(&(orr_session_desc){.allocator = {gate_realloc, &g}, .present = slow_present,
                                                            .present_user = &sl, .render_thread = true},
                                        &s, NULL),
                     ORR_OK);
    orrt_random_world *rw = orrt_random_world_create(orr_session_world(s), orr_session_assets(s), 77);
    for (int f = 0; f < 20; f++) {
        orrt_random_world_step(rw);
        assert_int_equal(orr_session_run_frame(s, 1.0 / 60.0), ORR_OK);
    }
    /* a failed extraction: no frame handed over, the next one taken whole, none lost after it */
    orr_session_flush(s);
    orrt_random_world_replace(rw);
    __atomic_store_n(&g.refuse, true, __ATOMIC_SEQ_CST);
    orr_result r = orr_session_run_frame(s, 1.0 / 60.0);
    __atomic_store_n(&g.refuse, false, __ATOMIC_SEQ_CST);
    assert_int_equal(r, ORR_ERROR_OUT_OF_MEMORY);
    assert_int_equal(orr_session_presented(s), 20);
    for (int f = 0; f < 10; f++) {
        orrt_random_world_step(rw);
        assert_int_equal(orr_session_run_frame(s, 1.0 / 60.0), ORR_OK);
    }
    uint64_t extracted = orr_session_extractions(s);
    assert_int_equal(extracted, 30);
    orr_session_destroy(s); /* frames still in flight */
    assert_int_equal(sl.presents, 30);
    assert_int_equal(sl.gaps, 0);
    orrt_random_world_destroy(rw);
}
