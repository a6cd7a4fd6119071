/* Orrery draw: the prepared draw protocol, one view at a time. No Vulkan, no world.
 *
 *   snapshot instances (+ assets, borrowed)
 *     -> visible inputs (layer mask, visible flag, frustum test of the bounds)
 *     -> draw list: one draw per mesh primitive, offsets[input .. input + 1]; hidden, stale or missing
 *        inputs repeat the previous offset
 *     -> ranges: non-empty runs with one instance, one source mesh and one payload kind besides plain
 *        mesh surfaces (mixed: dropped)
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
 *
 * A GPU does the same cull itself from the scene (gpu module); this one is the reference and serves
 * the strategies that need the counts on the CPU.
 *
 * Payloads. A surface whose material shades fur (orr_material.shading) and whose instance has an entry
 * in the snapshot's fur sidecar (orr_snapshot.fur) is a fur surface: payload ORR_PAYLOAD_FUR, pass
 * ORR_PASS_CUSTOM (whatever its alpha mode: shells thin by discarding), drawn through the fur adapter
 * (orr_draw_fur_collect). Without an entry it is a plain mesh surface in its alpha mode's pass and
 * counted in fur_fallbacks. The scene therefore also depends on the materials' shading modes and on
 * which instances have sidecar entries (a change there must rebuild it, like a layout change).
 * Culling grows the box of an instance with fur surfaces by how far its fur reaches (the longest shell
 * length of its fur surfaces, or its sidecar entry's), so that shells standing into a view from an
 * instance just outside it are drawn; the surface draws' bounds are that grown box.
 *
 * Meshlets. orr_draw_meshlet_classify is the per-meshlet test a task shader (and a compute fallback) mirrors;
 * orr_draw_meshlet_cull_list / orr_draw_meshlet_cull_visible are the CPU reference of the meshlet strategy: for a
 * view's draws, the meshlets each one sends and those that survive.
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
#define ORR_ORDER_COUNT 2

/* "hierarchy" or "mesh"; "unknown" out of range. Never NULL; static. */
const char *orr_draw_order_name(orr_draw_order order);
/* The order named `name` into *out; false (and *out untouched) when `name` is NULL or names none. */
bool orr_draw_order_parse(const char *name, orr_draw_order *out);

/* What a surface draw carries. A payload other than plain meshes is drawn in the custom pass through its
 * own adapter, with its own sidecar in the snapshot, and a counted fallback to the plain mesh path. */
typedef enum orr_payload {
    ORR_PAYLOAD_MESH = 0, /* a mesh primitive, drawn by the strategies */
    ORR_PAYLOAD_FUR = 1,  /* shells of a fur material (orr_draw_fur_collect); sidecar orr_snapshot.fur */
} orr_payload;

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
    ORR_DROP_SIDECAR,             /* a payload sidecar entry out of order, out of range or with bad values
                                     (its instance falls back as if it had none) */
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
    uint8_t payload;  /* orr_payload: one per batch */
    uint8_t lod;      /* the level of detail of its mesh primitive it draws (0 for a mesh without levels) */
    float lod_error;  /* that level's error (orr_mesh.lod_error), and the next level's (< 0: none): the */
    float lod_next;   /* level is drawn where its error projects within the view's threshold and the
                         next one's does not (orr_draw_lod_pick) */
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
    uint32_t out_of_range;  /* outside their visibility range (orr_draw_view.range_hidden) */
    uint32_t visible;       /* instances that produced at least one draw */
    uint32_t surface_draws;
    uint32_t batches;
    uint32_t fur_fallbacks; /* surfaces of a fur material whose instance has no (valid) fur sidecar entry:
                               drawn as plain meshes in their alpha mode's pass; counted per surface,
                               whatever the view, like the drops */
    uint32_t dropped[ORR_DROP_COUNT];
} orr_draw_stats;

/* Between ticks (orr_snapshot.lag): the instances a renderer draws at the blend of the pose their record
 * held before it last changed and their current one (the gpu module's rule, include/orrery/gpu.h "Between
 * ticks"), and how far. A cull given one tests each such instance's box at the blended pose
 * (orr_draw_motion_pose), where it is drawn, so that near an edge it is neither dropped a frame early
 * nor kept a frame late; its depth (transparent order) is taken there too. Levels of detail and
 * visibility ranges stay chosen at the current pose. */
/* An instance's two poses made ready to blend (orr_draw_blend_prepare), once per change rather than
 * once per frame and view. */
