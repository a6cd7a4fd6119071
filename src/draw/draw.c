/* The prepared draw protocol: cull, draw list with offsets, ranges, surface draws, sort by pass, skin
 * tables, batches, for one view (orr_draw_prepare, the reference), and its retained form (a scene built
 * once per layout, culled per view). Bad data is dropped at the step that finds it and counted, the same
 * way on both paths: whatever the view, so that a counter reads the same from every view. */
#include "core/internal.h"
#include "draw/draw_internal.h"

#include <math.h>
#include <orrery/draw.h>
#include <string.h>

#define NONE UINT32_MAX

const char *orr_drop_name(orr_drop drop)
{
    static const char *const names[ORR_DROP_COUNT] = {
        "stale_handle", "missing_mesh", "primitive_range", "material_range",
        "mixed_range",  "skin_range",   "material_mode",   "capacity",
        "sidecar",
    };
    return (unsigned)drop < ORR_DROP_COUNT ? names[drop] : "unknown";
}

static const char *const order_names[ORR_ORDER_COUNT] = {"hierarchy", "mesh"};

const char *orr_draw_order_name(orr_draw_order order)
{
    return (unsigned)order < ORR_ORDER_COUNT ? order_names[order] : "unknown";
}

bool orr_draw_order_parse(const char *name, orr_draw_order *out)
{
    for (unsigned k = 0; name && k < ORR_ORDER_COUNT; k++)
        if (!strcmp(name, order_names[k])) return *out = (orr_draw_order)k, true;
    return false;
}

void orr_draw_list_init(orr_draw_list *list, const orr_allocator *allocator)
{
    *list = (orr_draw_list){.allocator = orri_allocator_or_default(allocator)};
}

void orr_draw_list_fini(orr_draw_list *list)
{
    if (!list) return;
    const orr_allocator *a = &list->allocator;
    orri_free(a, list->draws, (size_t)list->draw_capacity * sizeof *list->draws);
    orri_free(a, list->batches, (size_t)list->batch_capacity * sizeof *list->batches);
    orri_free(a, list->skin_ranges, (size_t)list->skin_range_capacity * sizeof *list->skin_ranges);
    orri_free(a, list->joints, (size_t)list->joint_capacity * sizeof *list->joints);
    orri_free(a, list->offsets, (size_t)list->offset_capacity * sizeof *list->offsets);
    orr_allocator keep = list->allocator;
    *list = (orr_draw_list){.allocator = keep};
}

/* A scratch block of at least `bytes` (contents not kept). */
static void *scratch(const orr_allocator *a, uint32_t **block, size_t *have, size_t bytes)
{
    if (bytes <= *have) return *block;
    orri_free(a, *block, *have);
    *have = 0;
    *block = orri_alloc(a, bytes);
    if (*block) *have = bytes;
    return *block;
}

/* ---- what can be drawn ----------------------------------------------------------------------- */

bool orr_draw_mirrored(const orr_render_instance *in)
{
    const double *m = in->world.m;
    double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[3] * (m[1] * m[8] - m[2] * m[7]) + m[6] * (m[1] * m[5] - m[2] * m[4]);
    return det < 0.0;
}

static orr_pass pass_of(orr_alpha_mode mode)
{
    return mode == ORR_ALPHA_MASK ? ORR_PASS_CUTOUT : mode == ORR_ALPHA_BLEND ? ORR_PASS_TRANSPARENT : ORR_PASS_OPAQUE;
}

/* The instance's mesh when the instance itself can be drawn, else NULL with the drop counted. */
static const orr_mesh *instance_mesh(const orr_snapshot *s, const orr_assets *assets, const orr_render_instance *in,
                                     uint32_t *dropped)
{
    if (orr_id_is_none(in->mesh)) {
        dropped[ORR_DROP_MISSING_MESH]++;
        return NULL;
    }
    const orr_mesh *mesh = orr_assets_try_get_mesh(assets, in->mesh);
    if (!mesh) {
        dropped[ORR_DROP_STALE_HANDLE]++;
        return NULL;
    }
    if (in->joint_count && (in->joint_offset > s->joint_count || in->joint_count > s->joint_count - in->joint_offset)) {
        dropped[ORR_DROP_SKIN_RANGE]++;
        return NULL;
    }
    /* An override for a slot the mesh does not have names a primitive that is not there. */
    for (uint32_t p = mesh->primitive_count; p < in->material_count; p++) {
        if (in->material_offset + p < s->material_binding_count && !orr_id_is_none(s->material_bindings[in->material_offset + p])) {
            dropped[ORR_DROP_PRIMITIVE_RANGE]++;
            break;
        }
    }
    return mesh;
}

/* ---- the fur sidecar ---------------------------------------------------------------------------- */

/* Whether an entry's values are usable (orr_render_fur's contract). */
static bool fur_entry_valid(const orr_render_fur *e)
{
    return orr_fur_override_valid(e->set, e->shell_count, e->shell_length, e->density, e->thinning);
}

static bool fur_sidecar_ordered(const orr_snapshot *s)
{
    for (uint32_t k = 0; k < s->fur_count; k++)
        if (s->fur[k].instance >= s->instance_count || (k && s->fur[k].instance <= s->fur[k - 1].instance)) return false;
    return true;
}

/* Walks the sidecar beside instances visited in ascending index order. */
typedef struct fur_cursor {
    const orr_render_fur *entries;
    uint32_t count, next;
} fur_cursor;

/* Checks the sidecar once (counting what is ignored, whatever the view) and starts a walk over it. */
static void fur_begin(fur_cursor *c, const orr_snapshot *s, uint32_t *dropped)
{
    *c = (fur_cursor){s->fur, s->fur ? s->fur_count : 0, 0};
    if (!c->count) return;
    if (!fur_sidecar_ordered(s)) {
        dropped[ORR_DROP_SIDECAR] += c->count;
        c->count = 0;
        return;
    }
    for (uint32_t k = 0; k < c->count; k++)
        if (!fur_entry_valid(&c->entries[k])) dropped[ORR_DROP_SIDECAR]++;
}

/* The usable entry of instance i (called with ascending i), or NULL. */
static const orr_render_fur *fur_at(fur_cursor *c, uint32_t i)
{
    while (c->next < c->count && c->entries[c->next].instance < i) c->next++;
    if (c->next < c->count && c->entries[c->next].instance == i && fur_entry_valid(&c->entries[c->next]))
        return &c->entries[c->next];
    return NULL;
}

uint32_t orr_draw_fur_entry(const orr_snapshot *s, uint32_t instance)
{
    uint32_t lo = 0, hi = s->fur ? s->fur_count : 0;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->fur[mid].instance < instance) lo = mid + 1;
        else hi = mid;
    }
    return lo < (s->fur ? s->fur_count : 0) && s->fur[lo].instance == instance && fur_entry_valid(&s->fur[lo]) ? lo : NONE;
}

/* Primitive p of an instance's mesh: its material, pass and payload when it can be drawn, else false
 * with the drop counted. `fur` is the instance's usable sidecar entry (NULL: none); a fur surface without
 * one is a plain mesh surface, counted in *fur_fallbacks. */
static bool primitive_drawable(const orr_snapshot *s, const orr_assets *assets, const orr_render_instance *in,
                               const orr_mesh *mesh, uint32_t p, const orr_render_fur *fur, orr_material_id *material,
                               orr_pass *pass, uint8_t *payload, uint32_t *dropped, uint32_t *fur_fallbacks)
{
    const orr_primitive *prim = &mesh->primitives[p];
    orr_material_id id = orr_snapshot_material(s, in, p, prim->material);
    const orr_material *mat = orr_assets_try_get_material(assets, id);
    if (!mat) {
        dropped[ORR_DROP_MATERIAL_RANGE]++;
        return false;
    }
    if (prim->topology != ORR_TOPOLOGY_TRIANGLES || prim->index_count < 3 || (unsigned)mat->alpha_mode > ORR_ALPHA_BLEND) {
        dropped[ORR_DROP_MATERIAL_MODE]++;
        return false;
    }
    if ((unsigned)mat->shading > ORR_SHADING_FUR || (mat->shading == ORR_SHADING_FUR && !orr_fur_valid(&mat->fur))) {
        dropped[ORR_DROP_MATERIAL_MODE]++;
        return false;
    }
    *material = id;
    *pass = pass_of(mat->alpha_mode);
    *payload = ORR_PAYLOAD_MESH;
    if (mat->shading == ORR_SHADING_FUR) {
        if (fur) {
            *pass = ORR_PASS_CUSTOM;
            *payload = ORR_PAYLOAD_FUR;
        } else {
            (*fur_fallbacks)++;
        }
    }
    return true;
}

/* How far an instance's fur reaches beyond its mesh (metres, world space): the longest shell length of
 * its fur surfaces, the sidecar's override where it sets one. 0 without a usable entry. */
