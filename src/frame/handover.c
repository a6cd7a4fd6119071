/* The render thread: the session's snapshots handed over by ownership through a small ring.
 *
 * The simulation thread extracts into the session's live snapshot; the render thread draws a slot of
 * the ring, never the live snapshot. After each extraction the simulation thread takes a free slot,
 * brings it up to date and queues it:
 *   - in place, when no extraction since the slot was last filled built anew: the instances named by
 *     the `changed` lists of the frames since then (the slot's pending ids), each record with its joint,
 *     weight and binding ranges and its fur entry at the offsets the live snapshot has them, the names,
 *     bindings and weights appended since, and the lights and cameras (few: taken whole);
 *   - whole (orr_snapshot_copy), after a rebuild, a failed extraction, or when the pending ids outnumber
 *     the instances.
 * So a frame costs what changed, as extraction does, and the slot equals the live snapshot field for
 * field (its changed/removed lists included: the render thread sees each frame's delta, in order).
 *
 * Three slots: one drawn, one queued, one being filled; the simulation thread waits only when the render
 * thread is a whole frame behind (one queued and the next one ready), so it runs at most one frame ahead
 * and no frame is skipped. One mutex guards the slots' states and the queue, held for a few stores. */
#include "core/internal.h"
#include "frame/frame_internal.h"

#include <pthread.h>
#include <string.h>

#define SLOTS 3
#define NONE UINT32_MAX

typedef enum slot_state { SLOT_FREE = 0, SLOT_FILLING, SLOT_QUEUED, SLOT_DRAWN } slot_state;

typedef struct slot {
    orr_snapshot snapshot;
    ORRI_VEC(uint32_t) pending; /* ids changed since the snapshot was filled (the simulation thread's) */
    bool whole;                 /* next fill copies whole */
    slot_state state;           /* under the lock */
} slot;

struct orri_handover {
    orr_allocator allocator;
    orr_present_fn present;
    void *user;
    const orr_assets *assets;
    pthread_t thread;
    bool started;
    pthread_mutex_t lock;
    pthread_cond_t wake; /* to the render thread: a slot queued, or stop */
    pthread_cond_t done; /* to the simulation thread: a slot drawn */
    slot slots[SLOTS];
    uint32_t queued; /* the slot queued (NONE: none); at most one */
    bool stop;
    uint64_t presented;
    uint64_t whole, in_place; /* fills (the simulation thread's) */
};

static void *render_main(void *arg)
{
    orri_handover *h = arg;
    pthread_mutex_lock(&h->lock);
    for (;;) {
        while (h->queued == NONE && !h->stop) pthread_cond_wait(&h->wake, &h->lock);
        if (h->queued == NONE) break; /* stop, and nothing left to present */
        slot *sl = &h->slots[h->queued];
        h->queued = NONE;
        sl->state = SLOT_DRAWN;
        pthread_cond_broadcast(&h->done); /* the queue has room */
        pthread_mutex_unlock(&h->lock);
        if (h->present) h->present(h->user, &sl->snapshot, h->assets);
        pthread_mutex_lock(&h->lock);
        sl->state = SLOT_FREE;
        h->presented++;
        pthread_cond_broadcast(&h->done);
    }
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

orr_result orri_handover_create(const orr_allocator *allocator, orr_present_fn present, void *user,
                                const orr_assets *assets, orri_handover **out, orr_error *err)
{
    orri_handover *h = orri_alloc(allocator, sizeof *h);
    if (!h) return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "orr_session_create: out of memory for the render thread");
    memset(h, 0, sizeof *h);
    h->allocator = *allocator;
    h->present = present;
    h->user = user;
    h->assets = assets;
    h->queued = NONE;
    for (int i = 0; i < SLOTS; i++) {
        orr_snapshot_init(&h->slots[i].snapshot, allocator);
        h->slots[i].whole = true;
    }
    bool ok = pthread_mutex_init(&h->lock, NULL) == 0;
    if (ok && pthread_cond_init(&h->wake, NULL) != 0) {
        pthread_mutex_destroy(&h->lock);
        ok = false;
    }
    if (ok && pthread_cond_init(&h->done, NULL) != 0) {
        pthread_cond_destroy(&h->wake);
        pthread_mutex_destroy(&h->lock);
        ok = false;
    }
    if (!ok) {
        orri_free(allocator, h, sizeof *h);
        return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "orr_session_create: cannot make the render thread's lock");
    }
    /* The default stack: the host's renderer (and its Vulkan driver) runs on it. */
    h->started = pthread_create(&h->thread, NULL, render_main, h) == 0;
    if (!h->started) {
        orri_handover_destroy(h);
        return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "orr_session_create: cannot start the render thread");
    }
    *out = h;
    return ORR_OK;
}

