/* Lights and cameras between ticks. Instances blend in the vertex stage from a motion record per slot
 * (gpu_scene.c, vertex.glsl); lights and cameras are few and go up whole every frame (the views' blocks
 * and light records), so they blend here, on the CPU, by the same rule: one that changed at the
 * snapshot's tick stands at the blend of the pose it held before and its current one, translation
 * linear, rotation by normalised quaternion and scale linear, so that a camera that follows a body (or a
 * light carried by one) moves with it frame by frame. */
#include "gpu/gpu_motion.h"

#include "gpu/gpu_error.h"
#include "gpu/gpu_scene.h"

#include <stddef.h>
#include <string.h>

#define NO_TICK UINT64_MAX

/* The earlier entry of `entity` (the one at `hint` first: lights and cameras keep their order from frame
 * to frame unless the world's structure changes), or NULL. */
static const orri_pose_motion *find(const orri_pose_motions *m, uint32_t hint, orr_entity entity)
{
    if (hint < m->count && orr_entity_eq(m->items[hint].entity, entity)) return &m->items[hint];
    /* A search when the order changed: over the few lights or cameras, not the instances. */
    for (uint32_t k = 0; k < m->count; k++)
        if (orr_entity_eq(m->items[k].entity, entity)) return &m->items[k];
    return NULL;
}

/* The entries of this snapshot's `count` poses (entity and world `stride` bytes apart), from the
 * earlier ones: a pose that differs from the one held moves that to `before`, at `tick`. `*any`: whether
 * any changed at `tick`. Out of memory: nothing is kept (the next frame starts over, no pose blended). */
static orr_result track(orr_renderer *r, orri_pose_motions *m, const uint8_t *first, size_t stride, size_t entity_at,
                        size_t world_at, uint32_t count, uint64_t tick, bool *any_out)
{
    *any_out = false;
    if (count > m->spare_capacity && !ORRI_GROW(&r->allocator, m->spare, m->spare_capacity, count)) {
        m->count = 0;
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for the poses of %u lights or cameras", count);
    }
    bool any = false;
    for (uint32_t i = 0; i < count; i++) {
        orr_entity e;
        orr_affine3d world;
        memcpy(&e, first + i * stride + entity_at, sizeof e);
        memcpy(&world, first + i * stride + world_at, sizeof world);
        const orri_pose_motion *was = find(m, i, e);
        orri_pose_motion *now = &m->spare[i];
        if (!was) *now = (orri_pose_motion){.entity = e, .tick = NO_TICK, .now = world, .before = world};
        else if (memcmp(&was->now, &world, sizeof world))
            *now = (orri_pose_motion){.entity = e, .tick = tick, .now = world, .before = was->now};
        else *now = *was;
        any |= now->tick == tick;
    }
    orri_pose_motion *items = m->items;
    uint32_t capacity = m->capacity;
    m->items = m->spare, m->capacity = m->spare_capacity, m->count = count;
    m->spare = items, m->spare_capacity = capacity;
    *any_out = any;
    return ORR_OK;
}

/* now blended toward before by lag (0: now, 1: before). */
static void blend(const orr_affine3d *now, const orr_affine3d *before, double lag, orr_affine3d *out)
{
    orr_mat4d a, b;
    orr_affine3d_to_mat4d(now, &a);
    orr_affine3d_to_mat4d(before, &b);
    orr_vec3d ta, tb, sa, sb;
    orr_quatd qa, qb;
    bool rigid_now = orr_mat4d_decompose(&a, &ta, &qa, &sa);
    bool rigid = orr_mat4d_decompose(&b, &tb, &qb, &sb) && rigid_now; /* both decomposed: ta is blended either way */
    rigid = rigid && (sa.x < 0) == (sb.x < 0); /* a mirror on one side only: no scale passes through 0 */
    orr_vec3d t = {ta.x + (tb.x - ta.x) * lag, ta.y + (tb.y - ta.y) * lag, ta.z + (tb.z - ta.z) * lag};
    if (!rigid) { /* its current linear part, the translation blended */
        *out = *now;
        out->m[9] = t.x, out->m[10] = t.y, out->m[11] = t.z;
        return;
    }
    /* normalised quaternion, the shorter way round: as the vertex stage blends instances */
    double sign = qa.x * qb.x + qa.y * qb.y + qa.z * qb.z + qa.w * qb.w < 0 ? -1.0 : 1.0;
    orr_quatd q = orr_quatd_normalize((orr_quatd){qa.x * (1 - lag) + sign * qb.x * lag, qa.y * (1 - lag) + sign * qb.y * lag,
                                                  qa.z * (1 - lag) + sign * qb.z * lag, qa.w * (1 - lag) + sign * qb.w * lag});
    orr_vec3d s = {sa.x + (sb.x - sa.x) * lag, sa.y + (sb.y - sa.y) * lag, sa.z + (sb.z - sa.z) * lag};
    orr_mat4d m;
    orr_mat4d_from_trs(t, q, s, &m);
    orr_affine3d_from_mat4d(&m, out);
}