static float fur_reach(const orr_snapshot *s, const orr_assets *assets, const orr_render_instance *in,
                       const orr_mesh *mesh, const orr_render_fur *fur)
{
    if (!fur) return 0.0f;
    float reach = 0.0f;
    bool any = false;
    for (uint32_t p = 0; p < mesh->primitive_count; p++) {
        const orr_material *mat = orr_assets_try_get_material(assets, orr_snapshot_material(s, in, p, mesh->primitives[p].material));
        if (!mat || mat->shading != ORR_SHADING_FUR || !orr_fur_valid(&mat->fur)) continue;
        any = true;
        if (mat->fur.shell_length > reach) reach = mat->fur.shell_length;
    }
    if (any && (fur->set & ORR_FUR_SET_SHELL_LENGTH)) reach = fur->shell_length;
    return reach;
}

/* ---- culling ----------------------------------------------------------------------------- */

typedef struct frustum {
    double planes[5][4]; /* left, right, bottom, top, near: dot(p, (x, y, z, 1)) >= 0 inside */
} frustum;

static void frustum_from(const orr_draw_view *view, frustum *f)
{
    orr_mat4d clip;
    orr_mat4d_mul(&view->proj, &view->view, &clip);
    const double *m = clip.m;
    for (int i = 0; i < 4; i++) {
        double row0 = m[i * 4 + 0], row1 = m[i * 4 + 1], row2 = m[i * 4 + 2], row3 = m[i * 4 + 3];
        f->planes[0][i] = row3 + row0;
        f->planes[1][i] = row3 - row0;
        f->planes[2][i] = row3 + row1;
        f->planes[3][i] = row3 - row1;
        f->planes[4][i] = row3 - row2; /* reversed Z: depth <= 1 in front of the near plane */
    }
}

void orri_draw_frustum_planes(const orr_draw_view *view, double planes[5][4])
{
    frustum f;
    frustum_from(view, &f);
    memcpy(planes, f.planes, sizeof f.planes);
}

static bool box_outside(const frustum *f, orr_aabbd b)
{
    for (int p = 0; p < 5; p++) {
        const double *pl = f->planes[p];
        /* the box corner furthest along the plane normal */
        double x = pl[0] >= 0 ? b.max.x : b.min.x, y = pl[1] >= 0 ? b.max.y : b.min.y,
               z = pl[2] >= 0 ? b.max.z : b.min.z;
        if (pl[0] * x + pl[1] * y + pl[2] * z + pl[3] < 0) return true;
    }
    return false;
}

/* The instance's world box relative to the view origin: subtracted in binary64 before anything is a float;
 * grown by `reach` (its fur, metres) on every side. Between ticks (view->motion), an instance drawn at
 * the blend of two poses has its box there (orr_draw_motion_pose), where the vertex stage draws it. */
static orr_aabbd view_box(const orr_render_instance *in, uint32_t index, const orr_draw_view *view, float reach)
{
    orr_vec3d origin = view->origin;
    const orr_draw_motion *mo = view->motion;
    uint32_t e = mo && index < mo->count ? mo->entry_of[index] : 0;
    orr_affine3d rel = in->world;
    if (e) orr_draw_blend_pose(&mo->blends[e - 1], &in->world, mo->lag, &rel);
    rel.m[9] -= origin.x;
    rel.m[10] -= origin.y;
    rel.m[11] -= origin.z;
    orr_aabbd local = {{in->bounds.min.x, in->bounds.min.y, in->bounds.min.z}, {in->bounds.max.x, in->bounds.max.y, in->bounds.max.z}};
    orr_aabbd box = orr_aabbd_transform_affine(&rel, local);
    if (reach > 0.0f) {
        orr_vec3d r = {reach, reach, reach};
        box.min = orr_vec3d_sub(box.min, r);
        box.max = orr_vec3d_add(box.max, r);
    }
    return box;
}

/* View-space distance of the box centre (transparent sorting). */
static float view_depth(const orr_draw_view *view, orr_aabbd box)
{
    orr_vec3d centre = orr_mat4d_transform_point(&view->view, orr_vec3d_scale(orr_vec3d_add(box.min, box.max), 0.5));
    float d = (float)-centre.z;
    return d == 0.0f ? 0.0f : d; /* -0 sorts with +0 */
}

/* Why an instance is not drawn in a view (the counters of orr_draw_stats), in the order they are checked. */
enum { STATE_UNSEEN = 0, STATE_HIDDEN, STATE_MASKED, STATE_RANGED, STATE_CULLED, STATE_VISIBLE };

static uint8_t classify(const orr_render_instance *in, uint32_t index, const orr_draw_view *view, uint32_t mask, const frustum *f,
                        float reach, orr_draw_stats *st)
{
    if (!in->visible) {
        st->hidden++;
        return STATE_HIDDEN;
    }
    if (!(in->layers & mask)) {
        st->layer_masked++;
        return STATE_MASKED;
    }
    if (view->range_hidden && (view->range_hidden[index >> 5] >> (index & 31) & 1u)) {
        st->out_of_range++;
        return STATE_RANGED;
    }
    if (view->cull && box_outside(f, view_box(in, index, view, reach))) {
        st->culled++;
        return STATE_CULLED;
    }
    st->visible++;
    return STATE_VISIBLE;
}

/* ---- sorting keys -------------------------------------------------------------------------- */

/* Transparent depth as a key that sorts back to front (larger depth first) when ascending. */
static uint32_t far_first_key(float depth)
{
    uint32_t u;
    memcpy(&u, &depth, sizeof u);
    u = (u & 0x80000000u) ? ~u : u ^ 0x80000000u; /* ascending with the float */
    return ~u;
}

/* ---- the protocol for one view (the reference) -------------------------------------------------- */

static orr_result oom(void) { return ORR_ERROR_OUT_OF_MEMORY; }

/* Step 1: one draw per drawable mesh primitive of every visible input; offsets[i]..offsets[i+1] are
 * input i's. Bad data is counted whether or not the view would show it. */
static orr_result collect(orr_draw_list *list, const orr_snapshot *s, const orr_assets *assets,
                          const orr_draw_view *view)
{
    orr_draw_stats *st = &list->stats;
    frustum f;
    frustum_from(view, &f);
    uint32_t mask = view->layer_mask ? view->layer_mask : ORR_LAYERS_ALL;
    if (!ORRI_GROW(&list->allocator, list->offsets, list->offset_capacity, s->instance_count + 1)) return oom();
    list->offsets[0] = 0;
    fur_cursor fc;
    fur_begin(&fc, s, st->dropped);
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const orr_render_instance *in = &s->instances[i];
        list->offsets[i + 1] = list->draw_count;
        st->inputs++;
        const orr_mesh *mesh = instance_mesh(s, assets, in, st->dropped);
        if (!mesh) continue;
        const orr_render_fur *fur = fur_at(&fc, i);
        float reach = fur_reach(s, assets, in, mesh, fur);
        bool mirrored = orr_draw_mirrored(in);
        uint8_t state = STATE_UNSEEN;
        orr_aabbd box = {{0, 0, 0}, {0, 0, 0}};
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            orr_material_id mat_id;
            orr_pass pass;
            uint8_t payload;
            if (!primitive_drawable(s, assets, in, mesh, p, fur, &mat_id, &pass, &payload, st->dropped, &st->fur_fallbacks))
                continue;
            if (state == STATE_UNSEEN) {
                state = classify(in, i, view, mask, &f, reach, st);
                box = view_box(in, i, view, reach);
            }
            if (state != STATE_VISIBLE) continue;
            if (!ORRI_GROW(&list->allocator, list->draws, list->draw_capacity, list->draw_count + 1)) return oom();
            uint32_t k = list->draw_count++;
            list->draws[k] = (orr_surface_draw){
                .instance = i,
                .instance_id = in->id,
                .mesh = in->mesh,
                .primitive = p,
                .material = mat_id,
                .sequence = k,
                .skin_table = UINT32_MAX,
                .depth = view_depth(view, box),
                .pass = (uint8_t)pass,
                .payload = payload,
                .skinned = in->joint_count > 0,
                .casts_shadows = in->casts_shadows,
                .mirrored = mirrored,
                .bounds = {{(float)box.min.x, (float)box.min.y, (float)box.min.z},
                           {(float)box.max.x, (float)box.max.y, (float)box.max.z}},
            };
        }
        list->offsets[i + 1] = list->draw_count;
    }
    return ORR_OK;
}

/* Step 2: each non-empty range must hold one instance, one source mesh and one payload kind besides
 * plain mesh surfaces; a mixed range is dropped whole and counted once. */
