/* Local transforms, lazy and cached world matrices, and propagation through dirty subtrees. */
#include "world/world_internal.h"

#include <math.h>

orr_transform orr_transform_identity(void)
{
    orr_transform t = {.translation = {0, 0, 0}, .rotation = ORR_QUAT_IDENTITY, .scale = ORR_VEC3_ONE};
    orr_mat4d_identity(&t.matrix);
    return t;
}

/* The one composition every path uses (propagation, lazy queries, tests), so that they agree to
 * the last bit: local = T x R x S (x matrix). */
void orr_transform_to_matrix(const orr_transform *t, orr_mat4d *dest)
{
    orr_mat4d_from_trs(t->translation, t->rotation, t->scale, dest);
    if (t->has_matrix) orr_mat4d_mul(dest, &t->matrix, dest);
}

void orri_world_local_matrix(const orr_world *w, uint32_t s, orr_mat4d *out)
{
    const orri_trs *l = &w->trs[s];
    orr_mat4d_from_trs(l->t, l->r, l->s, out);
    if (w->node[s].flags & ORRI_NODE_MATRIX) {
        uint32_t m = orri_paged_get(&w->matrix_of, w->node[s].entity);
        orr_mat4d_mul(out, &w->matrices[m], out);
    }
}

/* ---- local matrix side table ------------------------------------------------------------- */

static orr_result set_matrix(orr_world *w, uint32_t s, const orr_mat4d *m)
{
    uint32_t e = w->node[s].entity;
    uint32_t i = orri_paged_get(&w->matrix_of, e);
    if (i == ORRI_NONE) {
        i = w->matrix_count;
        if (!ORRI_GROW(&w->allocator, w->matrices, w->cap_matrices, i + 1) ||
            !ORRI_GROW(&w->allocator, w->matrix_owner, w->cap_matrix_owner, i + 1) ||
            !orri_paged_set(&w->allocator, &w->matrix_of, e, i))
            return ORR_ERROR_OUT_OF_MEMORY;
        w->matrix_owner[i] = e;
        w->matrix_count++;
    }
    w->matrices[i] = *m;
    w->node[s].flags |= ORRI_NODE_MATRIX;
    return ORR_OK;
}

void orri_world_drop_matrix(orr_world *w, uint32_t e)
{
    uint32_t i = orri_paged_get(&w->matrix_of, e);
    if (i == ORRI_NONE) return;
    uint32_t last = --w->matrix_count;
    if (i != last) {
        w->matrices[i] = w->matrices[last];
        w->matrix_owner[i] = w->matrix_owner[last];
        orri_paged_set(&w->allocator, &w->matrix_of, w->matrix_owner[i], i); /* page exists: cannot fail */
    }
    orri_paged_set(&w->allocator, &w->matrix_of, e, ORRI_NONE);
    uint32_t s = w->slot_of[e].slot;
    if (s != ORRI_NONE) w->node[s].flags &= (uint8_t)~ORRI_NODE_MATRIX;
}

orr_result orri_world_store_local(orr_world *w, uint32_t s, const orr_transform *t)
{
    if (t->has_matrix) {
        if (set_matrix(w, s, &t->matrix) != ORR_OK) return ORR_ERROR_OUT_OF_MEMORY;
    } else if (w->node[s].flags & ORRI_NODE_MATRIX) {
        orri_world_drop_matrix(w, w->node[s].entity);
    }
    w->trs[s] = (orri_trs){t->translation, t->rotation, t->scale};
    return ORR_OK;
}

