/* The retained draw scenes and each view's cull.
 *
 * A draw scene (the draw module's orr_draw_scene) is built for each draw order a view uses, only when
 * the snapshot's layout changed (or its instances' handedness, a material's drawing state, or the
 * resident meshes): its items and batches then go to the GPU once (orr_gpu_draw_item, orr_gpu_batch),
 * and each batch's drawing state is resolved once (pipeline, cull mode, texture set, pool range).
 *
 * Per frame, each view gets regions of the view-data buffer: the cull's words (visibility bits, block
 * counts, the totals), its records and its indirect commands, laid out as orr_draw_visible describes
 * (batches before the transparent pass: one command each, records packed from 0; transparent ones at
 * scene.pass_items[transparent]). A GPU-culled view fills the first part with a compute pass
 * (shaders/cull.comp); a CPU-culled view (and the transparent part of either) is culled by the draw
 * module and copied in. Both write the same bytes for the same visible set, so every strategy draws
 * from the same records and commands. The custom pass's fur batches are not drawn from them: the fur
 * adapter draws those on the shell path (gpu_shell.c), whatever the strategy, and the shell strategy
 * draws the plain ones there too, a record at a time. */
#include "gpu/gpu_draws.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_geometry.h"
#include "gpu/gpu_material.h"
#include "gpu/gpu_pipeline.h"
#include "gpu/gpu_resource.h"
#include "gpu/gpu_scene.h"
#include "gpu/gpu_upload.h"

#include <string.h>

#define REGION_ALIGN 256u
#define COMMAND_BYTES sizeof(VkDrawIndexedIndirectCommand)

static uint32_t blocks_of(uint32_t items) { return (items + ORR_GPU_CULL_BLOCK - 1) / ORR_GPU_CULL_BLOCK; }

/* The words a view's cull needs: a bit per item (ORR_GPU_CULL_WORDS per block), a count per block,
 * two totals, the levels' counts, the instance counts and each block's. */
static uint32_t cull_words(uint32_t items)
{
    return blocks_of(items) * (ORR_GPU_CULL_WORDS + 1u + ORR_GPU_CULL_INSTANCE_WORDS) + 2u + ORR_GPU_CULL_LOD_WORDS +
           ORR_GPU_CULL_INSTANCE_WORDS;
}
_Static_assert(ORR_GPU_LODS == ORR_MESH_MAX_LODS, "the cull counts every level");

static VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }
/* A view's range bits on the GPU: one per instance slot. */
static uint32_t range_words(const orr_renderer *r) { return r->instances.slot_capacity / 32 + 1; }
/* A GPU-culled view's bits of the batches whose visible items it lists last first (a bit per batch
 * before the transparent pass, as orr_draw_visible.last_first holds them). */
static uint32_t order_words(const orr_draw_scene *sc) { return sc->pass_batches[ORR_PASS_TRANSPARENT] / 32 + 1; }

void orri_draws_release(orr_renderer *r)
{
    for (int o = 0; o < 2; o++) r->draws[o].built = false;
    orri_retire_buffer(r, &r->scene_items, r->frame_number);
    orri_retire_buffer(r, &r->scene_batches, r->frame_number);
}

void orri_draws_fini(orr_renderer *r)
{
    for (int o = 0; o < 2; o++) {
        orri_draws *d = &r->draws[o];
        orr_draw_scene_fini(&d->scene);
        orri_free(&r->allocator, d->state, sizeof *d->state * d->state_capacity);
        memset(d, 0, sizeof *d);
    }
    orri_buffer_destroy(r, &r->scene_items);
    orri_buffer_destroy(r, &r->scene_batches);
    orri_buffer_destroy(r, &r->view_data);
}

/* Each batch's drawing state, from what is resident: its material's set, its primitive's pool range
 * (orri_materials_touch_scene made its material and textures resident before). */