void orr_draw_check_ranges(orr_draw_list *list, uint32_t input_count)
{
    uint32_t write = 0;
    for (uint32_t i = 0; i < input_count; i++) {
        uint32_t begin = list->offsets[i], end = list->offsets[i + 1];
        bool mixed = false;
        uint8_t kind = ORR_PAYLOAD_MESH; /* the range's payload kind other than plain meshes, once seen */
        for (uint32_t k = begin; k < end; k++) {
            const orr_surface_draw *d = &list->draws[k], *first = &list->draws[begin];
            if (d->instance != first->instance || !orr_id_eq(d->mesh, first->mesh)) mixed = true;
            if (d->payload != ORR_PAYLOAD_MESH) {
                if (kind != ORR_PAYLOAD_MESH && d->payload != kind) mixed = true;
                kind = d->payload;
            }
        }
        list->offsets[i] = write;
        if (mixed) {
            list->stats.dropped[ORR_DROP_MIXED_RANGE]++;
            continue;
        }
        for (uint32_t k = begin; k < end; k++) list->draws[write++] = list->draws[k];
    }
    list->offsets[input_count] = write;
    list->draw_count = write;
}

/* Step 4: sorted in place by pass, then the view's order (transparent back to front), stably: a radix
 * sort of a permutation, one key at a time, least significant first. */
static orr_result sort_draws(orr_draw_list *list, orr_draw_order order)
{
    uint32_t n = list->draw_count;
    if (n < 2) return ORR_OK;
    size_t bytes = (size_t)n * (3 * sizeof(uint32_t)) + (size_t)n * sizeof(orr_surface_draw);
    uint8_t *block = orri_alloc(&list->allocator, bytes);
    if (!block) return oom();
    uint32_t *perm = (uint32_t *)block, *tmp = perm + n, *key = tmp + n;
    orr_surface_draw *sorted = (orr_surface_draw *)(key + n);
    for (uint32_t i = 0; i < n; i++) perm[i] = i;
    const orr_surface_draw *d = list->draws;
#define BY(expr, max)                                                                                     \
    do {                                                                                                  \
        for (uint32_t i = 0; i < n; i++) key[i] = (expr);                                                 \
        orr_sort_by_key_u32(perm, tmp, key, n, (max));                                                    \
    } while (0)
    if (order == ORR_ORDER_MESH) {
        BY(d[i].material.index, UINT32_MAX);
        BY(d[i].primitive, UINT32_MAX);
        BY(d[i].mesh.index, UINT32_MAX);
        BY((uint32_t)d[i].payload << 2 | (uint32_t)d[i].skinned << 1 | d[i].mirrored, 1023);
    }
    BY(d[i].pass == ORR_PASS_TRANSPARENT ? far_first_key(d[i].depth) : 0, UINT32_MAX);
    BY(d[i].pass, ORR_PASS_COUNT);
#undef BY
    for (uint32_t i = 0; i < n; i++) sorted[i] = d[perm[i]];
    memcpy(list->draws, sorted, (size_t)n * sizeof *sorted);
    orri_free(&list->allocator, block, bytes);
    return ORR_OK;
}

/* Step 5: a frame-local joint range per skinned draw. */
static orr_result skin_tables(orr_draw_list *list, const orr_snapshot *s)
{
    for (uint32_t k = 0; k < list->draw_count; k++) {
        orr_surface_draw *d = &list->draws[k];
        if (!d->skinned) continue;
        const orr_render_instance *in = &s->instances[d->instance];
        if (!ORRI_GROW(&list->allocator, list->skin_ranges, list->skin_range_capacity, list->skin_range_count + 1) ||
            !ORRI_GROW(&list->allocator, list->joints, list->joint_capacity, list->joint_count + in->joint_count))
            return oom();
        for (uint32_t j = 0; j < in->joint_count; j++)
            orr_affine3d_to_mat4d(&s->joints[in->joint_offset + j], &list->joints[list->joint_count + j]);
        list->skin_ranges[list->skin_range_count] = (orr_skin_range){list->joint_count, in->joint_count};
        d->skin_table = list->skin_range_count++;
        list->joint_count += in->joint_count;
    }
    return ORR_OK;
}

/* Whether two batches draw alike (all but their items; the level's errors follow from its mesh and level). */
static bool same_batch(const orr_draw_batch *b, const orr_draw_batch *key)
{
    return b->pass == key->pass && orr_id_eq(b->mesh, key->mesh) && b->primitive == key->primitive &&
           orr_id_eq(b->material, key->material) && b->skinned == key->skinned && b->mirrored == key->mirrored &&
           b->payload == key->payload && b->lod == key->lod;
}

/* Appends item k to the last batch when it continues it (drawn alike: `key`), else starts one. */
static bool extend_batches(const orr_allocator *a, orr_draw_batch **batches, uint32_t *count, uint32_t *capacity,
                           uint32_t k, const orr_draw_batch *key)
{
    if (*count && same_batch(&(*batches)[*count - 1], key)) {
        (*batches)[*count - 1].count++;
        return true;
    }
    if (!orri_grow(a, (void **)batches, capacity, *count + 1, sizeof **batches)) return false;
    orr_draw_batch *b = &(*batches)[(*count)++];
    *b = *key;
    b->first = k;
    b->count = 1;
    return true;
}

orr_result orr_draw_prepare(orr_draw_list *list, const orr_snapshot *snapshot, const orr_assets *assets,
                            const orr_draw_view *view)
{
    ORRI_REQUIRE(list && snapshot && assets && view, NULL, "orr_draw_prepare: every argument is required");
    list->draw_count = list->batch_count = list->skin_range_count = list->joint_count = 0;
    memset(&list->stats, 0, sizeof list->stats);
    memset(list->pass_begin, 0, sizeof list->pass_begin);

    orr_result r = collect(list, snapshot, assets, view);
    if (r != ORR_OK) return r;
    orr_draw_check_ranges(list, snapshot->instance_count);
    /* Step 3 is the surface draw records themselves; step 4 sorts them in place. */
    if ((r = sort_draws(list, view->order)) != ORR_OK) return r;
    for (uint32_t p = 0, k = 0; p <= ORR_PASS_COUNT; p++) {
        while (k < list->draw_count && list->draws[k].pass < p) k++;
        list->pass_begin[p] = k;
    }
    list->pass_begin[ORR_PASS_COUNT] = list->draw_count;
    if ((r = skin_tables(list, snapshot)) != ORR_OK) return r;
    for (uint32_t k = 0; k < list->draw_count; k++) { /* step 6 */
        const orr_surface_draw *d = &list->draws[k];
        orr_draw_batch key = {.mesh = d->mesh, .primitive = d->primitive, .material = d->material, .pass = d->pass,
                              .skinned = d->skinned, .mirrored = d->mirrored, .payload = d->payload, .lod_next = -1.0f};
        if (!extend_batches(&list->allocator, &list->batches, &list->batch_count, &list->batch_capacity, k, &key))
            return oom();
    }
    list->stats.surface_draws = list->draw_count;
    list->stats.batches = list->batch_count;
    return ORR_OK;
}

/* ---- the retained form: a scene --------------------------------------------------------------- */

/* One drawable primitive while the scene is built. */
typedef struct scene_item {
    uint32_t instance, primitive;
    orr_material_id material;
    uint8_t pass, skinned, mirrored, payload;
    uint8_t lod;              /* its level of detail */
    float lod_error, lod_next; /* as orr_draw_batch's */
} scene_item;

/* The fields of the items' sort, least significant first: the mesh order's (the hierarchy order's is
 * the pass alone). */
enum { KEY_MATERIAL, KEY_LOD, KEY_PRIMITIVE, KEY_MESH, KEY_KIND, KEY_PASS, KEY_COUNT };

/* What collecting a range of instances finds: its items, fur reaches and instances with a visibility
 * range (written where the sink has room: a count alone when it has none), its drops, and the largest
 * value of each sort field among its items. */
typedef struct collect_sink {
    scene_item *items;         /* NULL: counted only */
    orr_draw_fur_reach *fur;
    uint32_t *ranged;
    uint32_t item_count, fur_count, ranged_count;
    uint32_t dropped[ORR_DROP_COUNT];
    uint32_t fur_fallbacks;
    uint32_t max[KEY_COUNT];
    uint32_t *member;          /* a bit per snapshot instance: set for those with items */
    const orr_allocator *grow; /* non-NULL: the arrays grow (one thread), else they have room already */
    uint32_t item_cap, fur_cap, ranged_cap;
    bool failed;               /* out of memory growing */
} collect_sink;

/* What a build keeps for the next one (orr_draw_scene.build): its working arrays, grown only, so that a
 * scene rebuilt every frame (structural churn) neither allocates nor zeroes them again. */
struct orr_draw_build {
    scene_item *items;
    uint32_t item_capacity;
    collect_sink *sinks; /* one per chunk of instances */
    uint32_t sink_capacity;
    uint32_t *words;     /* perm, tmp and key (an item each), then the sort's digit counts, then a word
                            per chunk of items (the batches that begin in it) */
    size_t word_bytes;
};

void orr_draw_scene_init(orr_draw_scene *scene, const orr_allocator *allocator)
{
    *scene = (orr_draw_scene){.allocator = orri_allocator_or_default(allocator)};
}

