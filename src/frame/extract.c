/* Extraction: world -> owned render snapshot, in pre-order, so the snapshot's order is the hierarchy's.
 *
 * Two ways to the same snapshot:
 *   build   walks the whole world (orr_frame_extract, the reference; and orr_extractor_update when the structure
 *           changed), then compares with the previous snapshot by instance id for the exact delta; in
 *           orr_extractor_update both passes run in chunks on the world's threads (see build);
 *   update  (orr_extractor_update, structure unchanged) reads the world's change log and redoes only the
 *           instances it names: the moved ones (pose, joint palette), the edited ones (everything, their
 *           fur sidecar entry included), the skinned ones whose joints moved; lights and cameras are
 *           redone (all of them: there are few) when one of them is named.
 * Both write every instance with fill_pose / fill_components, so an updated snapshot equals a built one
 * bit for bit (tests/frame checks it over thousands of random frames). */
#include "core/internal.h"
#include "frame/frame_internal.h"

#include <math.h>
#include <orrery/frame.h>
#include <string.h>

#define NONE UINT32_MAX
#define POSE_CHUNK 256 /* instances whose poses are read from the world in one batch */

/* A build's chunks (see build): their counts, then places, and what is appended after them. */
#define BUILD_CHUNK ORRI_FRAME_CHUNK /* entities */

enum { BUILD_SOURCE = 1u, BUILD_SKIN = 2u, BUILD_FUR = 4u };

typedef struct build_chunk {
    uint32_t instances, bindings, weights, names; /* counted, then the chunk's first places */
    uint32_t index_end; /* one past the largest entity index with an instance (0: none) */
    uint32_t flags;     /* BUILD_*: a light or camera, a skinned instance, fur among the chunk's */
} build_chunk;

/* The build's scratch, kept by the extractor between builds. */
typedef struct build_scratch {
    ORRI_VEC(orr_entity) order; /* every live entity, in pre-order */
    ORRI_VEC(build_chunk) chunks;
} build_scratch;

/* What orr_extractor_update keeps beside the snapshot between frames. */
struct orr_extractor {
    orr_allocator allocator;
    bool valid;                 /* the snapshot is what orr_extractor_update made from a world */
    bool rebuilt;               /* the last successful update built anew (orri_extractor_rebuilt) */
    uint64_t stamp_frame, stamp_layout; /* the snapshot as it was left (stamp_matches) */
    uint32_t stamp_instances, stamp_joints, stamp_names;
    uint64_t epoch;             /* the world's change epoch after that (its log was cleared then) */
    uint64_t structure_version; /* the world's */
    uint64_t removals;          /* the asset library's */
    /* Every Light and Camera entity, enabled or not, in pre-order, with the offset of its name in the
     * snapshot's names (NONE: not pushed yet), and a bit per entity index that is one of them: all of
     * them are redone when the log names one. */
    ORRI_VEC(struct extract_source {
        orr_entity entity;
        uint32_t name;
    }) lights, cameras;
    uint64_t *source_bits;
    uint32_t source_words;
    /* Skinned instances by joint: `joint_bits` marks the entity indices that are some instance's
     * joint; `joint_users` holds (joint entity index << 32 | instance index), sorted (by a counting
     * sort over joint entity indices, in `joint_sorted`); `joint_first` gives, per entity index below
     * joint_first.count, where its pairs start (NONE: no instance's joint), so that a moved joint finds
     * its instances in O(1) however many joints there are. */
    uint64_t *joint_bits;
    uint32_t joint_words;
    ORRI_VEC(uint64_t) joint_users, joint_sorted;
    ORRI_VEC(uint32_t) joint_first;
    /* Instances to redo: index << 1 | (1 = everything, 0 = pose only), and sort scratch. */
    ORRI_VEC(uint32_t) work, scratch;
    ORRI_VEC(uint64_t) result; /* per work item: CHANGED | id (see update) */
    ORRI_VEC(uint32_t) chunks; /* per chunk of a shared-out pass of update: counts, places, flags */
    orr_snapshot_delta delta; /* the rebuild's diff */
    build_scratch build;
    /* The arrays the snapshot had before the last rebuild (their counts meaningless), taken by the next
     * rebuild: a world whose structure changes every frame rebuilds into memory already touched, not
     * into fresh pages the kernel must clear first. Freed by the first update in place, so that a world
     * whose structure stays holds one set of arrays. */
    orr_snapshot spare;
};
typedef struct orr_extractor extract_state;

#define GROW(s, arr, cap, need) ORRI_GROW(&(s)->allocator, (s)->arr, (s)->cap, (need))

/* ---- the extractor ------------------------------------------------------------------------ */

orr_result orr_extractor_create(const orr_allocator *allocator, orr_extractor **out, orr_error *err)
{
    ORRI_REQUIRE(out, err, "orr_extractor_create: out is required");
    orr_allocator a = orri_allocator_or_default(allocator);
    orr_extractor *x = orri_alloc(&a, sizeof *x);
    if (!x) return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "orr_extractor_create: out of memory");
    x->allocator = a;
    *out = x;
    return ORR_OK;
}

void orr_extractor_destroy(orr_extractor *x)
{
    if (!x) return;
    const orr_allocator a = x->allocator;
    ORRI_VEC_FREE(&a, &x->lights);
    ORRI_VEC_FREE(&a, &x->cameras);
    ORRI_VEC_FREE(&a, &x->joint_users);
    ORRI_VEC_FREE(&a, &x->joint_sorted);
    ORRI_VEC_FREE(&a, &x->joint_first);
    ORRI_VEC_FREE(&a, &x->work);
    ORRI_VEC_FREE(&a, &x->scratch);
    ORRI_VEC_FREE(&a, &x->result);
    ORRI_VEC_FREE(&a, &x->chunks);
    orri_free(&a, x->source_bits, (size_t)x->source_words * sizeof *x->source_bits); /* bit sets, by words */
    orri_free(&a, x->joint_bits, (size_t)x->joint_words * sizeof *x->joint_bits);
    orr_snapshot_delta_fini(&x->delta);
    ORRI_VEC_FREE(&a, &x->build.order);
    ORRI_VEC_FREE(&a, &x->build.chunks);
    orr_snapshot_fini(&x->spare);
    orri_free(&a, x, sizeof *x);
}

void orr_extractor_reset(orr_extractor *x)
{
    if (x) x->valid = false;
}

/* What the extractor remembers of the snapshot it left, to notice (in part) a snapshot written by
 * another call since. */
static bool stamp_matches(const orr_extractor *x, const orr_snapshot *s)
{
    return s->frame == x->stamp_frame && s->layout_version == x->stamp_layout && s->instance_count == x->stamp_instances &&
           s->joint_count == x->stamp_joints && s->names_size == x->stamp_names;
}

/* ---- one instance ------------------------------------------------------------------------ */

static bool push_name(orr_snapshot *s, const char *name, uint32_t *offset)
{
    uint32_t len = (uint32_t)strlen(name) + 1;
    if (!orri_grow(&s->allocator, (void **)&s->names, &s->names_capacity, s->names_size + len, 1)) return false;
    memcpy(s->names + s->names_size, name, len);
    *offset = s->names_size;
    s->names_size += len;
    return true;
}

/* The inverse of an instance's pose, for its palette (the affine inverse, or the general one when that
 * fails). */
static void palette_inverse(const orr_affine3d *pose, orr_mat4d *inv)
{
    orr_mat4d world_m;
    orr_affine3d_to_mat4d(pose, &world_m);
    if (!orr_mat4d_inverse_affine(&world_m, inv)) orr_mat4d_inverse(&world_m, inv);
}

/* n joint palette entries of a skinned instance, written at `out`: inv x joint world x inverse bind,
 * inv = palette_inverse(instance world). Each entry's three rows are those of
 * orr_mat4d_mul(orr_mat4d_mul(inv, joint world), inverse bind) bit for bit: a result's row depends only
 * on that row of the left factor, so the products' last rows are never needed, and every term of
 * orr_mat4d_mul is kept in its order (the joint world's implied 0 and 1 included, which decide the sign
 * of a zero). The joint world is read as the affine the world stores. */