void orri_handover_destroy(orri_handover *h)
{
    if (!h) return;
    if (h->started) {
        pthread_mutex_lock(&h->lock);
        h->stop = true; /* the render thread presents what is queued first */
        pthread_cond_broadcast(&h->wake);
        pthread_mutex_unlock(&h->lock);
        pthread_join(h->thread, NULL);
    }
    for (int i = 0; i < SLOTS; i++) {
        orr_snapshot_fini(&h->slots[i].snapshot);
        ORRI_VEC_FREE(&h->allocator, &h->slots[i].pending);
    }
    pthread_cond_destroy(&h->done);
    pthread_cond_destroy(&h->wake);
    pthread_mutex_destroy(&h->lock);
    orr_allocator a = h->allocator;
    orri_free(&a, h, sizeof *h);
}

bool orri_handover_on_render_thread(const orri_handover *h)
{
    return h && h->started && pthread_equal(pthread_self(), h->thread);
}

uint64_t orri_handover_presented(orri_handover *h)
{
    pthread_mutex_lock(&h->lock);
    uint64_t n = h->presented;
    pthread_mutex_unlock(&h->lock);
    return n;
}

void orri_handover_fills(const orri_handover *h, uint64_t *whole, uint64_t *in_place)
{
    *whole = h->whole;
    *in_place = h->in_place;
}

void orri_handover_flush(orri_handover *h)
{
    ORRI_ASSERT(!orri_handover_on_render_thread(h),
                "session: waiting for the render thread from the render thread itself (in the present callback) "
                "would never return");
    pthread_mutex_lock(&h->lock);
    for (;;) {
        bool busy = h->queued != NONE;
        for (int i = 0; i < SLOTS && !busy; i++) busy = h->slots[i].state == SLOT_DRAWN;
        if (!busy) break;
        pthread_cond_wait(&h->done, &h->lock);
    }
    pthread_mutex_unlock(&h->lock);
}

void orri_handover_invalidate(orri_handover *h)
{
    for (int i = 0; i < SLOTS; i++) { /* the simulation thread's fields: no lock */
        h->slots[i].whole = true;
        h->slots[i].pending.count = 0;
    }
}

/* The fur entry of instance index `index` (entries ascend by instance), or NULL. */
static orr_render_fur *fur_at(const orr_snapshot *s, uint32_t index)
{
    uint32_t lo = 0, hi = s->fur_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->fur[mid].instance < index) lo = mid + 1;
        else hi = mid;
    }
    return lo < s->fur_count && s->fur[lo].instance == index ? &s->fur[lo] : NULL;
}

#define GROW(s, arr, cap, need) ORRI_GROW(&(s)->allocator, (s)->arr, (s)->cap, (need))

/* Copies the tail [d's count, s's count) of an array that extraction only appends to between rebuilds. */
#define TAIL(arr, cnt, cap)                                                                               \
    do {                                                                                                  \
        if (!GROW(d, arr, cap, s->cnt)) return false;                                                     \
        if (s->cnt > d->cnt) memcpy(d->arr + d->cnt, s->arr + d->cnt, (size_t)(s->cnt - d->cnt) * sizeof *d->arr); \
        d->cnt = s->cnt;                                                                                  \
    } while (0)
#define WHOLE(arr, cnt, cap)                                                                              \
    do {                                                                                                  \
        if (!GROW(d, arr, cap, s->cnt)) return false;                                                     \
        if (s->cnt) memcpy(d->arr, s->arr, (size_t)s->cnt * sizeof *d->arr);                               \
        d->cnt = s->cnt;                                                                                  \
    } while (0)

/* Brings `d` (a copy of an earlier frame of the same extraction, with no rebuild since) to `s`, given the
 * ids changed since. False when it cannot (then the caller copies whole): out of memory, or `d` is not
 * what an in-place update of it could have become (a guard: the counts an update keeps differ). */