orr_result orri_world_store_local_matrix(orr_world *w, uint32_t s, const orr_mat4d *local, const char *fn)
{
    orr_transform t = orr_transform_identity();
    if (!orr_mat4d_decompose(local, &t.translation, &t.rotation, &t.scale)) {
        t = orr_transform_identity();
        t.has_matrix = true;
        t.matrix = *local;
        orri_log(&w->logger, ORR_LOG_DEBUG, "%s: the local transform of entity %u has shear; kept as its local matrix",
                 fn, w->node[s].entity);
    }
    if (orri_world_store_local(w, s, &t) != ORR_OK)
        return orri_error(&w->error, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    return ORR_OK;
}

void orri_world_load_local(const orr_world *w, uint32_t s, orr_transform *out)
{
    const orri_trs *l = &w->trs[s];
    *out = (orr_transform){.translation = l->t, .rotation = l->r, .scale = l->s};
    if (w->node[s].flags & ORRI_NODE_MATRIX) {
        out->has_matrix = true;
        out->matrix = w->matrices[orri_paged_get(&w->matrix_of, w->node[s].entity)];
    } else {
        orr_mat4d_identity(&out->matrix);
    }
}

/* ---- dirty marking ----------------------------------------------------------------------- */

void orri_world_mark_dirty(orr_world *w, uint32_t s, bool force_list)
{
    if (w->all_dirty) {
        w->node[s].flags |= ORRI_NODE_DIRTY;
        return;
    }
    if (!force_list && (w->node[s].flags & ORRI_NODE_DIRTY)) return;
    w->node[s].flags |= ORRI_NODE_DIRTY;
    if (!ORRI_GROW(&w->allocator, w->dirty_list, w->dirty_cap, w->dirty_count + 1)) {
        w->all_dirty = true; /* still correct, only slower */
        return;
    }
    w->dirty_list[w->dirty_count++] = w->node[s].entity;
}

void orr_world_invalidate_transforms(orr_world *w) { w->all_dirty = true; }

/* ---- change log -------------------------------------------------------------------------- */

void orri_world_log_slow(orr_world *w, uint32_t s, uint8_t kind)
{
    bool moved = kind == ORRI_NODE_MOVED;
    bool ok = moved ? ORRI_GROW_RAW(&w->allocator, w->moved, w->moved_cap, w->moved_count + 1)
                    : ORRI_GROW_RAW(&w->allocator, w->edited, w->edited_cap, w->edited_count + 1);
    if (!ok) {
        w->changes_all = true; /* still exact for the reader: everything counts as changed */
        return;
    }
    w->node[s].flags |= kind;
    if (moved) w->moved[w->moved_count++] = w->node[s].entity;
    else w->edited[w->edited_count++] = w->node[s].entity;
}

orr_world_changes orr_world_get_changes(const orr_world *w)
{
    return (orr_world_changes){.moved = w->moved, .moved_count = w->moved_count, .edited = w->edited,
                               .edited_count = w->edited_count,
                               .all = w->changes_all || w->structure_version != w->changes_structure,
                               .epoch = w->change_epoch};
}

static void unmark(orr_world *w, const uint32_t *list, uint32_t count, uint8_t kind)
{
    for (uint32_t i = 0; i < count; i++) {
        if (i + 2 * ORRI_AHEAD < count && list[i + 2 * ORRI_AHEAD] < w->slot_of_cap)
            __builtin_prefetch(&w->slot_of[list[i + 2 * ORRI_AHEAD]].slot);
        if (i + ORRI_AHEAD < count && list[i + ORRI_AHEAD] < w->slot_of_cap) {
            uint32_t a = w->slot_of[list[i + ORRI_AHEAD]].slot;
            if (a != ORRI_NONE) __builtin_prefetch(&w->node[a], 1);
        }
        uint32_t e = list[i];
        uint32_t s = e < w->slot_of_cap ? w->slot_of[e].slot : ORRI_NONE;
        if (s != ORRI_NONE) w->node[s].flags &= (uint8_t)~kind; /* a destroyed entity has no slot */
    }
}

/* ---- the log's marks cleared on several threads ----
 * Chunks of the lists (moved then edited, as one): each entry's slot looked up and its mark cleared
 * there. An entity may be in both lists (or, after a structural change, twice in one), so two chunks
 * may clear bits of one node's flags at once: each clear is one atomic AND of the byte, and the flags
 * end as the one-thread loop leaves them whatever the order. Nothing else reads or writes the flags
 * during the pass. */
typedef struct unmark_pass {
    orr_world *w;
    uint32_t moved, count; /* entries [0, moved) are the moved list's, the rest the edited list's */
} unmark_pass;

static inline uint32_t unmark_entry(const unmark_pass *u, uint32_t i)
{
    return i < u->moved ? u->w->moved[i] : u->w->edited[i - u->moved];
}

static void unmark_job(void *ctx, uint32_t c)
{
    const unmark_pass *u = ctx;
    orr_world *w = u->w;
    uint32_t from = c * ORRI_FRAME_CHUNK, to = u->count - from < ORRI_FRAME_CHUNK ? u->count : from + ORRI_FRAME_CHUNK;
    for (uint32_t i = from; i < to; i++) {
        if (i + 2 * ORRI_AHEAD < to) {
            uint32_t a = unmark_entry(u, i + 2 * ORRI_AHEAD);
            if (a < w->slot_of_cap) __builtin_prefetch(&w->slot_of[a].slot);
        }
        if (i + ORRI_AHEAD < to) {
            uint32_t a = unmark_entry(u, i + ORRI_AHEAD);
            uint32_t s = a < w->slot_of_cap ? w->slot_of[a].slot : ORRI_NONE;
            if (s != ORRI_NONE) __builtin_prefetch(&w->node[s], 1);
        }
        uint32_t e = unmark_entry(u, i);
        uint32_t s = e < w->slot_of_cap ? w->slot_of[e].slot : ORRI_NONE;
        if (s == ORRI_NONE) continue; /* a destroyed entity has no slot */
        uint8_t keep = (uint8_t)~(i < u->moved ? ORRI_NODE_MOVED : ORRI_NODE_EDITED);
        __atomic_fetch_and(&w->node[s].flags, keep, __ATOMIC_RELAXED);
    }
}

static bool unmark_parallel(orr_world *w)
{
    uint32_t count = w->moved_count + w->edited_count;
    if (count < w->moved_count) return false; /* (more entries than a count holds) */
    orr_workers *workers;
    uint32_t threads = orr_world_pass_threads(w, count, &workers);
    if (threads <= 1) return false;
    unmark_pass u = {.w = w, .moved = w->moved_count, .count = count};
    orri_pool_run(workers, threads, (count + ORRI_FRAME_CHUNK - 1) / ORRI_FRAME_CHUNK, unmark_job, &u);
    return true;
}

/* ---- the log's marks cleared by a sweep of the table ----
 * A mark is set only on a node its list names (orri_world_log, recompute_into) and a destroyed node's
 * flags are zero, so clearing both marks on every slot leaves the flags the lists' look-ups leave. When
 * the lists name an eighth of the table or more, a sweep in slot order (by chunks of slots, on the
 * threads for a large table) costs less than a look-up and a scattered line per entry: this loop over
 * every node runs only then, its cost within a few times what the lists' would be. */
#define ORRI_SWEEP_CHUNK 4096u /* slots */

static void sweep_job(void *ctx, uint32_t c)
{
    orr_world *w = ctx;
    uint32_t from = c * ORRI_SWEEP_CHUNK;
    uint32_t to = w->slot_count - from < ORRI_SWEEP_CHUNK ? w->slot_count : from + ORRI_SWEEP_CHUNK;
    orri_node *node = w->node;
    for (uint32_t s = from; s < to; s++) node[s].flags &= (uint8_t)~(ORRI_NODE_MOVED | ORRI_NODE_EDITED);
}

void orr_world_clear_changes(orr_world *w)
{
    uint64_t listed = (uint64_t)w->moved_count + w->edited_count;
    if (listed && listed * 8 >= w->slot_count) {
        orr_workers *workers;
        uint32_t threads = orr_world_pass_threads(w, w->slot_count, &workers);
        orri_pool_run(workers, threads, (w->slot_count + ORRI_SWEEP_CHUNK - 1) / ORRI_SWEEP_CHUNK, sweep_job, w);
    } else if (!unmark_parallel(w)) {
        unmark(w, w->moved, w->moved_count, ORRI_NODE_MOVED);
        unmark(w, w->edited, w->edited_count, ORRI_NODE_EDITED);
    }
    w->moved_count = w->edited_count = 0;
    w->changes_all = false;
    w->changes_structure = w->structure_version;
    w->change_epoch++;
}

/* ---- accessors --------------------------------------------------------------------------- */

/* ---- poses entering the world: finite ---------------------------------------------------- */

static bool finite3(orr_vec3d v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

const char *orri_world_bad_local(const orr_transform *t)
{
    if (!finite3(t->translation)) return "translation";
    if (!(isfinite(t->rotation.x) && isfinite(t->rotation.y) && isfinite(t->rotation.z) && isfinite(t->rotation.w)))
        return "rotation";
    if (!finite3(t->scale)) return "scale";
    if (t->has_matrix)
        for (int k = 0; k < 16; k++)
            if (!isfinite(t->matrix.m[k])) return "matrix";
    return NULL;
}

/* ORR_ERROR_INVALID_ARGUMENT naming the call, the entity and the value, the world unchanged. */
static orr_result not_finite(orr_world *w, const char *fn, orr_entity e, const char *what, orr_vec3d v)
{
    return orri_error(&w->error, ORR_ERROR_INVALID_ARGUMENT, "%s: entity %u:%u: %s (%g, %g, %g) is not finite", fn,
                      e.index, e.generation, what, v.x, v.y, v.z);
}

orr_result orr_entity_get_local(const orr_world *w, orr_entity e, orr_transform *out)
{
    ORRI_REQUIRE(w, NULL, "orr_entity_get_local: world is NULL");
    ORRI_REQUIRE(out, NULL, "orr_entity_get_local: out is required");
    if (!orri_world_alive(w, e)) {
        *out = orr_transform_identity();
        return ORR_ERROR_STALE_HANDLE;
    }
    orri_world_load_local(w, w->slot_of[e.index].slot, out);
    return ORR_OK;
}

static orr_result edit_local(orr_world *w, orr_entity e, const char *fn, uint32_t *slot)
{
    if (!orri_world_alive(w, e)) return orri_world_stale(w, fn, e);
    *slot = w->slot_of[e.index].slot;
    orri_world_mark_dirty(w, *slot, false);
    w->revision++;
    return ORR_OK;
}

orr_result orr_entity_set_local(orr_world *w, orr_entity e, const orr_transform *local)
{
    ORRI_REQUIRE(w, NULL, "orr_entity_set_local: world is NULL");
    ORRI_REQUIRE(local, &w->error, "orr_entity_set_local: local is required");
    const char *bad = orri_world_bad_local(local);
    if (bad)
        return orri_error(&w->error, ORR_ERROR_INVALID_ARGUMENT, "orr_entity_set_local: entity %u:%u: the %s is not finite",
                          e.index, e.generation, bad);
    uint32_t s = 0;
    orr_result r = edit_local(w, e, "orr_entity_set_local", &s);
    if (r != ORR_OK) return r;
    if (orri_world_store_local(w, s, local) != ORR_OK)
        return orri_error(&w->error, ORR_ERROR_OUT_OF_MEMORY, "orr_entity_set_local: out of memory");
    return ORR_OK;
}

orr_result orr_entity_set_translation(orr_world *w, orr_entity e, orr_vec3d translation)
{
    ORRI_REQUIRE(w, NULL, "orr_entity_set_translation: world is NULL");
    if (!finite3(translation)) return not_finite(w, "orr_entity_set_translation", e, "translation", translation);
    uint32_t s = 0;
    orr_result r = edit_local(w, e, "orr_entity_set_translation", &s);
    if (r == ORR_OK) w->trs[s].t = translation;
    return r;
}

orr_result orr_entity_set_rotation(orr_world *w, orr_entity e, orr_quatd rotation)
{
    ORRI_REQUIRE(w, NULL, "orr_entity_set_rotation: world is NULL");
    if (!(isfinite(rotation.x) && isfinite(rotation.y) && isfinite(rotation.z) && isfinite(rotation.w)))
        return orri_error(&w->error, ORR_ERROR_INVALID_ARGUMENT,
                          "orr_entity_set_rotation: entity %u:%u: rotation (%g, %g, %g, %g) is not finite", e.index,
                          e.generation, rotation.x, rotation.y, rotation.z, rotation.w);
    uint32_t s = 0;
    orr_result r = edit_local(w, e, "orr_entity_set_rotation", &s);
    if (r == ORR_OK) w->trs[s].r = rotation;
    return r;
}

orr_result orr_entity_set_scale(orr_world *w, orr_entity e, orr_vec3d scale)
{
    ORRI_REQUIRE(w, NULL, "orr_entity_set_scale: world is NULL");
    if (!finite3(scale)) return not_finite(w, "orr_entity_set_scale", e, "scale", scale);
    uint32_t s = 0;
    orr_result r = edit_local(w, e, "orr_entity_set_scale", &s);
    if (r == ORR_OK) w->trs[s].s = scale;
    return r;
}

/* ---- batches ----------------------------------------------------------------------------- */

/* A batch runs the calls it stands for one after another, with the memory of the entities ORRI_AHEAD and
 * 2 x ORRI_AHEAD places on fetched meanwhile: scattered entities of a large world each cost cache (and TLB)
 * misses, which a loop of single calls takes one at a time and a batch overlaps. Stage one fetches an
 * entity's generation and slot, stage two (its slot known by then) what the call touches there. */

static inline void fetch_entity(const orr_world *w, orr_entity e)
{
    if (e.index < w->slot_of_cap) __builtin_prefetch(&w->slot_of[e.index]); /* generation and slot */
}

/* The slot of a live entity, NONE for a stale one. */
static inline uint32_t live_slot(const orr_world *w, orr_entity e)
{
    return orri_world_alive(w, e) ? w->slot_of[e.index].slot : ORRI_NONE;
}

/* ---- a batch on several threads ----
 * Stage one (chunks of the batch): each value checked, each entity's slot looked up into `slots`, and
 * whether the chunk's live slots ascend (with the first and the last of them).
 * Stage two writes the nodes. When the whole batch's slots ascend (a host moving its things in the order
 * it made them: no entity twice), by the same chunks, each writing its own nodes. Else by ranges of
 * slots, one per thread: every job reads the whole batch in order and takes the entries whose slot is
 * in its range, so that all of one entity's entries are taken by one job in the batch's order (the last
 * value wins, as one after another) and no two jobs write one node. Either way an entry that made its
 * node dirty is marked in `fresh` and counted for its chunk (by each job in its own row of `fresh_n`).
 * Stage three: those entities appended to the dirty list in the batch's order, each chunk's at its place
 * (the counts before it), in chunks on the threads when the batch is long (one pass over it that the
 * calling thread would take alone), else on the calling thread.
 * The dirty list, the flags and the values are those the one-thread loop leaves, whatever the thread
 * count. */
#define ORRI_BATCH_CHUNK 1024u
#define ORRI_BATCH_APPEND_FROM 16u /* chunks from which stage three is shared out: below, a run costs more */

typedef struct batch_pass {
    orr_world *w;
    const orr_entity *entities;
    const orr_vec3d *values;
    uint32_t count, chunks, jobs, per_job; /* per_job: slots per stage-two job (by ranges) */
    uint32_t *slots;                       /* [count] the entries' slots (ORRI_NONE: stale) */
    uint32_t *bad, *stale, *first_stale;   /* [chunks] first non-finite entry (count: none), stale entries */
    uint32_t *low, *high;                  /* [chunks] the first and last live slot (low ORRI_NONE: none) */
    uint32_t *ascends;                     /* [chunks] 1: the live slots ascend strictly */
    uint32_t *fresh_n;                     /* [rows x chunks] entries that made their node dirty, per job and
                                              chunk (one row by chunks; a row per job by ranges) */
    uint32_t *place;                       /* [chunks] where each chunk's go in the dirty list */
    uint8_t *fresh;                        /* [count] the entry made its node dirty */
} batch_pass;

static inline uint32_t batch_end(const batch_pass *b, uint32_t c)
{
    return b->count - c * ORRI_BATCH_CHUNK < ORRI_BATCH_CHUNK ? b->count : (c + 1) * ORRI_BATCH_CHUNK;
}

static void batch_look_job(void *ctx, uint32_t c)
{
    batch_pass *b = ctx;
    const orr_world *w = b->w;
    uint32_t a = c * ORRI_BATCH_CHUNK, end = batch_end(b, c);
    uint32_t bad = b->count, stale = 0, first_stale = b->count, low = ORRI_NONE, high = 0;
    bool ascends = true;
    for (uint32_t i = a; i < end; i++) {
        if (i + ORRI_AHEAD < end) fetch_entity(w, b->entities[i + ORRI_AHEAD]);
        if (bad == b->count && !finite3(b->values[i])) bad = i;
        uint32_t s = live_slot(w, b->entities[i]);
        b->slots[i] = s;
        if (s == ORRI_NONE) {
            if (!stale++) first_stale = i;
            continue;
        }
        if (low == ORRI_NONE) low = s;
        else if (s <= high) ascends = false;
        high = s;
    }
    b->bad[c] = bad, b->stale[c] = stale, b->first_stale[c] = first_stale;
    b->low[c] = low, b->high[c] = high, b->ascends[c] = ascends;
}

/* One entry of stage two: node s takes value i; returns whether that made it dirty (and listed). */
static inline bool batch_set_one(batch_pass *b, uint32_t i, uint32_t s, bool listing)
{
    orr_world *w = b->w;
    uint8_t *flags = &w->node[s].flags;
    bool fresh = listing && !(*flags & ORRI_NODE_DIRTY);
    b->fresh[i] = fresh;
    *flags |= ORRI_NODE_DIRTY;
    w->trs[s].t = b->values[i];
    return fresh;
}

static inline void batch_fetch_node(const orr_world *w, uint32_t s)
{
    __builtin_prefetch(&w->node[s], 1);
    __builtin_prefetch(&w->trs[s].t, 1);
    __builtin_prefetch((const char *)&w->trs[s].t + sizeof(orr_vec3d) - 1, 1);
}

/* Stage two by chunks (the batch's slots ascend: every node is one chunk's alone). */
static void batch_set_chunk_job(void *ctx, uint32_t c)
{
    batch_pass *b = ctx;
    const orr_world *w = b->w;
    uint32_t a = c * ORRI_BATCH_CHUNK, end = batch_end(b, c), fresh = 0;
    bool listing = !w->all_dirty;
    for (uint32_t i = a; i < end; i++) {
        if (i + ORRI_AHEAD < end && b->slots[i + ORRI_AHEAD] != ORRI_NONE) batch_fetch_node(w, b->slots[i + ORRI_AHEAD]);
        uint32_t s = b->slots[i];
        if (s != ORRI_NONE) fresh += batch_set_one(b, i, s, listing);
    }
    b->fresh_n[c] = fresh;
}

/* Stage two by ranges of slots: job j's range, its counts in row j. */
static void batch_set_range_job(void *ctx, uint32_t j)
{
    batch_pass *b = ctx;
    const orr_world *w = b->w;
    uint32_t lo = j * b->per_job, hi = lo + b->per_job; /* ORRI_NONE (stale) is in no range */
    uint32_t *row = b->fresh_n + (size_t)j * b->chunks;
    bool listing = !w->all_dirty;
    for (uint32_t c = 0; c < b->chunks; c++) {
        uint32_t fresh = 0;
        for (uint32_t i = c * ORRI_BATCH_CHUNK, end = batch_end(b, c); i < end; i++) {
            if (i + ORRI_AHEAD < b->count) { /* this job's nodes among the next: their misses overlap */
                uint32_t a = b->slots[i + ORRI_AHEAD];
                if (a >= lo && a < hi) batch_fetch_node(w, a);
            }
            uint32_t s = b->slots[i];
            if (s >= lo && s < hi) fresh += batch_set_one(b, i, s, listing);
        }
        row[c] = fresh;
    }
}

/* Stage three, chunk c: its fresh entries' entities at its place in the dirty list. */
static void batch_append_job(void *ctx, uint32_t c)
{
    batch_pass *b = ctx;
    uint32_t *out = b->w->dirty_list + b->w->dirty_count + b->place[c];
    for (uint32_t i = c * ORRI_BATCH_CHUNK, end = batch_end(b, c); i < end; i++)
        if (b->slots[i] != ORRI_NONE && b->fresh[i]) *out++ = b->entities[i].index;
}

/* false: not done (no memory for the bookkeeping), nothing changed; the caller runs the one-thread loop. */
static bool set_translations_parallel(orr_world *w, const orr_entity *entities, const orr_vec3d *translations,
                                      uint32_t count, uint32_t threads, orr_workers *workers, orr_result *result)
{
    uint32_t chunks = (count + ORRI_BATCH_CHUNK - 1) / ORRI_BATCH_CHUNK;
    /* scratch: the slots; scratch2: seven words per chunk, a row of counts per thread, then `fresh` (a byte
     * per entry) */
    uint64_t words = (uint64_t)(7 + threads) * chunks + (count + 3) / 4;
    if (words > UINT32_MAX || !orri_world_ensure_scratch(w, count) || !orri_world_ensure_scratch2(w, (uint32_t)words) ||
        !ORRI_GROW(&w->allocator, w->dirty_list, w->dirty_cap, w->dirty_count + count))
        return false;
    uint32_t slots = w->slot_count ? w->slot_count : 1, *at = w->scratch2;
    batch_pass b = {.w = w, .entities = entities, .values = translations, .count = count, .chunks = chunks,
                    .jobs = threads, .per_job = (slots + threads - 1) / threads, .slots = w->scratch};
    b.bad = at, b.stale = at + chunks, b.first_stale = at + 2 * chunks, b.low = at + 3 * chunks;
    b.high = at + 4 * chunks, b.ascends = at + 5 * chunks, b.place = at + 6 * chunks, b.fresh_n = at + 7 * chunks;
    b.fresh = (uint8_t *)(b.fresh_n + (size_t)threads * chunks);
    orri_pool_run(workers, threads, chunks, batch_look_job, &b);
    uint32_t stale = 0, first_stale = count, last = 0;
    bool ascends = true, any = false;
    for (uint32_t c = 0; c < chunks; c++) {
        if (b.bad[c] < count) {
            uint32_t i = b.bad[c];
            *result = orri_error(&w->error, ORR_ERROR_INVALID_ARGUMENT,
                                 "orr_entity_set_translations: translation %u (%g, %g, %g) is not finite", i,
                                 translations[i].x, translations[i].y, translations[i].z);
            return true;
        }
        if (b.stale[c] && !stale) first_stale = b.first_stale[c];
        stale += b.stale[c];
        if (b.low[c] == ORRI_NONE) continue; /* no live entry */
        if (!b.ascends[c] || (any && b.low[c] <= last)) ascends = false;
        any = true, last = b.high[c];
    }
    uint32_t rows = ascends ? 1 : threads;
    if (ascends) orri_pool_run(workers, threads, chunks, batch_set_chunk_job, &b);
    else orri_pool_run(workers, threads, b.jobs, batch_set_range_job, &b);
    if (!w->all_dirty) {
        uint32_t listed = 0;
        for (uint32_t c = 0; c < chunks; c++) {
            b.place[c] = listed;
            for (uint32_t r = 0; r < rows; r++) listed += b.fresh_n[(size_t)r * chunks + c];
        }
        if (chunks >= ORRI_BATCH_APPEND_FROM) {
            orri_pool_run(workers, threads, chunks, batch_append_job, &b);
        } else {
            for (uint32_t c = 0; c < chunks; c++) batch_append_job(&b, c);
        }
        w->dirty_count += listed;
    }
    w->revision += count - stale;
    *result = ORR_OK;
    if (stale) {
        orr_entity e = entities[first_stale];
        *result = orri_error(&w->error, ORR_ERROR_STALE_HANDLE,
                             "orr_entity_set_translations: %u of %u entities are stale (the first: entities[%u], %u:%u); "
                             "the others were set",
                             stale, count, first_stale, e.index, e.generation);
    }
    return true;
}

orr_result orr_entity_set_translations(orr_world *w, const orr_entity *entities, const orr_vec3d *translations,
                                       uint32_t count)
{
    ORRI_REQUIRE(w, NULL, "orr_entity_set_translations: world is NULL");
    ORRI_REQUIRE(!count || (entities && translations), &w->error,
                 "orr_entity_set_translations: entities and translations must not be NULL (count %u)", count);
    orr_workers *workers;
    uint32_t threads = orr_world_pass_threads(w, count, &workers);
    orr_result result;
    if (threads > 1 && set_translations_parallel(w, entities, translations, count, threads, workers, &result))
        return result;
    /* every value first, so that a refused batch changes nothing */
    for (uint32_t i = 0; i < count; i++)
        if (!finite3(translations[i]))
            return orri_error(&w->error, ORR_ERROR_INVALID_ARGUMENT,
                              "orr_entity_set_translations: translation %u (%g, %g, %g) is not finite", i,
                              translations[i].x, translations[i].y, translations[i].z);
    uint32_t stale = 0, first_stale = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (i + 2 * ORRI_AHEAD < count) fetch_entity(w, entities[i + 2 * ORRI_AHEAD]);
        if (i + ORRI_AHEAD < count) {
            uint32_t a = live_slot(w, entities[i + ORRI_AHEAD]);
            if (a != ORRI_NONE) {
                __builtin_prefetch(&w->trs[a].t, 1);
                __builtin_prefetch((const char *)&w->trs[a].t + sizeof(orr_vec3d) - 1, 1);
                __builtin_prefetch(&w->node[a], 1); /* its flags and entity: one line */
            }
        }
        uint32_t s = live_slot(w, entities[i]);
        if (s == ORRI_NONE) {
            if (!stale++) first_stale = i;
            continue;
        }
        orri_world_mark_dirty(w, s, false);
        w->trs[s].t = translations[i];
        w->revision++;
    }
    if (!stale) return ORR_OK;
    orr_entity e = entities[first_stale];
    return orri_error(&w->error, ORR_ERROR_STALE_HANDLE,
                      "orr_entity_set_translations: %u of %u entities are stale (the first: entities[%u], %u:%u); the "
                      "others were set",
                      stale, count, first_stale, e.index, e.generation);
}

orr_result orr_entity_cached_poses(const orr_world *w, const orr_entity *entities, uint32_t count, orr_affine3d *out)
{
    ORRI_REQUIRE(w, NULL, "orr_entity_cached_poses: world is NULL");
    ORRI_REQUIRE(!count || (entities && out), NULL, "orr_entity_cached_poses: entities and out must not be NULL");
    bool stale = false;
    for (uint32_t i = 0; i < count; i++) {
        if (i + 2 * ORRI_AHEAD < count) fetch_entity(w, entities[i + 2 * ORRI_AHEAD]);
        if (i + ORRI_AHEAD < count) {
            uint32_t a = live_slot(w, entities[i + ORRI_AHEAD]);
            if (a != ORRI_NONE) {
                __builtin_prefetch(&w->world[a]);
                __builtin_prefetch((const char *)&w->world[a] + sizeof(orri_affine) - 1);
            }
        }
        uint32_t s = live_slot(w, entities[i]);
        if (s == ORRI_NONE) {
            orr_affine3d_identity(&out[i]);
            stale = true;
        } else {
            out[i] = w->world[s];
        }
    }
    return stale ? ORR_ERROR_STALE_HANDLE : ORR_OK;
}

/* The current world matrix of slot `s`, computed from the topmost stale node of its path down, with
 * the same operations (in the same order) as propagation. Changes nothing. */
void orri_world_current_world(orr_world *w, uint32_t s, orr_mat4d *out)
{
    uint32_t top = ORRI_NONE, depth = 0;
    for (uint32_t a = s; a != ORRI_NONE; a = w->node[a].parent) {
        if (w->all_dirty || (w->node[a].flags & ORRI_NODE_DIRTY)) top = a;
        depth++;
    }
    if (top == ORRI_NONE) {
        orri_affine_to_mat4d(&w->world[s], out);
        return;
    }
    orri_affine m;
    orr_mat4d l;
    orri_world_local_matrix(w, top, &l);
    uint32_t p = w->node[top].parent;
    if (p == ORRI_NONE) orri_affine_from_mat4d(&l, &m);
    else orri_affine_mul(&w->world[p], &l, &m);
    /* The path from top down to s; scratch2 is free here (only used within single calls). */
    if (!orri_world_ensure_scratch2(w, depth)) {
        /* No memory for the path: walk it again per level (quadratic in depth, but correct). */
        uint32_t at = top;
        while (at != s) {
            uint32_t c = s;
            while (w->node[c].parent != at) c = w->node[c].parent;
            orri_world_local_matrix(w, c, &l);
            orri_affine_mul(&m, &l, &m);
            at = c;
        }
        orri_affine_to_mat4d(&m, out);
        return;
    }
    uint32_t n = 0;
    for (uint32_t a = s;; a = w->node[a].parent) {
        w->scratch2[n++] = a;
        if (a == top) break;
    }
    for (uint32_t i = n - 1; i-- > 0;) {
        orri_world_local_matrix(w, w->scratch2[i], &l);
        orri_affine_mul(&m, &l, &m);
    }
    orri_affine_to_mat4d(&m, out);
}

orr_result orr_entity_world_matrix(orr_world *w, orr_entity e, orr_mat4d *out)
{
    ORRI_REQUIRE(w, NULL, "orr_entity_world_matrix: world is NULL");
    ORRI_REQUIRE(out, &w->error, "orr_entity_world_matrix: out is required");
    if (!orri_world_alive(w, e)) {
        orr_mat4d_identity(out);
        return orri_world_stale(w, "orr_entity_world_matrix", e);
    }
    orri_world_current_world(w, w->slot_of[e.index].slot, out);
    return ORR_OK;
}

orr_result orr_entity_set_world_matrix(orr_world *w, orr_entity e, const orr_mat4d *world_matrix)
{
    ORRI_REQUIRE(w, NULL, "orr_entity_set_world_matrix: world is NULL");
    ORRI_REQUIRE(world_matrix, &w->error, "orr_entity_set_world_matrix: world_matrix is required");
    static const char fn[] = "orr_entity_set_world_matrix";
    for (int k = 0; k < 16; k++)
        if (!isfinite(world_matrix->m[k]))
            return orri_error(&w->error, ORR_ERROR_INVALID_ARGUMENT, "%s: entity %u:%u: element %d (%g) is not finite", fn,
                              e.index, e.generation, k, world_matrix->m[k]);
    if (!orri_world_alive(w, e)) return orri_world_stale(w, fn, e);
    uint32_t s = w->slot_of[e.index].slot, p = w->node[s].parent;
    orr_mat4d local = *world_matrix;
    if (p != ORRI_NONE) {
        orr_mat4d pw, inv;
        orri_world_current_world(w, p, &pw);
        if (!orr_mat4d_inverse_affine(&pw, &inv))
            return orri_error(&w->error, ORR_ERROR_INVALID_ARGUMENT,
                              "%s: the parent's world matrix of entity %u:%u is singular", fn, e.index, e.generation);
        orr_mat4d_mul(&inv, world_matrix, &local);
    }
    orr_result r = orri_world_store_local_matrix(w, s, &local, fn);
    if (r != ORR_OK) return r;
    orri_world_mark_dirty(w, s, false);
    w->revision++;
    return ORR_OK;
}

orr_result orr_entity_cached_world(const orr_world *w, orr_entity e, orr_mat4d *out)
{
    ORRI_REQUIRE(w, NULL, "orr_entity_cached_world: world is NULL");
    ORRI_REQUIRE(out, NULL, "orr_entity_cached_world: out is required");
    if (!orri_world_alive(w, e)) {
        orr_mat4d_identity(out);
        return ORR_ERROR_STALE_HANDLE;
    }
    orri_affine_to_mat4d(&w->world[w->slot_of[e.index].slot], out);
    return ORR_OK;
}

orr_result orr_entity_cached_pose(const orr_world *w, orr_entity e, orr_affine3d *out)
{
    ORRI_REQUIRE(w, NULL, "orr_entity_cached_pose: world is NULL");
    ORRI_REQUIRE(out, NULL, "orr_entity_cached_pose: out is required");
    if (!orri_world_alive(w, e)) {
        orr_affine3d_identity(out);
        return ORR_ERROR_STALE_HANDLE;
    }
    *out = w->world[w->slot_of[e.index].slot];
    return ORR_OK;
}

/* ---- propagation ------------------------------------------------------------------------- */

/* Where a pass writes the change log's poses: straight into the world's list (one thread), or into a
 * chunk's own slice of it (several), merged in chunk order afterwards. `on`: the log is listing. */
typedef struct log_sink {
    uint32_t *at;
    uint32_t count;
    bool on;
} log_sink;

static inline void recompute_one(orr_world *w, uint32_t i)
{
    orr_mat4d l;
    orri_world_local_matrix(w, i, &l);
    uint32_t p = w->node[i].parent;
    if (p == ORRI_NONE) orri_affine_from_mat4d(&l, &w->world[i]);
    else orri_affine_mul(&w->world[p], &l, &w->world[i]);
    w->node[i].flags &= (uint8_t)~ORRI_NODE_DIRTY;
    orri_world_log(w, i, ORRI_NODE_MOVED);
}

/* recompute_one for a chunk of a parallel pass: the log entry goes to the chunk's slice (room for it
 * was made before the pass), nothing else of the world is written but this node's matrix and flags. */
static inline void recompute_into(orr_world *w, uint32_t i, log_sink *log)
{
    orr_mat4d l;
    orri_world_local_matrix(w, i, &l);
    uint32_t p = w->node[i].parent;
    if (p == ORRI_NONE) orri_affine_from_mat4d(&l, &w->world[i]);
    else orri_affine_mul(&w->world[p], &l, &w->world[i]);
    orri_node *n = &w->node[i];
    uint8_t f = (uint8_t)(n->flags & ~ORRI_NODE_DIRTY);
    if (log->on && !(f & ORRI_NODE_MOVED)) {
        f |= ORRI_NODE_MOVED;
        log->at[log->count++] = n->entity;
    }
    n->flags = f;
}

/* Slots a..b inclusive, in a linear table: a flat loop, parents before children. */
static void recompute_range(orr_world *w, uint32_t a, uint32_t b)
{
    const orri_node *node = w->node;
    for (uint32_t i = a; i <= b; i++) {
        if (!(node[i].flags & ORRI_NODE_ALIVE)) continue;
        recompute_one(w, i);
    }
}

/* Any table order: follows the links. */
static void recompute_subtree(orr_world *w, uint32_t root)
{
    for (uint32_t n = root; n != ORRI_NONE; n = orri_preorder_next(w, n, root)) recompute_one(w, n);
}

/* The subtree of `s` in a linear table: a flat loop from s that stops at the first live node whose
 * parent lies before s (nodes in between are s's descendants, so a parent at or after s is inside), or
 * at `limit`, a slot known to lie past the subtree (the next chunk's first root: never read here, since
 * another thread may be writing it). Returns the last slot it covered. */
static uint32_t recompute_linear_subtree(orr_world *w, uint32_t s, uint32_t limit, log_sink *log)
{
    if (log) recompute_into(w, s, log);
    else recompute_one(w, s);
    if (w->node[s].first == ORRI_NONE) return s; /* a leaf: nothing below it to scan for */
    const orri_node *node = w->node;
    uint32_t i = s + 1;
    for (; i < limit; i++) {
        if (!(node[i].flags & ORRI_NODE_ALIVE)) continue;
        uint32_t p = node[i].parent;
        if (p == ORRI_NONE || p < s) break;
        if (log) recompute_into(w, i, log);
        else recompute_one(w, i);
    }
    return i - 1;
}

/* The dirty nodes in ascending slots (scratch[0..n)), prefetched ahead; each with no dirty ancestor
 * is a subtree root, the others lie inside an earlier root's subtree (whose range covers them). */
static void recompute_roots(orr_world *w, const uint32_t *slots, uint32_t n, uint32_t limit, log_sink *log)
{
    bool covered = false;
    uint32_t covered_end = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = slots[i];
        if (i + ORRI_AHEAD < n) { /* scattered slots of a large table: their misses overlap */
            uint32_t a = slots[i + ORRI_AHEAD];
            __builtin_prefetch(&w->world[a], 1);
            __builtin_prefetch((const char *)&w->world[a] + sizeof(orri_affine) - 1, 1);
            __builtin_prefetch(&w->trs[a]);
            __builtin_prefetch((const char *)&w->trs[a] + sizeof(orri_trs) - 1);
            __builtin_prefetch(&w->node[a], 1); /* parent, first child, entity, flags */
        }
        if (covered && s <= covered_end) continue;
        covered = true;
        covered_end = recompute_linear_subtree(w, s, limit, log);
    }
}