typedef struct orr_draw_blend {
    double t0[3];        /* the earlier translation */
    double q0[4], q1[4]; /* the earlier and current rotations (x, y, z, w), q0 on q1's side (the shorter
                            way) */
    double s0[3], s1[3]; /* the earlier and current column lengths */
    bool rigid;          /* both linear parts a proper rotation times a positive scale per axis (columns
                            orthogonal within 1e-3): rotation and scale blend; else the current linear
                            part is drawn */
} orr_draw_blend;

typedef struct orr_draw_motion {
    float lag;                   /* (0, 1]: 1 the earlier pose */
    uint32_t count;              /* instances entry_of covers (from 0) */
    const uint32_t *entry_of;    /* per snapshot instance: 0 (drawn at its pose), or 1 + its blend's index
                                    in `blends` */
    const orr_draw_blend *blends; /* each made from the instance's current pose and its earlier one */
} orr_draw_motion;

/* The blend of `now` and `before` (see orr_draw_blend). */
void orr_draw_blend_prepare(const orr_affine3d *now, const orr_affine3d *before, orr_draw_blend *out);
/* The pose an instance is drawn at between ticks, `lag` of the way from `now` (the pose `b` was made
 * with) back to the earlier one: translation linear; rotation by normalised quaternion and scale linear
 * when rigid, else the current linear part: as the vertex stage blends instances. */
void orr_draw_blend_pose(const orr_draw_blend *b, const orr_affine3d *now, double lag, orr_affine3d *out);
/* The two in one: the pose `lag` of the way from `now` back to `before`. */
void orr_draw_motion_pose(const orr_affine3d *now, const orr_affine3d *before, double lag, orr_affine3d *out);

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
    float lod_pixels;   /* levels of detail: the largest error, in pixels, a level may show (0 = level 0
                           always); see orr_draw_lod_pick */
    float lod_height;   /* the viewport's height in pixels, which lod_pixels are of */
    const uint32_t *range_hidden; /* NULL, or a bit per snapshot instance: set = outside its visibility
                                     range in this view (orr_draw_ranges_update), counted in out_of_range */
    const orr_draw_motion *motion; /* NULL, or the instances drawn between two poses (frames between
                                      ticks): culled where they are drawn */
} orr_draw_view;



/* Levels of detail. The retained scene (orr_draw_scene_build) holds one item per level of a mesh with
 * levels, each level its own batches; a view draws each instance's primitives at one level: the
 * coarsest whose error, scaled by the instance's largest axis scale s and projected at the distance d
 * from the view origin to the nearest point of the bounding sphere of its box, is within lod_pixels:
 *     error x s <= k x d    (perspective; orthographic: error x s <= k)
 * with k = lod_pixels / (|proj[1][1]| x lod_height / 2), computed in binary32 exactly as the GPU cull
 * does (shaders/cull.comp), so that both pick the same level. A level with error 0 is always
 * acceptable. orr_draw_prepare (the protocol's reference for one view) draws level 0. */
typedef struct orr_draw_lod_view {
    float k;          /* the error allowed per metre of distance (perspective) or in all (orthographic);
                         < 0: levels off (level 0 only) */
    bool perspective;
    float origin_hi[3], origin_lo[3]; /* the view origin, split as the GPU's (orr_split_double) */
} orr_draw_lod_view;

void orr_draw_lod_view_init(const orr_draw_view *view, orr_draw_lod_view *out);
/* Whether `batch`'s level is the one `instance` shows in the view, its box `bounds` (local: the bounds
 * the GPU holds for the batch, its first instance's). */
bool orr_draw_lod_pick(const orr_draw_lod_view *lv, const orr_draw_batch *batch, const orr_render_instance *instance,
                       const orr_aabbf *bounds);

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
 * bad data is counted in list->stats.dropped. (Within a batch, draws keep the snapshot's order; the
 * retained cull may list a batch last item first: orr_draw_scene_cull.) */
orr_result orr_draw_prepare(orr_draw_list *list, const orr_snapshot *snapshot, const orr_assets *assets,
                            const orr_draw_view *view);

/* Protocol step 2 on its own, for payload adapters that append draws and offsets themselves: drops
 * (and counts as mixed_range) the draws of every input range that mixes instances or meshes, or two
 * payload kinds other than plain meshes, compacting the draws and offsets. Plain mesh surfaces may share
 * a range with one other kind because payloads are chosen per surface: a fur instance keeps its plain
 * parts (eyes, claws) in the common passes. orr_draw_prepare runs it between steps 1 and 3; its own
 * collection never produces a mixed range. */