static void palette(const orr_world *w, const orr_entity *joints, const orr_mat4d *inverse_bind, const orr_mat4d *inv,
                    uint32_t n, orr_affine3d *out)
{
    const double *a = inv->m;
    for (uint32_t j = 0; j < n; j++) {
        orr_affine3d jw;
        if (orr_entity_cached_pose(w, joints[j], &jw) != ORR_OK) {
            orr_affine3d_identity(&out[j]); /* a destroyed joint holds the bind pose */
            continue;
        }
        double m[12];
        for (int c = 0; c < 4; c++) {
            const double *b = &jw.m[c * 3];
            double b3 = c == 3 ? 1.0 : 0.0;
            for (int row = 0; row < 3; row++)
                m[c * 3 + row] = a[0 * 4 + row] * b[0] + a[1 * 4 + row] * b[1] + a[2 * 4 + row] * b[2] + a[3 * 4 + row] * b3;
        }
        const double *ib = inverse_bind[j].m;
        double *o = out[j].m;
        for (int c = 0; c < 4; c++) {
            const double *b = &ib[c * 4];
            for (int row = 0; row < 3; row++)
                o[c * 3 + row] = m[0 * 3 + row] * b[0] + m[1 * 3 + row] * b[1] + m[2 * 3 + row] * b[2] + m[3 * 3 + row] * b[3];
        }
    }
}

/* A skinned instance's joints: the component's list, of which the instance draws with min(its
 * count, the skin's) (*n; 0 = not skinned: no SkinnedMesh, a stale skin or no joints). */
static const orr_entity *joints_of(const orr_world *w, orr_entity e, const orr_assets *assets, const orr_skin **skin,
                                   uint32_t *n)
{
    *n = 0;
    *skin = NULL;
    const orr_skinned_mesh *sk = orr_skinned_mesh_try_get(w, e);
    if (!sk) return NULL;
    *skin = orr_assets_try_get_skin(assets, sk->skin);
    uint32_t count;
    const orr_entity *joints = orr_skinned_mesh_joints(w, e, &count);
    if (!*skin) return NULL;
    *n = count < (*skin)->joint_count ? count : (*skin)->joint_count;
    return joints;
}

/* Override slots in use: up to the last slot that names a material. */
static uint32_t override_count(const orr_material_id *materials, uint32_t n)
{
    while (n > 0 && orr_id_is_none(materials[n - 1])) n--;
    return n;
}

/* ---- the fur sidecar ------------------------------------------------------------------------ */

/* The sidecar entry of instance `index`, or NULL (entries are in instance order). */
static orr_render_fur *fur_of(const orr_snapshot *s, uint32_t index)
{
    uint32_t lo = 0, hi = s->fur ? s->fur_count : 0;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->fur[mid].instance < index) lo = mid + 1;
        else hi = mid;
    }
    return lo < (s->fur ? s->fur_count : 0) && s->fur[lo].instance == index ? &s->fur[lo] : NULL;
}

static bool fur_usable(const orr_render_fur *e)
{
    return e && orr_fur_override_valid(e->set, e->shell_count, e->shell_length, e->density, e->thinning);
}

/* The entry a Fur component gives instance `index` (padding zeroed, so that equal entries compare equal). */
static orr_render_fur fur_entry(const orr_fur_instance *c, uint32_t index)
{
    orr_render_fur e;
    memset(&e, 0, sizeof e);
    e.instance = index;
    e.set = c->set;
    e.shell_count = c->shell_count;
    e.shell_length = c->shell_length;
    e.density = c->density;
    e.thinning = c->thinning;
    return e;
}

/* Whether two entries hold the same values (both none, or equal bits). */
static bool same_fur_values(const orr_render_fur *a, const orr_render_fur *b)
{
    if (!a || !b) return a == b;
    return a->set == b->set && a->shell_count == b->shell_count && memcmp(&a->shell_length, &b->shell_length, 4) == 0 &&
           memcmp(&a->density, &b->density, 4) == 0 && memcmp(&a->thinning, &b->thinning, 4) == 0;
}

/* The box of a morphed mesh at weights[0..mesh->weight_count): the mesh's box holds every shape at
 * weights in [0, 1]; a weight w outside moves a vertex by at most (w - clamp(w, 0, 1)) x the target's
 * deltas more, which the targets' delta boxes bound. */
static orr_aabbf morphed_bounds(const orr_mesh *mesh, const float *weights, orr_aabbf box)
{
    float lo[3] = {box.min.x, box.min.y, box.min.z}, hi[3] = {box.max.x, box.max.y, box.max.z};
    for (uint32_t t = 0; t < mesh->weight_count; t++) {
        float wt = weights[t];
        if (!(wt < 0.0f || wt > 1.0f)) continue; /* in [0, 1] (or NaN, which draws nothing) */
        float excess = wt > 1.0f ? wt - 1.0f : wt;
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            const orr_primitive *prim = &mesh->primitives[p];
            if (t >= prim->target_count || !prim->vertex_count) continue;
            const float *dmin = &prim->targets[t].delta_bounds.min.x, *dmax = &prim->targets[t].delta_bounds.max.x;
            for (int c = 0; c < 3; c++) { /* excess x [dmin, dmax], dmin <= 0 <= dmax */
                float a = excess * dmin[c], b = excess * dmax[c];
                lo[c] += fminf(a, b), hi[c] += fmaxf(a, b);
            }
        }
    }
    return (orr_aabbf){{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}};
}

/* Where a chunk of a build writes its new records' variable-length data: places in the snapshot's
 * arrays, which the build sized beforehand (build_count_job), so that chunks fill on several threads
 * and nothing is allocated. NULL: appended (the arrays grown), or rewritten in place by an update. */
typedef struct build_cursor {
    uint32_t bindings, weights, names;
} build_cursor;

/* The instance's morph weights (as orr_snapshot.weights says): for a new record, at the cursor `at` or
 * appended, else rewritten in place (an update redoes in place only records whose count stays:
 * editable_in_place); *reweighed is set when they differ from what the record held. */
static bool fill_weights(orr_snapshot *s, const orr_world *w, orr_render_instance *in, const orr_mesh *mesh, bool fresh,
                         build_cursor *at, bool *reweighed)
{
    uint32_t m = mesh ? mesh->weight_count : 0;
    *reweighed = fresh || m != in->weight_count;
    if (!m) {
        in->weight_offset = in->weight_count = 0;
        return true;
    }
    if (at) {
        in->weight_offset = at->weights;
        at->weights += m;
    } else if (fresh || m > in->weight_count) {
        if (!GROW(s, weights, weight_capacity, s->weight_count + m)) return false;
        in->weight_offset = s->weight_count;
        s->weight_count += m;
        *reweighed = true;
    }
    in->weight_count = m;
    uint32_t listed;
    const float *own = orr_morph_weights(w, in->entity, &listed);
    float *dst = s->weights + in->weight_offset;
    for (uint32_t t = 0; t < m; t++) {
        float v = t < listed ? own[t] : mesh->weights[t];
        if (memcmp(&dst[t], &v, sizeof v) != 0) *reweighed = true;
        dst[t] = v;
    }
    return true;
}

/* Everything of an instance but its pose and palette, written where it stands (`fresh`: a new record;
 * `at`, given only with fresh: its data goes at the cursor, and nothing fails). Its override slots and
 * weights are rewritten in place when they fit, else appended; *rebound (*reweighed) is set when the
 * slots (the weights, or where they are) differ from what the record held. */
