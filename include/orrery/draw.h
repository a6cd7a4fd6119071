/* Orrery draw: the prepared draw protocol, one view at a time. No Vulkan, no world.
 *
 *   snapshot instances (+ assets, borrowed)
 *     -> visible inputs (layer mask, visible flag, frustum test of the bounds)
 *     -> draw list: one draw per mesh primitive, offsets[input .. input + 1]; hidden, stale or missing
 *        inputs repeat the previous offset
 *     -> ranges: non-empty runs with one instance, one payload kind, one source mesh (mixed: dropped)
 *     -> surface draws (indices and small values only)
 *     -> sorted in place by pass (opaque, cutout, custom, transparent), then by the view's order;
 *        transparent back to front; pass spans index into the one sorted array
 *     -> skin tables (frame-local joint ranges) and batches (runs with one mesh primitive and material)
 *
 * Invalid data stops at the boundary where it is found and increments a named counter; nothing here
 * fails the frame. An orr_draw_list owns its arrays and reuses them frame after frame; spans and batches
 * borrow from it and are valid until the next orr_draw_prepare on the same list.
 *
 * orr_draw_prepare runs the whole protocol for one view and is the reference. A renderer that keeps its
 * output across frames uses the retained form instead:
 *   orr_draw_scene_build  the protocol without a view: every drawable primitive of every instance
 *                         (hidden ones and every layer included), sorted by pass then the order,
 *                         batched. It depends only on what the snapshot's layout_version covers (and on
 *                         the materials' alpha modes and the poses' handedness), so it is rebuilt only
 *                         when those change.
 *   orr_draw_scene_cull   one view's share of it, per frame: the visible items (visible flag, layer
 *                         mask, frustum), in the scene's order per batch, the transparent ones back to
 *                         front. Its result equals orr_draw_prepare's for that view (tests/draw checks).
 * A GPU does the same cull itself from the scene (gpu module); this one is the reference and serves
 * the strategies that need the counts on the CPU.
 */
#ifndef ORRERY_DRAW_H
#define ORRERY_DRAW_H

#include <orrery/assets.h>
#include <orrery/core.h>
#include <orrery/snapshot.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum orr_pass {
    ORR_PASS_OPAQUE = 0,
    ORR_PASS_CUTOUT = 1, /* alpha mask */
    ORR_PASS_CUSTOM = 2, /* payload adapters */
    ORR_PASS_TRANSPARENT = 3, /* alpha blend, back to front */
    ORR_PASS_COUNT = 4,
} orr_pass;

typedef enum orr_draw_order {
    ORR_ORDER_HIERARCHY = 0, /* stable insertion (pre-order) within a pass */
    ORR_ORDER_MESH = 1,      /* payload, skinned, mirrored, mesh, primitive, material, instance */
} orr_draw_order;

typedef enum orr_payload { ORR_PAYLOAD_MESH = 0 } orr_payload;

/* Why a draw was dropped. Each has a counter in orr_draw_stats.dropped. */
typedef enum orr_drop {
    ORR_DROP_STALE_HANDLE = 0,    /* instance names a mesh id that is stale */
    ORR_DROP_MISSING_MESH,        /* instance has no mesh */
    ORR_DROP_PRIMITIVE_RANGE,     /* primitive index out of range */
    ORR_DROP_MATERIAL_RANGE,      /* material id stale or out of range */
    ORR_DROP_MIXED_RANGE,         /* a range mixing instances, payloads or meshes */
    ORR_DROP_SKIN_RANGE,          /* joint range outside the snapshot's joints */
    ORR_DROP_MATERIAL_MODE,       /* alpha mode or topology the renderer does not support */
    ORR_DROP_CAPACITY,            /* a configured capacity was reached */
    ORR_DROP_COUNT,
} orr_drop;

const char *orr_drop_name(orr_drop drop); /* "stale_handle", "missing_mesh", ... */