void orr_draw_check_ranges(orr_draw_list *list, uint32_t input_count);

/* ---- retained form ------------------------------------------------------------------------- */

/* How far an instance's fur reaches beyond its mesh by its materials (the longest shell length of its fur
 * surfaces): a cull grows the instance's box by it, or by its sidecar entry's shell length where the
 * entry sets one. */
typedef struct orr_draw_fur_reach {
    uint32_t instance; /* snapshot instance index */
    float length;      /* metres */
} orr_draw_fur_reach;

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
    uint32_t fur_fallbacks;                    /* as orr_draw_stats.fur_fallbacks */
    orr_draw_fur_reach *fur_reach; /* one per instance with fur surfaces, ascending instance */
    uint32_t fur_reach_count, fur_reach_capacity;
    uint32_t *ranged;           /* snapshot indices of the instances with a visibility range, ascending */
    uint32_t ranged_count, ranged_capacity;
    uint32_t *scratch;          /* building and culling */
    size_t scratch_bytes;
    struct orr_draw_build *build; /* what a build keeps for the next one (its working arrays, grown only) */
    orr_workers *workers;       /* set by the owner: where its build and whole-view culls share their passes
                                   out (NULL: threads started for each pass) */
    uint32_t threads;           /* up to this many threads, the caller's among them (0 or 1: the caller's
                                   alone); the same scene, lists and counters at any count */
} orr_draw_scene;

void orr_draw_scene_init(orr_draw_scene *scene, const orr_allocator *allocator);
void orr_draw_scene_fini(orr_draw_scene *scene);
/* Builds the scene for `order` from the whole snapshot. Fails only when memory runs out. */
orr_result orr_draw_scene_build(orr_draw_scene *scene, const orr_snapshot *snapshot, const orr_assets *assets,
                                orr_draw_order order);

/* Visibility ranges (orr_render_instance.range_*): one view's state, kept from frame to frame for the
 * hysteresis: which of the scene's instances with a range were shown, and the bits of those hidden
 * now (orr_draw_view.range_hidden). The state starts again whenever the scene's layout changes. */
typedef struct orr_draw_ranges {
    orr_allocator allocator;
    uint32_t *shown, *hidden; /* a bit per snapshot instance each (one block: hidden after shown) */
    uint32_t words, capacity; /* words of each; the block's capacity in words */
    uint64_t layout_version;  /* of the snapshot the state belongs to */
    bool known;               /* shown holds last frame's verdicts */
} orr_draw_ranges;

void orr_draw_ranges_init(orr_draw_ranges *ranges, const orr_allocator *allocator);
void orr_draw_ranges_fini(orr_draw_ranges *ranges);
/* This frame's verdicts for `scene`'s instances with a range (orr_draw_scene.ranged), seen from
 * `origin`: the distance from it to the centre of each one's world box, in binary64, against its
 * range and the hysteresis. Costs what those instances count. Fails only when memory runs out. */
orr_result orr_draw_ranges_update(orr_draw_ranges *ranges, const orr_draw_scene *scene, const orr_snapshot *snapshot,
                                  orr_vec3d origin);

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
    uint32_t *last_first;       /* a bit per scene batch before the transparent pass: its visible items are
                                   listed last item first (orr_draw_scene_cull) */
    uint32_t last_first_words;  /* (capacity, in words) */
    uint8_t *state;             /* per instance: why it is not drawn (scratch) */
    uint32_t state_capacity;
    uint32_t *scratch;
    size_t scratch_bytes;
} orr_draw_visible;

void orr_draw_visible_init(orr_draw_visible *visible, const orr_allocator *allocator);
void orr_draw_visible_fini(orr_draw_visible *visible);
/* Culls `scene` (built from this snapshot's layout) for one view. Only the transparent items are
 * sorted (back to front; equal depths keep the scene's order). The visible items of an opaque or cutout
 * batch of plain meshes are listed in the scene's order, or last item first where the batch's last item
 * is nearer the view than its first (view depth of their boxes' centres; equal: the scene's order), its
 * bit in last_first: near things drawn first, so that the depth test spares the shading of what they
 * hide (a GPU cull lists them the same way from those bits). Fails only when memory runs out. */
