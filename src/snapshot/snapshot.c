/* The snapshot as a value: storage, copy, equality and the diff by instance id. */
#include "core/internal.h"

#include <orrery/snapshot.h>
#include <string.h>

_Static_assert(sizeof(orr_render_instance) == 192, "snapshot instances are 192 bytes: three cache lines");

#define NONE UINT32_MAX
#define GROW(s, arr, cap, need) ORRI_GROW(&(s)->allocator, (s)->arr, (s)->cap, (need))

/* ---- storage ------------------------------------------------------------------------------- */

void orr_snapshot_init(orr_snapshot *s, const orr_allocator *allocator)
{
    ORRI_ASSERT(s, "orr_snapshot_init: a snapshot is required");
    *s = (orr_snapshot){.allocator = orri_allocator_or_default(allocator)};
}

void orr_snapshot_fini(orr_snapshot *s)
{
    if (!s || !s->allocator.realloc) return;
    const orr_allocator *a = &s->allocator;
    orri_free(a, s->instances, (size_t)s->instance_capacity * sizeof *s->instances);
    orri_free(a, s->lights, (size_t)s->light_capacity * sizeof *s->lights);
    orri_free(a, s->cameras, (size_t)s->camera_capacity * sizeof *s->cameras);
    orri_free(a, s->joints, (size_t)s->joint_capacity * sizeof *s->joints);
    orri_free(a, s->material_bindings, (size_t)s->material_binding_capacity * sizeof *s->material_bindings);
    orri_free(a, s->changed, (size_t)s->changed_capacity * sizeof *s->changed);
    orri_free(a, s->removed, (size_t)s->removed_capacity * sizeof *s->removed);
    orri_free(a, s->changed_at, (size_t)s->changed_at_capacity * sizeof *s->changed_at);
    orri_free(a, s->names, s->names_capacity);
    orri_free(a, s->index_of, (size_t)s->index_capacity * sizeof *s->index_of);
    orri_free(a, s->fur, (size_t)s->fur_capacity * sizeof *s->fur);
    orri_free(a, s->weights, (size_t)s->weight_capacity * sizeof *s->weights);
    orr_allocator keep = s->allocator;
    *s = (orr_snapshot){.allocator = keep};
}

orr_result orr_snapshot_copy(const orr_snapshot *src, orr_snapshot *dst)
{
    ORRI_REQUIRE(src && dst && dst->allocator.realloc && src != dst, NULL,
                 "orr_snapshot_copy: a source and another, initialised, destination");
    orr_snapshot *d = dst;
    d->frame = src->frame;
    d->tick = src->tick;
    d->revision = src->revision;
    d->structure_version = src->structure_version;
    d->layout_version = src->layout_version;
    d->delta_base = src->delta_base;
    d->lag = src->lag;
#define COPY(arr, cnt, cap)                                                                                \
    do {                                                                                                   \
        if (!GROW(d, arr, cap, src->cnt)) return ORR_ERROR_OUT_OF_MEMORY;                                  \
        if (src->cnt) memcpy(d->arr, src->arr, (size_t)src->cnt * sizeof *d->arr);                         \
        d->cnt = src->cnt;                                                                                 \
    } while (0)
    COPY(instances, instance_count, instance_capacity);
    COPY(lights, light_count, light_capacity);
    COPY(cameras, camera_count, camera_capacity);
    COPY(joints, joint_count, joint_capacity);
    COPY(material_bindings, material_binding_count, material_binding_capacity);
    COPY(changed, changed_count, changed_capacity);
    COPY(removed, removed_count, removed_capacity);
    COPY(changed_at, changed_at_count, changed_at_capacity);
    d->changed_at_frame = src->changed_at_frame;
    COPY(names, names_size, names_capacity);
    COPY(fur, fur_count, fur_capacity);
    COPY(weights, weight_count, weight_capacity);
#undef COPY
    if (!GROW(d, index_of, index_capacity, src->index_capacity)) return ORR_ERROR_OUT_OF_MEMORY;
    if (d->index_capacity) memset(d->index_of, 0xff, (size_t)d->index_capacity * sizeof *d->index_of);
    if (src->index_capacity) memcpy(d->index_of, src->index_of, (size_t)src->index_capacity * sizeof *d->index_of);
    return ORR_OK;
}