orr_result orri_motion_snapshot(orr_renderer *r, const orr_snapshot *s, orr_snapshot *scratch, const orr_snapshot **out)
{
    orri_motions *mo = &r->motions;
    *out = s;
    if (!r->interpolate) return ORR_OK; /* (its frames are all at lag 0) */
    bool lights, cameras;
    ORRI_TRY(track(r, &mo->lights, (const uint8_t *)s->lights, sizeof *s->lights, offsetof(orr_render_light, entity),
                   offsetof(orr_render_light, world), s->light_count, s->tick, &lights));
    ORRI_TRY(track(r, &mo->cameras, (const uint8_t *)s->cameras, sizeof *s->cameras, offsetof(orr_render_camera, entity),
                   offsetof(orr_render_camera, world), s->camera_count, s->tick, &cameras));
    double lag = s->lag;
    if (!(lag > 0 && lag <= 1) || !(lights || cameras)) return ORR_OK;
    if ((lights && s->light_count > mo->blended_light_capacity &&
         !ORRI_GROW(&r->allocator, mo->blended_lights, mo->blended_light_capacity, s->light_count)) ||
        (cameras && s->camera_count > mo->blended_camera_capacity &&
         !ORRI_GROW(&r->allocator, mo->blended_cameras, mo->blended_camera_capacity, s->camera_count)))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for blended lights or cameras");
    *scratch = *s;
    if (lights) {
        memcpy(mo->blended_lights, s->lights, sizeof *s->lights * s->light_count);
        for (uint32_t i = 0; i < s->light_count; i++)
            if (mo->lights.items[i].tick == s->tick)
                blend(&mo->lights.items[i].now, &mo->lights.items[i].before, lag, &mo->blended_lights[i].world);
        scratch->lights = mo->blended_lights;
    }
    if (cameras) {
        memcpy(mo->blended_cameras, s->cameras, sizeof *s->cameras * s->camera_count);
        for (uint32_t i = 0; i < s->camera_count; i++)
            if (mo->cameras.items[i].tick == s->tick)
                blend(&mo->cameras.items[i].now, &mo->cameras.items[i].before, lag, &mo->blended_cameras[i].world);
        scratch->cameras = mo->blended_cameras;
    }
    *out = scratch;
    return ORR_OK;
}

/* ---- instances, for the CPU cull ---------------------------------------------------------------- */
/* Their poses blend on the GPU (the scatter keeps each replaced record's pose in the slot's motion
 * record; records live on the GPU only), but a CPU cull (orr_draw_scene_cull, for the strategies that
 * cull there and for every view's transparent and fur items) must test an instance where it is drawn.
 * So the CPU holds each slot's pose as its record has it, and the earlier pose of the slots whose record
 * changed at the latest tick, by the scatter's rule. */

static void hold(orri_held_pose *h, const orr_affine3d *world)
{
    for (int k = 0; k < 3; k++) h->t[k] = world->m[9 + k];
    for (int k = 0; k < 9; k++) h->linear[k] = (float)world->m[k];
    h->reserved = 0;
}

static void unhold(const orri_held_pose *h, orr_affine3d *out)
{
    for (int k = 0; k < 9; k++) out->m[k] = h->linear[k];
    for (int k = 0; k < 3; k++) out->m[9 + k] = h->t[k];
}

/* The lookup's entries, chunk by chunk: each moving instance's snapshot index and its blend (the
 * decompositions, once per change rather than per frame and view). Each entry writes its own place. */
typedef struct lookup_pass {
    orr_renderer *r;
    const orr_snapshot *s;
} lookup_pass;

static void lookup_job(void *ctx, uint32_t c)
{
    const lookup_pass *p = ctx;
    orri_motions *mo = &p->r->motions;
    const orr_snapshot *s = p->s;
    uint32_t from = c * ORRI_FRAME_CHUNK, n = mo->moving_count,
             to = n - from < ORRI_FRAME_CHUNK ? n : from + ORRI_FRAME_CHUNK;
    for (uint32_t e = from; e < to; e++) {
        const orri_instance_motion *m = &mo->moving[e];
        uint32_t i = orr_snapshot_find(s, m->id);
        /* (an instance gone, or one with its id in another slot: its record is not this one) */
        bool here = i < s->instance_count && orri_instances_slot(p->r, m->id) == m->slot;
        mo->indices[e] = here ? i : UINT32_MAX;
        if (!here) continue;
        orr_affine3d before;
        unhold(&m->before, &before);
        orr_draw_blend_prepare(&s->instances[i].world, &before, &mo->blends[e]);
    }
}