static bool fill_components(orr_snapshot *s, const orr_world *w, const orr_assets *assets, orr_render_instance *in,
                            const orr_mesh_renderer *mr, bool fresh, build_cursor *at, bool *rebound, bool *reweighed)
{
    bool remeshed = fresh || !orr_id_eq(in->mesh, mr->mesh);
    const orr_mesh *mesh = remeshed || in->weight_count ? orr_assets_try_get_mesh(assets, mr->mesh) : NULL;
    if (!fill_weights(s, w, in, mesh, fresh, at, reweighed)) return false;
    if (remeshed || *reweighed) {
        orr_aabbd b = mesh ? mesh->bounds : (orr_aabbd){{0, 0, 0}, {0, 0, 0}};
        /* mesh bounds come from float positions: exact as floats */
        in->bounds = (orr_aabbf){{(float)b.min.x, (float)b.min.y, (float)b.min.z},
                                 {(float)b.max.x, (float)b.max.y, (float)b.max.z}};
        if (in->weight_count) in->bounds = morphed_bounds(mesh, s->weights + in->weight_offset, in->bounds);
    }
    in->mesh = mr->mesh;
    in->layers = mr->layers;
    in->visible = mr->visible;
    in->casts_shadows = mr->casts_shadows;
    in->reserved[0] = mr->teleports ? ORR_RENDER_INSTANCE_TELEPORT : 0u;
    in->range_near = mr->range.near;
    in->range_far = mr->range.far;
    in->range_margin = mr->range.margin;
    uint32_t listed;
    const orr_material_id *materials = orr_mesh_renderer_materials(w, in->entity, &listed);
    uint32_t n = override_count(materials, listed);
    size_t bytes = n * sizeof *materials;
    *rebound = fresh || n != in->material_count ||
               (n && memcmp(s->material_bindings + in->material_offset, materials, bytes) != 0);
    if (at) {
        in->material_offset = n ? at->bindings : 0;
        at->bindings += n;
    } else if (fresh || n > in->material_count) {
        if (!GROW(s, material_bindings, material_binding_capacity, s->material_binding_count + n)) return false;
        in->material_offset = n ? s->material_binding_count : 0;
        s->material_binding_count += n;
    }
    in->material_count = n;
    if (n) memcpy(s->material_bindings + in->material_offset, materials, bytes);
    const char *name = orr_entity_name(w, in->entity);
    if (at) {
        uint32_t len = (uint32_t)strlen(name) + 1;
        memcpy(s->names + at->names, name, len);
        in->name = at->names;
        at->names += len;
        return true;
    }
    if (fresh || strcmp(orr_snapshot_name(s, in->name), name) != 0) return push_name(s, name, &in->name);
    return true;
}

/* ---- the delta ------------------------------------------------------------------------------ */

/* changed, removed, layout_version and delta_base of `s` against `prev` (NULL: everything is new), by
 * the snapshot module's diff (on up to `threads` threads of `workers`), into `d` (scratch), plus what
 * only the asset library can judge: an instance whose fur entry turned usable or unusable changes the
 * layout. */
static orr_result diff(orr_snapshot *s, const orr_snapshot *prev, orr_snapshot_delta *d, orr_workers *workers,
                       uint32_t threads)
{
    orr_result r = orr_snapshot_diff_threads(prev, s, d, workers, threads);
    if (r != ORR_OK) return r;
    if (!GROW(s, changed, changed_capacity, d->changed_count) || !GROW(s, removed, removed_capacity, d->removed_count))
        return ORR_ERROR_OUT_OF_MEMORY;
    if (d->changed_count) memcpy(s->changed, d->changed, d->changed_count * sizeof *s->changed);
    if (d->removed_count) memcpy(s->removed, d->removed, d->removed_count * sizeof *s->removed);
    s->changed_count = d->changed_count;
    s->removed_count = d->removed_count;
    bool layout = d->layout;
    for (uint32_t k = 0; prev && !layout && k < s->fur_count; k++) {
        uint32_t j = orr_snapshot_find(prev, s->instances[s->fur[k].instance].id);
        const orr_render_fur *old = j != NONE ? fur_of(prev, j) : NULL;
        if (old && fur_usable(old) != fur_usable(&s->fur[k])) layout = true;
    }
    s->layout_version = prev ? prev->layout_version + (layout ? 1 : 0) : 1;
    s->delta_base = prev ? prev->frame : 0;
    return ORR_OK;
}

/* ---- build: the whole world ---------------------------------------------------------------- */

static bool set_bit(const orr_allocator *a, uint64_t **bits, uint32_t *words, uint32_t i)
{
    if ((i >> 6) >= *words) {
        uint32_t cap = *words;
        if (!orri_grow(a, (void **)bits, &cap, (i >> 6) + 1, sizeof **bits)) return false;
        *words = cap;
    }
    (*bits)[i >> 6] |= 1ull << (i & 63);
    return true;
}

static bool has_bit(const uint64_t *bits, uint32_t words, uint32_t i)
{
    return (i >> 6) < words && (bits[i >> 6] >> (i & 63)) & 1u;
}

/* Sorts joint_users by joint entity index (instance indices rise as the build appends them, and the
 * sort is stable, so pairs end up in ascending order) and indexes where each joint's pairs start. */
static bool index_joint_users(const orr_allocator *a, extract_state *x)
{
    uint64_t *users = x->joint_users.items;
    uint32_t n = x->joint_users.count, max = 0;
    x->joint_first.count = 0;
    if (!n) return true;
    for (uint32_t k = 0; k < n; k++)
        if ((uint32_t)(users[k] >> 32) > max) max = (uint32_t)(users[k] >> 32);
    if (!ORRI_VEC_RESERVE(a, &x->joint_first, max + 1) || !ORRI_VEC_RESERVE(a, &x->joint_sorted, n)) return false;
    uint32_t *first = x->joint_first.items;
    uint64_t *sorted = x->joint_sorted.items;
    memset(first, 0, ((size_t)max + 1) * sizeof *first);
    for (uint32_t k = 0; k < n; k++) first[users[k] >> 32]++;
    for (uint32_t e = 0, at = 0; e <= max; e++) { /* counts -> starts (NONE where none) */
        uint32_t c = first[e];
        first[e] = c ? at : NONE;
        at += c;
    }
    for (uint32_t k = 0; k < n; k++) { /* scatter, each start used as a cursor */
        uint32_t e = (uint32_t)(users[k] >> 32);
        sorted[first[e]++] = users[k];
    }
    for (uint32_t k = n; k-- > 0;) first[sorted[k] >> 32] = k; /* the cursors back to starts */
    /* the sorted pairs become joint_users, the old array the next sort's room */
    uint32_t capacity = x->joint_users.capacity;
    x->joint_users.items = sorted, x->joint_users.capacity = x->joint_sorted.capacity;
    x->joint_sorted.items = users, x->joint_sorted.capacity = capacity;
    x->joint_first.count = max + 1;
    return true;
}

/* What a build adds to instance `index` (filled already) on the calling thread, in instance order: its
 * fur sidecar entry (appended: the sidecar stays sorted) and its joint palette (appended, and its
 * joints indexed for orr_extractor_update). */
static orr_result add_fur_and_joints(orr_snapshot *s, extract_state *x, const orr_world *w, const orr_assets *assets,
                                     uint32_t index, bool any_skin, bool any_fur)
{
    orr_render_instance *in = &s->instances[index];
    orr_entity e = in->entity;
    const orr_fur_instance *fur = any_fur ? orr_fur_instance_try_get(w, e) : NULL;
    if (fur) {
        if (!GROW(s, fur, fur_capacity, s->fur_count + 1)) return ORR_ERROR_OUT_OF_MEMORY;
        s->fur[s->fur_count++] = fur_entry(fur, index);
    }

    if (!any_skin) return ORR_OK;
    const orr_skin *skin;
    uint32_t n;
    const orr_entity *joints = joints_of(w, e, assets, &skin, &n);
    if (n) {
        if (!GROW(s, joints, joint_capacity, s->joint_count + n)) return ORR_ERROR_OUT_OF_MEMORY;
        in = &s->instances[index];
        in->joint_offset = s->joint_count;
        in->joint_count = n;
        orr_mat4d inv;
        palette_inverse(&in->world, &inv);
        palette(w, joints, skin->inverse_bind, &inv, n, s->joints + s->joint_count);
        s->joint_count += n;
        /* (a joint already indexed for this instance, listed twice, is indexed twice: harmless). Only live
         * joints: a stale one holds the bind pose until the structure changes, and its index, which may
         * be anything, must not size the index. */
        for (uint32_t j = 0; x && j < n; j++) {
            uint32_t je = joints[j].index;
            if (!orr_entity_is_alive(w, joints[j])) continue;
            uint64_t *pair = set_bit(&s->allocator, &x->joint_bits, &x->joint_words, je)
                                 ? ORRI_VEC_PUSH(&s->allocator, &x->joint_users) : NULL;
            if (!pair) return ORR_ERROR_OUT_OF_MEMORY;
            *pair = (uint64_t)je << 32 | index;
        }
    }
    return ORR_OK;
}

