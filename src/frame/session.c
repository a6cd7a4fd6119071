/* The session: a world, an asset library, a fixed-step clock and a profile. */
#include "core/internal.h"
#include "frame/frame_internal.h"

#include <math.h>
#include <orrery/anim.h>
#include <orrery/frame.h>


struct orr_session {
    orr_allocator allocator;
    uint32_t alive; /* ORRI_ALIVE until destroyed */
    orr_logger logger;
    orr_error error;
    orr_profile profile;
    double step;
    uint32_t max_ticks_per_frame;
    orr_present_fn present;
    void *present_user;
    orr_world *world;
    orr_assets *assets;
    ORRI_VEC(orr_system_desc) systems; /* in the order added: the order they run */
    double accumulator; /* due time not yet ticked */
    uint64_t tick;
    uint64_t extractions;
    orr_snapshot snapshot;    /* updated in place each presented frame */
    orr_extractor *extractor; /* its bookkeeping, beside it */
    orri_handover *handover;  /* the render thread (orr_session_desc.render_thread), or NULL */
    bool interpolate;         /* orr_session_desc.interpolate */
    bool asset_systems;       /* a system edits the asset library (orr_system_desc.edits_assets) */
};

orr_result orr_session_create(const orr_session_desc *desc, orr_session **out, orr_error *err)
{
    ORRI_REQUIRE(out, err, "orr_session_create: out is required");
    orr_session_desc d = desc ? *desc : (orr_session_desc){0};
    orr_allocator alloc = orri_allocator_or_default(&d.allocator);
    orr_session *s = orri_alloc(&alloc, sizeof *s);
    if (!s) return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "orr_session_create: out of memory for the session");
    s->allocator = alloc;
    s->alive = ORRI_ALIVE;
    s->logger = d.logger;
    s->profile = d.profile;
    s->step = d.fixed_step > 0.0 ? d.fixed_step : 1.0 / 60.0;
    s->max_ticks_per_frame = d.max_ticks_per_frame;
    s->present = d.present;
    s->present_user = d.present_user;
    s->interpolate = d.interpolate;
    orr_snapshot_init(&s->snapshot, &alloc);
    orr_result r = orr_world_create(&(orr_world_desc){.allocator = alloc, .logger = d.logger,
                                                      .entity_capacity = d.entity_capacity, .workers = d.workers,
                                                      .threads = d.threads, .parallel_from = d.parallel_from},
                                 &s->world, err);
    if (r == ORR_OK)
        r = orr_assets_create(&(orr_assets_desc){.allocator = alloc, .logger = d.logger}, &s->assets, err);
    if (r == ORR_OK) r = orr_extractor_create(&alloc, &s->extractor, err);
    if (r == ORR_OK && d.render_thread) {
        if (d.profile != ORR_PROFILE_PRESENTING)
            r = orri_error(err, ORR_ERROR_INVALID_ARGUMENT,
                           "orr_session_create: render_thread needs the presenting profile (a server never presents)");
        else
            r = orri_handover_create(&alloc, d.present, d.present_user, s->assets, &s->handover, err);
    }
    if (r != ORR_OK) { /* err names the part, in its own words: "orr_world_create: ..." */
        orr_session_destroy(s);
        return r;
    }
    *out = s;
    return ORR_OK;
}

void orr_session_destroy(orr_session *s)
{
    if (!s) return;
    ORRI_DESTROY_ONCE(s, "orr_session_destroy");
    ORRI_ASSERT(!orri_handover_on_render_thread(s->handover),
                "orr_session_destroy: called from the render thread (the present callback)");
    orri_handover_destroy(s->handover); /* presents what was handed over, then stops the thread */
    orr_snapshot_fini(&s->snapshot);
    orr_extractor_destroy(s->extractor);
    /* The world refers to assets by id only, so the order does not matter; world first reads best. */
    orr_world_destroy(s->world);
    orr_assets_destroy(s->assets);
    for (uint32_t i = 0; i < s->systems.count; i++)
        if (s->systems.items[i].release) s->systems.items[i].release(s->systems.items[i].user);
    ORRI_VEC_FREE(&s->allocator, &s->systems);
    orr_allocator alloc = s->allocator;
    orri_free(&alloc, s, sizeof *s);
}

const orr_error *orr_session_last_error(const orr_session *s) { return &s->error; }
orr_world *orr_session_world(orr_session *s) { return s->world; }
orr_assets *orr_session_assets(orr_session *s)
{
    /* With a render thread, the library is the host's to change once the thread has presented every
     * frame handed over: it then idles until the next orr_session_run_frame hands it one. */
    if (s->handover) orri_handover_flush(s->handover);
    return s->assets;
}

const orr_assets *orr_session_assets_const(const orr_session *s) { return s->assets; }

void orr_session_flush(orr_session *s)
{
    ORRI_ASSERT(s, "orr_session_flush: session is NULL");
    if (s && s->handover) orri_handover_flush(s->handover);
}

orri_handover *orri_session_handover(orr_session *s) { return s->handover; }

bool orr_session_threaded(const orr_session *s) { return s->handover != NULL; }

uint64_t orr_session_presented(const orr_session *s)
{
    return s->handover ? orri_handover_presented(s->handover) : s->extractions;
}
uint64_t orr_session_tick(const orr_session *s) { return s->tick; }
uint64_t orr_session_extractions(const orr_session *s) { return s->extractions; }
const orr_snapshot *orr_session_snapshot(const orr_session *s) { return &s->snapshot; }