/* ---- comparison ---------------------------------------------------------------------------- */

/* The sidecar entry of instance `index`, or NULL (entries are in instance order). */
static const orr_render_fur *fur_of(const orr_snapshot *s, uint32_t index)
{
    uint32_t n = s->fur ? s->fur_count : 0, lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->fur[mid].instance < index) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && s->fur[lo].instance == index ? &s->fur[lo] : NULL;
}

static bool same_fur_values(const orr_render_fur *a, const orr_render_fur *b)
{
    if (!a || !b) return a == b;
    return a->set == b->set && a->shell_count == b->shell_count && memcmp(&a->shell_length, &b->shell_length, 4) == 0 &&
           memcmp(&a->density, &b->density, 4) == 0 && memcmp(&a->thinning, &b->thinning, 4) == 0;
}

static const char *name_at(const orr_snapshot *s, uint32_t offset) { return orr_snapshot_name(s, offset); }

/* An instance's override slots, or none when its range lies outside the snapshot's bindings. */
static const orr_material_id *bindings_of(const orr_snapshot *s, const orr_render_instance *in)
{
    if (!in->material_count) return NULL;
    uint64_t end = (uint64_t)in->material_offset + in->material_count;
    return end <= s->material_binding_count ? s->material_bindings + in->material_offset : NULL;
}

static const orr_affine3d *joints_of(const orr_snapshot *s, const orr_render_instance *in)
{
    if (!in->joint_count || in->joint_offset == NONE) return NULL;
    uint64_t end = (uint64_t)in->joint_offset + in->joint_count;
    return end <= s->joint_count ? s->joints + in->joint_offset : NULL;
}

static const float *weights_of(const orr_snapshot *s, const orr_render_instance *in)
{
    if (!in->weight_count) return NULL;
    uint64_t end = (uint64_t)in->weight_offset + in->weight_count;
    return end <= s->weight_count ? s->weights + in->weight_offset : NULL;
}

static bool same_bindings(const orr_snapshot *sa, const orr_render_instance *a, const orr_snapshot *sb,
                          const orr_render_instance *b)
{
    if (a->material_count != b->material_count) return false;
    const orr_material_id *ma = bindings_of(sa, a), *mb = bindings_of(sb, b);
    if (!ma || !mb) return ma == mb;
    return memcmp(ma, mb, a->material_count * sizeof *ma) == 0;
}

/* What the prepared draw protocol's retained output depends on (see layout_version), fur usability
 * aside. */
static bool same_layout(const orr_snapshot *sa, const orr_render_instance *a, const orr_snapshot *sb,
                        const orr_render_instance *b)
{
    return a->id == b->id && orr_entity_eq(a->entity, b->entity) && orr_id_eq(a->mesh, b->mesh) &&
           a->joint_count == b->joint_count && (a->joint_offset == NONE) == (b->joint_offset == NONE) &&
           a->casts_shadows == b->casts_shadows && same_bindings(sa, a, sb, b);
}

/* The instance's own fields (its fur entry aside). */
static bool same_record(const orr_snapshot *sa, const orr_render_instance *a, const orr_snapshot *sb,
                        const orr_render_instance *b)
{
    if (!same_layout(sa, a, sb, b) || a->layers != b->layers || a->visible != b->visible ||
        a->joint_offset != b->joint_offset || memcmp(&a->world, &b->world, sizeof a->world) != 0 ||
        memcmp(&a->bounds, &b->bounds, sizeof a->bounds) != 0 || memcmp(a->reserved, b->reserved, sizeof a->reserved) != 0 ||
        strcmp(name_at(sa, a->name), name_at(sb, b->name)) != 0)
        return false;
    /* weights by value, and their offset too (like the joints': a renderer's record holds it) */
    if (a->weight_count != b->weight_count || a->weight_offset != b->weight_offset) return false;
    const float *wa = weights_of(sa, a), *wb = weights_of(sb, b);
    if ((wa == NULL) != (wb == NULL) || (wa && memcmp(wa, wb, a->weight_count * sizeof *wa) != 0)) return false;
    const orr_affine3d *ja = joints_of(sa, a), *jb = joints_of(sb, b);
    if (!ja || !jb) return ja == jb;
    return memcmp(ja, jb, a->joint_count * sizeof *ja) == 0;
}