static orr_result resolve_batches(orr_renderer *r, orri_draws *d, const orr_assets *assets)
{
    const orr_draw_scene *sc = &d->scene;
    if (!ORRI_GROW(&r->allocator, d->state, d->state_capacity, sc->batch_count))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for batch states");
    d->pipeline_keys = 0;
    for (uint32_t b = 0; b < sc->batch_count; b++) {
        const orr_draw_batch *batch = &sc->batches[b];
        const orr_material *mat = orr_assets_try_get_material(assets, batch->material);
        const orri_resident_primitive *rp = orri_geometry_find(r, batch->mesh, batch->primitive);
        const orr_mesh *mesh = orr_assets_try_get_mesh(assets, batch->mesh);
        const orr_primitive *prim =
            mesh && batch->primitive < mesh->primitive_count ? &mesh->primitives[batch->primitive] : NULL;
        /* what the material's record shows now (its resident textures), as the fragment shader sees it */
        uint32_t shown = batch->material.index < r->materials.count ? r->materials.records[batch->material.index].textures
                                                                   : ~0u; /* (not seen: everything) */
        orri_batch_state *st = &d->state[b];
        *st = (orri_batch_state){
            .pipeline = orri_pipeline_key(batch->pass, mat && mat->double_sided),
            /* vertex capture writes from the full vertex shader only */
            .features = r->vertex_capture || !rp ? ORRI_FEATURES_ALL
                                                 : orri_pipeline_features(shown, prim, rp->morph_at != ORR_GPU_NO_MORPH),
            /* A mirror turns the winding over: its front faces are what the rasteriser sees as back. */
            .cull = mat && mat->double_sided ? VK_CULL_MODE_NONE
                                             : batch->mirrored ? VK_CULL_MODE_FRONT_BIT : VK_CULL_MODE_BACK_BIT,
            /* with the texture array the texture is not drawing state: runs merge across materials */
            .texture = orri_materials_set(r, batch->material),
            .index_count = rp ? rp->index_count : 0,
            .first_index = rp ? rp->first_index : 0,
            .vertex_offset = rp ? rp->vertex_offset : 0,
            .resident = rp != NULL,
        };
        if (rp && prim && batch->lod && mesh && batch->lod < mesh->lod_count) { /* a level's own index range */
            const orr_primitive_lod *lv = &prim->lods[batch->lod];
            if ((uint64_t)lv->first_index + lv->index_count <= (uint64_t)rp->index_count + rp->lod_index_count) {
                st->first_index = rp->first_index + lv->first_index;
                st->index_count = lv->index_count;
            }
        }
        d->pipeline_keys |= 1u << st->pipeline;
    }
    return ORR_OK;
}

orr_result orri_draws_build(orr_renderer *r, const orr_snapshot *s, const orr_assets *assets, bool rebuild)
{
    /* Whatever makes a built scene wrong: the layout, or what the layout does not cover. */
    bool stale = rebuild || r->geometry.released || r->instances.flipped || r->layout_version != s->layout_version;
    r->layout_version = s->layout_version;
    for (int o = 0; o < 2; o++) {
        orri_draws *d = &r->draws[o];
        d->upload = false;
        d->fresh = false;
        if (stale) d->built = false;
        if (!d->used || d->built) continue;
        d->scene.threads = orri_pass_threads(r, s->instance_count, &d->scene.workers);
        orr_result rc = orr_draw_scene_build(&d->scene, s, assets, (orr_draw_order)o);
        if (rc != ORR_OK) return orri_gpu_fail(r, rc, "out of memory building the draw scene");
        d->fresh = true;
        d->builds++;
    }
    return ORR_OK;
}

orr_result orri_draws_plan(orr_renderer *r, const orr_assets *assets, uint64_t *stage)
{
    bool upload = false;
    for (int o = 0; o < 2; o++) {
        orri_draws *d = &r->draws[o];
        if (!d->fresh) continue;
        ORRI_TRY(resolve_batches(r, d, assets));
        d->fresh = false;
        d->built = true;
        upload = true;
    }
    if (!upload) return ORR_OK;
    /* One layout for every built scene: all of them go up again. */
    uint32_t items = 0, batches = 0;
    for (int o = 0; o < 2; o++) {
        orri_draws *d = &r->draws[o];
        if (!d->built) continue;
        d->upload = true;
        d->item_base = items;
        d->batch_base = batches;
        items += d->scene.item_count;
        batches += d->scene.batch_count;
    }
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    ORRI_TRY(orri_buffer_ensure(r, &r->scene_items, (VkDeviceSize)(items + 1) * sizeof(orr_gpu_draw_item), usage,
                                "draw scene items", NULL));
    ORRI_TRY(orri_buffer_ensure(r, &r->scene_batches, (VkDeviceSize)(batches + 1) * sizeof(orr_gpu_batch), usage,
                                "draw scene batches", NULL));
    *stage += (uint64_t)items * sizeof(orr_gpu_draw_item) + (uint64_t)batches * sizeof(orr_gpu_batch) + 2 * r->frame_align;
    return ORR_OK;
}