orr_result orr_session_add_system(orr_session *s, const orr_system_desc *system)
{
    ORRI_REQUIRE(s, NULL, "orr_session_add_system: session is NULL");
    ORRI_REQUIRE(system && system->fn, &s->error, "orr_session_add_system: a system with fn is required");
    orr_system_desc *added = ORRI_VEC_PUSH(&s->allocator, &s->systems);
    if (!added) return orri_error(&s->error, ORR_ERROR_OUT_OF_MEMORY, "session: out of memory adding a system");
    *added = *system;
    if (system->edits_assets) s->asset_systems = true;
    return ORR_OK;
}

/* With a render thread, a system that edits the asset library runs only once the render thread has
 * presented what it was handed (it reads the library meanwhile). */
static void before_ticks(orr_session *s)
{
    if (s->handover && s->asset_systems) orri_handover_flush(s->handover);
}

/* One tick: user systems, then animation from the tick count, then transform propagation. */
static void run_tick(orr_session *s)
{
    s->tick++;
    for (uint32_t i = 0; i < s->systems.count; i++)
        s->systems.items[i].fn(s->systems.items[i].user, s->world, s->assets, s->tick, s->step);
    orr_anim_apply(s->world, s->assets, s->tick, s->step);
    orr_world_update_transforms(s->world);
}

orr_result orr_session_run_ticks(orr_session *s, uint64_t count)
{
    ORRI_REQUIRE(s, NULL, "orr_session_run_ticks: session is NULL");
    if (count) before_ticks(s);
    for (uint64_t i = 0; i < count; i++) run_tick(s);
    return ORR_OK;
}

orr_result orr_session_skip_ticks(orr_session *s, uint64_t count)
{
    ORRI_REQUIRE(s, NULL, "orr_session_skip_ticks: session is NULL");
    for (uint32_t i = 0; i < s->systems.count; i++)
        if (!s->systems.items[i].tick_only)
            return orri_error(&s->error, ORR_ERROR_UNSUPPORTED,
                              "skip_ticks: system %u is not tick_only: its ticks cannot be skipped", i);
    if (count > UINT64_MAX - s->tick)
        return orri_error(&s->error, ORR_ERROR_INVALID_ARGUMENT, "skip_ticks: %llu ticks overflow the tick count",
                          (unsigned long long)count);
    if (!count) return ORR_OK;
    before_ticks(s);
    s->tick += count - 1; /* run_tick counts the last one */
    run_tick(s);
    return ORR_OK;
}

orr_result orr_session_run_frame(orr_session *s, double elapsed)
{
    ORRI_REQUIRE(s, NULL, "orr_session_run_frame: session is NULL");
    ORRI_ASSERT(!orri_handover_on_render_thread(s->handover),
                "orr_session_run_frame: called from the render thread (the present callback)");
    /* A day of simulation per frame is already far past any real frame; beyond it the tick count
     * would stop being exact in a double. */
    if (!(elapsed >= 0.0) || !(elapsed <= 86400.0))
        return orri_error(&s->error, ORR_ERROR_INVALID_ARGUMENT,
                          "run_frame: elapsed %g s is not a time in [0, 86400]", elapsed);
    s->accumulator += elapsed;
    uint64_t due = (uint64_t)floor(s->accumulator / s->step + 1e-9);
    if (s->max_ticks_per_frame && due > s->max_ticks_per_frame) {
        orri_log(&s->logger, ORR_LOG_WARNING, "session: %llu ticks due, running %u and dropping the rest",
                 (unsigned long long)due, s->max_ticks_per_frame);
        due = s->max_ticks_per_frame;
        s->accumulator = (double)due * s->step;
    }
    s->accumulator -= (double)due * s->step;
    if (s->accumulator < 0.0) s->accumulator = 0.0;
    if (due) before_ticks(s);
    for (uint64_t i = 0; i < due; i++) run_tick(s);
    orr_world_update_transforms(s->world); /* the host may have edited the world between frames */

    if (s->profile != ORR_PROFILE_PRESENTING) {
        orr_world_clear_changes(s->world); /* nobody reads the log: keep it empty */
        return ORR_OK;
    }
    orr_result r = orr_extractor_update(s->extractor, s->world, s->assets, s->extractions + 1, s->tick, &s->snapshot);
    if (r != ORR_OK) {
        if (s->handover) orri_handover_invalidate(s->handover);
        return orri_error(&s->error, r, "extraction: %s", orr_result_name(r));
    }
    s->extractions++;
    /* Interpolating, a frame is presented a tick behind the simulation: at lag 1 just after a tick (the
     * poses before it), nearing 0 as the next tick comes due. */
    double lag = s->interpolate ? 1.0 - s->accumulator / s->step : 0.0;
    s->snapshot.lag = lag < 0.0 ? 0.0f : lag > 1.0 ? 1.0f : (float)lag;
    if (s->handover) {
        r = orri_handover_push(s->handover, &s->snapshot, orri_extractor_rebuilt(s->extractor));
        if (r != ORR_OK)
            return orri_error(&s->error, r, "render thread: frame %llu not handed over: %s",
                              (unsigned long long)s->snapshot.frame, orr_result_name(r));
        return ORR_OK;
    }
    if (s->present) s->present(s->present_user, &s->snapshot, s->assets);
    return ORR_OK;
}
