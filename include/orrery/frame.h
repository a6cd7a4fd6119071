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
/* The host's frame callback: the snapshot and assets are borrowed for the call only. */
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
} orr_session_desc;

/* `err` (NULL-able) says why it failed: its world, asset library or extractor could not be made. */
orr_result orr_session_create(const orr_session_desc *desc, orr_session **out, orr_error *err);
void orr_session_destroy(orr_session *session); /* NULL is a no-op */
const orr_error *orr_session_last_error(const orr_session *session);

orr_world *orr_session_world(orr_session *session);
orr_assets *orr_session_assets(orr_session *session);
/* Adds a system; `release` (NULL-able) is called with `user` when the session is destroyed, so a
 * system's state can live exactly as long as the session. Systems run in the order added. */
typedef struct orr_system_desc {
    orr_system_fn fn;
    void *user;
    void (*release)(void *user);
    bool tick_only; /* what the system leaves in the world after tick N follows from N alone, not from
                     * the ticks before it (it sets what it moves from the tick count): ticks before N
                     * may be skipped (orr_session_skip_ticks) */
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
 * (delta_base 0) and the next call builds anew. The instances whose pose alone changed are redone on the
 * world's threads (orr_world_pass_threads) when there are enough; the snapshot, `changed` and its order
 * included, is the same at any thread count. */
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