orr_result orri_draws_ranges(orr_renderer *r, orri_view *v, const orr_snapshot *s, orr_draw_view *dv)
{
    const orr_draw_scene *sc = &v->draws->scene;
    v->ranged = sc->ranged_count > 0;
    if (!v->ranged) return ORR_OK;
    orr_result rc = orr_draw_ranges_update(&v->ranges, sc, s, dv->origin);
    if (rc != ORR_OK) return orri_gpu_fail(r, rc, "out of memory for the visibility ranges of view %u", (uint32_t)(v - r->views));
    dv->range_hidden = v->ranges.hidden;
    return ORR_OK;
}

/* The fields of a draw view that a cull reads, compared bit for bit (a -0 for a 0 only culls again):
 * all of orr_draw_view's, so that a field added there must be added here. */
static bool same_draw_view(const orr_draw_view *a, const orr_draw_view *b)
{
    return !memcmp(&a->origin, &b->origin, sizeof a->origin) && !memcmp(&a->view, &b->view, sizeof a->view) &&
           !memcmp(&a->proj, &b->proj, sizeof a->proj) && a->cull == b->cull && a->layer_mask == b->layer_mask &&
           a->order == b->order && !memcmp(&a->lod_pixels, &b->lod_pixels, sizeof a->lod_pixels) &&
           !memcmp(&a->lod_height, &b->lod_height, sizeof a->lod_height) && a->range_hidden == b->range_hidden &&
           a->motion == b->motion;
}

orr_result orri_draws_plan_view(orr_renderer *r, orri_view *v, const orr_snapshot *s, const orr_draw_view *dv,
                                uint64_t *stage)
{
    const orr_draw_scene *sc = &v->draws->scene;
    /* The cull reads the scene, the instance records and the view: while none of them changed (the
     * same build, no instance record changed since, the same camera), its verdict is the one the view
     * holds, and a frame where nothing changed makes no pass over the scene (a GPU-culled view's pass
     * touches only the transparent items and two records per batch, but each one a cache miss in
     * tables of a million). Not kept: views whose instances are drawn between poses (motion), whose
     * visibility ranges move with the camera, or whose scene has fur (its reach is the snapshot's). */
    bool keep = !dv->motion && !dv->range_hidden && !sc->fur_reach_count;
    if (keep && v->cull_kept && v->cull_gpu == v->gpu_cull && v->cull_draws == v->draws &&
        v->cull_builds == v->draws->builds && v->cull_epoch == r->instances_epoch && same_draw_view(&v->cull_view, dv)) {
        /* kept: the same visible items, ranges and counts */
    } else {
        /* The CPU cull looks at every item (the reference, for the strategies that need counts on the
         * CPU); a GPU-culled view only has its transparent items culled here. */
        v->cull_kept = false;
        if (!v->gpu_cull) v->draws->scene.threads = orri_pass_threads(r, s->instance_count, &v->draws->scene.workers);
        orr_result rc = v->gpu_cull ? orr_draw_scene_cull_transparent(sc, s, dv, &v->visible)
                                    : orr_draw_scene_cull(sc, s, dv, &v->visible);
        if (rc != ORR_OK) return orri_gpu_fail(r, rc, "out of memory culling view %u", (uint32_t)(v - r->views));
        if (keep) {
            v->cull_kept = true;
            v->cull_gpu = v->gpu_cull;
            v->cull_draws = v->draws;
            v->cull_builds = v->draws->builds;
            v->cull_epoch = r->instances_epoch;
            v->cull_view = *dv;
        }
    }
    const orr_draw_visible *vis = &v->visible;
    uint32_t opaque_batches = sc->pass_batches[ORR_PASS_TRANSPARENT];
    uint32_t transparent_ranges = vis->range_count - vis->opaque_ranges;
    v->record_capacity = sc->item_count;
    v->command_count = opaque_batches + transparent_ranges;
    /* What goes through the frame buffer: the records and commands the CPU made, and the cull block. */
    v->staged_command_first = v->gpu_cull ? opaque_batches : 0;
    v->staged_command_count = v->command_count - v->staged_command_first;
    *stage += (uint64_t)vis->stats.surface_draws * sizeof(orr_gpu_record) +
              (uint64_t)v->staged_command_count * COMMAND_BYTES + sizeof(orr_gpu_cull) + ORRI_CULL_FEEDBACK_BYTES +
              (v->ranged ? (uint64_t)range_words(r) * 4 + r->frame_align : 0) +
              (v->gpu_cull ? (uint64_t)order_words(sc) * 4 + r->frame_align : 0) + 5 * r->frame_align;
    return ORR_OK;
}