/* The smallest draw command: indices and small values only. */
typedef struct orr_surface_draw {
    uint32_t instance;      /* index into the snapshot's instances */
    uint32_t instance_id;   /* the snapshot instance's stable id */
    orr_mesh_id mesh;
    uint32_t primitive;
    orr_material_id material;
    uint32_t sequence;      /* insertion order, for stable sorting */
    uint32_t skin_table;    /* index into orr_draw_list.skin_ranges, or UINT32_MAX */
    float depth;            /* view-space distance of the bounds centre (transparent sorting) */
    uint8_t pass;           /* orr_pass */
    uint8_t payload;        /* orr_payload */
    uint8_t skinned;
    uint8_t casts_shadows;
    uint8_t mirrored;       /* the pose's linear part has a negative determinant (winding turned over) */
    orr_aabbf bounds;       /* world bounds relative to the view origin */
} orr_surface_draw;

/* A run of sorted surface draws with one pass, mesh primitive and material. Its records are the
 * draws [first, first + count) of orr_draw_list.draws (one record per instance). */
typedef struct orr_draw_batch {
    uint32_t first;
    uint32_t count;
    orr_mesh_id mesh;
    uint32_t primitive;
    orr_material_id material;
    uint8_t pass;
    uint8_t skinned;
    uint8_t mirrored;
} orr_draw_batch;

typedef struct orr_skin_range {
    uint32_t first; /* into orr_draw_list.joints */
    uint32_t count;
} orr_skin_range;

typedef struct orr_draw_stats {
    uint32_t inputs;        /* snapshot instances considered */
    uint32_t hidden;        /* visible = false */
    uint32_t layer_masked;  /* filtered by the view's layer mask */
    uint32_t culled;        /* outside the frustum */
    uint32_t visible;       /* instances that produced at least one draw */
    uint32_t surface_draws;
    uint32_t batches;
    uint32_t dropped[ORR_DROP_COUNT];
} orr_draw_stats;

/* Per-view inputs. Zero-initialised = no culling, all layers (layer_mask 0 = all, as in the gpu's view
 * desc), hierarchy order. */
#define ORR_LAYERS_ALL 0xffffffffu
typedef struct orr_draw_view {
    orr_vec3d origin;   /* the view's binary64 origin; bounds and depth are made relative to it */
    orr_mat4d view;     /* world-minus-origin -> camera (rotation only: origin already subtracted) */
    orr_mat4d proj;     /* camera -> clip (reversed Z, infinite far) */
    bool cull;          /* frustum-test instance bounds */
    uint32_t layer_mask; /* 0 = all layers */
    orr_draw_order order;
} orr_draw_view;

typedef struct orr_draw_list {
    orr_allocator allocator;
    orr_surface_draw *draws;   /* sorted by pass, then the view order */
    uint32_t draw_count, draw_capacity;
    uint32_t pass_begin[ORR_PASS_COUNT + 1]; /* pass p is draws[pass_begin[p] .. pass_begin[p + 1]) */
    orr_draw_batch *batches;
    uint32_t batch_count, batch_capacity;
    orr_skin_range *skin_ranges;
    uint32_t skin_range_count, skin_range_capacity;
    orr_mat4d *joints;          /* frame-local joint matrices (copied from the snapshot) */
    uint32_t joint_count, joint_capacity;
    uint32_t *offsets;          /* step 1: one per input plus a terminal one, indexing the draws as
                                   collected (before the sort, which `sequence` remembers) */
    uint32_t offset_capacity;
    orr_draw_stats stats;
} orr_draw_list;

void orr_draw_list_init(orr_draw_list *list, const orr_allocator *allocator);
void orr_draw_list_fini(orr_draw_list *list);

/* Runs the whole protocol for one view. Fails only when memory runs out (ORR_ERROR_OUT_OF_MEMORY);
 * bad data is counted in list->stats.dropped. */
orr_result orr_draw_prepare(orr_draw_list *list, const orr_snapshot *snapshot, const orr_assets *assets,
                            const orr_draw_view *view);

/* Protocol step 2 on its own, for payload adapters that append draws and offsets themselves: drops
 * (and counts as mixed_range) the draws of every input range that mixes instances, payload kinds or
 * meshes, compacting the draws and offsets. orr_draw_prepare runs it between steps 1 and 3; its own
 * collection never produces a mixed range. */
void orr_draw_check_ranges(orr_draw_list *list, uint32_t input_count);

/* ---- retained form ------------------------------------------------------------------------- */