static bool has_dirty_ancestor(const orr_world *w, uint32_t s)
{
    for (uint32_t a = w->node[s].parent; a != ORRI_NONE; a = w->node[a].parent)
        if (w->node[a].flags & ORRI_NODE_DIRTY) return true;
    return false;
}

/* ---- dirty subtrees on several threads ----
 * The sorted dirty slots are cut into chunks of ORRI_FRAME_CHUNK. Before any thread writes, each chunk's
 * leading entries that lie inside an earlier chunk's subtrees (they have a dirty ancestor) are skipped:
 * from its first root on, a chunk's subtrees are disjoint from every other chunk's, and they end before
 * the next chunk's first root (its limit). So a chunk recomputes at most limit - first root nodes, and
 * its log entries go to that many places of the world's list, at first root - the first chunk's first
 * root past the entries already there; the slices are then closed up in chunk order, which gives the
 * list one thread would have written. */
typedef struct dirty_pass {
    orr_world *w;
    const uint32_t *slots;
    uint32_t n;
    uint32_t *first; /* per chunk: index into slots of its first root (n: none) */
    uint32_t *count; /* per chunk: log entries written */
    uint32_t base;   /* the first chunk's first root */
    bool log_on;
} dirty_pass;

static uint32_t chunk_limit(const dirty_pass *d, uint32_t c, uint32_t chunks)
{
    for (uint32_t k = c + 1; k < chunks; k++)
        if (d->first[k] < d->n) return d->slots[d->first[k]];
    return d->w->slot_count;
}