/* The name at *offset when it is still `name`, else pushed (and *offset set). */
static bool keep_name(orr_snapshot *s, const char *name, uint32_t *offset)
{
    if (*offset != NONE && strcmp(orr_snapshot_name(s, *offset), name) == 0) return true;
    return push_name(s, name, offset);
}

static orr_result add_light(orr_snapshot *s, const orr_world *w, orr_entity e, const orr_affine3d *pose, uint32_t *name)
{
    const orr_light *l = orr_light_try_get(w, e);
    if (!l->enabled) return ORR_OK;
    if (!GROW(s, lights, light_capacity, s->light_count + 1)) return ORR_ERROR_OUT_OF_MEMORY;
    if (!keep_name(s, orr_entity_name(w, e), name)) return ORR_ERROR_OUT_OF_MEMORY;
    orr_render_light *rl = &s->lights[s->light_count++];
    memset(rl, 0, sizeof *rl);
    rl->entity = e;
    rl->name = *name;
    rl->type = l->type;
    rl->world = *pose;
    memcpy(rl->color, l->color, sizeof rl->color);
    rl->intensity = l->intensity;
    rl->range = l->range;
    rl->cos_inner = cosf(l->inner_cone);
    rl->cos_outer = cosf(l->outer_cone);
    rl->casts_shadows = l->casts_shadows;
    return ORR_OK;
}

static orr_result add_camera(orr_snapshot *s, const orr_world *w, orr_entity e, const orr_affine3d *pose, uint32_t *name)
{
    const orr_camera *c = orr_camera_try_get(w, e);
    if (!GROW(s, cameras, camera_capacity, s->camera_count + 1)) return ORR_ERROR_OUT_OF_MEMORY;
    if (!keep_name(s, orr_entity_name(w, e), name)) return ORR_ERROR_OUT_OF_MEMORY;
    orr_render_camera *rc = &s->cameras[s->camera_count++];
    memset(rc, 0, sizeof *rc);
    rc->entity = e;
    rc->name = *name;
    rc->world = *pose;
    rc->projection = c->projection;
    rc->yfov = c->yfov;
    rc->aspect = c->aspect;
    rc->xmag = c->xmag;
    rc->ymag = c->ymag;
    rc->znear = c->znear;
    rc->zfar = c->zfar;
    return ORR_OK;
}

/* Remembers a light or camera entity for orr_extractor_update; *name becomes its name slot. */
static uint32_t *remember_source(const orr_allocator *a, extract_state *x, bool light, orr_entity e)
{
    if (!set_bit(a, &x->source_bits, &x->source_words, e.index)) return NULL;
    struct extract_source *source = light ? ORRI_VEC_PUSH(a, &x->lights) : ORRI_VEC_PUSH(a, &x->cameras);
    if (!source) return NULL;
    *source = (struct extract_source){e, NONE};
    return &source->name;
}

/* ---- build, in chunks ----
 * The live entities in pre-order (a walk of the hierarchy's links, on the calling thread: a few ns an
 * entity), then in chunks of BUILD_CHUNK of them, on several threads: what each chunk's instances need
 * (their count, name bytes, override slots, morph weights), turned into each chunk's places in the
 * snapshot's arrays; every instance record, index entry, name, binding and weight written there by its
 * chunk (nothing shared is grown: build_cursor); then, on the calling thread and only for the chunks
 * that have any, what is appended in order: fur entries, joint palettes, lights and cameras. The chunks
 * are the same at every thread count, so the snapshot is the same byte for byte (names and bindings
 * where they lie included). Every pass is over all entities: a build is the structure changed, or no
 * snapshot to start from. */
typedef struct build_pass {
    orr_snapshot *s;
    const orr_world *w;
    const orr_assets *assets;
    const orr_entity *order;
    build_chunk *chunks;
    uint32_t count;
    bool any_light, any_camera, any_skin, any_fur;
} build_pass;

static void build_count_job(void *ctx, uint32_t c)
{
    const build_pass *p = ctx;
    const orr_world *w = p->w;
    build_chunk k = {0};
    uint32_t from = c * BUILD_CHUNK, to = p->count - from < BUILD_CHUNK ? p->count : from + BUILD_CHUNK;
    for (uint32_t i = from; i < to; i++) {
        orr_entity e = p->order[i];
        if ((p->any_light && orr_component_has(w, e, ORR_COMPONENT_LIGHT)) ||
            (p->any_camera && orr_component_has(w, e, ORR_COMPONENT_CAMERA)))
            k.flags |= BUILD_SOURCE;
        const orr_mesh_renderer *mr = orr_mesh_renderer_try_get(w, e);
        if (!mr) continue;
        /* what fill_components will write for it, fresh */
        k.instances++;
        if (e.index >= k.index_end) k.index_end = e.index + 1;
        k.names += (uint32_t)strlen(orr_entity_name(w, e)) + 1;
        uint32_t listed;
        const orr_material_id *materials = orr_mesh_renderer_materials(w, e, &listed);
        k.bindings += override_count(materials, listed);
        const orr_mesh *mesh = orr_assets_try_get_mesh(p->assets, mr->mesh);
        k.weights += mesh ? mesh->weight_count : 0;
        if (p->any_skin && orr_component_has(w, e, ORR_COMPONENT_SKINNED_MESH)) k.flags |= BUILD_SKIN;
        if (p->any_fur && orr_component_has(w, e, ORR_COMPONENT_FUR)) k.flags |= BUILD_FUR;
    }
    p->chunks[c] = k;
}

static void build_fill_job(void *ctx, uint32_t c)
{
    const build_pass *p = ctx;
    orr_snapshot *s = p->s;
    const orr_world *w = p->w;
    const build_chunk *k = &p->chunks[c];
    build_cursor at = {k->bindings, k->weights, k->names};
    uint32_t index = k->instances;
    uint32_t from = c * BUILD_CHUNK, to = p->count - from < BUILD_CHUNK ? p->count : from + BUILD_CHUNK;
    for (uint32_t i = from; i < to; i++) {
        orr_entity e = p->order[i];
        const orr_mesh_renderer *mr = orr_mesh_renderer_try_get(w, e);
        if (!mr) continue;
        s->index_of[e.index] = index;
        orr_render_instance *in = &s->instances[index++];
        memset(in, 0, sizeof *in); /* padding included, so that equal records compare equal */
        in->id = e.index;
        in->entity = e;
        orr_entity_cached_pose(w, e, &in->world); /* e is alive: it comes from the walk */
        bool rebound, reweighed;
        fill_components(s, w, p->assets, in, mr, true, &at, &rebound, &reweighed); /* (at: cannot fail) */
    }
}

/* Chunk c's appended parts (see above), its instances from index `index` on. */
static orr_result build_append(orr_snapshot *s, extract_state *x, const build_pass *p, uint32_t c)
{
    const orr_world *w = p->w;
    const orr_allocator *a = &s->allocator;
    uint32_t index = p->chunks[c].instances, flags = p->chunks[c].flags;
    uint32_t from = c * BUILD_CHUNK, to = p->count - from < BUILD_CHUNK ? p->count : from + BUILD_CHUNK;
    orr_result r = ORR_OK;
    for (uint32_t i = from; r == ORR_OK && i < to; i++) {
        orr_entity e = p->order[i];
        if (orr_component_has(w, e, ORR_COMPONENT_MESH_RENDERER)) {
            if (flags & (BUILD_SKIN | BUILD_FUR))
                r = add_fur_and_joints(s, x, w, p->assets, index, (flags & BUILD_SKIN) != 0, (flags & BUILD_FUR) != 0);
            index++;
        }
        if (!(flags & BUILD_SOURCE)) continue;
        bool light = p->any_light && orr_component_has(w, e, ORR_COMPONENT_LIGHT);
        bool camera = p->any_camera && orr_component_has(w, e, ORR_COMPONENT_CAMERA);
        if (!light && !camera) continue;
        orr_affine3d pose;
        orr_entity_cached_pose(w, e, &pose);
        for (int k = 0; k < 2 && r == ORR_OK; k++) {
            if (!(k == 0 ? light : camera)) continue;
            uint32_t scratch = NONE, *name = x ? remember_source(a, x, k == 0, e) : &scratch;
            if (!name) r = ORR_ERROR_OUT_OF_MEMORY;
            else r = k == 0 ? add_light(s, w, e, &pose, name) : add_camera(s, w, e, &pose, name);
        }
    }
    return r;
}