static void clear_moving(orri_motions *mo)
{
    for (uint32_t e = 0; e < mo->moving_count; e++) mo->moving_at[mo->moving[e].slot] = 0;
    mo->moving_count = 0;
    mo->moving_version++;
}

typedef struct hold_pass {
    const orr_snapshot *s;
    const orri_instances *in;
    orri_held_pose *held;
    uint32_t count;
} hold_pass;

static void hold_job(void *ctx, uint32_t c)
{
    const hold_pass *p = ctx;
    uint32_t from = c * ORRI_FRAME_CHUNK, to = p->count - from < ORRI_FRAME_CHUNK ? p->count : from + ORRI_FRAME_CHUNK;
    for (uint32_t slot = from; slot < to; slot++) {
        bool alive = orr_handle_pool_is_alive(&p->in->slots, (orr_handle){slot, p->in->slots.generations[slot]});
        uint32_t i = alive ? p->in->slot_index[slot] : UINT32_MAX;
        if (i < p->s->instance_count) hold(&p->held[slot], &p->s->instances[i].world);
    }
}

orr_result orri_motion_instances_plan(orr_renderer *r, const orr_snapshot *s)
{
    const orri_instances *in = &r->instances;
    orri_motions *mo = &r->motions;
    if (!r->interpolate) return ORR_OK; /* (every frame at lag 0: nothing blends, nothing held) */
    uint32_t slots = in->slots.count;
    if ((slots > mo->held_capacity && !ORRI_GROW(&r->allocator, mo->held, mo->held_capacity, slots)) ||
        (slots > mo->moving_at_capacity && !ORRI_GROW(&r->allocator, mo->moving_at, mo->moving_at_capacity, slots)))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for the poses of %u instances", slots);
    if (in->upload_all) { /* every record written, every motion none (gpu_scene.c): start over */
        clear_moving(mo);
        hold_pass p = {.s = s, .in = in, .held = mo->held, .count = slots};
        orr_workers *workers;
        uint32_t threads = orri_pass_threads(r, slots, &workers);
        orri_pool_run(workers, threads, (slots + ORRI_FRAME_CHUNK - 1) / ORRI_FRAME_CHUNK, hold_job, &p);
        return ORR_OK;
    }
    if (!in->upload_count) return ORR_OK;
    if (in->tick != mo->moving_tick) { /* the earlier tick's motions blend no more */
        clear_moving(mo);
        mo->moving_tick = in->tick;
    }
    if (!ORRI_GROW(&r->allocator, mo->moving, mo->moving_capacity, mo->moving_count + in->upload_count))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for the motions of %u instances", in->upload_count);
    uint64_t fresh_from = r->frame_number + 1; /* a slot given out in this frame holds a new instance */
    /* On this thread: what changed, and only that (a record and its earlier pose each). The scattered
     * records, held poses and slot words of the changes ORRI_AHEAD on are fetched meanwhile, so that
     * their misses overlap (10k changes of 1M instances: each of those a miss). */
    for (uint32_t k = 0; k < in->upload_count; k++) {
        if (k + ORRI_AHEAD < in->upload_count) {
            orri_record_upload a = in->upload[k + ORRI_AHEAD];
            const char *rec = (const char *)&s->instances[a.index];
            __builtin_prefetch(rec);
            __builtin_prefetch(rec + 64);
            __builtin_prefetch(&s->instances[a.index].reserved);
            __builtin_prefetch(&mo->held[a.slot], 1);
            __builtin_prefetch((const char *)&mo->held[a.slot] + sizeof(orri_held_pose) - 1, 1);
            __builtin_prefetch(&mo->moving_at[a.slot], 1);
            __builtin_prefetch(&in->slot_since[a.slot]);
        }
        orri_record_upload u = in->upload[k];
        const orr_render_instance *x = &s->instances[u.index];
        orri_held_pose *h = &mo->held[u.slot];
        uint32_t at = mo->moving_at[u.slot];
        if (in->slot_since[u.slot] >= fresh_from || (x->reserved[0] & ORR_RENDER_INSTANCE_TELEPORT)) {
            if (at) { /* it jumps: drawn where it is (the scatter keeps no earlier pose) */
                orri_instance_motion *last = &mo->moving[--mo->moving_count];
                mo->moving[at - 1] = *last;
                mo->moving_at[last->slot] = at;
                mo->moving_at[u.slot] = 0;
            }
        } else {
            if (!at) mo->moving_at[u.slot] = at = ++mo->moving_count;
            mo->moving[at - 1] = (orri_instance_motion){.slot = u.slot, .id = x->id, .before = *h};
        }
        hold(h, &x->world);
    }
    mo->moving_version++;
    return ORR_OK;
}