static void dirty_job(void *ctx, uint32_t c)
{
    dirty_pass *d = ctx;
    uint32_t chunks = (d->n + ORRI_FRAME_CHUNK - 1) / ORRI_FRAME_CHUNK;
    uint32_t from = d->first[c], end = (c + 1) * ORRI_FRAME_CHUNK < d->n ? (c + 1) * ORRI_FRAME_CHUNK : d->n;
    d->count[c] = 0;
    if (from >= end) return;
    orr_world *w = d->w;
    uint32_t root = d->slots[from];
    log_sink log = {.at = w->moved + w->moved_count + (root - d->base), .on = d->log_on};
    recompute_roots(w, d->slots + from, end - from, chunk_limit(d, c, chunks), &log);
    d->count[c] = log.count;
}

/* Chunk c's first root (read only: no thread writes yet). */
static void dirty_first_job(void *ctx, uint32_t c)
{
    dirty_pass *d = ctx;
    uint32_t i = c * ORRI_FRAME_CHUNK, end = i + ORRI_FRAME_CHUNK < d->n ? i + ORRI_FRAME_CHUNK : d->n;
    while (i < end && has_dirty_ancestor(d->w, d->slots[i])) i++;
    d->first[c] = i < end ? i : d->n;
}

#define ORRI_FIRST_SHARED_FROM 64u /* chunks from which their first roots are found on the threads too */