orr_result orri_draws_layout(orr_renderer *r, const uint32_t *views, uint32_t view_count)
{
    VkDeviceSize at = 0;
    for (uint32_t k = 0; k < view_count; k++) {
        orri_view *v = &r->views[views[k]];
        v->words_at = at;
        at = align_up(at + (VkDeviceSize)cull_words(v->draws->scene.pass_items[ORR_PASS_TRANSPARENT]) * 4, REGION_ALIGN);
        v->records_at = at;
        at = align_up(at + (VkDeviceSize)(v->record_capacity + 1) * sizeof(orr_gpu_record), REGION_ALIGN);
        v->commands_at = at;
        at = align_up(at + (VkDeviceSize)(v->command_count + 1) * COMMAND_BYTES, REGION_ALIGN);
        v->range_at = at; /* a ranged view's range bits (its GPU cull's and its shadow views'): one per slot */
        if (v->ranged) at = align_up(at + (VkDeviceSize)range_words(r) * 4, REGION_ALIGN);
        v->order_at = at;
        if (v->gpu_cull) at = align_up(at + (VkDeviceSize)order_words(&v->draws->scene) * 4, REGION_ALIGN);
    }
    /* the shadow views (gpu_shadow.c): their camera view's scene, culled again */
    for (uint32_t k = 0; k < r->shadows.count; k++) {
        orri_shadow_view *sv = &r->shadows.views[k];
        const orr_draw_scene *sc = &sv->draws->scene;
        sv->words_at = at;
        at = align_up(at + (VkDeviceSize)cull_words(sc->pass_items[ORR_PASS_TRANSPARENT]) * 4, REGION_ALIGN);
        sv->records_at = at;
        at = align_up(at + (VkDeviceSize)(sc->pass_items[ORR_PASS_TRANSPARENT] + 1) * sizeof(orr_gpu_record), REGION_ALIGN);
        sv->commands_at = at;
        at = align_up(at + (VkDeviceSize)(sc->pass_batches[ORR_PASS_TRANSPARENT] + 1) * COMMAND_BYTES, REGION_ALIGN);
    }
    return orri_buffer_ensure(r, &r->view_data, at ? at : REGION_ALIGN,
                              VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                                  VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                              "view data", NULL);
}

static void command_of(const orri_batch_state *st, uint32_t count, uint32_t first, VkDrawIndexedIndirectCommand *out)
{
    *out = (VkDrawIndexedIndirectCommand){
        .indexCount = st->index_count,
        .instanceCount = st->resident ? count : 0,
        .firstIndex = st->first_index,
        .vertexOffset = st->vertex_offset,
        .firstInstance = first,
    };
}

/* Per-item records written in chunks of ORRI_FRAME_CHUNK positions (each chunk its own range of the
 * mapped staging): the scene's items, batch by batch (scene_items_job), or a view's visible items,
 * range by range (view_records_job). Batches and ranges each cover their positions without gaps, in
 * order: a chunk finds the first one that reaches into it by their ends. */
typedef struct item_pass {
    const orr_renderer *r;
    const orr_snapshot *s;
    const orr_draw_scene *sc;
    const orr_draw_visible *vis;
    const uint32_t *lead; /* scene items: a bit per item, set for each instance's first that the GPU culls */
    void *out;
    uint32_t g0, g1;     /* ranges (views) */
    uint32_t first, end; /* positions [first, end) */
} item_pass;

static void scene_items_job(void *ctx, uint32_t c)
{
    const item_pass *p = ctx;
    const orr_draw_scene *sc = p->sc;
    uint32_t from = c * ORRI_FRAME_CHUNK, to = p->end - from < ORRI_FRAME_CHUNK ? p->end : from + ORRI_FRAME_CHUNK;
    uint32_t lo = 0, hi = sc->batch_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (sc->batches[mid].first + sc->batches[mid].count <= from) lo = mid + 1;
        else hi = mid;
    }
    orr_gpu_draw_item *items = p->out;
    for (uint32_t b = lo; b < sc->batch_count && sc->batches[b].first < to; b++) {
        const orr_draw_batch *batch = &sc->batches[b];
        uint32_t k0 = batch->first > from ? batch->first : from, k1 = batch->first + batch->count < to ? batch->first + batch->count : to;
        for (uint32_t k = k0; k < k1; k++)
            items[k] = (orr_gpu_draw_item){orri_instances_slot(p->r, p->s->instances[sc->items[k]].id), batch->material.index,
                                           b | ((p->lead[k >> 5] >> (k & 31) & 1u) ? ORR_GPU_ITEM_LEAD : 0u)};
    }
}