void orr_draw_scene_fini(orr_draw_scene *scene)
{
    if (!scene) return;
    const orr_allocator *a = &scene->allocator;
    orri_free(a, scene->items, (size_t)scene->item_capacity * sizeof *scene->items);
    orri_free(a, scene->batches, (size_t)scene->batch_capacity * sizeof *scene->batches);
    orri_free(a, scene->fur_reach, (size_t)scene->fur_reach_capacity * sizeof *scene->fur_reach);
    orri_free(a, scene->ranged, (size_t)scene->ranged_capacity * sizeof *scene->ranged);
    orri_free(a, scene->scratch, scene->scratch_bytes);
    struct orr_draw_build *kb = scene->build;
    if (kb) {
        orri_free(a, kb->items, (size_t)kb->item_capacity * sizeof *kb->items);
        orri_free(a, kb->sinks, (size_t)kb->sink_capacity * sizeof *kb->sinks);
        orri_free(a, kb->words, kb->word_bytes);
        orri_free(a, kb, sizeof *kb);
    }
    orr_allocator keep = scene->allocator;
    orr_workers *workers = scene->workers;
    uint32_t threads = scene->threads;
    *scene = (orr_draw_scene){.allocator = keep, .workers = workers, .threads = threads};
}

/* The usable sidecar entries from instance `from` on (a walk over a range of instances). */
static void fur_seek(fur_cursor *c, uint32_t from)
{
    uint32_t lo = 0, hi = c->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->entries[mid].instance < from) lo = mid + 1;
        else hi = mid;
    }
    c->next = lo;
}

static uint32_t kind_of(uint8_t payload, uint8_t skinned, uint8_t mirrored)
{
    return (uint32_t)payload << 2 | (uint32_t)skinned << 1 | mirrored;
}

static void raise_max(uint32_t *max, uint32_t field, uint32_t value)
{
    if (value > max[field]) max[field] = value;
}

/* Instances [from, to) in snapshot order: one item per drawable primitive, one reach per furry one, and
 * those with items and a visibility range. */
static void collect_range(const orr_snapshot *s, const orr_assets *assets, fur_cursor fc, uint32_t from, uint32_t to,
                          collect_sink *k)
{
    fur_seek(&fc, from);
    for (uint32_t i = from; i < to && !k->failed; i++) {
        const orr_render_instance *in = &s->instances[i];
        const orr_mesh *mesh = instance_mesh(s, assets, in, k->dropped);
        if (!mesh) continue;
        uint32_t before = k->item_count;
        const orr_render_fur *fur = fur_at(&fc, i);
        uint8_t mirrored = orr_draw_mirrored(in), skinned = in->joint_count > 0;
        float reach = 0.0f; /* its materials' longest fur, over its fur surfaces */
        bool furry = false;
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            orr_material_id mat;
            orr_pass pass;
            uint8_t payload;
            if (!primitive_drawable(s, assets, in, mesh, p, fur, &mat, &pass, &payload, k->dropped, &k->fur_fallbacks))
                continue;
            /* a mesh with levels of detail: an item per level, each view drawing one of them */
            uint32_t levels = mesh->lod_count > 1 && mesh->lod_count <= ORR_MESH_MAX_LODS ? mesh->lod_count : 1;
            if (k->grow && !orri_grow(k->grow, (void **)&k->items, &k->item_cap, k->item_count + levels, sizeof *k->items)) {
                k->failed = true;
                break;
            }
            for (uint32_t l = 0; l < levels; l++) {
                if (k->items)
                    k->items[k->item_count] = (scene_item){i, p, mat, (uint8_t)pass, skinned, mirrored, payload, (uint8_t)l,
                                                           levels > 1 ? mesh->lod_error[l] : 0.0f,
                                                           l + 1 < levels ? mesh->lod_error[l + 1] : -1.0f};
                k->item_count++;
            }
            raise_max(k->max, KEY_MATERIAL, mat.index);
            raise_max(k->max, KEY_LOD, levels - 1);
            raise_max(k->max, KEY_PRIMITIVE, p);
            raise_max(k->max, KEY_MESH, in->mesh.index);
            raise_max(k->max, KEY_KIND, kind_of(payload, skinned, mirrored));
            raise_max(k->max, KEY_PASS, (uint32_t)pass);
            if (payload == ORR_PAYLOAD_FUR) {
                float length = orr_assets_try_get_material(assets, mat)->fur.shell_length;
                if (length > reach) reach = length;
                furry = true;
            }
        }
        if (k->failed) break;
        if (k->item_count > before) {
            if (k->items) k->member[i >> 5] |= 1u << (i & 31);
            if (in->range_near > 0 || in->range_far > 0) {
                if (k->grow && !orri_grow(k->grow, (void **)&k->ranged, &k->ranged_cap, k->ranged_count + 1, sizeof *k->ranged)) {
                    k->failed = true;
                    break;
                }
                if (k->ranged) k->ranged[k->ranged_count] = i;
                k->ranged_count++;
            }
        }
        if (furry) {
            if (k->grow && !orri_grow(k->grow, (void **)&k->fur, &k->fur_cap, k->fur_count + 1, sizeof *k->fur)) {
                k->failed = true;
                break;
            }
            if (k->fur) k->fur[k->fur_count] = (orr_draw_fur_reach){i, reach};
            k->fur_count++;
        }
    }
}

/* The collection shared out: BUILD_CHUNK instances a chunk, counted first, then written at the places
 * the counts give, in chunk order (the same items, in the same order, as one thread's walk). */
#define BUILD_CHUNK 256u /* instances (a multiple of 32: each chunk its own words of member bits) */
typedef struct collect_pass {
    const orr_snapshot *s;
    const orr_assets *assets;
    fur_cursor fc;
    collect_sink *sinks; /* one per chunk */
    bool write;
} collect_pass;

static void collect_job(void *ctx, uint32_t c)
{
    const collect_pass *p = ctx;
    uint32_t from = c * BUILD_CHUNK, n = p->s->instance_count;
    collect_sink *k = &p->sinks[c];
    collect_sink *into = k, scratch;
    if (p->write) { /* the drops and maxima again, counted aside: the counting pass's stand (the same) */
        scratch = *k;
        scratch.item_count = scratch.fur_count = scratch.ranged_count = 0;
        into = &scratch;
    }
    collect_range(p->s, p->assets, p->fc, from, n - from < BUILD_CHUNK ? n : from + BUILD_CHUNK, into);
}

/* The items' passes after the collection, shared out in chunks of ITEM_CHUNK items (each writes its own
 * range): the sort's keys, then the batches. */
#define ITEM_CHUNK 4096u
/* Items from which the sort's passes are shared out: a chunk a thread, each counting its own digits. */
#define SORT_CHUNK 8192u

/* One word of the sort's key: the fields it holds (bits of `fields`), each at its shift. */
typedef struct key_pass {
    const scene_item *items;
    const orr_render_instance *instances;
    uint32_t *key, *perm; /* perm: set to the identity too (the first word), else NULL */
    uint32_t count;
    uint32_t fields;
    uint32_t shift[KEY_COUNT];
} key_pass;

static void key_range(const key_pass *p, uint32_t from, uint32_t to)
{
    const scene_item *items = p->items;
    uint32_t *key = p->key, f = p->fields;
    if (p->perm)
        for (uint32_t i = from; i < to; i++) p->perm[i] = i;
    if (!key) return;
    for (uint32_t i = from; i < to; i++) {
        const scene_item *it = &items[i];
        uint32_t k = 0;
        if (f & 1u << KEY_MATERIAL) k |= it->material.index << p->shift[KEY_MATERIAL];
        if (f & 1u << KEY_LOD) k |= (uint32_t)it->lod << p->shift[KEY_LOD];
        if (f & 1u << KEY_PRIMITIVE) k |= it->primitive << p->shift[KEY_PRIMITIVE];
        if (f & 1u << KEY_MESH) k |= p->instances[it->instance].mesh.index << p->shift[KEY_MESH];
        if (f & 1u << KEY_KIND) k |= kind_of(it->payload, it->skinned, it->mirrored) << p->shift[KEY_KIND];
        if (f & 1u << KEY_PASS) k |= (uint32_t)it->pass << p->shift[KEY_PASS];
        key[i] = k;
    }
}

static void key_job(void *ctx, uint32_t c)
{
    const key_pass *p = ctx;
    uint32_t from = c * ITEM_CHUNK;
    key_range(p, from, p->count - from < ITEM_CHUNK ? p->count : from + ITEM_CHUNK);
}

/* The batch item k begins or continues (all but first and count). */
static orr_draw_batch item_batch(const orr_snapshot *s, const scene_item *it)
{
    return (orr_draw_batch){.mesh = s->instances[it->instance].mesh, .primitive = it->primitive, .material = it->material,
                            .pass = it->pass, .skinned = it->skinned, .mirrored = it->mirrored, .payload = it->payload,
                            .lod = it->lod, .lod_error = it->lod_error, .lod_next = it->lod_next};
}

/* The sorted items' batches shared out: each chunk writes its items and counts the batches that begin
 * in it (an item drawn unlike the one before it, across the chunk's seam too); then each writes those
 * batches from where the counts before it end; then each batch's count is where the next begins. */