/* false: not done (no memory for the bookkeeping), nothing written; the caller runs it on one thread. */
static bool dirty_parallel(orr_world *w, uint32_t n, uint32_t threads, orr_workers *workers)
{
    uint32_t chunks = (n + ORRI_FRAME_CHUNK - 1) / ORRI_FRAME_CHUNK;
    /* scratch2 (the sort's scratch, free now) holds first[] and count[] */
    if (!orri_world_ensure_scratch2(w, 2 * chunks)) return false;
    dirty_pass d = {.w = w, .slots = w->scratch, .n = n, .first = w->scratch2, .count = w->scratch2 + chunks,
                    .log_on = !w->changes_all && w->structure_version == w->changes_structure};
    /* (a chunk's first look-up is a miss of its own: a whole world's chunks cost one thread a while) */
    if (chunks >= ORRI_FIRST_SHARED_FROM) orri_pool_run(workers, threads, chunks, dirty_first_job, &d);
    else
        for (uint32_t c = 0; c < chunks; c++) dirty_first_job(&d, c);
    d.base = d.first[0] < n ? w->scratch[d.first[0]] : 0; /* the first entry never has a dirty ancestor */
    if (d.log_on && !ORRI_GROW_RAW(&w->allocator, w->moved, w->moved_cap, w->moved_count + (w->slot_count - d.base)))
        return false;
    orri_pool_run(workers, threads, chunks, dirty_job, &d);
    if (!d.log_on) return true;
    uint32_t at = w->moved_count;
    for (uint32_t c = 0; c < chunks; c++) { /* the slices closed up, in chunk order */
        if (!d.count[c]) continue;
        const uint32_t *from = w->moved + w->moved_count + (w->scratch[d.first[c]] - d.base);
        if (from != w->moved + at) memmove(w->moved + at, from, (size_t)d.count[c] * sizeof *from);
        at += d.count[c];
    }
    w->moved_count = at;
    return true;
}