orr_result orr_draw_scene_cull(const orr_draw_scene *scene, const orr_snapshot *snapshot, const orr_draw_view *view,
                               orr_draw_visible *out);

/* The same for the transparent items only (a GPU culls the others): opaque_ranges is 0, the stats
 * count the transparent items (per item, not per instance) and the scene's drops; last_first is set as
 * orr_draw_scene_cull sets it, for the GPU cull's lists. Its cost follows the transparent items and the
 * scene's batches, not the scene's items. */
orr_result orr_draw_scene_cull_transparent(const orr_draw_scene *scene, const orr_snapshot *snapshot,
                                           const orr_draw_view *view, orr_draw_visible *out);

/* The same for the items of the payload batches only (every kind but plain meshes: the custom pass's
 * adapters, which a GPU cull does not serve): one range per such batch, in scene order, items packed
 * from 0 in the scene's order (opaque_ranges = range_count); the stats count those items (per item)
 * and the scene's drops; its cost follows the payload items. Feed it to the payload's adapter
 * (orr_draw_fur_collect_visible). */
orr_result orr_draw_scene_cull_payloads(const orr_draw_scene *scene, const orr_snapshot *snapshot,
                                        const orr_draw_view *view, orr_draw_visible *out);

/* ---- meshlet culling ------------------------------------------------------------------------- */
/* The test, per meshlet of an instance in a view, that a task shader and the fallback mirror:
 *   frustum  the meshlet's sphere (orr_meshlet_bounds), centre through the instance's pose and radius
 *            times the pose's largest stretch (radius_scale), lies wholly outside one of the planes left,
 *            right, bottom, top, near (reversed Z, infinite far: no far plane);
 *   cone     every triangle of the meshlet faces away from the camera, by meshoptimizer's test with the
 *            apex through the pose and the axis through its linear part:
 *              perspective   dot(apex' - camera, axis') >= cone_cutoff x |apex' - camera|, |apex' - camera| > 0
 *              orthographic  dot(forward, axis') >= cone_cutoff
 *            It applies only when the pose's linear part is a similarity (rotation and one scale factor,
 *            mirrored or not: columns orthogonal and of equal length within a relative 1e-6) and the
 *            material is single-sided. A similarity keeps angles, so the normal cone maps to a cone of
 *            the same cutoff about axis' = normalize(L x axis); with a mirror, L x axis still points to the
 *            side that is drawn, because mirrored instances are drawn with their front faces culled (the
 *            gpu module's rule). A non-uniform scale or a shear bends normals unevenly, so the cone no
 *            longer bounds them: for those instances the cone test is skipped (frustum only), never
 *            guessed.
 * Arithmetic: binary64, everything relative to the view's origin (the instance translation minus the
 * origin first), as the vertex shader sees positions. A GPU mirror in binary32 can disagree only for a
 * meshlet within rounding of a plane or of the cone's edge. The verdict order is frustum, then cone. */
enum {
    ORR_MESHLET_CULL_FRUSTUM = 1u << 0,
    ORR_MESHLET_CULL_CONE = 1u << 1,
    ORR_MESHLET_CULL_ALL = ORR_MESHLET_CULL_FRUSTUM | ORR_MESHLET_CULL_CONE,
};

/* A view prepared for meshlet tests (once per view). */
typedef struct orr_meshlet_view {
    double planes[5][4]; /* left, right, bottom, top, near: unit normal and offset, world-minus-origin;
                            a point p is inside where dot(normal, p) + offset >= 0 */
    orr_vec3d camera;    /* the camera position relative to the origin */
    orr_vec3d forward;   /* unit direction the camera looks along */
    orr_vec3d origin;    /* the view's binary64 origin */
    bool orthographic;   /* the projection's w does not depend on z */
    uint32_t flags;      /* ORR_MESHLET_CULL_* */
} orr_meshlet_view;

/* From a draw view (its origin, view and projection; its `cull` and layer mask are not looked at). */
void orr_draw_meshlet_view_init(const orr_draw_view *view, uint32_t flags, orr_meshlet_view *out);

/* An instance prepared for meshlet tests in one view (once per instance and view: what a task shader
 * works out once per workgroup). */
typedef struct orr_meshlet_instance {
    orr_affine3d pose;   /* the instance's world pose with the view's origin subtracted from its translation */
    double radius_scale; /* an upper bound of how much the linear part L stretches a length: the square
                            root of the largest row sum of |L^T L| (exact when the columns are
                            orthogonal: scales, then a rotation) */
    bool cone;           /* the cone test applies (L a similarity, single-sided material, flag set) */
} orr_meshlet_instance;