typedef struct batch_pass {
    const orr_snapshot *s;
    const scene_item *items;
    const uint32_t *perm;
    orr_draw_scene *scene;
    uint32_t *begun; /* per chunk: batches beginning in it, then the index of its first */
    uint32_t count;
} batch_pass;

static void batch_range(const batch_pass *p, uint32_t c, bool write)
{
    uint32_t from = c * ITEM_CHUNK, to = p->count - from < ITEM_CHUNK ? p->count : from + ITEM_CHUNK;
    uint32_t m = write ? p->begun[c] : 0;
    orr_draw_batch prev = from ? item_batch(p->s, &p->items[p->perm[from - 1]]) : (orr_draw_batch){0};
    for (uint32_t k = from; k < to; k++) {
        const scene_item *it = &p->items[p->perm[k]];
        orr_draw_batch b = item_batch(p->s, it);
        if (!write) p->scene->items[k] = it->instance;
        if (k && same_batch(&prev, &b)) continue;
        if (write) {
            b.first = k;
            p->scene->batches[m] = b;
        }
        m++;
        prev = b;
    }
    if (!write) p->begun[c] = m;
}

static void batch_count_job(void *ctx, uint32_t c) { batch_range(ctx, c, false); }
static void batch_write_job(void *ctx, uint32_t c) { batch_range(ctx, c, true); }

static void batch_end_job(void *ctx, uint32_t c)
{
    const batch_pass *p = ctx;
    orr_draw_scene *scene = p->scene;
    uint32_t from = c * ITEM_CHUNK, n = scene->batch_count, to = n - from < ITEM_CHUNK ? n : from + ITEM_CHUNK;
    for (uint32_t b = from; b < to; b++)
        scene->batches[b].count = (b + 1 < n ? scene->batches[b + 1].first : p->count) - scene->batches[b].first;
}

/* The collection: into the kept arrays (kb), on the scene's threads when it has several chunks. */
static orr_result build_collect(orr_draw_scene *scene, struct orr_draw_build *kb, const orr_snapshot *s,
                                const orr_assets *assets, uint32_t *member, uint32_t *n, uint32_t max[KEY_COUNT])
{
    const orr_allocator *a = &scene->allocator;
    fur_cursor fc;
    fur_begin(&fc, s, scene->dropped);
    uint32_t chunks = (s->instance_count + BUILD_CHUNK - 1) / BUILD_CHUNK;
    if (scene->threads <= 1 || chunks < 2 || !ORRI_GROW(a, kb->sinks, kb->sink_capacity, chunks)) {
        collect_sink k = {.grow = a, .items = kb->items, .item_cap = kb->item_capacity, .fur = scene->fur_reach,
                          .fur_cap = scene->fur_reach_capacity, .ranged = scene->ranged,
                          .ranged_cap = scene->ranged_capacity, .member = member};
        collect_range(s, assets, fc, 0, s->instance_count, &k);
        kb->items = k.items, kb->item_capacity = k.item_cap;
        scene->fur_reach = k.fur, scene->fur_reach_capacity = k.fur_cap, scene->fur_reach_count = k.fur_count;
        scene->ranged = k.ranged, scene->ranged_capacity = k.ranged_cap, scene->ranged_count = k.ranged_count;
        for (int d = 0; d < ORR_DROP_COUNT; d++) scene->dropped[d] += k.dropped[d];
        scene->fur_fallbacks = k.fur_fallbacks;
        memcpy(max, k.max, sizeof k.max);
        *n = k.item_count;
        return k.failed ? ORR_ERROR_OUT_OF_MEMORY : ORR_OK;
    }
    collect_sink *sinks = kb->sinks;
    memset(sinks, 0, (size_t)chunks * sizeof *sinks);
    for (uint32_t c = 0; c < chunks; c++) sinks[c].member = member; /* BUILD_CHUNK / 32 words each */
    collect_pass cp = {.s = s, .assets = assets, .fc = fc, .sinks = sinks};
    orri_pool_run(scene->workers, scene->threads, chunks, collect_job, &cp);
    uint32_t items = 0, furry = 0, ranged = 0;
    for (uint32_t c = 0; c < chunks; c++) {
        items += sinks[c].item_count, furry += sinks[c].fur_count, ranged += sinks[c].ranged_count;
        for (int d = 0; d < ORR_DROP_COUNT; d++) scene->dropped[d] += sinks[c].dropped[d];
        scene->fur_fallbacks += sinks[c].fur_fallbacks;
        for (int f = 0; f < KEY_COUNT; f++) raise_max(max, (uint32_t)f, sinks[c].max[f]);
    }
    if (!ORRI_GROW(a, kb->items, kb->item_capacity, items) || !ORRI_GROW(a, scene->fur_reach, scene->fur_reach_capacity, furry) ||
        !ORRI_GROW(a, scene->ranged, scene->ranged_capacity, ranged))
        return ORR_ERROR_OUT_OF_MEMORY;
    for (uint32_t c = 0, at = 0, fat = 0, rat = 0; c < chunks; c++) {
        sinks[c].items = kb->items + at, sinks[c].fur = scene->fur_reach + fat, sinks[c].ranged = scene->ranged + rat;
        at += sinks[c].item_count, fat += sinks[c].fur_count, rat += sinks[c].ranged_count;
    }
    cp.write = true;
    orri_pool_run(scene->workers, scene->threads, chunks, collect_job, &cp);
    scene->fur_reach_count = furry;
    scene->ranged_count = ranged;
    *n = items;
    return ORR_OK;
}

/* The stable sort of the items (perm) by the order's fields, least significant first: the fields packed
 * into as few words of key as their largest values allow (what several sorts by one field at a time
 * give, in fewer passes), each word sorted on the scene's threads. */
static void build_sort(const orr_draw_scene *scene, const orr_snapshot *s, const scene_item *items, uint32_t n,
                       const uint32_t max[KEY_COUNT], uint32_t *perm, uint32_t *counts)
{
    uint32_t *tmp = perm + n, *key = tmp + n;
    uint32_t threads = scene->threads > 1 && n > ITEM_CHUNK ? scene->threads : 1;
    uint32_t chunks = (n + ITEM_CHUNK - 1) / ITEM_CHUNK;
    key_pass kp = {.items = items, .instances = s->instances, .key = key, .perm = perm, .count = n};
    uint32_t used = 0; /* bits of the word being filled */
    for (int f = scene->order == ORR_ORDER_MESH ? 0 : KEY_PASS; f <= KEY_COUNT; f++) {
        uint32_t bits = f < KEY_COUNT && max[f] ? 32 - (uint32_t)__builtin_clz(max[f]) : 0;
        if (kp.fields && (f == KEY_COUNT || used + bits > 32)) { /* the word is full: sorted by it */
            orri_pool_run(scene->workers, threads, chunks, key_job, &kp);
            orri_sort_by_key_u32_shared(scene->workers, threads, perm, tmp, key, n, used == 32 ? UINT32_MAX : (1u << used) - 1,
                                        SORT_CHUNK, counts);
            kp.perm = NULL;
            kp.fields = used = 0;
        }
        if (bits) {
            kp.shift[f] = used;
            kp.fields |= 1u << f;
            used += bits;
        }
    }
    if (kp.perm) { /* nothing to sort by: the items' own order */
        kp.key = NULL;
        orri_pool_run(scene->workers, threads, chunks, key_job, &kp);
    }
}

/* The sorted items and their batches (a batch per run of items drawn alike). */
static orr_result build_batches(orr_draw_scene *scene, const orr_snapshot *s, const scene_item *items, uint32_t n,
                                const uint32_t *perm, uint32_t *begun)
{
    const orr_allocator *a = &scene->allocator;
    uint32_t chunks = (n + ITEM_CHUNK - 1) / ITEM_CHUNK;
    if (scene->threads <= 1 || chunks < 2) {
        for (uint32_t k = 0; k < n; k++) {
            const scene_item *it = &items[perm[k]];
            scene->items[k] = it->instance;
            orr_draw_batch key = item_batch(s, it);
            if (!extend_batches(a, &scene->batches, &scene->batch_count, &scene->batch_capacity, k, &key))
                return ORR_ERROR_OUT_OF_MEMORY;
        }
        return ORR_OK;
    }
    batch_pass bp = {.s = s, .items = items, .perm = perm, .scene = scene, .begun = begun, .count = n};
    orri_pool_run(scene->workers, scene->threads, chunks, batch_count_job, &bp);
    uint32_t total = 0;
    for (uint32_t c = 0; c < chunks; c++) {
        uint32_t m = begun[c];
        begun[c] = total;
        total += m;
    }
    if (!ORRI_GROW(a, scene->batches, scene->batch_capacity, total)) return ORR_ERROR_OUT_OF_MEMORY;
    orri_pool_run(scene->workers, scene->threads, chunks, batch_write_job, &bp);
    scene->batch_count = total;
    orri_pool_run(scene->workers, scene->threads, (total + ITEM_CHUNK - 1) / ITEM_CHUNK, batch_end_job, &bp);
    return ORR_OK;
}

