/* Orrery frame: the session (world + assets + fixed-step clock + profile) and the extraction of an
 * owned render snapshot.
 *
 *   orr_session_run_frame(elapsed): runs the due ticks (user systems -> animation from the tick count
 *   -> transform propagation) and, only when the profile presents, extracts one snapshot and calls the
 *   host's present callback with the snapshot and the asset library (borrowed for the call). A
 *   dedicated server never extracts: orr_session_extractions stays 0.
 *
 * The session owns its world and asset library; the host reaches them through the accessors and may
 * change them between frames.
 *
 * Threads (orr_session_desc.render_thread). Without a render thread everything runs on the caller's
 * thread: run_frame ticks, extracts, then calls present. With one, the session starts a thread of its
 * own that presents while the caller's thread (the simulation thread) goes on:
 *   - simulation thread: every orr_session_* call, the systems, every change to the world. run_frame
 *     ticks and extracts snapshot N+1 while the render thread presents snapshot N, then hands N+1 over
 *     (waiting only when the render thread is a whole frame behind: it runs at most one frame ahead).
 *   - render thread: the present callback, once per extracted frame, in order, none skipped. Its
 *     snapshot is a copy of the session's (equal field for field, its delta included) owned by the
 *     session's ring and kept up to date by the changes only; it is the callback's until it returns.
 *     The host's renderer belongs to this thread: the callback is where it renders.
 *   - the asset library: both threads read it (extraction and animation; the renderer). The simulation
 *     thread changes it only through orr_session_assets, which first waits until every frame handed
 *     over has been presented; the render thread then idles until the next run_frame, so the pointer
 *     returned may be used for changes until then. Systems that change it say so
 *     (orr_system_desc.edits_assets): ticks wait for the render thread likewise.
 *   - the host's renderer outside the callback (resize a target, read one back, make or destroy views,
 *     destroy the renderer): after orr_session_flush, until the next run_frame.
 *   - orr_session_destroy presents every frame handed over, then stops the thread (the renderer the
 *     callback uses must still be alive then).
 * Neither orr_session_run_frame, orr_session_assets, orr_session_flush nor orr_session_destroy may be
 * called from the present callback (a debug assert). A frame the host's renderer fails is the host's
 * to report; the next frame's snapshot still carries its delta against the failed one, which a renderer
 * that did not draw it takes whole. The images are the same bytes with and without a render thread.
 */
#ifndef ORRERY_FRAME_H
#define ORRERY_FRAME_H

#include <orrery/assets.h>
#include <orrery/snapshot.h>
#include <orrery/world.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum orr_profile {
    ORR_PROFILE_PRESENTING = 0,       /* extracts a snapshot every frame */
    ORR_PROFILE_DEDICATED_SERVER = 1, /* ticks the world, never extracts */
} orr_profile;

typedef struct orr_session orr_session;

/* A user system, run once per tick before animation and propagation. */
typedef void (*orr_system_fn)(void *user, orr_world *world, orr_assets *assets, uint64_t tick, double step);
/* The host's frame callback: the snapshot and assets are borrowed for the call only. With a render
 * thread it runs on that thread (see the top of this header). */
typedef void (*orr_present_fn)(void *user, const orr_snapshot *snapshot, const orr_assets *assets);

/* Defaults (zero-initialised): libc allocator, no logger, presenting profile, step 1/60 s, no limit on
 * ticks per frame, no present callback (the snapshot is still extracted and kept), per-frame passes on
 * threads of the world's own (one per core), started when a frame first has 1024 items to share out. */
typedef struct orr_session_desc {
    orr_allocator allocator;
    orr_logger logger;
    orr_profile profile;
    double fixed_step;            /* seconds */
    uint32_t max_ticks_per_frame; /* 0 = unlimited; extra due time is dropped and logged */
    uint32_t entity_capacity;     /* passed to the world; 0 = unlimited */
    orr_workers *workers;         /* passed to the world (orr_world_desc): the per-frame passes' threads */
    uint32_t threads;
    uint32_t parallel_from;
    orr_present_fn present;
    void *present_user;
    bool interpolate;   /* each presented snapshot carries its lag (orr_snapshot.lag): where the frame
                           falls between the tick before and the last one, for a renderer that
                           interpolates (a renderer made with orr_renderer_desc.interpolate); off:
                           lag 0, the poses of the last tick */
    bool render_thread; /* present on a thread of the session's own (the contract: top of this header);
                           the presenting profile only (else ORR_ERROR_INVALID_ARGUMENT) */
} orr_session_desc;

/* `err` (NULL-able) says why it failed: its world, asset library or extractor could not be made. */
orr_result orr_session_create(const orr_session_desc *desc, orr_session **out, orr_error *err);
void orr_session_destroy(orr_session *session); /* NULL is a no-op */
const orr_error *orr_session_last_error(const orr_session *session);

orr_world *orr_session_world(orr_session *session);
/* The asset library, to change. With a render thread: waits until every frame handed over has been
 * presented (see the top of this header). */
orr_assets *orr_session_assets(orr_session *session);
/* The asset library, to read (no wait; with a render thread, from the simulation thread). */
const orr_assets *orr_session_assets_const(const orr_session *session);
/* With a render thread: waits until every frame handed over has been presented; the thread then idles
 * until the next orr_session_run_frame. Without one: returns at once. */