static void view_records_job(void *ctx, uint32_t c)
{
    const item_pass *p = ctx;
    const orr_draw_visible *vis = p->vis;
    uint32_t from = p->first + c * ORRI_FRAME_CHUNK, to = p->end - from < ORRI_FRAME_CHUNK ? p->end : from + ORRI_FRAME_CHUNK;
    uint32_t lo = p->g0, hi = p->g1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (vis->ranges[mid].first + vis->ranges[mid].count <= from) lo = mid + 1;
        else hi = mid;
    }
    orr_gpu_record *rec = p->out;
    for (uint32_t g = lo; g < p->g1 && vis->ranges[g].first < to; g++) {
        const orr_draw_range *rg = &vis->ranges[g];
        uint32_t material = p->sc->batches[rg->batch].material.index;
        uint32_t i0 = rg->first > from ? rg->first : from, i1 = rg->first + rg->count < to ? rg->first + rg->count : to;
        for (uint32_t i = i0; i < i1; i++)
            rec[i - p->first] = (orr_gpu_record){orri_instances_slot(p->r, p->s->instances[vis->items[i]].id), material};
    }
}

/* The lead bits of a scene's items (a bit per item, then a bit per instance: those seen), freed with
 * lead_bytes: each instance's first item that the GPU culls (before the transparent pass) counts it in
 * the cull's instance counts, however many items (primitives, levels) it has. A pass over the items in
 * order, on the scene's upload only (a rebuild): the first item of an instance is a property of the
 * whole order, not of a chunk. */
static size_t lead_bytes(const orr_draw_scene *sc, uint32_t instances)
{
    return ((size_t)sc->item_count / 32 + 1 + (size_t)instances / 32 + 1) * sizeof(uint32_t);
}

static uint32_t *lead_items(orr_renderer *r, const orr_draw_scene *sc, uint32_t instances)
{
    uint32_t *lead = orri_alloc(&r->allocator, lead_bytes(sc, instances));
    if (!lead) return NULL;
    memset(lead, 0, lead_bytes(sc, instances));
    uint32_t *seen = lead + sc->item_count / 32 + 1;
    for (uint32_t k = 0; k < sc->pass_items[ORR_PASS_TRANSPARENT]; k++) {
        uint32_t i = sc->items[k];
        if (seen[i >> 5] >> (i & 31) & 1u) continue;
        seen[i >> 5] |= 1u << (i & 31);
        lead[k >> 5] |= 1u << (k & 31);
    }
    return lead;
}

static orr_result upload_scene(orr_renderer *r, const orri_draws *d, const orr_snapshot *s, orri_upload *up)
{
    const orr_draw_scene *sc = &d->scene;
    if (sc->item_count) {
        VkDeviceSize off = 0, bytes = (VkDeviceSize)sc->item_count * sizeof(orr_gpu_draw_item);
        ORRI_TRY(orri_frame_alloc(r, up->frame, bytes, &off));
        uint32_t *lead = lead_items(r, sc, s->instance_count);
        if (!lead) return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for the draw scene's lead items");
        item_pass p = {.r = r, .s = s, .sc = sc, .lead = lead, .out = (uint8_t *)up->frame->data.map + off, .end = sc->item_count};
        orr_workers *workers;
        uint32_t threads = orri_pass_threads(r, sc->item_count, &workers);
        orri_pool_run(workers, threads, (sc->item_count + ORRI_FRAME_CHUNK - 1) / ORRI_FRAME_CHUNK, scene_items_job, &p);
        orri_free(&r->allocator, lead, lead_bytes(sc, s->instance_count));
        orri_upload_copy(up, off, r->scene_items.buffer, (VkDeviceSize)d->item_base * sizeof(orr_gpu_draw_item), bytes);
    }
    if (sc->batch_count) {
        VkDeviceSize off = 0, bytes = (VkDeviceSize)sc->batch_count * sizeof(orr_gpu_batch);
        ORRI_TRY(orri_frame_alloc(r, up->frame, bytes, &off));
        orr_gpu_batch *out = (orr_gpu_batch *)((uint8_t *)up->frame->data.map + off);
        for (uint32_t b = 0; b < sc->batch_count; b++) {
            const orr_draw_batch *batch = &sc->batches[b];
            const orri_batch_state *st = &d->state[b];
            const orr_render_instance *in = &s->instances[sc->items[batch->first]];
            out[b] = (orr_gpu_batch){
                .first = batch->first,
                .count = batch->count,
                .index_count = st->index_count,
                .first_index = st->first_index,
                .vertex_offset = (uint32_t)st->vertex_offset,
                .lod = batch->lod,
                .bounds_min = {in->bounds.min.x, in->bounds.min.y, in->bounds.min.z},
                .bounds_max = {in->bounds.max.x, in->bounds.max.y, in->bounds.max.z},
                .lod_error = batch->lod_error,
                .lod_next = batch->lod_next,
            };
            if (!st->resident) out[b].count = 0; /* nothing to draw it with */
        }
        orri_upload_copy(up, off, r->scene_batches.buffer, (VkDeviceSize)d->batch_base * sizeof(orr_gpu_batch), bytes);
    }
    return ORR_OK;
}