/* ---- every node on several threads (the log is not listing: changes_all) ----
 * Linear table: slots cut into chunks of ORRI_FULL_CHUNK. A node whose parent lies in an earlier chunk
 * has as parent an ancestor of its chunk's first live node ("boundary" nodes, a path per chunk); those
 * are recomputed first, top down, on the calling thread, and skipped by the chunks (which then read
 * their matrices but never write them). Any other order: the roots' subtrees, in chunks of roots. */
#define ORRI_FULL_CHUNK 1024u
#define ORRI_ROOT_CHUNK 64u

typedef struct full_pass {
    orr_world *w;
    const uint32_t *skip; /* boundary slots, ascending, unique */
    uint32_t skip_count;
    const uint32_t *roots;
    uint32_t root_count;
} full_pass;

static void full_linear_job(void *ctx, uint32_t c)
{
    full_pass *f = ctx;
    orr_world *w = f->w;
    uint32_t a = c * ORRI_FULL_CHUNK, b = a + ORRI_FULL_CHUNK < w->slot_count ? a + ORRI_FULL_CHUNK : w->slot_count;
    uint32_t lo = 0, hi = f->skip_count; /* the first boundary slot at or after a */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (f->skip[mid] < a) lo = mid + 1;
        else hi = mid;
    }
    const orri_node *node = w->node;
    for (uint32_t i = a; i < b; i++) {
        if (!(node[i].flags & ORRI_NODE_ALIVE)) continue;
        if (lo < f->skip_count && f->skip[lo] == i) {
            lo++;
            continue;
        }
        recompute_one(w, i);
    }
}