void orr_session_flush(orr_session *session);
/* Whether the session presents on a render thread. */
bool orr_session_threaded(const orr_session *session);
/* Frames handed to the present callback and returned from it (without a render thread: the extractions). */
uint64_t orr_session_presented(const orr_session *session);
/* Adds a system; `release` (NULL-able) is called with `user` when the session is destroyed, so a
 * system's state can live exactly as long as the session. Systems run in the order added. */
typedef struct orr_system_desc {
    orr_system_fn fn;
    void *user;
    void (*release)(void *user);
    bool tick_only; /* what the system leaves in the world after tick N follows from N alone, not from
                     * the ticks before it (it sets what it moves from the tick count): ticks before N
                     * may be skipped (orr_session_skip_ticks) */
    bool edits_assets; /* the system changes the asset library: with a render thread, ticks wait until
                        * the render thread has presented what it was handed */
} orr_system_desc;
orr_result orr_session_add_system(orr_session *session, const orr_system_desc *system);

/* Advances the clock by `elapsed` seconds, runs the due ticks, then presents (profile permitting). */
orr_result orr_session_run_frame(orr_session *session, double elapsed);
/* Runs exactly `count` ticks without presenting (for tools and tests that need an exact tick). */
orr_result orr_session_run_ticks(orr_session *session, uint64_t count);
/* Advances `count` ticks without presenting, running only the last of them (systems, animation,
 * propagation once): the world's poses, the tick and the next snapshot are those orr_session_run_ticks
 * leaves, when every system added is tick_only (animation reads only the tick count); the world's
 * revision counts the edits made, so it ends lower. ORR_ERROR_UNSUPPORTED, nothing run, when a system
 * is not tick_only: run the ticks one by one then. */
orr_result orr_session_skip_ticks(orr_session *session, uint64_t count);

uint64_t orr_session_tick(const orr_session *session);
uint64_t orr_session_extractions(const orr_session *session);
/* The last extracted snapshot (frame 0 before any: empty). Valid until the next frame. */
const orr_snapshot *orr_session_snapshot(const orr_session *session);

/* Full extraction, the reference: fills `dst` (reusing its storage) from the world's propagated
 * transforms, walking every entity. `previous` (NULL-able, not `dst`) is the snapshot the delta is
 * relative to: changed/removed/layout_version are computed against it by instance id (without it,
 * every instance is changed and delta_base is 0). `frame` and `tick` are recorded. */
orr_result orr_frame_extract(const orr_world *world, const orr_assets *assets, uint64_t frame, uint64_t tick,
                       const orr_snapshot *previous, orr_snapshot *dst);
/* The bookkeeping of incremental extraction, kept beside the snapshot it fills (the snapshot itself is
 * a plain value: orrery/snapshot.h). One extractor serves one snapshot and one world: the snapshot
 * its last successful orr_extractor_update left. A snapshot written by another call since (orr_frame_extract,
 * orr_snapshot_copy, a recording read) must be followed by orr_extractor_reset, or the next update may
 * take it for its own (it notices most such writes, not all). */
typedef struct orr_extractor orr_extractor;
/* allocator NULL: the default. */
orr_result orr_extractor_create(const orr_allocator *allocator, orr_extractor **out, orr_error *err);
void orr_extractor_destroy(orr_extractor *extractor);                                  /* NULL: no-op */
/* The next update builds anew. */
void orr_extractor_reset(orr_extractor *extractor);
/* Incremental extraction: updates `snapshot` in place to the world as it is now, doing only what the
 * world's change log names (orr_world_get_changes), then clears the log. When the structure changed
 * (or the log overflowed, the asset library removed something, or the snapshot is not the one this
 * extractor last updated) it builds anew; either way the snapshot equals what orr_frame_extract would give,
 * and changed/removed are exact against the snapshot as it was before the call (delta_base = its frame).
 * The world's change log must have one reader: this call. On failure the snapshot is left with no delta
 * (delta_base 0) and the next call builds anew. The instances whose pose alone changed, and a build
 * with its comparison, run on the world's threads (orr_world_pass_threads) when there are enough; the
 * snapshot, `changed` and its order included, is the same at any thread count. While the structure
 * changes frame after frame, the extractor keeps the arrays of the snapshot before each build for the
 * next one (memory: two snapshots' arrays until a frame updates in place). */
orr_result orr_extractor_update(orr_extractor *extractor, orr_world *world, const orr_assets *assets, uint64_t frame,
                              uint64_t tick, orr_snapshot *snapshot);
/* orr_snapshot_init, _fini and _copy are the snapshot module's (orrery/snapshot.h). */

/* Records one snapshot (orr_recorder_add_frame) after the resources it draws that the recording lacks:
 * none when orr_recorder_same_layout holds (its instances draw what the last recorded frame's drew);
 * else for each instance whose data changed (every instance when `snapshot` is not a delta against the
 * last recorded frame), its mesh, the materials its primitives and override slots name, and their textures,
 * each encoded by the asset library (orr_assets_encode_*), those named before those naming them. Stale
 * ids are skipped (the renderer skips them too). A material edited after it was recorded is not
 * recorded again. `err` (NULL-able) says what failed. */
orr_result orr_frame_record(orr_recorder *recorder, const orr_snapshot *snapshot, const orr_assets *assets,
                            orr_error *err);

#ifdef __cplusplus
}
#endif
#endif /* ORRERY_FRAME_H */