orr_result orr_draw_scene_build(orr_draw_scene *scene, const orr_snapshot *s, const orr_assets *assets,
                                orr_draw_order order)
{
    ORRI_REQUIRE(scene && s && assets, NULL, "orr_draw_scene_build: scene, snapshot and assets are required");
    const orr_allocator *a = &scene->allocator;
    scene->order = order;
    scene->item_count = scene->batch_count = scene->fur_reach_count = scene->ranged_count = 0;
    memset(scene->dropped, 0, sizeof scene->dropped);
    scene->fur_fallbacks = 0;
    memset(scene->pass_items, 0, sizeof scene->pass_items);
    memset(scene->pass_batches, 0, sizeof scene->pass_batches);
    if (!scene->build && !(scene->build = orri_alloc(a, sizeof *scene->build))) return ORR_ERROR_OUT_OF_MEMORY;
    struct orr_draw_build *kb = scene->build;

    /* Collect, in snapshot order (one pass over every instance: this runs when the layout changed). */
    /* scene->scratch: a bit per instance, set for those with items (what a shared cull classifies) */
    size_t member_bytes = (size_t)(s->instance_count / 32 + 1) * sizeof(uint32_t);
    uint32_t *member = scratch(a, &scene->scratch, &scene->scratch_bytes, member_bytes);
    if (!member) return ORR_ERROR_OUT_OF_MEMORY;
    memset(member, 0, member_bytes);
    uint32_t n = 0, max[KEY_COUNT] = {0};
    orr_result r = build_collect(scene, kb, s, assets, member, &n, max);
    /* Sort a permutation of the items, then list them and their batches in its order. */
    uint32_t threads = scene->threads < ORRI_MAX_THREADS ? scene->threads : ORRI_MAX_THREADS;
    size_t words = (size_t)n * 3 + (size_t)ORRI_SORT_DIGITS * (threads ? threads : 1) + n / ITEM_CHUNK + 1;
    /* (a quarter more than asked when it grows: a scene that gains a few items a frame grows it seldom) */
    if (r == ORR_OK && words * sizeof(uint32_t) > kb->word_bytes) words += words / 4;
    uint32_t *perm = r == ORR_OK ? scratch(a, &kb->words, &kb->word_bytes, words * sizeof(uint32_t)) : NULL;
    if (r == ORR_OK && (!perm || !ORRI_GROW(a, scene->items, scene->item_capacity, n))) r = ORR_ERROR_OUT_OF_MEMORY;
    if (r == ORR_OK) {
        uint32_t *counts = perm + (size_t)n * 3;
        build_sort(scene, s, kb->items, n, max, perm, counts);
        r = build_batches(scene, s, kb->items, n, perm, counts + (size_t)ORRI_SORT_DIGITS * (threads ? threads : 1));
    }
    if (r != ORR_OK) {
        scene->item_count = scene->batch_count = scene->fur_reach_count = scene->ranged_count = 0;
        return r;
    }
    scene->item_count = n;
    for (uint32_t p = 0, b = 0; p <= ORR_PASS_COUNT; p++) {
        while (b < scene->batch_count && scene->batches[b].pass < p) b++;
        scene->pass_batches[p] = b;
        scene->pass_items[p] = b < scene->batch_count ? scene->batches[b].first : n;
    }
    scene->pass_batches[ORR_PASS_COUNT] = scene->batch_count;
    scene->pass_items[ORR_PASS_COUNT] = n;
    return ORR_OK;
}

/* ---- the retained form: one view's cull -------------------------------------------------------- */

void orr_draw_visible_init(orr_draw_visible *v, const orr_allocator *allocator)
{
    *v = (orr_draw_visible){.allocator = orri_allocator_or_default(allocator)};
}

void orr_draw_visible_fini(orr_draw_visible *v)
{
    if (!v) return;
    const orr_allocator *a = &v->allocator;
    orri_free(a, v->items, (size_t)v->item_capacity * sizeof *v->items);
    orri_free(a, v->ranges, (size_t)v->range_capacity * sizeof *v->ranges);
    orri_free(a, v->last_first, (size_t)v->last_first_words * sizeof *v->last_first);
    orri_free(a, v->state, v->state_capacity);
    orri_free(a, v->scratch, v->scratch_bytes);
    orr_allocator keep = v->allocator;
    *v = (orr_draw_visible){.allocator = keep};
}

static bool push_range(orr_draw_visible *v, uint32_t batch, uint32_t first, uint32_t count)
{
    if (!ORRI_GROW(&v->allocator, v->ranges, v->range_capacity, v->range_count + 1)) return false;
    v->ranges[v->range_count++] = (orr_draw_range){batch, first, count};
    if (count) v->stats.batches++;
    return true;
}

/* Whether item instance i of `batch` is drawn at the batch's level of detail (every batch of a mesh
 * without levels is). */
static bool lod_drawn(const orr_draw_scene *scene, const orr_snapshot *s, const orr_draw_lod_view *lv,
                      const orr_draw_batch *batch, uint32_t i)
{
    if (!batch->lod && batch->lod_next < 0.0f) return true;
    return orr_draw_lod_pick(lv, batch, &s->instances[i], &s->instances[scene->items[batch->first]].bounds);
}

/* How far instance i's fur reaches in this snapshot: its materials' reach, or its sidecar entry's shell
 * length where the entry sets one; 0 when it has no fur surfaces. */
static float scene_reach(const orr_draw_scene *scene, const orr_snapshot *s, uint32_t k)
{
    const orr_draw_fur_reach *fr = &scene->fur_reach[k];
    uint32_t e = orr_draw_fur_entry(s, fr->instance);
    return e != NONE && (s->fur[e].set & ORR_FUR_SET_SHELL_LENGTH) ? s->fur[e].shell_length : fr->length;
}

/* The same for instance i found by a binary search of the scene's list. */
static float scene_reach_of(const orr_draw_scene *scene, const orr_snapshot *s, uint32_t i)
{
    uint32_t lo = 0, hi = scene->fur_reach_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (scene->fur_reach[mid].instance < i) lo = mid + 1;
        else hi = mid;
    }
    return lo < scene->fur_reach_count && scene->fur_reach[lo].instance == i ? scene_reach(scene, s, lo) : 0.0f;
}

/* Which batches list their visible items last item first in this view (orr_draw_visible.last_first):
 * the opaque and cutout batches of plain meshes whose last item is nearer the view than their first.
 * Where a batch's items run from far to near (a grid built row by row, seen from its far corner), each
 * fragment would be shaded once per item that covers it; drawn near first, the depth test rejects the
 * hidden ones before shading. Two boxes per batch: the cost follows the scene's batches, not its items.
 * Only the order within a batch changes, and with a strict depth test only where two of its items give
 * a pixel the same depth; the GPU cull reads these bits, so both culls list the same order. */
static orr_result order_batches(const orr_draw_scene *scene, const orr_snapshot *s, const orr_draw_view *view,
                                orr_draw_visible *v)
{
    uint32_t t_begin = scene->pass_batches[ORR_PASS_TRANSPARENT], words = t_begin / 32 + 1;
    if (!ORRI_GROW(&v->allocator, v->last_first, v->last_first_words, words)) return oom();
    memset(v->last_first, 0, (size_t)words * sizeof *v->last_first);
    for (uint32_t b = 0; b < t_begin; b++) {
        const orr_draw_batch *batch = &scene->batches[b];
        if (batch->count < 2 || batch->payload != ORR_PAYLOAD_MESH || batch->pass > ORR_PASS_CUTOUT) continue;
        uint32_t i0 = scene->items[batch->first], i1 = scene->items[batch->first + batch->count - 1];
        if (i0 >= s->instance_count || i1 >= s->instance_count) continue;
        float d0 = view_depth(view, view_box(&s->instances[i0], i0, view, 0.0f));
        float d1 = view_depth(view, view_box(&s->instances[i1], i1, view, 0.0f));
        if (d1 < d0) v->last_first[b >> 5] |= 1u << (b & 31);
    }
    return ORR_OK;
}

static bool last_first(const orr_draw_visible *v, uint32_t b)
{
    return v->last_first[b >> 5] >> (b & 31) & 1u;
}

/* The opaque ranges of the batches in last_first, listed in the scene's order, reversed in place on the
 * scene's threads: their swaps numbered across the ranges (pair_at[g]: the swaps before range g) and
 * shared out in chunks, so that one large batch (a grid of a million cubes) is shared too. */
#define REVERSE_CHUNK 4096u
typedef struct reverse_pass {
    orr_draw_visible *v;
    const uint32_t *pair_at; /* [opaque_ranges + 1] */
    uint32_t pairs;
} reverse_pass;