static void full_roots_job(void *ctx, uint32_t c)
{
    full_pass *f = ctx;
    uint32_t a = c * ORRI_ROOT_CHUNK, b = a + ORRI_ROOT_CHUNK < f->root_count ? a + ORRI_ROOT_CHUNK : f->root_count;
    for (uint32_t i = a; i < b; i++) recompute_subtree(f->w, f->roots[i]);
}

static bool full_parallel(orr_world *w, uint32_t threads, orr_workers *workers)
{
    full_pass f = {.w = w};
    if (!w->linear) {
        if (!orri_world_ensure_scratch(w, w->root_count)) return false;
        uint32_t n = 0;
        for (uint32_t r = w->first_root; r != ORRI_NONE; r = w->next[r]) w->scratch[n++] = r;
        f.roots = w->scratch, f.root_count = n;
        orri_pool_run(workers, threads, (n + ORRI_ROOT_CHUNK - 1) / ORRI_ROOT_CHUNK, full_roots_job, &f);
        return true;
    }
    uint32_t chunks = (w->slot_count + ORRI_FULL_CHUNK - 1) / ORRI_FULL_CHUNK;
    uint32_t n = 0;
    for (uint32_t c = 1; c < chunks; c++) { /* each chunk's boundary path, bottom up */
        uint32_t a = c * ORRI_FULL_CHUNK, b = a + ORRI_FULL_CHUNK < w->slot_count ? a + ORRI_FULL_CHUNK : w->slot_count;
        while (a < b && !(w->node[a].flags & ORRI_NODE_ALIVE)) a++;
        if (a == b) continue;
        for (uint32_t p = w->node[a].parent; p != ORRI_NONE && p < c * ORRI_FULL_CHUNK; p = w->node[p].parent) {
            if (!orri_world_ensure_scratch(w, n + 1)) return false;
            w->scratch[n++] = p;
        }
    }
    if (n) {
        if (!orri_world_ensure_scratch2(w, n)) return false;
        uint32_t max = 0;
        for (uint32_t i = 0; i < n; i++) max = w->scratch[i] > max ? w->scratch[i] : max;
        orr_sort_u32(w->scratch, w->scratch2, n, max);
        uint32_t unique = 0;
        for (uint32_t i = 0; i < n; i++)
            if (!unique || w->scratch[unique - 1] != w->scratch[i]) w->scratch[unique++] = w->scratch[i];
        n = unique;
        /* ascending slots: each boundary node's parent (a boundary node too, or none) is done before it */
        for (uint32_t i = 0; i < n; i++) recompute_one(w, w->scratch[i]);
    }
    f.skip = w->scratch, f.skip_count = n;
    orri_pool_run(workers, threads, chunks, full_linear_job, &f);
    return true;
}

/* ---- the dirty slots gathered and sorted on several threads ----
 * The result is the sorted list of the dirty entries' slots (duplicates kept), which is one list
 * however it is made: so the cuts here may follow the thread count. Stage one (a part of the dirty
 * list per job): each entry's slot looked up, the dirty ones kept in the part's own range of scratch
 * and counted by bucket (the slot's high bits: buckets are ranges of slots, in order). Then, on the
 * calling thread, each (bucket, part)'s place in scratch2, bucket by bucket. Stage two (per part): its
 * slots moved to their places. Stage three (groups of buckets): each bucket sorted, into scratch.
 * Where every part kept all its entries and they ascend, part after part (a batch of moves in the table's
 * order, a whole world moved by its host), stage one's result is the sorted list already: the other
 * stages are skipped. */
#define GATHER_GROUP 16u /* buckets per stage-three job */

typedef struct gather_pass {
    orr_world *w;
    uint32_t count, parts, per_part, buckets, shift;
    uint32_t *kept;  /* [parts] slots each part kept (at scratch + part x per_part) */
    uint32_t *low, *high, *ascends; /* [parts] the first and last slot it kept, whether they ascend */
    uint32_t *place; /* [parts x buckets] counts, then where each part's share of each bucket goes */
    uint32_t *first; /* [buckets + 1] where each bucket starts in scratch2 */
} gather_pass;

static void gather_look_job(void *ctx, uint32_t c)
{
    gather_pass *g = ctx;
    const orr_world *w = g->w;
    const uint32_t *dirty = w->dirty_list;
    uint32_t from = c * g->per_part, to = g->count - from < g->per_part ? g->count : from + g->per_part, k = 0;
    uint32_t *out = w->scratch + from, *count = g->place + (size_t)c * g->buckets, last = 0;
    bool ascends = true;
    memset(count, 0, g->buckets * sizeof *count);
    for (uint32_t i = from; i < to; i++) {
        if (i + 2 * ORRI_AHEAD < to) __builtin_prefetch(&w->slot_of[dirty[i + 2 * ORRI_AHEAD]].slot);
        if (i + ORRI_AHEAD < to) {
            uint32_t a = w->slot_of[dirty[i + ORRI_AHEAD]].slot;
            if (a != ORRI_NONE) __builtin_prefetch(&w->node[a]);
        }
        uint32_t s = w->slot_of[dirty[i]].slot;
        if (s == ORRI_NONE || !(w->node[s].flags & ORRI_NODE_DIRTY)) continue;
        if (k && s < last) ascends = false;
        last = s;
        out[k++] = s;
        count[s >> g->shift]++;
    }
    g->kept[c] = k;
    g->low[c] = k ? out[0] : 0, g->high[c] = last, g->ascends[c] = ascends;
}

static void gather_place_job(void *ctx, uint32_t c)
{
    gather_pass *g = ctx;
    const uint32_t *in = g->w->scratch + (size_t)c * g->per_part;
    uint32_t *place = g->place + (size_t)c * g->buckets, *out = g->w->scratch2;
    for (uint32_t k = 0; k < g->kept[c]; k++) out[place[in[k] >> g->shift]++] = in[k];
}