bool orr_snapshot_instance_equal(const orr_snapshot *sa, const orr_render_instance *a, const orr_snapshot *sb,
                                 const orr_render_instance *b)
{
    return same_record(sa, a, sb, b) &&
           same_fur_values(fur_of(sa, (uint32_t)(a - sa->instances)), fur_of(sb, (uint32_t)(b - sb->instances)));
}

static bool same_light(const orr_snapshot *sa, const orr_render_light *a, const orr_snapshot *sb,
                       const orr_render_light *b)
{
    return orr_entity_eq(a->entity, b->entity) && a->type == b->type && memcmp(&a->world, &b->world, sizeof a->world) == 0 &&
           memcmp(a->color, b->color, sizeof a->color) == 0 && memcmp(&a->intensity, &b->intensity, 4) == 0 &&
           memcmp(&a->range, &b->range, 4) == 0 && memcmp(&a->cos_inner, &b->cos_inner, 4) == 0 &&
           memcmp(&a->cos_outer, &b->cos_outer, 4) == 0 && a->casts_shadows == b->casts_shadows && strcmp(name_at(sa, a->name), name_at(sb, b->name)) == 0;
}

static bool same_camera(const orr_snapshot *sa, const orr_render_camera *a, const orr_snapshot *sb,
                        const orr_render_camera *b)
{
    return orr_entity_eq(a->entity, b->entity) && a->projection == b->projection &&
           memcmp(&a->world, &b->world, sizeof a->world) == 0 && memcmp(&a->yfov, &b->yfov, 6 * sizeof(double)) == 0 &&
           strcmp(name_at(sa, a->name), name_at(sb, b->name)) == 0;
}

static bool same_lights(const orr_snapshot *a, const orr_snapshot *b)
{
    if (a->light_count != b->light_count) return false;
    for (uint32_t i = 0; i < a->light_count; i++)
        if (!same_light(a, &a->lights[i], b, &b->lights[i])) return false;
    return true;
}

static bool same_cameras(const orr_snapshot *a, const orr_snapshot *b)
{
    if (a->camera_count != b->camera_count) return false;
    for (uint32_t i = 0; i < a->camera_count; i++)
        if (!same_camera(a, &a->cameras[i], b, &b->cameras[i])) return false;
    return true;
}

static bool same_fur(const orr_snapshot *a, const orr_snapshot *b)
{
    if (a->fur_count != b->fur_count) return false;
    for (uint32_t i = 0; i < a->fur_count; i++)
        if (a->fur[i].instance != b->fur[i].instance || !same_fur_values(&a->fur[i], &b->fur[i])) return false;
    return true;
}

static bool same_ids(const uint32_t *a, const uint32_t *b, uint32_t n) { return !n || memcmp(a, b, n * sizeof *a) == 0; }

bool orr_snapshot_equal(const orr_snapshot *a, const orr_snapshot *b)
{
    ORRI_ASSERT(a && b, "orr_snapshot_equal: two snapshots");
    if (a->frame != b->frame || a->tick != b->tick || a->revision != b->revision ||
        a->structure_version != b->structure_version || a->layout_version != b->layout_version ||
        a->delta_base != b->delta_base || memcmp(&a->lag, &b->lag, sizeof a->lag) != 0 || a->instance_count != b->instance_count || a->joint_count != b->joint_count ||
        a->weight_count != b->weight_count ||
        a->changed_count != b->changed_count || a->removed_count != b->removed_count)
        return false;
    for (uint32_t i = 0; i < a->instance_count; i++)
        if (!same_record(a, &a->instances[i], b, &b->instances[i])) return false;
    return same_fur(a, b) && same_lights(a, b) && same_cameras(a, b) && same_ids(a->changed, b->changed, a->changed_count) &&
           same_ids(a->removed, b->removed, a->removed_count);
}

/* ---- diff ------------------------------------------------------------------------------------ */

void orr_snapshot_delta_init(orr_snapshot_delta *d, const orr_allocator *allocator)
{
    ORRI_ASSERT(d, "orr_snapshot_delta_init: a delta is required");
    *d = (orr_snapshot_delta){.allocator = orri_allocator_or_default(allocator)};
}