static void reverse_job(void *ctx, uint32_t c)
{
    const reverse_pass *p = ctx;
    orr_draw_visible *v = p->v;
    uint32_t from = c * REVERSE_CHUNK, to = p->pairs - from < REVERSE_CHUNK ? p->pairs : from + REVERSE_CHUNK;
    uint32_t lo = 0, hi = v->opaque_ranges; /* the last range whose swaps begin at or before `from` */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p->pair_at[mid] <= from) lo = mid + 1;
        else hi = mid;
    }
    for (uint32_t k = from, g = lo - 1; k < to; k++) {
        while (p->pair_at[g + 1] <= k) g++;
        const orr_draw_range *rg = &v->ranges[g];
        uint32_t a = rg->first + (k - p->pair_at[g]), b = rg->first + rg->count - 1 - (k - p->pair_at[g]);
        uint32_t t = v->items[a];
        v->items[a] = v->items[b];
        v->items[b] = t;
    }
}

static void reverse_last_first(orr_draw_visible *v, uint32_t *pair_at, orr_workers *workers, uint32_t threads)
{
    uint32_t pairs = 0;
    for (uint32_t g = 0; g < v->opaque_ranges; g++) {
        pair_at[g] = pairs;
        if (last_first(v, v->ranges[g].batch)) pairs += v->ranges[g].count / 2;
    }
    pair_at[v->opaque_ranges] = pairs;
    reverse_pass p = {.v = v, .pair_at = pair_at, .pairs = pairs};
    orri_pool_run(workers, threads, (pairs + REVERSE_CHUNK - 1) / REVERSE_CHUNK, reverse_job, &p);
}

/* What a cull covers: every item (the reference), the transparent ones (a GPU culls the others), or
 * the payload batches' (their adapters draw them, whoever culls the rest). */
typedef enum cull_mode { CULL_ALL, CULL_TRANSPARENT, CULL_PAYLOADS } cull_mode;

/* The cull's transparent part (after the opaque ranges, `out` items): the visible ones, back to front. */
static orr_result cull_transparent(const orr_draw_scene *scene, const orr_snapshot *s, const orr_draw_view *view,
                                   orr_draw_visible *v, const frustum *fp, uint32_t mask, bool opaque, uint32_t out,
                                   const orr_draw_lod_view *lv)
{
    const orr_allocator *a = &v->allocator;
    frustum f = *fp;
    uint32_t t_begin = scene->pass_batches[ORR_PASS_TRANSPARENT];
    /* Transparent: the visible ones, back to front (stable: equal depths keep the scene's order). */
    uint32_t t_first = scene->pass_items[ORR_PASS_TRANSPARENT], t_count = scene->item_count - t_first;
    uint32_t *block = scratch(a, &v->scratch, &v->scratch_bytes, (size_t)t_count * 4 * sizeof(uint32_t) + 1);
    if (!block) return oom();
    uint32_t *perm = block, *tmp = perm + t_count, *key = tmp + t_count, *batch_of = key + t_count, m = 0;
    for (uint32_t b = t_begin; b < scene->batch_count; b++) {
        const orr_draw_batch *batch = &scene->batches[b];
        for (uint32_t k = batch->first; k < batch->first + batch->count; k++) {
            uint32_t i = scene->items[k];
            uint8_t state = opaque ? v->state[i] : STATE_UNSEEN;
            if (state == STATE_UNSEEN)
                state = classify(&s->instances[i], i, view, mask, &f, scene->fur_reach_count ? scene_reach_of(scene, s, i) : 0.0f,
                                 &v->stats);
            if (opaque) v->state[i] = state;
            if (state != STATE_VISIBLE || !lod_drawn(scene, s, lv, batch, i)) continue;
            key[m] = far_first_key(view_depth(view, view_box(&s->instances[i], i, view, 0.0f)));
            batch_of[m] = b;
            tmp[m] = i; /* the instance, until the sort needs tmp */
            perm[m] = m;
            m++;
        }
    }
    for (uint32_t j = 0; j < m; j++) v->items[t_first + j] = tmp[j];
    orr_sort_by_key_u32(perm, tmp, key, m, UINT32_MAX);
    uint32_t *sorted_items = key; /* keys are no longer needed */
    for (uint32_t j = 0; j < m; j++) sorted_items[j] = v->items[t_first + perm[j]];
    for (uint32_t j = 0; j < m; j++) {
        v->items[t_first + j] = sorted_items[j];
        uint32_t b = batch_of[perm[j]];
        orr_draw_range *last = v->range_count > v->opaque_ranges ? &v->ranges[v->range_count - 1] : NULL;
        if (last) {
            const orr_draw_batch *lb = &scene->batches[last->batch], *nb = &scene->batches[b];
            if (same_batch(lb, nb)) {
                last->count++;
                continue;
            }
        }
        if (!push_range(v, b, t_first + j, 1)) return oom();
    }
    v->stats.surface_draws = out + m;
    return ORR_OK;
}

static orr_result cull(const orr_draw_scene *scene, const orr_snapshot *s, const orr_draw_view *view,
                       orr_draw_visible *v, cull_mode mode)
{
    bool opaque = mode == CULL_ALL;
    /* The CPU cull looks at every item of the scene: it is the reference, and serves the strategies that
     * need the visible counts on the CPU; a GPU cull does this per-instance work on the GPU instead. */
    const orr_allocator *a = &v->allocator;
    v->range_count = v->opaque_ranges = 0;
    memset(&v->stats, 0, sizeof v->stats);
    v->stats.inputs = s->instance_count;
    memcpy(v->stats.dropped, scene->dropped, sizeof v->stats.dropped);
    v->stats.fur_fallbacks = scene->fur_fallbacks;
    if (!ORRI_GROW(a, v->items, v->item_capacity, scene->item_count)) return oom();
    /* Each instance is classified once (its counters counted once) through a state per instance; the
     * transparent-only cull (a GPU culls the rest) classifies its items one by one instead, so that it
     * costs what the transparent items cost, not what the scene holds. */
    if (opaque) {
        if (!orri_grow(a, (void **)&v->state, &v->state_capacity, s->instance_count, 1)) return oom();
        if (s->instance_count) memset(v->state, STATE_UNSEEN, s->instance_count);
    }
    frustum f;
    frustum_from(view, &f);
    orr_draw_lod_view lv;
    orr_draw_lod_view_init(view, &lv);
    uint32_t mask = view->layer_mask ? view->layer_mask : ORR_LAYERS_ALL;
    uint32_t out = 0;
    uint32_t t_begin = scene->pass_batches[ORR_PASS_TRANSPARENT];
    if (mode == CULL_PAYLOADS) {
        /* Per item (a payload instance counted once per payload surface), in the scene's order. */
        for (uint32_t b = 0; b < t_begin; b++) {
            const orr_draw_batch *batch = &scene->batches[b];
            if (batch->payload == ORR_PAYLOAD_MESH) continue;
            uint32_t first = out;
            for (uint32_t k = batch->first; k < batch->first + batch->count; k++) {
                uint32_t i = scene->items[k];
                if (classify(&s->instances[i], i, view, mask, &f, scene_reach_of(scene, s, i), &v->stats) == STATE_VISIBLE &&
                    lod_drawn(scene, s, &lv, batch, i))
                    v->items[out++] = i;
            }
            if (!push_range(v, b, first, out - first)) return oom();
        }
        v->opaque_ranges = v->range_count;
        v->stats.surface_draws = out;
        return ORR_OK;
    }
    /* Instances whose fur reaches out are classified first, with their grown boxes (every surface of
     * an instance shares its verdict). */
    for (uint32_t k = 0; opaque && k < scene->fur_reach_count; k++) {
        uint32_t i = scene->fur_reach[k].instance;
        if (i < s->instance_count)
            v->state[i] = classify(&s->instances[i], i, view, mask, &f, scene_reach(scene, s, k), &v->stats);
    }
    orr_result rc = order_batches(scene, s, view, v); /* (the GPU cull reads them too) */
    if (rc != ORR_OK) return rc;
    for (uint32_t b = 0; opaque && b < t_begin; b++) {
        const orr_draw_batch *batch = &scene->batches[b];
        uint32_t first = out, n = batch->count;
        bool back = last_first(v, b); /* listed from its last item: the order decided above */
        for (uint32_t j = 0; j < n; j++) {
            uint32_t i = scene->items[batch->first + (back ? n - 1 - j : j)];
            if (v->state[i] == STATE_UNSEEN) v->state[i] = classify(&s->instances[i], i, view, mask, &f, 0.0f, &v->stats);
            if (v->state[i] == STATE_VISIBLE && lod_drawn(scene, s, &lv, batch, i)) v->items[out++] = i;
        }
        if (!push_range(v, b, first, out - first)) return oom();
    }
    v->opaque_ranges = v->range_count;
    return cull_transparent(scene, s, view, v, &f, mask, opaque, out, &lv);
}

/* ---- the whole view's cull shared out ----------------------------------------------------------- */

/* Chunks: CULL_CHUNK instances (a multiple of 32) to classify, CULL_CHUNK opaque items to list. */
#define CULL_CHUNK 256u
typedef struct cull_pass {
    const orr_draw_scene *scene;
    const orr_snapshot *s;
    const orr_draw_view *view;
    orr_draw_visible *v;
    const frustum *f;
    const orr_draw_lod_view *lv;
    uint32_t mask;
    uint32_t items;          /* opaque items: [0, items) of the scene */
    orr_draw_stats *stats;   /* per instance chunk */
    uint32_t *visible;       /* per item chunk: visible items, then where the chunk's first goes */
    uint32_t *batch_at;      /* per opaque batch: where its first visible item goes */
} cull_pass;