/* A ranged view's range bits by instance slot, from its verdicts by snapshot index: cleared, then a
 * bit per hidden instance of the scene's ranged ones (what those count, besides the clear). */
static orr_result upload_range_bits(orr_renderer *r, const orr_snapshot *s, orri_upload *up, const orri_view *v)
{
    VkDeviceSize off = 0, bytes = (VkDeviceSize)range_words(r) * 4;
    ORRI_TRY(orri_frame_alloc(r, up->frame, bytes, &off));
    uint32_t *bits = (uint32_t *)((uint8_t *)up->frame->data.map + off);
    memset(bits, 0, bytes);
    const orr_draw_scene *sc = &v->draws->scene;
    for (uint32_t k = 0; k < sc->ranged_count; k++) {
        uint32_t i = sc->ranged[k];
        if (i >= s->instance_count || !(v->ranges.hidden[i >> 5] >> (i & 31) & 1u)) continue;
        uint32_t slot = orri_instances_slot(r, s->instances[i].id);
        if (slot / 32 < range_words(r)) bits[slot / 32] |= 1u << (slot % 32);
    }
    orri_upload_copy(up, off, r->view_data.buffer, v->range_at, bytes);
    return ORR_OK;
}

/* The view's cull block: planes relative to its origin, in float, and where its regions are. */
static void cull_block(const orr_renderer *r, const orri_view *v, const orr_snapshot *s, const orr_draw_view *dv,
                       orr_gpu_cull *c)
{
    memset(c, 0, sizeof *c);
    orr_mat4d clip;
    orr_mat4d_mul(&dv->proj, &dv->view, &clip);
    const double *m = clip.m;
    for (int i = 0; i < 4; i++) {
        double row0 = m[i * 4 + 0], row1 = m[i * 4 + 1], row2 = m[i * 4 + 2], row3 = m[i * 4 + 3];
        c->planes[0][i] = (float)(row3 + row0);
        c->planes[1][i] = (float)(row3 - row0);
        c->planes[2][i] = (float)(row3 + row1);
        c->planes[3][i] = (float)(row3 - row1);
        c->planes[4][i] = (float)(row3 - row2); /* reversed Z */
    }
    orr_split_double(dv->origin.x, &c->origin_hi[0], &c->origin_lo[0]);
    orr_split_double(dv->origin.y, &c->origin_hi[1], &c->origin_lo[1]);
    orr_split_double(dv->origin.z, &c->origin_hi[2], &c->origin_lo[2]);
    /* between ticks, the lag and tick the vertex stage blends by (cull_motion.glsl) */
    orri_motion_view(s->lag, s->tick, &c->origin_hi[3], &c->origin_lo[3]);
    const orr_draw_scene *sc = &v->draws->scene;
    uint32_t items = sc->pass_items[ORR_PASS_TRANSPARENT];
    c->sizes[0] = items;
    c->sizes[1] = sc->pass_batches[ORR_PASS_TRANSPARENT];
    c->sizes[2] = blocks_of(items);
    c->sizes[3] = dv->layer_mask ? dv->layer_mask : ORR_LAYERS_ALL;
    c->scene[0] = v->draws->item_base;
    c->scene[1] = v->draws->batch_base;
    uint32_t w = (uint32_t)(v->words_at / 4), blocks = blocks_of(items);
    c->regions[0] = w;
    c->regions[1] = w + blocks * ORR_GPU_CULL_WORDS;
    c->regions[2] = (uint32_t)(v->records_at / sizeof(orr_gpu_record));
    c->regions[3] = (uint32_t)(v->commands_at / 4);
    c->extra[0] = w + blocks * (ORR_GPU_CULL_WORDS + 1u);      /* visible items */
    c->extra[1] = w + blocks * (ORR_GPU_CULL_WORDS + 1u) + 1u; /* batches with a visible item */
    orri_draws_lod_block(dv, c->lod);
    c->extra[3] = v->ranged ? (uint32_t)(v->range_at / 4) + 1u : 0u; /* its range bits' first word + 1 */
    c->order[0] = (uint32_t)(v->order_at / 4) + 1u;                   /* its order bits' first word + 1 */
    (void)r;
}