void orr_draw_meshlet_instance_init(const orr_meshlet_view *view, const orr_affine3d *world, bool double_sided,
                               orr_meshlet_instance *out);

/* Whether the linear part of a pose is a similarity as the cone test requires (see above). */
bool orr_draw_meshlet_pose_similar(const orr_affine3d *world);

typedef enum orr_meshlet_verdict {
    ORR_MESHLET_VISIBLE = 0,
    ORR_MESHLET_FRUSTUM_CULLED = 1,
    ORR_MESHLET_CONE_CULLED = 2,
} orr_meshlet_verdict;

orr_meshlet_verdict orr_draw_meshlet_classify(const orr_meshlet_view *view, const orr_meshlet_instance *instance,
                                         const orr_meshlet_bounds *bounds);

static inline bool orr_draw_meshlet_visible(const orr_meshlet_view *view, const orr_meshlet_instance *instance,
                                       const orr_meshlet_bounds *bounds)
{
    return orr_draw_meshlet_classify(view, instance, bounds) == ORR_MESHLET_VISIBLE;
}

/* How a surface draw is drawn by the meshlet strategy. */
typedef enum orr_meshlet_path {
    ORR_MESHLET_PATH_MESHLETS = 0,    /* its primitive's meshlets, culled one by one */
    ORR_MESHLET_PATH_SKINNED = 1,     /* the indexed path: skinning moves vertices out of the bind-pose bounds */
    ORR_MESHLET_PATH_NO_MESHLETS = 2, /* the indexed path: the primitive has no meshlets (mesh built without) */
} orr_meshlet_path;

/* One surface draw under the meshlet strategy. */
typedef struct orr_meshlet_draw {
    uint32_t draw;           /* the surface draw: index into orr_draw_list.draws, or into
                                orr_draw_visible.items for orr_draw_meshlet_cull_visible */
    uint32_t instance;       /* snapshot instance index */
    orr_mesh_id mesh;
    uint32_t primitive;
    orr_material_id material;
    uint32_t meshlet_offset; /* the primitive's meshlets in orr_mesh.meshlets: what a task shader is sent */
    uint32_t meshlet_count;  /* 0 on the indexed paths */
    uint32_t first;          /* survivors: orr_meshlet_list.visible[first .. first + count), ascending */
    uint32_t count;
    uint32_t triangles_sent; /* of the sent meshlets (on the indexed paths: of the primitive) */
    uint32_t triangles_kept; /* of the survivors (on the indexed paths: of the primitive) */
    uint8_t path;            /* orr_meshlet_path */
    uint8_t cone;            /* the cone test applied (orr_meshlet_instance.cone) */
} orr_meshlet_draw;

typedef struct orr_meshlet_stats {
    uint32_t draws;               /* surface draws of the mesh payload (other payloads have their adapters) */
    uint32_t meshlet_draws;       /* of them drawn by meshlets */
    uint32_t indexed_skinned;     /* drawn by the indexed path because they are skinned */
    uint32_t indexed_no_meshlets; /* drawn by the indexed path because the primitive has no meshlets */
    uint32_t cone_skipped;        /* meshlet draws without the cone test (double-sided material, a pose that
                                     is not a similarity, or the flag off) */
    uint32_t stale;               /* draws whose mesh or primitive is not in the assets: skipped (a list
                                     prepared with other assets: misuse) */
    uint64_t meshlets_sent, meshlets_kept, frustum_culled, cone_culled;
    uint64_t triangles_sent;      /* in the sent meshlets */
    uint64_t triangles_kept;      /* in the survivors: what reaches the rasteriser */
    uint64_t triangles_indexed;   /* drawn by the indexed paths */
} orr_meshlet_stats;

/* The CPU reference of the meshlet strategy for one view. Owns its arrays and reuses them. */
typedef struct orr_meshlet_list {
    orr_allocator allocator;
    orr_meshlet_draw *draws;   /* in drawing order */
    uint32_t draw_count, draw_capacity;
    uint32_t *visible;         /* mesh-wide meshlet indices (into orr_mesh.meshlets) of the survivors */
    uint32_t visible_count, visible_capacity;
    orr_meshlet_stats stats;
} orr_meshlet_list;