/* Bucket b's n slots, all in [b << shift, (b + 1) << shift), sorted into `out` (v: scratch). */
static void sort_bucket(const uint32_t *v, uint32_t *out, uint32_t n, uint32_t b, uint32_t shift)
{
    if (n < 64 || shift > 12) {
        memcpy(out, v, (size_t)n * sizeof *v);
        if (n < 64) {
            for (uint32_t i = 1; i < n; i++) {
                uint32_t x = out[i], j = i;
                for (; j > 0 && out[j - 1] > x; j--) out[j] = out[j - 1];
                out[j] = x;
            }
        } else {
            orr_sort_u32(out, (uint32_t *)v, n, ((b + 1) << shift) - 1); /* (v is free by then) */
        }
        return;
    }
    uint32_t count[1u << 12], width = 1u << shift, base = b << shift, sum = 0;
    memset(count, 0, width * sizeof *count);
    for (uint32_t i = 0; i < n; i++) count[v[i] - base]++;
    for (uint32_t d = 0; d < width; d++) {
        uint32_t c = count[d];
        count[d] = sum;
        sum += c;
    }
    for (uint32_t i = 0; i < n; i++) out[count[v[i] - base]++] = v[i];
}

static void gather_sort_job(void *ctx, uint32_t j)
{
    gather_pass *g = ctx;
    uint32_t b = j * GATHER_GROUP, end = b + GATHER_GROUP < g->buckets ? b + GATHER_GROUP : g->buckets;
    for (; b < end; b++) {
        uint32_t lo = g->first[b];
        sort_bucket(g->w->scratch2 + lo, g->w->scratch + lo, g->first[b + 1] - lo, b, g->shift);
    }
}

/* false: not done (no memory for the bookkeeping); else *n slots sorted in scratch. */
static bool gather_parallel(orr_world *w, uint32_t threads, orr_workers *workers, uint32_t *n)
{
    uint32_t count = w->dirty_count, parts = 2 * threads;
    if (parts > count / ORRI_FRAME_CHUNK) parts = count / ORRI_FRAME_CHUNK ? count / ORRI_FRAME_CHUNK : 1;
    uint32_t bits = 0; /* of the largest slot */
    while (bits < 32 && (w->slot_count - 1) >> bits) bits++;
    /* About 32 slots a bucket, and no more counts (parts x buckets) than a quarter of the entries
     * (at least 4096): the places are found on one thread. */
    uint32_t most = (count / 4 > 4096 ? count / 4 : 4096) / parts, log = 0;
    while (log < bits && (2u << log) <= count / 32 && (2u << log) <= most) log++;
    gather_pass g = {.w = w, .count = count, .parts = parts, .per_part = (count + parts - 1) / parts,
                     .buckets = 1u << log, .shift = bits - log};
    uint64_t need2 = (uint64_t)count + 4 * (uint64_t)parts + (uint64_t)parts * g.buckets + g.buckets + 1;
    if (need2 > UINT32_MAX || !orri_world_ensure_scratch(w, count) || !orri_world_ensure_scratch2(w, (uint32_t)need2))
        return false;
    g.kept = w->scratch2 + count, g.low = g.kept + parts, g.high = g.low + parts, g.ascends = g.high + parts;
    g.place = g.ascends + parts, g.first = g.place + (size_t)parts * g.buckets;
    orri_pool_run(workers, threads, parts, gather_look_job, &g);
    bool sorted = true;
    for (uint32_t c = 0; c < parts && sorted; c++) {
        uint32_t from = c * g.per_part, size = count - from < g.per_part ? count - from : g.per_part;
        sorted = g.kept[c] == size && g.ascends[c] && (!c || !size || g.low[c] >= g.high[c - 1]);
    }
    if (sorted) {
        *n = count;
        return true;
    }
    uint32_t at = 0;
    for (uint32_t b = 0; b < g.buckets; b++) {
        g.first[b] = at;
        for (uint32_t c = 0; c < parts; c++) {
            uint32_t *p = &g.place[(size_t)c * g.buckets + b], k = *p;
            *p = at;
            at += k;
        }
    }
    g.first[g.buckets] = at;
    orri_pool_run(workers, threads, parts, gather_place_job, &g);
    orri_pool_run(workers, threads, (g.buckets + GATHER_GROUP - 1) / GATHER_GROUP, gather_sort_job, &g);
    *n = at;
    return true;
}

void orr_world_update_transforms(orr_world *w)
{
    ORRI_ASSERT(w, "orr_world_update_transforms: world is NULL");
    if (!w) return; /* release builds: nothing to update */
    if (!w->all_dirty && w->dirty_count == 0) return;
    orri_world_maybe_relinearize(w, true);
    if (w->all_dirty) {
        w->changes_all = true; /* every pose is recomputed: the log stops listing them one by one */
        orr_workers *workers;
        uint32_t threads = orr_world_pass_threads(w, w->live, &workers);
        if (threads <= 1 || !full_parallel(w, threads, workers)) {
            if (w->linear) {
                if (w->slot_count) recompute_range(w, 0, w->slot_count - 1);
            } else {
                for (uint32_t r = w->first_root; r != ORRI_NONE; r = w->next[r]) recompute_subtree(w, r);
            }
        }
        w->all_dirty = false;
        w->dirty_count = 0;
        return;
    }
    uint32_t n = 0;
    orr_workers *gather_workers;
    uint32_t gather_threads = w->linear ? orr_world_pass_threads(w, w->dirty_count, &gather_workers) : 1;
    if (gather_threads > 1 && gather_parallel(w, gather_threads, gather_workers, &n)) {
        /* Ascending slots: an ancestor comes before its descendants, whose slots its range covers. */
        orr_workers *workers;
        uint32_t threads = orr_world_pass_threads(w, n, &workers);
        if (threads <= 1 || !dirty_parallel(w, n, threads, workers)) recompute_roots(w, w->scratch, n, w->slot_count, NULL);
    } else if (w->linear && orri_world_ensure_scratch(w, w->dirty_count) && orri_world_ensure_scratch2(w, w->dirty_count)) {
        uint32_t max = 0;
        const uint32_t *dirty = w->dirty_list;
        for (uint32_t i = 0; i < w->dirty_count; i++) {
            if (i + 2 * ORRI_AHEAD < w->dirty_count) __builtin_prefetch(&w->slot_of[dirty[i + 2 * ORRI_AHEAD]].slot);
            if (i + ORRI_AHEAD < w->dirty_count) {
                uint32_t a = w->slot_of[dirty[i + ORRI_AHEAD]].slot;
                if (a != ORRI_NONE) __builtin_prefetch(&w->node[a]);
            }
            uint32_t s = w->slot_of[dirty[i]].slot;
            if (s == ORRI_NONE || !(w->node[s].flags & ORRI_NODE_DIRTY)) continue;
            w->scratch[n++] = s;
            if (s > max) max = s;
        }
        orr_sort_u32(w->scratch, w->scratch2, n, max);
        /* Ascending slots: an ancestor comes before its descendants, whose slots its range covers. */
        orr_workers *workers;
        uint32_t threads = orr_world_pass_threads(w, n, &workers);
        if (threads <= 1 || !dirty_parallel(w, n, threads, workers)) recompute_roots(w, w->scratch, n, w->slot_count, NULL);
    } else {
        /* Not in pre-order (until enough disorder has gathered for a relinearize): one thread follows
         * the links. */
        for (uint32_t i = 0; i < w->dirty_count; i++) {
            uint32_t s = w->slot_of[w->dirty_list[i]].slot;
            if (s == ORRI_NONE || !(w->node[s].flags & ORRI_NODE_DIRTY)) continue;
            if (!has_dirty_ancestor(w, s)) recompute_subtree(w, s); /* else its topmost dirty ancestor covers it */
        }
    }
    w->dirty_count = 0;
}