orr_result orri_draws_upload(orr_renderer *r, const orr_snapshot *s, orri_upload *up, const uint32_t *views,
                             uint32_t view_count, const orr_draw_view *dvs)
{
    /* The views' parts first, at the same frame-buffer offsets whether or not a scene goes up (the
     * kept draw commands name them), then the scenes. */
    for (uint32_t k = 0; k < view_count; k++) {
        orri_view *v = &r->views[views[k]];
        const orri_draws *d = v->draws;
        const orr_draw_visible *vis = &v->visible;
        if (v->gpu_cull) {
            VkDeviceSize off = 0;
            ORRI_TRY(orri_frame_alloc(r, up->frame, sizeof(orr_gpu_cull), &off));
            cull_block(r, v, s, &dvs[k], (orr_gpu_cull *)((uint8_t *)up->frame->data.map + off));
            v->cull_offset = off;
            ORRI_TRY(orri_frame_alloc(r, up->frame, ORRI_CULL_FEEDBACK_BYTES, &v->feedback_offset));
            memset((uint8_t *)up->frame->data.map + v->feedback_offset, 0, ORRI_CULL_FEEDBACK_BYTES);
        }
        if (v->ranged) ORRI_TRY(upload_range_bits(r, s, up, v));
        if (v->gpu_cull) { /* the batches it lists last first (its transparent cull chose them) */
            VkDeviceSize off = 0, bytes = (VkDeviceSize)order_words(&d->scene) * 4;
            ORRI_TRY(orri_frame_alloc(r, up->frame, bytes, &off));
            memcpy((uint8_t *)up->frame->data.map + off, vis->last_first, bytes);
            orri_upload_copy(up, off, r->view_data.buffer, v->order_at, bytes);
        }
        /* Records: each visible item's instance slot and material slot, in two runs: the packed ones
         * before the transparent pass (CPU-culled views), and the transparent ones at their place. */
        for (int part = 0; part < 2; part++) {
            uint32_t g0 = part ? vis->opaque_ranges : 0, g1 = part ? vis->range_count : vis->opaque_ranges;
            if (g0 == g1) continue;
            uint32_t first = vis->ranges[g0].first, count = 0;
            for (uint32_t g = g0; g < g1; g++) count += vis->ranges[g].count;
            if (!count) continue;
            VkDeviceSize off = 0, bytes = (VkDeviceSize)count * sizeof(orr_gpu_record);
            ORRI_TRY(orri_frame_alloc(r, up->frame, bytes, &off));
            item_pass p = {.r = r, .s = s, .sc = &d->scene, .vis = vis, .out = (uint8_t *)up->frame->data.map + off,
                           .g0 = g0, .g1 = g1, .first = first, .end = first + count};
            orr_workers *workers;
            uint32_t threads = orri_pass_threads(r, count, &workers);
            orri_pool_run(workers, threads, (count + ORRI_FRAME_CHUNK - 1) / ORRI_FRAME_CHUNK, view_records_job, &p);
            orri_upload_copy(up, off, r->view_data.buffer, v->records_at + (VkDeviceSize)first * sizeof(orr_gpu_record),
                             bytes);
            up->bytes -= bytes;
            up->view_bytes += bytes;
        }
        /* Commands: one per range (the GPU writes those before the transparent pass itself). */
        if (v->staged_command_count) {
            VkDeviceSize off = 0, bytes = (VkDeviceSize)v->staged_command_count * COMMAND_BYTES;
            ORRI_TRY(orri_frame_alloc(r, up->frame, bytes, &off));
            VkDrawIndexedIndirectCommand *cmd = (VkDrawIndexedIndirectCommand *)((uint8_t *)up->frame->data.map + off);
            for (uint32_t g = 0; g < vis->range_count; g++) {
                const orr_draw_range *rg = &vis->ranges[g];
                uint32_t at = g < vis->opaque_ranges ? rg->batch : v->command_count - (vis->range_count - g);
                command_of(&d->state[rg->batch], rg->count, rg->first, &cmd[at - v->staged_command_first]);
            }
            orri_upload_copy(up, off, r->view_data.buffer,
                             v->commands_at + (VkDeviceSize)v->staged_command_first * COMMAND_BYTES, bytes);
            up->bytes -= bytes;
            up->view_bytes += bytes;
        }
    }
    for (int o = 0; o < 2; o++)
        if (r->draws[o].upload) ORRI_TRY(upload_scene(r, &r->draws[o], s, up));
    return ORR_OK;
}