void orr_snapshot_delta_fini(orr_snapshot_delta *d)
{
    if (!d || !d->allocator.realloc) return;
    orri_free(&d->allocator, d->changed, (size_t)d->changed_capacity * sizeof *d->changed);
    orri_free(&d->allocator, d->removed, (size_t)d->removed_capacity * sizeof *d->removed);
    orr_allocator keep = d->allocator;
    *d = (orr_snapshot_delta){.allocator = keep};
}

/* ---- the diff in chunks, on several threads (orr_snapshot_diff_threads) ----
 * Pass one, chunk c: the instances [c x DIFF_CHUNK, ...) of `to` compared with `from` as the loop of
 * orr_snapshot_diff does, the changed ids written at the chunk's own place in d->changed (at its first
 * instance: nothing overlaps), with the first and last index found in `from` (to check the order across
 * chunks) and the chunk's layout flag; and the instances of the same range of `from` that `to` lacks,
 * counted. Then, on the calling thread, the chunks' changed ids closed up in chunk order, and pass two
 * writes each chunk's removed ids at its place. The lists come out as the one-thread loop makes them. */
#define DIFF_CHUNK ORRI_FRAME_CHUNK

typedef struct diff_chunk {
    uint32_t changed, removed; /* counts (removed: then the chunk's place) */
    uint32_t first, last;      /* the first and last index in `from` of the chunk's instances (NONE: none) */
    bool layout;
} diff_chunk;

typedef struct diff_pass {
    const orr_snapshot *from, *to;
    orr_snapshot_delta *d;
    diff_chunk *chunks;
} diff_pass;

static void diff_count_job(void *ctx, uint32_t c)
{
    const diff_pass *p = ctx;
    const orr_snapshot *from = p->from, *to = p->to;
    diff_chunk *k = &p->chunks[c];
    uint32_t begin = c * DIFF_CHUNK;
    uint32_t *out = p->d->changed + begin, n = 0, first = NONE, last = NONE;
    bool layout = false;
    for (uint32_t i = begin; i < to->instance_count && i < begin + DIFF_CHUNK; i++) {
        const orr_render_instance *in = &to->instances[i];
        uint32_t j = orr_snapshot_find(from, in->id);
        if (j == NONE || j >= from->instance_count) {
            layout = true;
            out[n++] = in->id;
            continue;
        }
        const orr_render_instance *old = &from->instances[j];
        const orr_render_fur *fur = fur_of(to, i), *old_fur = fur_of(from, j);
        if ((last != NONE && j < last) || !same_layout(to, in, from, old) || (fur == NULL) != (old_fur == NULL))
            layout = true;
        if (first == NONE) first = j;
        last = j;
        if (!same_record(to, in, from, old) || !same_fur_values(fur, old_fur)) out[n++] = in->id;
    }
    uint32_t removed = 0;
    for (uint32_t j = begin; j < from->instance_count && j < begin + DIFF_CHUNK; j++)
        removed += orr_snapshot_find(to, from->instances[j].id) == NONE;
    *k = (diff_chunk){.changed = n, .removed = removed, .first = first, .last = last, .layout = layout};
}

static void diff_removed_job(void *ctx, uint32_t c)
{
    const diff_pass *p = ctx;
    const orr_snapshot *from = p->from;
    uint32_t at = p->chunks[c].removed, begin = c * DIFF_CHUNK;
    for (uint32_t j = begin; j < from->instance_count && j < begin + DIFF_CHUNK; j++)
        if (orr_snapshot_find(p->to, from->instances[j].id) == NONE) p->d->removed[at++] = from->instances[j].id;
}