/* Instances of chunk c: each with items classified once (its fur reach, when it has one, grows its box). */
static void classify_job(void *ctx, uint32_t c)
{
    const cull_pass *p = ctx;
    const orr_draw_scene *scene = p->scene;
    const uint32_t *member = scene->scratch;
    uint32_t from = c * CULL_CHUNK, n = p->s->instance_count, to = n - from < CULL_CHUNK ? n : from + CULL_CHUNK;
    uint32_t lo = 0, hi = scene->fur_reach_count; /* the first reach at or after `from` */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (scene->fur_reach[mid].instance < from) lo = mid + 1;
        else hi = mid;
    }
    uint8_t *state = p->v->state;
    for (uint32_t i = from; i < to; i++) {
        if (!(member[i >> 5] >> (i & 31) & 1u)) {
            state[i] = STATE_UNSEEN;
            continue;
        }
        while (lo < scene->fur_reach_count && scene->fur_reach[lo].instance < i) lo++;
        float reach = lo < scene->fur_reach_count && scene->fur_reach[lo].instance == i ? scene_reach(scene, p->s, lo) : 0.0f;
        state[i] = classify(&p->s->instances[i], i, p->view, p->mask, p->f, reach, &p->stats[c]);
    }
}

/* The batch that holds item k, from `lo` on (the first batch that begins after item `from`, less one). */
static uint32_t batch_from(const orr_draw_scene *scene, uint32_t end, uint32_t from)
{
    uint32_t lo = 0, hi = end; /* the last batch that begins at or before `from` */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (scene->batches[mid].first <= from) lo = mid + 1;
        else hi = mid;
    }
    return lo ? lo - 1 : 0;
}

static void count_job(void *ctx, uint32_t c)
{
    const cull_pass *p = ctx;
    const orr_draw_scene *scene = p->scene;
    uint32_t from = c * CULL_CHUNK, to = p->items - from < CULL_CHUNK ? p->items : from + CULL_CHUNK, m = 0;
    uint32_t t_begin = scene->pass_batches[ORR_PASS_TRANSPARENT], b = batch_from(scene, t_begin, from);
    const uint8_t *state = p->v->state;
    for (uint32_t k = from; k < to; k++) {
        while (b + 1 < t_begin && scene->batches[b + 1].first <= k) b++;
        uint32_t i = scene->items[k];
        m += state[i] == STATE_VISIBLE && lod_drawn(scene, p->s, p->lv, &scene->batches[b], i);
    }
    p->visible[c] = m;
}

static void list_job(void *ctx, uint32_t c)
{
    const cull_pass *p = ctx;
    const orr_draw_scene *scene = p->scene;
    uint32_t from = c * CULL_CHUNK, to = p->items - from < CULL_CHUNK ? p->items : from + CULL_CHUNK, out = p->visible[c];
    uint32_t t_begin = scene->pass_batches[ORR_PASS_TRANSPARENT];
    uint32_t lo = 0, hi = t_begin; /* the first batch that begins at or after `from` */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (scene->batches[mid].first < from) lo = mid + 1;
        else hi = mid;
    }
    const uint8_t *state = p->v->state;
    uint32_t *items = p->v->items, b = batch_from(scene, t_begin, from);
    for (uint32_t k = from; k < to; k++) {
        while (lo < t_begin && scene->batches[lo].first == k) p->batch_at[lo++] = out;
        while (b + 1 < t_begin && scene->batches[b + 1].first <= k) b++;
        uint32_t i = scene->items[k];
        if (state[i] == STATE_VISIBLE && lod_drawn(scene, p->s, p->lv, &scene->batches[b], i)) items[out++] = i;
    }
}

/* The whole view's cull on the scene's threads (orr_draw_scene.threads). */
static orr_result cull_shared(const orr_draw_scene *scene, const orr_snapshot *s, const orr_draw_view *view,
                              orr_draw_visible *v)
{
    orr_workers *workers = scene->workers;
    uint32_t threads = scene->threads;
    uint32_t t_begin = scene->pass_batches[ORR_PASS_TRANSPARENT], items = scene->pass_items[ORR_PASS_TRANSPARENT];
    uint32_t n = s->instance_count, instance_chunks = (n + CULL_CHUNK - 1) / CULL_CHUNK;
    uint32_t item_chunks = (items + CULL_CHUNK - 1) / CULL_CHUNK;
    if (threads <= 1 || instance_chunks < 2 || scene->scratch_bytes < (size_t)(n / 32 + 1) * sizeof(uint32_t))
        return cull(scene, s, view, v, CULL_ALL);
    /* As cull() does it, in three shared passes: every instance with items classified once (the same
     * verdicts and counters, whichever thread); the visible opaque items counted per chunk; then listed,
     * each chunk from where the counts before it end, and each batch's range found where it begins. */
    const orr_allocator *a = &v->allocator;
    v->range_count = v->opaque_ranges = 0;
    memset(&v->stats, 0, sizeof v->stats);
    v->stats.inputs = n;
    memcpy(v->stats.dropped, scene->dropped, sizeof v->stats.dropped);
    v->stats.fur_fallbacks = scene->fur_fallbacks;
    if (!ORRI_GROW(a, v->items, v->item_capacity, scene->item_count)) return oom();
    if (!orri_grow(a, (void **)&v->state, &v->state_capacity, n, 1)) return oom();
    size_t bytes = (size_t)instance_chunks * sizeof(orr_draw_stats) + ((size_t)item_chunks + t_begin + 1) * sizeof(uint32_t);
    uint32_t *block = scratch(a, &v->scratch, &v->scratch_bytes, bytes);
    if (!block) return oom();
    frustum f;
    frustum_from(view, &f);
    orr_draw_lod_view lv;
    orr_draw_lod_view_init(view, &lv);
    cull_pass p = {.scene = scene, .s = s, .view = view, .v = v, .f = &f, .lv = &lv,
                   .mask = view->layer_mask ? view->layer_mask : ORR_LAYERS_ALL, .items = items,
                   .stats = (orr_draw_stats *)(void *)block};
    p.visible = (uint32_t *)(void *)(p.stats + instance_chunks);
    p.batch_at = p.visible + item_chunks;
    memset(p.stats, 0, (size_t)instance_chunks * sizeof *p.stats);
    orri_pool_run(workers, threads, instance_chunks, classify_job, &p);
    for (uint32_t c = 0; c < instance_chunks; c++) {
        v->stats.hidden += p.stats[c].hidden;
        v->stats.layer_masked += p.stats[c].layer_masked;
        v->stats.culled += p.stats[c].culled;
        v->stats.out_of_range += p.stats[c].out_of_range;
        v->stats.visible += p.stats[c].visible;
    }
    orri_pool_run(workers, threads, item_chunks, count_job, &p);
    uint32_t out = 0;
    for (uint32_t c = 0; c < item_chunks; c++) {
        uint32_t m = p.visible[c];
        p.visible[c] = out;
        out += m;
    }
    orri_pool_run(workers, threads, item_chunks, list_job, &p);
    p.batch_at[t_begin] = out;
    for (uint32_t b = 0; b < t_begin; b++)
        if (!push_range(v, b, p.batch_at[b], p.batch_at[b + 1] - p.batch_at[b])) return oom();
    v->opaque_ranges = v->range_count;
    orr_result rc = order_batches(scene, s, view, v);
    if (rc != ORR_OK) return rc;
    reverse_last_first(v, p.batch_at, workers, threads); /* (batch_at is read: its words are free again) */
    return cull_transparent(scene, s, view, v, &f, p.mask, true, out, &lv);
}

orr_result orr_draw_scene_cull(const orr_draw_scene *scene, const orr_snapshot *s, const orr_draw_view *view,
                               orr_draw_visible *v)
{
    ORRI_REQUIRE(scene && s && view && v, NULL, "orr_draw_scene_cull: every argument is required");
    return cull_shared(scene, s, view, v);
}

orr_result orr_draw_scene_cull_transparent(const orr_draw_scene *scene, const orr_snapshot *s, const orr_draw_view *view,
                                           orr_draw_visible *v)
{
    ORRI_REQUIRE(scene && s && view && v, NULL, "orr_draw_scene_cull_transparent: every argument is required");
    return cull(scene, s, view, v, CULL_TRANSPARENT);
}

orr_result orr_draw_scene_cull_payloads(const orr_draw_scene *scene, const orr_snapshot *s, const orr_draw_view *view,
                                        orr_draw_visible *v)
{
    ORRI_REQUIRE(scene && s && view && v, NULL, "orr_draw_scene_cull_payloads: every argument is required");
    return cull(scene, s, view, v, CULL_PAYLOADS);
}