orr_result orri_motion_draw(orr_renderer *r, const orr_snapshot *s, bool needed, const orr_draw_motion **out)
{
    orri_motions *mo = &r->motions;
    *out = NULL;
    orri_motion_view(s->lag, s->tick, &mo->view_lag, &mo->view_tick);
    if (!needed || !(s->lag > 0.0f && s->lag <= 1.0f) || !mo->moving_count || orri_motion_tick(s->tick) != mo->moving_tick)
        return ORR_OK;
    if (!mo->built || mo->built_version != mo->moving_version || mo->built_layout != s->layout_version ||
        mo->draw.count != s->instance_count) {
        /* What the last build set goes first, then the moving instances by their snapshot index: what
         * those count. */
        for (uint32_t e = 0; e < mo->built_count; e++)
            if (mo->indices[e] < mo->entry_of_capacity) mo->entry_of[mo->indices[e]] = 0;
        mo->built = false;
        mo->built_count = 0;
        if ((s->instance_count > mo->entry_of_capacity &&
             !ORRI_GROW(&r->allocator, mo->entry_of, mo->entry_of_capacity, s->instance_count)) ||
            (mo->moving_count > mo->indices_capacity &&
             !ORRI_GROW(&r->allocator, mo->indices, mo->indices_capacity, mo->moving_count)) ||
            (mo->moving_count > mo->blends_capacity &&
             !ORRI_GROW(&r->allocator, mo->blends, mo->blends_capacity, mo->moving_count)))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for the motions of %u instances",
                                 mo->moving_count);
        lookup_pass p = {.r = r, .s = s};
        orr_workers *workers;
        uint32_t threads = orri_pass_threads(r, mo->moving_count, &workers);
        orri_pool_run(workers, threads, (mo->moving_count + ORRI_FRAME_CHUNK - 1) / ORRI_FRAME_CHUNK, lookup_job, &p);
        for (uint32_t e = 0; e < mo->moving_count; e++) /* (ids are unique: each index set once) */
            if (mo->indices[e] != UINT32_MAX) mo->entry_of[mo->indices[e]] = e + 1;
        mo->built_count = mo->moving_count;
        mo->built_version = mo->moving_version;
        mo->built_layout = s->layout_version;
        mo->built = true;
        mo->draw = (orr_draw_motion){.count = s->instance_count, .entry_of = mo->entry_of, .blends = mo->blends};
    }
    mo->draw.lag = s->lag;
    *out = &mo->draw;
    return ORR_OK;
}

static void poses_fini(orr_renderer *r, orri_pose_motions *m)
{
    orri_free(&r->allocator, m->items, sizeof *m->items * m->capacity);
    orri_free(&r->allocator, m->spare, sizeof *m->spare * m->spare_capacity);
    memset(m, 0, sizeof *m);
}

void orri_motion_fini(orr_renderer *r)
{
    orri_motions *mo = &r->motions;
    poses_fini(r, &mo->lights);
    poses_fini(r, &mo->cameras);
    orri_free(&r->allocator, mo->blended_lights, sizeof *mo->blended_lights * mo->blended_light_capacity);
    orri_free(&r->allocator, mo->blended_cameras, sizeof *mo->blended_cameras * mo->blended_camera_capacity);
    orri_free(&r->allocator, mo->held, sizeof *mo->held * mo->held_capacity);
    orri_free(&r->allocator, mo->moving_at, sizeof *mo->moving_at * mo->moving_at_capacity);
    orri_free(&r->allocator, mo->moving, sizeof *mo->moving * mo->moving_capacity);
    orri_free(&r->allocator, mo->entry_of, sizeof *mo->entry_of * mo->entry_of_capacity);
    orri_free(&r->allocator, mo->indices, sizeof *mo->indices * mo->indices_capacity);
    orri_free(&r->allocator, mo->blends, sizeof *mo->blends * mo->blends_capacity);
    memset(mo, 0, sizeof *mo);
}