orr_result orr_snapshot_diff_threads(const orr_snapshot *from, const orr_snapshot *to, orr_snapshot_delta *d,
                                 orr_workers *workers, uint32_t threads)
{
    if (threads <= 1 || !from) return orr_snapshot_diff(from, to, d);
    ORRI_REQUIRE(to && d && d->allocator.realloc, NULL, "orr_snapshot_diff_threads: a snapshot and an initialised delta");
    d->changed_count = d->removed_count = 0;
    d->layout = d->lights = d->cameras = d->fur = false;
    uint32_t most = to->instance_count > from->instance_count ? to->instance_count : from->instance_count;
    uint32_t chunks = (most + DIFF_CHUNK - 1) / DIFF_CHUNK;
    /* (chunk c's changed ids go at its first instance's place: d->changed holds to's instances) */
    if (!GROW(d, changed, changed_capacity, to->instance_count)) return ORR_ERROR_OUT_OF_MEMORY;
    diff_chunk *k = chunks ? orri_alloc(&d->allocator, (size_t)chunks * sizeof *k) : NULL;
    if (chunks && !k) return ORR_ERROR_OUT_OF_MEMORY;
    diff_pass p = {.from = from, .to = to, .d = d, .chunks = k};
    orri_pool_run(workers, threads, chunks, diff_count_job, &p);
    bool layout = from->instance_count != to->instance_count;
    uint32_t n = 0, removed = 0, last = 0;
    for (uint32_t c = 0; c < chunks; c++) {
        if (k[c].layout || (k[c].first != NONE && k[c].first < last)) layout = true;
        if (k[c].last != NONE) last = k[c].last;
        if (k[c].changed && n != c * DIFF_CHUNK) /* places only move down: in order, no copy overwrites */
            memmove(d->changed + n, d->changed + c * DIFF_CHUNK, (size_t)k[c].changed * sizeof *d->changed);
        n += k[c].changed;
        uint32_t r = k[c].removed;
        k[c].removed = removed;
        removed += r;
    }
    d->changed_count = n;
    if (removed) {
        if (!GROW(d, removed, removed_capacity, removed)) {
            d->changed_count = 0;
            orri_free(&d->allocator, k, (size_t)chunks * sizeof *k);
            return ORR_ERROR_OUT_OF_MEMORY;
        }
        orri_pool_run(workers, threads, chunks, diff_removed_job, &p);
    }
    d->removed_count = removed;
    orri_free(&d->allocator, k, (size_t)chunks * sizeof *k);
    d->layout = layout;
    d->lights = !same_lights(from, to);
    d->cameras = !same_cameras(from, to);
    d->fur = !same_fur(from, to);
    return ORR_OK;
}

orr_result orr_snapshot_diff(const orr_snapshot *from, const orr_snapshot *to, orr_snapshot_delta *d)
{
    ORRI_REQUIRE(to && d && d->allocator.realloc, NULL, "orr_snapshot_diff: a snapshot and an initialised delta");
    d->changed_count = d->removed_count = 0;
    d->layout = d->lights = d->cameras = d->fur = false;
    if (!GROW(d, changed, changed_capacity, to->instance_count)) return ORR_ERROR_OUT_OF_MEMORY;
    if (!from) {
        for (uint32_t i = 0; i < to->instance_count; i++) d->changed[i] = to->instances[i].id;
        d->changed_count = to->instance_count;
        d->layout = to->instance_count > 0;
        d->lights = to->light_count > 0;
        d->cameras = to->camera_count > 0;
        d->fur = to->fur_count > 0;
        return ORR_OK;
    }
    bool layout = from->instance_count != to->instance_count;
    uint32_t last = 0;
    /* The diff is every instance's comparison: O(n) in both snapshots by definition. */
    for (uint32_t i = 0; i < to->instance_count; i++) {
        const orr_render_instance *in = &to->instances[i];
        uint32_t j = orr_snapshot_find(from, in->id);
        if (j == NONE || j >= from->instance_count) {
            layout = true;
            d->changed[d->changed_count++] = in->id;
            continue;
        }
        const orr_render_instance *old = &from->instances[j];
        const orr_render_fur *fur = fur_of(to, i), *old_fur = fur_of(from, j);
        if (j < last || !same_layout(to, in, from, old) || (fur == NULL) != (old_fur == NULL))
            layout = true; /* reordered, rebound, or given fur or none */
        last = j;
        if (!same_record(to, in, from, old) || !same_fur_values(fur, old_fur)) d->changed[d->changed_count++] = in->id;
    }
    for (uint32_t j = 0; j < from->instance_count; j++) {
        uint32_t id = from->instances[j].id;
        if (orr_snapshot_find(to, id) != NONE) continue;
        if (!GROW(d, removed, removed_capacity, d->removed_count + 1)) {
            d->changed_count = d->removed_count = 0;
            return ORR_ERROR_OUT_OF_MEMORY;
        }
        d->removed[d->removed_count++] = id;
    }
    d->layout = layout;
    d->lights = !same_lights(from, to);
    d->cameras = !same_cameras(from, to);
    d->fur = !same_fur(from, to);
    return ORR_OK;
}