/* Fills the snapshot's arrays from the whole world, on up to `threads` threads of `workers`; with `x`,
 * also the lists orr_extractor_update keeps. */
static orr_result build(orr_snapshot *s, extract_state *x, const orr_world *w, const orr_assets *assets,
                        build_scratch *b, orr_workers *workers, uint32_t threads)
{
    s->instance_count = s->light_count = s->camera_count = s->joint_count = s->material_binding_count = 0;
    s->names_size = s->fur_count = s->weight_count = 0;
    if (s->index_of) memset(s->index_of, 0xff, (size_t)s->index_capacity * sizeof *s->index_of);
    if (x) {
        x->lights.count = x->cameras.count = x->joint_users.count = 0;
        if (x->joint_bits) memset(x->joint_bits, 0, (size_t)x->joint_words * sizeof *x->joint_bits);
        if (x->source_bits) memset(x->source_bits, 0, (size_t)x->source_words * sizeof *x->source_bits);
    }
    const orr_allocator *a = &s->allocator;
    /* Exactly one record per MeshRenderer: no doubling slack in the largest array. */
    uint32_t renderables = orr_world_component_count(w, ORR_COMPONENT_MESH_RENDERER);
    if (renderables > s->instance_capacity) {
        orr_render_instance *fresh = orri_realloc(a, s->instances, (size_t)s->instance_capacity * sizeof *fresh,
                                                  (size_t)renderables * sizeof *fresh);
        if (!fresh) return ORR_ERROR_OUT_OF_MEMORY;
        s->instances = fresh;
        s->instance_capacity = renderables;
    }
    b->order.count = 0;
    if (!ORRI_VEC_RESERVE(a, &b->order, orr_world_entity_count(w))) return ORR_ERROR_OUT_OF_MEMORY;
    orr_subtree_iter it;
    orr_subtree_begin(w, ORR_ENTITY_NONE, &it);
    bool fits = true;
    for (orr_entity e; orr_subtree_next(&it, &e);) {
        orr_entity *slot = ORRI_VEC_PUSH(a, &b->order);
        if (!slot) {
            fits = false;
            break;
        }
        *slot = e;
    }
    orr_subtree_end(&it);
    if (!fits) return ORR_ERROR_OUT_OF_MEMORY;
    uint32_t chunks = (b->order.count + BUILD_CHUNK - 1) / BUILD_CHUNK;
    if (!ORRI_VEC_RESERVE(a, &b->chunks, chunks)) return ORR_ERROR_OUT_OF_MEMORY;
    /* Only what an entity has is looked at: most entities of a large world carry a MeshRenderer and
     * nothing else, so lights, cameras and skins are only looked up when the world has any. */
    build_pass p = {.s = s, .w = w, .assets = assets, .order = b->order.items, .chunks = b->chunks.items,
                    .count = b->order.count,
                    .any_light = orr_world_component_count(w, ORR_COMPONENT_LIGHT) > 0,
                    .any_camera = orr_world_component_count(w, ORR_COMPONENT_CAMERA) > 0,
                    .any_skin = orr_world_component_count(w, ORR_COMPONENT_SKINNED_MESH) > 0,
                    .any_fur = orr_world_component_count(w, ORR_COMPONENT_FUR) > 0};
    orri_pool_run(workers, threads, chunks, build_count_job, &p);
    /* counts -> places (64-bit sums: a world past 4G of names or slots is refused, not wrapped) */
    uint64_t instances = 0, bindings = 0, weights = 0, names = 0;
    uint32_t index_end = 0;
    for (uint32_t c = 0; c < chunks; c++) {
        build_chunk *k = &p.chunks[c];
        uint32_t n[4] = {k->instances, k->bindings, k->weights, k->names};
        k->instances = (uint32_t)instances, k->bindings = (uint32_t)bindings;
        k->weights = (uint32_t)weights, k->names = (uint32_t)names;
        instances += n[0], bindings += n[1], weights += n[2], names += n[3];
        if (k->index_end > index_end) index_end = k->index_end;
    }
    if (instances > s->instance_capacity || bindings >= UINT32_MAX || weights >= UINT32_MAX || names >= UINT32_MAX)
        return ORR_ERROR_OUT_OF_MEMORY;
    if (!GROW(s, material_bindings, material_binding_capacity, (uint32_t)bindings) ||
        !GROW(s, weights, weight_capacity, (uint32_t)weights) || !GROW(s, names, names_capacity, (uint32_t)names))
        return ORR_ERROR_OUT_OF_MEMORY;
    if (index_end > s->index_capacity) {
        uint32_t old = s->index_capacity;
        if (!GROW(s, index_of, index_capacity, index_end)) return ORR_ERROR_OUT_OF_MEMORY;
        memset(s->index_of + old, 0xff, (size_t)(s->index_capacity - old) * sizeof *s->index_of);
    }
    orri_pool_run(workers, threads, chunks, build_fill_job, &p);
    s->instance_count = (uint32_t)instances;
    s->material_binding_count = (uint32_t)bindings;
    s->weight_count = (uint32_t)weights;
    s->names_size = (uint32_t)names;
    orr_result r = ORR_OK;
    for (uint32_t c = 0; r == ORR_OK && c < chunks; c++)
        if (p.chunks[c].flags) r = build_append(s, x, &p, c);
    if (r == ORR_OK && x && !index_joint_users(a, x)) r = ORR_ERROR_OUT_OF_MEMORY; /* only when the structure changed */
    return r;
}

orr_result orr_frame_extract(const orr_world *w, const orr_assets *assets, uint64_t frame, uint64_t tick,
                       const orr_snapshot *previous, orr_snapshot *s)
{
    ORRI_REQUIRE(w && assets && s && s->allocator.realloc, NULL, "orr_frame_extract: world, assets and an initialised snapshot");
    ORRI_REQUIRE(previous != s, NULL, "orr_frame_extract: previous must be another snapshot (orr_extractor_update updates in place)");
    s->frame = frame;
    s->changed_at_count = 0; /* no hint: the changes come from the diff */
    s->tick = tick;
    s->revision = orr_world_revision(w);
    s->structure_version = orr_world_structure_version(w);
    build_scratch b = {0};
    orr_result r = build(s, NULL, w, assets, &b, NULL, 1);
    ORRI_VEC_FREE(&s->allocator, &b.order);
    ORRI_VEC_FREE(&s->allocator, &b.chunks);
    if (r == ORR_OK) {
        orr_snapshot_delta d;
        orr_snapshot_delta_init(&d, &s->allocator);
        r = diff(s, previous && previous->layout_version ? previous : NULL, &d, NULL, 1);
        orr_snapshot_delta_fini(&d);
    }
    return r;
}

bool orri_extractor_rebuilt(const orr_extractor *x) { return x->rebuilt; }

/* ---- update: what the change log names ----------------------------------------------------- */

static bool push_work(orr_snapshot *s, extract_state *x, uint32_t index, bool everything)
{
    uint32_t *work = ORRI_VEC_PUSH(&s->allocator, &x->work);
    if (!work) return false;
    *work = index << 1 | (everything ? 1u : 0u);
    return true;
}

/* The first joint_users pair of joint entity `entity` (joint_users.count when it is no instance's joint). */
static uint32_t first_user(const extract_state *x, uint32_t entity)
{
    uint32_t k = entity < x->joint_first.count ? x->joint_first.items[entity] : NONE;
    return k == NONE ? x->joint_users.count : k;
}

/* The skinned instances whose joints include `entity`, pose only. */
static bool push_joint_users(orr_snapshot *s, extract_state *x, uint32_t entity)
{
    const uint64_t *users = x->joint_users.items;
    for (uint32_t k = first_user(x, entity); k < x->joint_users.count && (users[k] >> 32) == entity; k++) {
        uint32_t index = (uint32_t)users[k];
        /* a character's joints move together and are listed together: its instance once, not once a joint
         * (the sort and merge below would fold the repeats, at the cost of sorting them all) */
        if (x->work.count && x->work.items[x->work.count - 1] == index << 1) continue;
        if (!push_work(s, x, index, false)) return false;
    }
    return true;
}