/* The protocol's output for a whole snapshot (see the top of this header). Items are snapshot instance
 * indices, one per drawable mesh primitive; batches index the items and carry the primitive. */
typedef struct orr_draw_scene {
    orr_allocator allocator;
    orr_draw_order order;
    uint32_t *items;            /* snapshot instance index per draw, sorted by pass, then the order */
    uint32_t item_count, item_capacity;
    orr_draw_batch *batches;    /* runs of items with one pass, mesh primitive, material, skinning and
                                   handedness; transparent ones in hierarchy order, to be sorted per view */
    uint32_t batch_count, batch_capacity;
    uint32_t pass_items[ORR_PASS_COUNT + 1];   /* pass p is items[pass_items[p] .. pass_items[p + 1]) */
    uint32_t pass_batches[ORR_PASS_COUNT + 1]; /* and batches[pass_batches[p] .. pass_batches[p + 1]) */
    uint32_t dropped[ORR_DROP_COUNT];          /* found while building, per reason */
    uint32_t *scratch;          /* building and culling */
    size_t scratch_bytes;
} orr_draw_scene;

void orr_draw_scene_init(orr_draw_scene *scene, const orr_allocator *allocator);
void orr_draw_scene_fini(orr_draw_scene *scene);
/* Builds the scene for `order` from the whole snapshot. Fails only when memory runs out. */
orr_result orr_draw_scene_build(orr_draw_scene *scene, const orr_snapshot *snapshot, const orr_assets *assets,
                                orr_draw_order order);

/* A visible run: items [first, first + count) of orr_draw_visible.items, all of scene batch `batch`. */
typedef struct orr_draw_range {
    uint32_t batch;
    uint32_t first;
    uint32_t count;
} orr_draw_range;

/* One view's cull of a scene. Ranges are in drawing order: one per scene batch of the passes before
 * the transparent one (in scene order, count 0 when nothing of it is visible), their items packed from
 * 0; then the transparent items, back to front, from scene.pass_items[ORR_PASS_TRANSPARENT] on (so
 * that they stand where they stand whoever culled the rest), one range per run of one batch. */
typedef struct orr_draw_visible {
    orr_allocator allocator;
    uint32_t *items;            /* snapshot instance indices */
    uint32_t item_capacity;
    orr_draw_range *ranges;
    uint32_t range_count, range_capacity;
    uint32_t opaque_ranges;     /* ranges before the transparent ones (= the scene's batches before them) */
    orr_draw_stats stats;       /* as orr_draw_prepare counts them (batches: ranges with a draw) */
    uint8_t *state;             /* per instance: why it is not drawn (scratch) */
    uint32_t state_capacity;
    uint32_t *scratch;
    size_t scratch_bytes;
} orr_draw_visible;

void orr_draw_visible_init(orr_draw_visible *visible, const orr_allocator *allocator);
void orr_draw_visible_fini(orr_draw_visible *visible);
/* Culls `scene` (built from this snapshot's layout) for one view. Only the transparent items are
 * sorted (back to front; equal depths keep the scene's order). Fails only when memory runs out. */
orr_result orr_draw_scene_cull(const orr_draw_scene *scene, const orr_snapshot *snapshot, const orr_draw_view *view,
                               orr_draw_visible *out);

/* The same for the transparent items only (a GPU culls the others): opaque_ranges is 0, the stats
 * count the transparent items (per item, not per instance) and the scene's drops; its cost follows the
 * transparent items, not the scene. */
orr_result orr_draw_scene_cull_transparent(const orr_draw_scene *scene, const orr_snapshot *snapshot,
                                           const orr_draw_view *view, orr_draw_visible *out);

/* Whether an instance's pose turns the winding over (negative determinant of its linear part). */
bool orr_draw_mirrored(const orr_render_instance *instance);

/* The pass's span of the sorted draws. */
static inline const orr_surface_draw *orr_draw_pass(const orr_draw_list *list, orr_pass pass, uint32_t *count)
{
    *count = list->pass_begin[pass + 1] - list->pass_begin[pass];
    return list->draws + list->pass_begin[pass];
}

#ifdef __cplusplus
}
#endif
#endif /* ORRERY_DRAW_H */