static bool catch_up(orr_snapshot *d, const orr_snapshot *s, const uint32_t *ids, uint32_t n)
{
    if (d->instance_count != s->instance_count || d->joint_count != s->joint_count || d->fur_count != s->fur_count ||
        d->index_capacity < s->index_capacity || d->names_size > s->names_size ||
        d->material_binding_count > s->material_binding_count || d->weight_count > s->weight_count)
        return false;
    TAIL(names, names_size, names_capacity);
    TAIL(material_bindings, material_binding_count, material_binding_capacity);
    TAIL(weights, weight_count, weight_capacity);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = orr_snapshot_find(s, ids[k]);
        if (i == NONE || orr_snapshot_find(d, ids[k]) != i) return false;
        const orr_render_instance *in = &s->instances[i];
        d->instances[i] = *in;
        if (in->joint_count) {
            if (in->joint_offset + in->joint_count > s->joint_count) return false;
            memcpy(d->joints + in->joint_offset, s->joints + in->joint_offset, in->joint_count * sizeof *d->joints);
        }
        if (in->weight_count && in->weight_offset + in->weight_count <= s->weight_count)
            memcpy(d->weights + in->weight_offset, s->weights + in->weight_offset, in->weight_count * sizeof *d->weights);
        if (in->material_count && in->material_offset + in->material_count <= s->material_binding_count)
            memcpy(d->material_bindings + in->material_offset, s->material_bindings + in->material_offset,
                   in->material_count * sizeof *d->material_bindings);
        const orr_render_fur *fur = s->fur_count ? fur_at(s, i) : NULL;
        if (fur) {
            orr_render_fur *mine = fur_at(d, i);
            if (!mine) return false;
            *mine = *fur;
        }
    }
    WHOLE(lights, light_count, light_capacity);
    WHOLE(cameras, camera_count, camera_capacity);
    WHOLE(changed, changed_count, changed_capacity);
    WHOLE(removed, removed_count, removed_capacity);
    WHOLE(changed_at, changed_at_count, changed_at_capacity);
    d->changed_at_frame = s->changed_at_frame;
    d->frame = s->frame;
    d->tick = s->tick;
    d->revision = s->revision;
    d->structure_version = s->structure_version;
    d->layout_version = s->layout_version;
    d->delta_base = s->delta_base;
    d->lag = s->lag;
    return true;
}
#undef TAIL
#undef WHOLE

orr_result orri_handover_push(orri_handover *h, const orr_snapshot *live, bool rebuilt)
{
    /* Every slot, drawn or not, learns what this frame changed (its own list: the simulation thread's). */
    for (int i = 0; i < SLOTS; i++) {
        slot *sl = &h->slots[i];
        if (rebuilt || sl->whole || sl->pending.count + live->changed_count > live->instance_count) {
            sl->whole = true;
            sl->pending.count = 0;
            continue;
        }
        if (!ORRI_VEC_RESERVE(&h->allocator, &sl->pending, sl->pending.count + live->changed_count)) {
            sl->whole = true;
            sl->pending.count = 0;
            continue;
        }
        if (live->changed_count)
            memcpy(sl->pending.items + sl->pending.count, live->changed, live->changed_count * sizeof *live->changed);
        sl->pending.count += live->changed_count;
    }
    pthread_mutex_lock(&h->lock);
    int pick = -1;
    for (;;) {
        for (int i = 0; i < SLOTS && pick < 0; i++)
            if (h->slots[i].state == SLOT_FREE) pick = i;
        if (pick >= 0) break;
        pthread_cond_wait(&h->done, &h->lock);
    }
    slot *sl = &h->slots[pick];
    sl->state = SLOT_FILLING;
    pthread_mutex_unlock(&h->lock);

    orr_result r = ORR_OK;
    if (!sl->whole && catch_up(&sl->snapshot, live, sl->pending.items, sl->pending.count)) {
        h->in_place++;
    } else {
        r = orr_snapshot_copy(live, &sl->snapshot);
        h->whole++;
    }
    sl->pending.count = 0;
    sl->whole = r != ORR_OK;

    pthread_mutex_lock(&h->lock);
    if (r == ORR_OK) {
        while (h->queued != NONE) pthread_cond_wait(&h->done, &h->lock);
        sl->state = SLOT_QUEUED;
        h->queued = (uint32_t)pick;
        pthread_cond_signal(&h->wake);
    } else {
        sl->state = SLOT_FREE;
    }
    pthread_mutex_unlock(&h->lock);
    return r;
}