/* Whether the build indexed exactly these joints for instance `index` (after an edit of the entity: a
 * SkinnedMesh edit may have changed them, and then only a build indexes them again). */
static bool joints_indexed(const extract_state *x, const orr_world *w, const orr_entity *joints, uint32_t n,
                           uint32_t index)
{
    for (uint32_t j = 0; j < n; j++) {
        if (!orr_entity_is_alive(w, joints[j])) continue; /* as the build skipped it */
        uint64_t pair = (uint64_t)joints[j].index << 32 | index;
        uint32_t k = first_user(x, joints[j].index);
        while (k < x->joint_users.count && x->joint_users.items[k] < pair) k++;
        if (k == x->joint_users.count || x->joint_users.items[k] != pair) return false;
    }
    return true;
}

/* Lights and cameras again from their entities (the same set and order: the structure did not change). */
static orr_result redo_lights_and_cameras(orr_snapshot *s, const extract_state *x, const orr_world *w)
{
    s->light_count = s->camera_count = 0;
    orr_result r = ORR_OK;
    for (uint32_t i = 0; r == ORR_OK && i < x->lights.count + x->cameras.count; i++) {
        bool light = i < x->lights.count;
        struct extract_source *source = light ? &x->lights.items[i] : &x->cameras.items[i - x->lights.count];
        orr_affine3d pose;
        orr_entity_cached_pose(w, source->entity, &pose);
        r = light ? add_light(s, w, source->entity, &pose, &source->name)
                  : add_camera(s, w, source->entity, &pose, &source->name);
    }
    return r;
}

/* Whether an edit left instance `index` as the build made it, in the ways an update cannot redo in place:
 * its skinning (the joints the build indexed, their count, being skinned at all) and its number of morph
 * weights (so that weight ranges, like joint ranges, stand where a build puts them). */
static bool editable_in_place(const orr_snapshot *s, const extract_state *x, const orr_world *w, const orr_assets *assets,
                              uint32_t index, bool any_skin)
{
    const orr_render_instance *in = &s->instances[index];
    const orr_mesh_renderer *mr = orr_mesh_renderer_try_get(w, in->entity);
    const orr_mesh *mesh = mr ? orr_assets_try_get_mesh(assets, mr->mesh) : NULL;
    if ((mesh ? mesh->weight_count : 0) != in->weight_count) return false;
    if (!any_skin) return true;
    const orr_skin *skin;
    uint32_t n;
    const orr_entity *joints = joints_of(w, in->entity, assets, &skin, &n);
    if (n != in->joint_count) return false;
    return n == 0 || joints_indexed(x, w, joints, n, index);
}

/* Redoes instance `index` in place (the pose and palette; with `everything` its components too);
 * *changed is set when its data changed, *layout when its layout changed. Pose only, it writes nothing
 * but the instance's record and its joint range: instances may be redone so on several threads. */
static orr_result redo_instance(orr_snapshot *s, const orr_world *w, const orr_assets *assets, uint32_t index,
                                bool everything, const orr_affine3d *pose, bool *layout, bool *changed_out)
{
    orr_render_instance *in = &s->instances[index];
    bool changed = memcmp(pose, &in->world, sizeof *pose) != 0;
    if (changed) in->world = *pose;
    if (everything) {
        const orr_render_instance old = *in;
        bool rebound = false;
        bool reweighed = false;
        const orr_mesh_renderer *mr = orr_mesh_renderer_try_get(w, in->entity);
        if (!fill_components(s, w, assets, in, mr, false, NULL, &rebound, &reweighed)) return ORR_ERROR_OUT_OF_MEMORY;
        /* (whether it has a visibility range is layout: the draw scenes list those that do) */
        bool ranged = in->range_near > 0 || in->range_far > 0, was = old.range_near > 0 || old.range_far > 0;
        bool relaid = rebound || !orr_id_eq(in->mesh, old.mesh) || in->casts_shadows != old.casts_shadows || ranged != was;
        /* The entry is there exactly when the entity has a Fur component (adding or removing one is
         * structural: a build): its values are redone in place. */
        orr_render_fur *fur = s->fur_count ? fur_of(s, index) : NULL;
        const orr_fur_instance *c = fur ? orr_fur_instance_try_get(w, in->entity) : NULL;
        if (c) {
            orr_render_fur now = fur_entry(c, index);
            if (!same_fur_values(&now, fur)) {
                if (fur_usable(&now) != fur_usable(fur)) relaid = true;
                *fur = now;
                changed = true;
            }
        }
        if (relaid) *layout = true;
        changed = changed || relaid || reweighed || in->layers != old.layers || in->visible != old.visible ||
                  memcmp(in->reserved, old.reserved, sizeof old.reserved) != 0 || in->name != old.name ||
                  memcmp(&in->bounds, &old.bounds, sizeof old.bounds) != 0;
    }
    if (in->joint_count) {
        const orr_skin *skin;
        uint32_t count;
        const orr_entity *joints = joints_of(w, in->entity, assets, &skin, &count);
        orr_mat4d inv;
        palette_inverse(&in->world, &inv);
        for (uint32_t j = 0; j < in->joint_count; j += 16) { /* in blocks, each compared before it is written */
            orr_affine3d block[16];
            uint32_t n = in->joint_count - j < 16 ? in->joint_count - j : 16;
            palette(w, joints + j, skin->inverse_bind + j, &inv, n, block);
            orr_affine3d *dst = s->joints + in->joint_offset + j;
            if (memcmp(block, dst, n * sizeof *block) != 0) {
                memcpy(dst, block, n * sizeof *block);
                changed = true;
            }
        }
    }
    *changed_out = changed;
    return ORR_OK;
}

/* Per work item of an update: CHANGED | the instance id when its data changed, the id alone when not. */
#define CHANGED (1ull << 32)

typedef struct pose_pass {
    orr_snapshot *s;
    const extract_state *x;
    const orr_world *w;
    const orr_assets *assets;
    uint32_t *changed_n; /* [chunks] the chunk's changed items (every item pose only), or NULL */
    uint32_t count;
} pose_pass;

/* Chunk c of the work: its pose-only instances redone (the others are left to the calling thread). The
 * chunk's entities (random records of a large snapshot, fetched ahead so that their misses overlap),
 * their poses in one batch from the world (which overlaps its own misses), then the instances redone,
 * their records still in cache; with `changed_n`, how many of them changed (the counts `changed` is
 * placed by, found here rather than in a pass of their own). Never fails: pose only, nothing is
 * allocated. */
static void pose_job(void *ctx, uint32_t c)
{
    const pose_pass *pp = ctx;
    orr_snapshot *s = pp->s;
    const extract_state *x = pp->x;
    uint32_t from = c * POSE_CHUNK, chunk = pp->count - from < POSE_CHUNK ? pp->count - from : POSE_CHUNK;
    orr_entity entities[POSE_CHUNK] = {{0, 0}}; /* (all written below; the compiler cannot tell) */
    orr_affine3d poses[POSE_CHUNK];
    for (uint32_t k = 0; k < chunk; k++) {
        if (from + k + ORRI_AHEAD < pp->count) {
            const char *ahead = (const char *)&s->instances[x->work.items[from + k + ORRI_AHEAD] >> 1];
            __builtin_prefetch(ahead, 1);
            __builtin_prefetch(ahead + 64, 1);
        }
        entities[k] = s->instances[x->work.items[from + k] >> 1].entity;
    }
    orr_entity_cached_poses(pp->w, entities, chunk, poses); /* a stale entity: identity, as one call gives */
    uint32_t changed_n = 0;
    for (uint32_t k = 0; k < chunk; k++) {
        uint32_t work = x->work.items[from + k];
        if (work & 1u) continue; /* everything: the calling thread's, after this pass */
        bool layout = false, changed = false;
        redo_instance(s, pp->w, pp->assets, work >> 1, false, &poses[k], &layout, &changed);
        x->result.items[from + k] = (changed ? CHANGED : 0) | s->instances[work >> 1].id;
        changed_n += changed;
    }
    if (pp->changed_n) pp->changed_n[c] = changed_n;
}