bool orri_same_state(const orri_batch_state *a, const orri_batch_state *b)
{
    return a->pipeline == b->pipeline && a->features == b->features && a->cull == b->cull && a->texture == b->texture;
}

bool orri_draws_next_run(const orri_view *v, uint32_t stop, uint32_t *b, uint32_t *e)
{
    const orri_draws *d = v->draws;
    const orr_draw_scene *sc = &d->scene;
    const orr_draw_visible *vis = &v->visible;
    uint32_t opaque = sc->pass_batches[ORR_PASS_TRANSPARENT], custom = sc->pass_batches[ORR_PASS_CUSTOM];
    if (stop < opaque) opaque = stop;
    for (uint32_t first = *b; first < opaque;) {
        if (sc->batches[first].payload != ORR_PAYLOAD_MESH) {
            first++;
            continue;
        }
        uint32_t end = first < custom && custom < opaque ? custom : opaque, last = first + 1;
        while (last < end && sc->batches[last].payload == ORR_PAYLOAD_MESH &&
               orri_same_state(&d->state[last], &d->state[first]))
            last++;
        bool any = v->gpu_cull; /* the CPU knows the counts only when it culled the view */
        for (uint32_t k = first; k < last && !any; k++) any = vis->ranges[k].count > 0;
        if (any) {
            *b = first;
            *e = last;
            return true;
        }
        first = last;
    }
    return false;
}

void orri_draws_stats(const orri_view *v, orr_render_stats *st)
{
    const orr_draw_stats *s = &v->visible.stats;
    st->cull.visible += s->visible;
    st->draws.surfaces += s->surface_draws;
    st->draws.batches += s->batches;
    st->cull.culled += s->culled; /* (a GPU-culled view: its transparent surfaces, culled on the CPU) */
    if (v->gpu_cull && v->gpu_visible_frame) {
        /* Instances, as of the view's latest completed frame: those it may show, less those in its
         * frustum, and those less those the pyramid did not hide (each counted by its first item). */
        const uint32_t *n = v->gpu_instances;
        st->cull.visible += n[2];
        st->cull.culled += n[0] - n[1];
        st->cull.occluded += n[1] - n[2];
    }
    for (uint32_t k = 0; v->ranged && k < v->draws->scene.ranged_count; k++) { /* the ranged ones only */
        uint32_t i = v->draws->scene.ranged[k];
        st->cull.out_of_range += i / 32 < v->ranges.words && (v->ranges.hidden[i >> 5] >> (i & 31) & 1u);
    }
    if (v->gpu_cull) {
        /* What the GPU drew (surfaces: instance primitives), as of the view's latest completed frame. */
        st->draws.surfaces += v->gpu_visible;
        st->draws.batches += v->gpu_batches;
        st->views.gpu_culled++;
    }
    for (int k = 0; k < ORR_DROP_COUNT; k++) st->draws.dropped[k] += s->dropped[k];
    st->draws.fur_fallbacks += s->fur_fallbacks;
    if (v->gpu_cull) {
        for (uint32_t l = 0; l < ORR_MESH_MAX_LODS; l++) {
            st->draws.lod_surfaces[l] += v->gpu_lod_surfaces[l];
            st->draws.lod_triangles[l] += v->gpu_lod_triangles[l];
        }
    }
    /* the ranges the CPU culled (every one of a CPU-culled view, the transparent ones of the others):
     * a pass over the view's ranges, one per batch */
    for (uint32_t k = 0; k < v->visible.range_count; k++) {
        const orr_draw_range *rg = &v->visible.ranges[k];
        const orr_draw_batch *b = &v->draws->scene.batches[rg->batch];
        uint32_t l = b->lod < ORR_MESH_MAX_LODS ? b->lod : ORR_MESH_MAX_LODS - 1;
        st->draws.lod_surfaces[l] += rg->count;
        st->draws.lod_triangles[l] += (uint64_t)rg->count * (v->draws->state[rg->batch].index_count / 3);
    }
    for (uint32_t b = 0; b < v->draws->scene.batch_count; b++)
        if (!v->draws->state[b].resident) st->draws.dropped[ORR_DROP_CAPACITY] += v->draws->scene.batches[b].count;
}

void orri_draws_lod_block(const orr_draw_view *dv, float out[4])
{
    orr_draw_lod_view lv;
    orr_draw_lod_view_init(dv, &lv);
    out[0] = lv.k;
    out[1] = lv.perspective ? 1.0f : 0.0f;
    out[2] = out[3] = 0.0f;
}