void orr_draw_meshlet_list_init(orr_meshlet_list *list, const orr_allocator *allocator);
void orr_draw_meshlet_list_fini(orr_meshlet_list *list);

/* For the draws of a list prepared by orr_draw_prepare from this snapshot, assets and view: every draw of
 * the mesh payload, in the list's order, with its meshlets culled by orr_draw_meshlet_classify (flags:
 * ORR_MESHLET_CULL_*). Fails only when memory runs out. */
orr_result orr_draw_meshlet_cull_list(orr_meshlet_list *out, const orr_draw_list *list, const orr_snapshot *snapshot,
                                 const orr_assets *assets, const orr_draw_view *view, uint32_t flags);
/* The same for a retained scene's cull (orr_draw_scene_cull of this snapshot and view), in the ranges'
 * order; `draw` indexes visible->items. */
orr_result orr_draw_meshlet_cull_visible(orr_meshlet_list *out, const orr_draw_scene *scene, const orr_draw_visible *visible,
                                    const orr_snapshot *snapshot, const orr_assets *assets, const orr_draw_view *view,
                                    uint32_t flags);

/* ---- the fur adapter --------------------------------------------------------------------------- */
/* The submission adapter of ORR_PAYLOAD_FUR: the fur surfaces of a view's custom pass, each with the
 * parameters it is drawn with (the material's orr_fur, overridden by the instance's sidecar entry) and
 * grouped into batches of one mesh primitive, material, skinning and handedness, for the shell
 * strategy: per record, {instance, material} through a push constant and an instanced draw of
 * shell_count instances (the shader's instance index is the shell index). */
typedef struct orr_fur_draw {
    uint32_t draw;           /* the surface draw: index into orr_draw_list.draws or orr_draw_visible.items */
    uint32_t instance;       /* snapshot instance index */
    uint32_t instance_id;
    uint32_t sidecar;        /* index into orr_snapshot.fur */
    orr_mesh_id mesh;
    uint32_t primitive;
    orr_material_id material;
    uint32_t shell_count;    /* 1..ORR_FUR_MAX_SHELLS */
    float shell_length;      /* metres */
    float density;
    float thinning;
    orr_texture_id noise;    /* the material's */
    uint8_t skinned;
    uint8_t mirrored;
} orr_fur_draw;

/* Fur draws [first, first + count) of orr_fur_list.draws, with one mesh primitive, material, skinning and
 * handedness (one pipeline and material binding). */
typedef struct orr_fur_batch {
    uint32_t first, count;
    orr_mesh_id mesh;
    uint32_t primitive;
    orr_material_id material;
    uint8_t skinned;
    uint8_t mirrored;
} orr_fur_batch;

typedef struct orr_fur_stats {
    uint32_t draws;     /* fur draws */
    uint32_t batches;
    uint64_t shells;    /* sum of the shell counts */
    uint64_t triangles; /* shells x triangles of their primitives */
    uint32_t stale;     /* fur surfaces whose sidecar entry, material or mesh is gone (a list prepared from
                           another snapshot or assets: misuse): skipped */
} orr_fur_stats;

typedef struct orr_fur_list {
    orr_allocator allocator;
    orr_fur_draw *draws;       /* in the custom pass's order */
    uint32_t draw_count, draw_capacity;
    orr_fur_batch *batches;
    uint32_t batch_count, batch_capacity;
    orr_fur_stats stats;
} orr_fur_list;

void orr_draw_fur_list_init(orr_fur_list *list, const orr_allocator *allocator);
void orr_draw_fur_list_fini(orr_fur_list *list);

/* The fur draws of a list prepared by orr_draw_prepare from this snapshot and these assets. Fails only
 * when memory runs out. */
orr_result orr_draw_fur_collect(orr_fur_list *out, const orr_draw_list *list, const orr_snapshot *snapshot,
                                const orr_assets *assets);
/* The same from a retained scene's cull (orr_draw_scene_cull of this snapshot). */
orr_result orr_draw_fur_collect_visible(orr_fur_list *out, const orr_draw_scene *scene, const orr_draw_visible *visible,
                                        const orr_snapshot *snapshot, const orr_assets *assets);

/* The instance's fur sidecar entry (its index in snapshot->fur), or UINT32_MAX when it has none. The
 * sidecar must be in the snapshot's order (orr_render_fur); entries with bad values count as none. */
uint32_t orr_draw_fur_entry(const orr_snapshot *snapshot, uint32_t instance);

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