/* The moved entities' snapshot indices (NONE: no instance), in chunks: scattered look-ups into a large
 * index, their misses shared out over the threads. Each chunk writes its own range of `out`, and, when
 * `kept` is given (no skinned instance's joints to add), how many of its entities have an instance and
 * whether a light or camera is among them (SOURCE in flags). */
#define SOURCE 1u
#define ORDERED 2u
typedef struct index_pass {
    const orr_snapshot *s;
    const extract_state *x;
    const uint32_t *ents;
    uint32_t *out;
    uint32_t *kept, *flags; /* [chunks], or NULL */
    uint32_t *work;         /* place_job: where the work items go */
    uint32_t count;
} index_pass;

static void index_job(void *ctx, uint32_t c)
{
    const index_pass *p = ctx;
    const orr_snapshot *s = p->s;
    uint32_t from = c * ORRI_FRAME_CHUNK, to = p->count - from < ORRI_FRAME_CHUNK ? p->count : from + ORRI_FRAME_CHUNK;
    uint32_t kept = 0;
    bool source = false;
    for (uint32_t i = from; i < to; i++) {
        if (i + ORRI_AHEAD < to && p->ents[i + ORRI_AHEAD] < s->index_capacity)
            __builtin_prefetch(&s->index_of[p->ents[i + ORRI_AHEAD]]);
        uint32_t e = p->ents[i];
        p->out[i] = e < s->index_capacity ? s->index_of[e] : NONE;
        kept += p->out[i] != NONE;
        if (p->kept && has_bit(p->x->source_bits, p->x->source_words, e)) source = true;
    }
    if (p->kept) p->kept[c] = kept, p->flags[c] = source ? SOURCE : 0u;
}

/* Chunk c's pose-only work items at its place (kept[c]), and ORDERED in its flags when their instances
 * are in strictly ascending order. */
static void place_job(void *ctx, uint32_t c)
{
    const index_pass *p = ctx;
    uint32_t from = c * ORRI_FRAME_CHUNK, to = p->count - from < ORRI_FRAME_CHUNK ? p->count : from + ORRI_FRAME_CHUNK;
    uint32_t at = p->kept[c], first = at;
    bool ordered = true;
    for (uint32_t i = from; i < to; i++) {
        uint32_t index = p->out[i];
        if (index == NONE) continue;
        if (at > first && (p->work[at - 1] >> 1) >= index) ordered = false;
        p->work[at++] = index << 1;
    }
    if (ordered) p->flags[c] |= ORDERED;
}

/* `changed` and `changed_at` from the work items' results, in the chunks of the pose pass (at the places
 * counted for them). */
typedef struct changed_pass {
    orr_snapshot *s;
    const uint32_t *work;
    const uint64_t *result;
    uint32_t *at; /* [chunks] changed entries, then the chunk's first place */
    uint32_t count;
} changed_pass;

static void changed_count_job(void *ctx, uint32_t c)
{
    const changed_pass *p = ctx;
    uint32_t from = c * POSE_CHUNK, to = p->count - from < POSE_CHUNK ? p->count : from + POSE_CHUNK;
    uint32_t n = 0;
    for (uint32_t i = from; i < to; i++) n += (p->result[i] & CHANGED) != 0;
    p->at[c] = n;
}

static void changed_place_job(void *ctx, uint32_t c)
{
    const changed_pass *p = ctx;
    uint32_t from = c * POSE_CHUNK, to = p->count - from < POSE_CHUNK ? p->count : from + POSE_CHUNK;
    uint32_t at = p->at[c];
    for (uint32_t i = from; i < to; i++)
        if (p->result[i] & CHANGED) {
            p->s->changed_at[at] = (p->work[i] >> 1) | ((p->work[i] & 1u) ? 0u : ORR_CHANGED_POSE);
            p->s->changed[at++] = (uint32_t)p->result[i];
        }
}

/* Counts into places: each entry becomes the sum of those before it; returns the sum of all. */
static uint32_t places(uint32_t *counts, uint32_t n)
{
    uint32_t sum = 0;
    for (uint32_t c = 0; c < n; c++) {
        uint32_t k = counts[c];
        counts[c] = sum;
        sum += k;
    }
    return sum;
}

/* Collects what the log names, checks that all of it can be redone in place (else *rebuild, with the
 * snapshot untouched), then redoes it. */
static orr_result update(orr_snapshot *s, extract_state *x, orr_world *w, const orr_assets *assets,
                         orr_world_changes ch, bool *rebuild)
{
    x->work.count = 0;
    bool redo_sources = false;
    /* The moved list's look-ups first, shared out when it is long enough (into x->scratch, free until
     * the sort below); the edited list (short) looks its entities up as it goes. */
    uint32_t *moved_index = NULL;
    orr_workers *look_workers;
    uint32_t look_threads = orr_world_pass_threads(w, ch.moved_count, &look_workers);
    /* ordered: the work items are pose only, each instance once, in snapshot order (a frame of moves
     * alone, its items made by the threads: neither sorted nor looked at again) */
    bool ordered = false;
    int first_list = 0;
    if (look_threads > 1) {
        uint32_t chunks = (ch.moved_count + ORRI_FRAME_CHUNK - 1) / ORRI_FRAME_CHUNK;
        bool place = !x->joint_users.count; /* (a moved joint adds its instances: one at a time below) */
        if (!ORRI_VEC_RESERVE(&s->allocator, &x->scratch, ch.moved_count) ||
            (place && (!ORRI_VEC_RESERVE(&s->allocator, &x->chunks, 2 * chunks) ||
                       !ORRI_VEC_RESERVE(&s->allocator, &x->work, ch.moved_count))))
            return ORR_ERROR_OUT_OF_MEMORY;
        moved_index = x->scratch.items;
        index_pass ip = {.s = s, .x = x, .ents = ch.moved, .out = moved_index, .count = ch.moved_count,
                         .kept = place ? x->chunks.items : NULL, .flags = place ? x->chunks.items + chunks : NULL,
                         .work = x->work.items};
        orri_pool_run(look_workers, look_threads, chunks, index_job, &ip);
        if (place) {
            x->work.count = places(ip.kept, chunks);
            orri_pool_run(look_workers, look_threads, chunks, place_job, &ip);
            ordered = true;
            for (uint32_t c = 0; c < chunks; c++) {
                if (ip.flags[c] & SOURCE) redo_sources = true;
                /* each chunk in order, and its first item after the last of those before it */
                uint32_t at = ip.kept[c], end = c + 1 < chunks ? ip.kept[c + 1] : x->work.count;
                if (!(ip.flags[c] & ORDERED) || (at && at < end && (x->work.items[at - 1] >> 1) >= (x->work.items[at] >> 1)))
                    ordered = false;
            }
            first_list = 1; /* the edited list below, one at a time */
        }
    }
    for (int list = first_list; list < 2; list++) {
        const uint32_t *ents = list ? ch.edited : ch.moved;
        uint32_t count = list ? ch.edited_count : ch.moved_count;
        const uint32_t *known = list ? NULL : moved_index;
        for (uint32_t i = 0; i < count; i++) {
            uint32_t e = ents[i], index;
            if (known) {
                index = known[i];
            } else {
                if (i + ORRI_AHEAD < count && ents[i + ORRI_AHEAD] < s->index_capacity)
                    __builtin_prefetch(&s->index_of[ents[i + ORRI_AHEAD]]);
                index = e < s->index_capacity ? s->index_of[e] : NONE;
            }
            if (index != NONE && !push_work(s, x, index, list == 1)) return ORR_ERROR_OUT_OF_MEMORY;
            if (index != NONE) ordered = false;
            if (list == 0 && x->joint_users.count && has_bit(x->joint_bits, x->joint_words, e) &&
                !push_joint_users(s, x, e))
                return ORR_ERROR_OUT_OF_MEMORY;
            if (has_bit(x->source_bits, x->source_words, e)) redo_sources = true;
        }
    }
    /* In snapshot order, each instance once (everything wins over pose only). The moved list is in the
     * world's slot order, which is pre-order, the snapshot's, after a propagation: no sort then. */
    uint32_t n = x->work.count, *work = x->work.items, unique = n;
    if (!ordered) {
        uint32_t sorted = 1;
        while (sorted < n && work[sorted - 1] <= work[sorted]) sorted++;
        if (sorted < n) {
            if (!ORRI_VEC_RESERVE(&s->allocator, &x->scratch, n)) return ORR_ERROR_OUT_OF_MEMORY;
            orr_sort_u32(work, x->scratch.items, n, (s->instance_count << 1) | 1u);
        }
        unique = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (unique && (work[unique - 1] >> 1) == (work[i] >> 1)) work[unique - 1] |= work[i] & 1u;
            else work[unique++] = work[i];
        }
        bool any_skin = orr_world_component_count(w, ORR_COMPONENT_SKINNED_MESH) > 0;
        for (uint32_t i = 0; i < unique; i++) {
            if ((work[i] & 1u) && !editable_in_place(s, x, w, assets, work[i] >> 1, any_skin)) {
                *rebuild = true;
                return ORR_OK;
            }
        }
    }
    s->changed_count = s->removed_count = 0;
    if (!GROW(s, changed, changed_capacity, unique) || !ORRI_VEC_RESERVE(&s->allocator, &x->result, unique))
        return ORR_ERROR_OUT_OF_MEMORY;
    /* The pose-only instances in chunks of POSE_CHUNK, on several threads when there are enough (each
     * writes its own records and result slots); then, on this thread, the instances redone whole (they
     * may append to the snapshot's shared arrays), in order; then changed, in work order. */
    pose_pass pp = {.s = s, .x = x, .w = w, .assets = assets, .count = unique};
    orr_workers *workers;
    uint32_t chunks = (unique + POSE_CHUNK - 1) / POSE_CHUNK;
    uint32_t threads = orr_world_pass_threads(w, unique, &workers);
    /* on threads, `changed` is placed by chunk counts: the pose pass counts them when it makes every
     * result (ordered: no item redone whole) */
    bool counted = false;
    if (threads > 1 && ORRI_VEC_RESERVE(&s->allocator, &x->chunks, chunks)) {
        counted = ordered;
        if (counted) pp.changed_n = x->chunks.items;
    }
    orri_pool_run(workers, threads, chunks, pose_job, &pp);
    bool layout = false;
    for (uint32_t i = 0; !ordered && i < unique; i++) { /* (ordered: none redone whole) */
        if (!(work[i] & 1u)) continue;
        const orr_render_instance *in = &s->instances[work[i] >> 1];
        orr_affine3d pose;
        orr_entity_cached_pose(w, in->entity, &pose); /* a stale entity: identity, as the batch gives */
        bool changed = false;
        orr_result r = redo_instance(s, w, assets, work[i] >> 1, true, &pose, &layout, &changed);
        if (r != ORR_OK) return r;
        x->result.items[i] = (changed ? CHANGED : 0) | in->id;
    }
    /* changed, and beside it each one's index, flagged when only its pose was redone (the recorder
     * copies that much) */
    if (!GROW(s, changed_at, changed_at_capacity, unique)) return ORR_ERROR_OUT_OF_MEMORY;
    if (threads > 1 && x->chunks.capacity >= chunks) {
        changed_pass cp = {.s = s, .work = work, .result = x->result.items, .at = x->chunks.items, .count = unique};
        if (!counted) orri_pool_run(workers, threads, chunks, changed_count_job, &cp);
        s->changed_count = places(cp.at, chunks);
        orri_pool_run(workers, threads, chunks, changed_place_job, &cp);
    } else {
        for (uint32_t i = 0; i < unique; i++)
            if (x->result.items[i] & CHANGED) {
                s->changed_at[s->changed_count] = (work[i] >> 1) | ((work[i] & 1u) ? 0u : ORR_CHANGED_POSE);
                s->changed[s->changed_count++] = (uint32_t)x->result.items[i];
            }
    }
    s->changed_at_count = s->changed_count;
    if (layout) s->layout_version++;
    return redo_sources ? redo_lights_and_cameras(s, x, w) : ORR_OK;
}

orr_result orr_extractor_update(orr_extractor *x, orr_world *w, const orr_assets *assets, uint64_t frame, uint64_t tick,
                              orr_snapshot *s)
{
    ORRI_REQUIRE(x && w && assets && s && s->allocator.realloc, NULL,
                 "orr_extractor_update: an extractor, world, assets and an initialised snapshot");
    if (!x->delta.allocator.realloc) orr_snapshot_delta_init(&x->delta, &x->allocator);
    orr_world_changes ch = orr_world_get_changes(w);
    uint64_t previous_frame = s->frame;
    bool rebuild = !x->valid || !stamp_matches(x, s) || ch.all || x->epoch != ch.epoch ||
                   x->structure_version != orr_world_structure_version(w) || x->removals != orr_assets_removals(assets);
    x->valid = false; /* until this update has succeeded */
    s->changed_at_count = 0; /* until an update in place lists them */
    orr_result r = ORR_OK;
    if (!rebuild) {
        r = update(s, x, w, assets, ch, &rebuild);
        if (r == ORR_OK && !rebuild) s->delta_base = previous_frame;
        if (r == ORR_OK && !rebuild) orr_snapshot_fini(&x->spare); /* the structure stays: one set */
    }
    if (r == ORR_OK && rebuild) {
        /* Another set of arrays (the spare, when the last frame rebuilt too, else new ones), compared with
         * the old ones by id for the exact delta; the old become the spare. (Two sets at once while the
         * structure changes frame after frame; one again after the first frame it does not.) The spare
         * is taken only when it came from an allocator like the snapshot's. */
        orr_snapshot old = *s;
        orr_snapshot *spare = &x->spare;
        bool take = spare->allocator.realloc == s->allocator.realloc && spare->allocator.user == s->allocator.user;
        if (!take) orr_snapshot_fini(spare);
        s->instances = spare->instances;
        s->lights = spare->lights;
        s->cameras = spare->cameras;
        s->joints = spare->joints;
        s->material_bindings = spare->material_bindings;
        s->names = spare->names;
        s->index_of = spare->index_of;
        s->fur = spare->fur;
        s->weights = spare->weights;
        s->instance_capacity = spare->instance_capacity;
        s->light_capacity = spare->light_capacity;
        s->camera_capacity = spare->camera_capacity;
        s->joint_capacity = spare->joint_capacity;
        s->material_binding_capacity = spare->material_binding_capacity;
        s->names_capacity = spare->names_capacity;
        s->index_capacity = spare->index_capacity;
        s->fur_capacity = spare->fur_capacity;
        s->weight_capacity = spare->weight_capacity;
        *spare = (orr_snapshot){0};
        /* Both passes over every instance, on the world's threads when there are enough. */
        orr_workers *workers;
        uint32_t threads = orr_world_pass_threads(w, orr_world_entity_count(w), &workers);
        r = build(s, x, w, assets, &x->build, workers, threads);
        if (r == ORR_OK) r = diff(s, old.layout_version ? &old : NULL, &x->delta, workers, threads);
        old.changed = old.removed = old.changed_at = NULL; /* still the snapshot's */
        old.changed_capacity = old.removed_capacity = old.changed_at_capacity = 0;
        if (r == ORR_OK) *spare = old;
        else orr_snapshot_fini(&old);
    }
    s->frame = frame;
    s->changed_at_frame = frame;
    s->tick = tick;
    s->revision = orr_world_revision(w);
    s->structure_version = orr_world_structure_version(w);
    if (r != ORR_OK) {
        /* Half updated: the next update builds again, and with no delta (everything counts as
         * changed), since a reader never saw what this frame had changed. */
        s->layout_version = s->delta_base = 0;
        return r;
    }
    orr_world_clear_changes(w);
    x->epoch = orr_world_get_changes(w).epoch;
    x->structure_version = s->structure_version;
    x->removals = orr_assets_removals(assets);
    x->stamp_frame = s->frame;
    x->stamp_layout = s->layout_version;
    x->stamp_instances = s->instance_count;
    x->stamp_joints = s->joint_count;
    x->stamp_names = s->names_size;
    x->rebuilt = rebuild;
    x->valid = true;
    return ORR_OK;
}
