/* Orrery world: the authoritative scene. Entities with generations, one dense node table holding the
 * binary64 transform hierarchy, and sparse-set component pools.
 *
 * Data flow: the host (or a session's systems) creates entities and edits transforms and components;
 * orr_world_update_transforms propagates world matrices through dirty subtrees only; the frame module
 * extracts a snapshot from it. The renderer never sees a world.
 *
 * Ownership and lifetime:
 *   - Every call taking an orr_entity checks it; a stale handle returns ORR_ERROR_STALE_HANDLE (or
 *     NULL / false) and touches nothing.
 *   - Pointers returned by get/edit/try_get are the world's and valid until the next structural change
 *     of that component pool (add or remove of that type, orr_component_reserve of it, destroy, clone).
 *   - orr_entity_cached_world copies the world matrix that the last orr_world_update_transforms left
 *     (the world stores it as an affine 3x4, so there is no pointer to hand out).
 *   - Structural changes (create, destroy, reparent, set_sibling_index, add or remove a component,
 *     clone, reserve) while a query or subtree iteration is live are caught by a debug assert; value edits
 *     (transforms, orr_component_edit) are allowed. Collect entities first, change them after _end.
 *   - A world is used by one thread at a time, const calls included (iteration guards
 *     write per-world state).
 *
 * Traversal order everywhere is pre-order: roots in order, children in order.
 *
 * Performance contract: the node table is kept in pre-order (re-ordered in place, lazily, once enough
 * structural changes have scattered it), so propagation runs over contiguous ranges; an update in
 * which nothing is dirty returns at once; only subtrees under changed nodes are recomputed. Creating
 * into reserved room (orr_world_desc.reserve, orr_world_reserve, orr_component_reserve) grows no
 * table and touches no fresh memory, so it costs only the world's own work.
 *
 * Memory per entity with a MeshRenderer, reserved exactly: about 241 bytes (node table 197: local TRS
 * 80, world matrix 96 (affine 3x4), links, index and flags 21; entity index tables 12: slot, generation
 * and the handle pool's free heap; MeshRenderer pool 32: the 16-byte component and its 8-byte list
 * pointer, its entity, its sparse index and bits). Without a reserve the tables grow by doubling, so a
 * world holds up to twice that just after a growth (253 bytes at one million). Variable-length data costs what it holds: a SkinnedMesh is 24 bytes in
 * its pool plus 8 bytes a joint and an 8-byte head for its joint list; material overrides 8 bytes a
 * slot (none: nothing); a name its length + 9 bytes and 16 in the Name pool.
 */
#ifndef ORRERY_WORLD_H
#define ORRERY_WORLD_H

#include <orrery/assets.h>
#include <orrery/core.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct orr_world orr_world;

/* Defaults (zero-initialised): libc allocator, no logger, no capacity limit, nothing reserved, per-frame
 * passes on threads of the world's own (one per core), started when a pass first has 1024 items. */
typedef struct orr_world_desc {
    orr_allocator allocator;
    orr_logger logger;
    uint32_t entity_capacity; /* 0 = unlimited; create beyond it fails with ORR_ERROR_CAPACITY */
    uint32_t reserve;         /* entities to reserve room for at creation (orr_world_reserve); 0 = none */
    /* Threads for the per-frame passes (propagation here, extraction in orrery/frame.h): */
    orr_workers *workers;   /* the host's, borrowed (they outlive the world); NULL: the world starts
                             * threads of its own the first time a pass has enough work */
    uint32_t threads;       /* at most this many, the calling thread among them; 0: the workers' count,
                             * or one per core; 1: the calling thread only */
    uint32_t parallel_from; /* items a pass has before it is shared out; 0: 1024 (a frame of 50 changes
                             * wakes no thread). Results never depend on it or on the thread count */
} orr_world_desc;

orr_result orr_world_create(const orr_world_desc *desc, orr_world **out, orr_error *err);
void orr_world_destroy(orr_world *world); /* NULL is a no-op */
const orr_error *orr_world_last_error(const orr_world *world);

/* Allocates room for `count` entities in all (at most entity_capacity: node table, handle and index
 * tables) and writes it once, so that creating entities up to that count grows none of those tables
 * and takes no first-touch page faults in them: the cost moves here, out of the frame or the load that
 * creates them. Never shrinks (a relinearize after mass destroys may give unused room back).
 * ORR_ERROR_OUT_OF_MEMORY changes no entity (some tables may have grown). Counts as a structural
 * change for iteration (it may move memory); no entity, handle or order changes. */
orr_result orr_world_reserve(orr_world *world, uint32_t count);

/* ---- transforms --------------------------------------------------------------------------- */

/* Local transform: T x R x S, then the optional matrix (glTF node matrix) applied after TRS:
 * local = T x R x S x matrix. */
typedef struct orr_transform {
    orr_vec3d translation; /* default 0 */
    orr_quatd rotation;    /* default identity (x y z w = 0 0 0 1) */
    orr_vec3d scale;       /* default 1 1 1 */
    bool has_matrix;
    orr_mat4d matrix;      /* used only when has_matrix; kept as given (get_local returns it) */
} orr_transform;
/* World matrices are affine: each is parent world x local with its last row then set to 0 0 0 1, so a
 * local matrix whose last row is not 0 0 0 1 (glTF forbids them; the loader warns) is not carried
 * down the hierarchy. The renderer takes only the first three rows in any case. */

orr_transform orr_transform_identity(void);
void orr_transform_to_matrix(const orr_transform *t, orr_mat4d *dest);

/* ---- entities and hierarchy --------------------------------------------------------------- */

typedef struct orr_entity_desc {
    const char *name;      /* NULL = no Name component */
    orr_entity parent;     /* none = a root, appended last */
    const orr_transform *local; /* NULL = identity */
} orr_entity_desc;

orr_result orr_entity_create(orr_world *world, const orr_entity_desc *desc, orr_entity *out);
/* Destroys the entity and its whole subtree, in post-order. */
orr_result orr_entity_destroy(orr_world *world, orr_entity entity);
bool orr_entity_is_alive(const orr_world *world, orr_entity entity);
uint32_t orr_world_entity_count(const orr_world *world);

typedef enum orr_parent_mode {
    ORR_KEEP_WORLD = 0, /* default: local = inverse(parent world) x world */
    ORR_KEEP_LOCAL = 1,
} orr_parent_mode;

/* The child becomes the last child of `parent` (none = a root appended last). Self or a descendant:
 * ORR_ERROR_CYCLE, nothing changes. ORR_KEEP_WORLD with a singular parent world matrix:
 * ORR_ERROR_INVALID_ARGUMENT, nothing changes. A kept world pose that needs shear is stored as the
 * local matrix (TRS identity). */
orr_result orr_entity_set_parent(orr_world *world, orr_entity child, orr_entity parent, orr_parent_mode mode);
/* Moves the entity to position `index` among its siblings (past the end = last). Structural. */
orr_result orr_entity_set_sibling_index(orr_world *world, orr_entity entity, uint32_t index);
orr_entity orr_entity_parent(const orr_world *world, orr_entity entity); /* none for roots or stale */
orr_entity orr_entity_first_child(const orr_world *world, orr_entity entity);
orr_entity orr_entity_next_sibling(const orr_world *world, orr_entity entity);
orr_entity orr_entity_last_child(const orr_world *world, orr_entity entity);
orr_entity orr_entity_prev_sibling(const orr_world *world, orr_entity entity);
uint32_t orr_entity_child_count(const orr_world *world, orr_entity entity);
/* Children in order; writes up to max, returns the total (0 when stale). */
uint32_t orr_entity_children(const orr_world *world, orr_entity entity, orr_entity *out, uint32_t max);
/* Position among its siblings (roots count as siblings); UINT32_MAX when stale. */
uint32_t orr_entity_sibling_index(const orr_world *world, orr_entity entity);
/* Roots in order; writes up to max, returns the total. */
uint32_t orr_world_roots(const orr_world *world, orr_entity *out, uint32_t max);
/* "a/b/c" by Name, starting below root (root none = among the roots); at each level the first child
 * in order with that name; empty segments are skipped. none when absent. */
orr_entity orr_world_find(const orr_world *world, orr_entity root, const char *path);

/* Pre-order iteration over a subtree (root included); root none = the whole world.
 *   orr_subtree_iter it; orr_subtree_begin(world, root, &it);
 *   for (orr_entity e; orr_subtree_next(&it, &e);) { ... }
 *   orr_subtree_end(&it);  -- releases the iteration guard */
typedef struct orr_subtree_iter {
    const orr_world *world;
    uint32_t root, next; /* entity indices; UINT32_MAX = done */
    bool whole_world;
    bool live;           /* holds the iteration guard; released by the last next() or by end() */
} orr_subtree_iter;
void orr_subtree_begin(const orr_world *world, orr_entity root, orr_subtree_iter *it);
bool orr_subtree_next(orr_subtree_iter *it, orr_entity *out);
void orr_subtree_end(orr_subtree_iter *it);

/* ---- transform access --------------------------------------------------------------------- */

/* Poses enter finite: a NaN or infinite translation, rotation, scale or matrix element given to the
 * setters below, to orr_entity_create's local or to orr_entity_set_world_matrix is refused with
 * ORR_ERROR_INVALID_ARGUMENT naming the value, and nothing changes (a batch is checked whole first).
 * Finite poses whose products overflow binary64 further down the hierarchy are not refused here: the
 * renderer cannot place such an instance (orrery render warns and counts it as far_instances). */
/* The local transform, copied into *out (identity and ORR_ERROR_STALE_HANDLE when stale). The world
 * stores locals compactly (TRS densely, the optional matrix aside), so there is no pointer to hand out. */
orr_result orr_entity_get_local(const orr_world *world, orr_entity entity, orr_transform *out);
orr_result orr_entity_set_local(orr_world *world, orr_entity entity, const orr_transform *local);
orr_result orr_entity_set_translation(orr_world *world, orr_entity entity, orr_vec3d translation);
orr_result orr_entity_set_rotation(orr_world *world, orr_entity entity, orr_quatd rotation);
orr_result orr_entity_set_scale(orr_world *world, orr_entity entity, orr_vec3d scale);
/* Propagates lazily: the world matrix is recomputed along the dirty ancestors first. */
orr_result orr_entity_world_matrix(orr_world *world, orr_entity entity, orr_mat4d *out);
/* Sets the local transform so that the world matrix becomes `world_matrix` (shear kept as matrix). */
orr_result orr_entity_set_world_matrix(orr_world *world, orr_entity entity, const orr_mat4d *world_matrix);
/* Recomputes the world matrices of dirty subtrees only; a frame in which nothing moved is O(1). In a
 * table in pre-order, many dirty subtrees (or every node) are recomputed on several threads
 * (orr_world_desc.threads), with the same results and the same change log as on one. */
void orr_world_update_transforms(orr_world *world);
/* Changes the threads of orr_world_desc (workers NULL: the world's own, started when first needed). */
void orr_world_set_threads(orr_world *world, orr_workers *workers, uint32_t threads, uint32_t parallel_from);
/* For a per-frame pass of `items` items over this world (extraction): how many threads it may use (1:
 * stay on the calling thread) and, when more than 1, the workers to run it on (*workers; NULL there
 * means the caller starts its own). Starts the world's own workers the first time they are needed. */
uint32_t orr_world_pass_threads(orr_world *world, uint32_t items, orr_workers **workers);
/* Marks every node dirty, so the next update recomputes every world matrix. */
void orr_world_invalidate_transforms(orr_world *world);
/* The world matrix as of the last orr_world_update_transforms (no propagation: for readers that ran
 * the update, such as frame extraction), copied into *out; its last row is 0 0 0 1. Identity and
 * ORR_ERROR_STALE_HANDLE when stale. Before the first update of a new entity: identity. */
orr_result orr_entity_cached_world(const orr_world *world, orr_entity entity, orr_mat4d *out);
/* The same as an affine 3x4, the form the world stores it in (no conversion). */
orr_result orr_entity_cached_pose(const orr_world *world, orr_entity entity, orr_affine3d *out);
/* Batches: the same as one call per entity, in order, but faster for entities scattered over a large
 * world (a batch fetches the memory of the entities ahead while it does one). A stale entity is
 * skipped (its pose out: identity) and the call returns ORR_ERROR_STALE_HANDLE; the set names the
 * first stale one in the world's last error. */
orr_result orr_entity_set_translations(orr_world *world, const orr_entity *entities, const orr_vec3d *translations,
                                       uint32_t count);
orr_result orr_entity_cached_poses(const orr_world *world, const orr_entity *entities, uint32_t count,
                                   orr_affine3d *out);

/* ---- components --------------------------------------------------------------------------- */

typedef uint32_t orr_component_type;

/* Built-in component types have fixed ids; user types are registered after them. */
enum {
    ORR_COMPONENT_NAME = 0,
    ORR_COMPONENT_MESH_RENDERER = 1,
    ORR_COMPONENT_SKINNED_MESH = 2,
    ORR_COMPONENT_LIGHT = 3,
    ORR_COMPONENT_CAMERA = 4,
    ORR_COMPONENT_ANIMATION_PLAYER = 5,
    ORR_COMPONENT_FUR = 6,
    ORR_COMPONENT_MORPH_WEIGHTS = 7,
    ORR_COMPONENT_BUILTIN_COUNT = 8,
};

/* Variable-length data. A component's lists (a MeshRenderer's material overrides, a SkinnedMesh's
 * joints, an AnimationPlayer's targets) and an entity's Name are stored by the world beside the
 * component, in an allocation of exactly their size, and have no fixed limit: they are not fields of
 * the structs below (which add, edit and get copy or hand out as before) but are set and read through
 * the calls after them. What follows holds for every one of them:
 *   - set copies the caller's array (any length; 0 empties it) and replaces the whole list; on
 *     ORR_ERROR_OUT_OF_MEMORY the old list stands and nothing changed. A stale entity is
 *     ORR_ERROR_STALE_HANDLE, an entity without the component ORR_ERROR_NOT_FOUND.
 *   - set is a value edit, like orr_component_edit: allowed while a query or subtree iteration is
 *     live; it marks the component dirty, and for MeshRenderer and SkinnedMesh (renderable) bumps the
 *     revision and lists the entity as edited in the change log (Name: edited too).
 *   - get returns the world's array (count written to *count, NULL-able) or NULL with count 0 when
 *     the list is empty, the entity stale or the component absent. The array stays valid until the
 *     next set of that list or the removal of its component (or the entity's destroy); other
 *     structural changes and pool moves do not move it.
 *   - orr_component_add starts a component with empty lists (init copies the struct only); clone
 *     copies the lists deeply (entity lists remapped like every entity reference); remove and destroy
 *     free them. Entity lists may hold none or stale entities (a stale joint holds the bind pose, a
 *     stale target is skipped). */

/* The Name component has no public fields: set it with orr_entity_set_name, read it with
 * orr_entity_name (any length, stored once per entity). */

/* A visibility range: a view shows the renderer only while the distance from the view's origin to the
 * centre of the renderer's box lies within [near, far], with hysteresis: once shown it hides only when
 * the distance passes a bound by more than `margin`, and once hidden it shows again only when the
 * distance is inside both bounds by more than `margin`, so that a renderer at a boundary does not
 * flicker while the camera hovers there. near 0: no near bound; far 0: no far bound (all zero: always
 * in range). Each view keeps its own state; it starts without hysteresis (within [near, far]). */
typedef struct orr_visibility_range {
    float near, far; /* metres, 0 <= near, far 0 or >= near */
    float margin;    /* metres, >= 0 */
} orr_visibility_range;

typedef struct orr_mesh_renderer {
    orr_mesh_id mesh;
    uint32_t layers;    /* layer bits; default 1 */
    bool visible;       /* default true */
    bool casts_shadows; /* default true */
    bool teleports;     /* default false: set it in the tick that makes a jump (and clear it in a later
                           one): the instance's pose changes are drawn where they land, never on the way
                           (extracted as ORR_RENDER_INSTANCE_TELEPORT, for a renderer that interpolates
                           between ticks). Per instance: give it to every instance that jumps with it. */
    orr_visibility_range range; /* default all zero: always in range */
} orr_mesh_renderer; /* material overrides: orr_mesh_renderer_set_materials */
orr_mesh_renderer orr_mesh_renderer_default(void);

typedef struct orr_skinned_mesh {
    orr_skin_id skin;
} orr_skinned_mesh; /* joints: orr_skinned_mesh_set_joints */

typedef struct orr_light {
    orr_light_type type;
    float color[3];  /* linear; default 1 1 1 */
    float intensity; /* lux for directional, candela for point and spot */
    float range;     /* 0 = infinite */
    float inner_cone, outer_cone; /* radians, spot only; default 0 and pi/4 */
    bool enabled;    /* default true */
    bool casts_shadows; /* default true (glTF lights too): in a view with shadows on (orr_shadow_settings)
                           the light casts: cascaded maps (directional), one map (spot) or a cube (point) */
} orr_light;
orr_light orr_light_default(void); /* point light */

typedef struct orr_camera {
    orr_projection projection;
    double yfov;         /* radians, perspective; default 0.8 */
    double aspect;       /* 0 = the view's aspect */
    double xmag, ymag;   /* orthographic half extents */
    double znear;        /* default 0.05 */
    double zfar;         /* 0 = infinite */
} orr_camera;
orr_camera orr_camera_default(void);

typedef struct orr_animation_player {
    orr_clip_id clip;
    bool loop;   /* default true */
    double speed; /* default 1 */
    double start_time; /* seconds of clip time at tick 0 */
} orr_animation_player; /* targets: orr_animation_player_set_targets */
orr_animation_player orr_animation_player_default(void);

/* Fur (renderable): the entity's MeshRenderer surfaces whose material shades fur (ORR_SHADING_FUR) are
 * drawn as fur shells; without this component they are drawn as plain surfaces (and counted, see
 * orr_draw_stats.fur_fallbacks). The values named in `set` (ORR_FUR_SET_*, orrery/assets.h)
 * override the material's orr_fur for this entity alone; zero-initialised (the default): none, the
 * material's look. Extraction copies it into the snapshot's fur sidecar (orr_render_fur) for the
 * entity's instance, values as they are: an entry with a value outside orr_fur's ranges is ignored by
 * the draw module and counted (ORR_DROP_SIDECAR), the instance then drawn as if it had none. Adding or
 * removing it is structural; an edit is a value edit, like one of a MeshRenderer. */
typedef struct orr_fur_instance {
    uint32_t set;         /* ORR_FUR_SET_* bits: which values below override the material's */
    uint32_t shell_count; /* 1..ORR_FUR_MAX_SHELLS */
    float shell_length;   /* metres, finite, >= 0 */
    float density;        /* finite, > 0 */
    float thinning;       /* 0..1 */
} orr_fur_instance;

/* MorphWeights (renderable): the morph target weights of the entity's MeshRenderer mesh, overriding the
 * mesh's default weights (orr_mesh.weights); a list shorter than the mesh's targets takes the mesh's
 * defaults past its end, an entity without the component (or with an empty list) draws the defaults.
 * No public fields: set with orr_morph_weights_set (which adds the component when absent, a structural
 * change like adding any renderable component) or orr_morph_weights_write, read with orr_morph_weights.
 * The glTF loader gives one to every node whose mesh has morph targets (the node's `weights`, else the
 * mesh's); animation channels of path weights write it. */
orr_result orr_morph_weights_set(orr_world *world, orr_entity entity, const float *weights, uint32_t count);
/* Writes weights[0..count) at entries [first, first + count) of an existing list (growing it with zeros
 * when it is shorter): a value edit, allowed while a query is live; the entity is logged as edited (and
 * the revision bumps) only when a value changed (compared bit for bit). ORR_ERROR_NOT_FOUND when the
 * entity has no MorphWeights component. */
orr_result orr_morph_weights_write(orr_world *world, orr_entity entity, uint32_t first, const float *weights,
                                   uint32_t count);
const float *orr_morph_weights(const orr_world *world, orr_entity entity, uint32_t *count);

/* Material overrides, one per primitive slot from 0: a none entry, or a slot past the count, draws
 * the primitive's own material. set_material sets one slot, growing the list with none entries up to
 * it (slot UINT32_MAX is ORR_ERROR_INVALID_ARGUMENT). */
orr_result orr_mesh_renderer_set_materials(orr_world *world, orr_entity entity, const orr_material_id *materials,
                                           uint32_t count);
orr_result orr_mesh_renderer_set_material(orr_world *world, orr_entity entity, uint32_t slot, orr_material_id material);
const orr_material_id *orr_mesh_renderer_materials(const orr_world *world, orr_entity entity, uint32_t *count);
/* Joint entities: joint j of the skin is joints[j]; an instance draws with min(count, the skin's joint
 * count) joints. */
orr_result orr_skinned_mesh_set_joints(orr_world *world, orr_entity entity, const orr_entity *joints, uint32_t count);
const orr_entity *orr_skinned_mesh_joints(const orr_world *world, orr_entity entity, uint32_t *count);
/* Animation targets: channel target i of the clip animates targets[i]. */
orr_result orr_animation_player_set_targets(orr_world *world, orr_entity entity, const orr_entity *targets,
                                            uint32_t count);
const orr_entity *orr_animation_player_targets(const orr_world *world, orr_entity entity, uint32_t *count);

/* User component types. copy NULL = memcpy; destroy NULL = nothing; remap rewrites entity references
 * inside a cloned component (map returns the clone of an entity inside the subtree, or the entity
 * itself when it lies outside). */
typedef orr_entity (*orr_entity_map_fn)(void *map_user, orr_entity entity);
typedef struct orr_component_desc {
    const char *name;
    uint32_t size;
    uint32_t alignment; /* <= 16 */
    void (*copy)(void *dst, const void *src, void *user);
    void (*destroy)(void *component, void *user);
    void (*remap)(void *component, orr_entity_map_fn map, void *map_user, void *user);
    void *user;
    bool renderable; /* add/remove bumps the structure version */
} orr_component_desc;

/* Names must be unique within a world (a duplicate is ORR_ERROR_INVALID_ARGUMENT); alignment 0 = 8. */
orr_result orr_world_register_component(orr_world *world, const orr_component_desc *desc, orr_component_type *out);
/* The type registered under `name` (built-ins: "Name", "MeshRenderer", "SkinnedMesh", "Light", "Camera",
 * "AnimationPlayer", "Fur", "MorphWeights"); ORR_ERROR_NOT_FOUND when none. */
orr_result orr_world_find_component(const orr_world *world, const char *name, orr_component_type *out);
const char *orr_world_component_name(const orr_world *world, orr_component_type type); /* "" when unknown */
uint32_t orr_world_component_count(const orr_world *world, orr_component_type type);   /* entities that have it */

/* Room for `count` components of `type` in all, and its entity index made to cover every entity index
 * below the larger of `count` and the world's reserved entity count, all written once: adding up to
 * that many then grows none of the pool's tables and takes no first-touch page faults. Never shrinks.
 * Moves the pool's components (pointers to them go stale, as after an add). ORR_ERROR_OUT_OF_MEMORY
 * leaves the components as they were; ORR_ERROR_INVALID_ARGUMENT when the type is not registered. */
orr_result orr_component_reserve(orr_world *world, orr_component_type type, uint32_t count);

/* add: `init` copied (through the type's copy hook when it has one), or, when init is NULL, the
 * type's default: orr_mesh_renderer_default, orr_light_default, orr_camera_default,
 * orr_animation_player_default for those built-ins, zero for the others and for user types.
 * Fails if present. */
orr_result orr_component_add(orr_world *world, orr_entity entity, orr_component_type type, const void *init, void **out);
orr_result orr_component_remove(orr_world *world, orr_entity entity, orr_component_type type);
bool orr_component_has(const orr_world *world, orr_entity entity, orr_component_type type);
/* get: must exist (debug assert). try_get: NULL when absent or stale. edit marks the component dirty. */
const void *orr_component_get(const orr_world *world, orr_entity entity, orr_component_type type);
const void *orr_component_try_get(const orr_world *world, orr_entity entity, orr_component_type type);
void *orr_component_edit(orr_world *world, orr_entity entity, orr_component_type type);
/* Dirty = added or edited since the last orr_component_clear_dirty of its type. */
bool orr_component_is_dirty(const orr_world *world, orr_entity entity, orr_component_type type);
void orr_component_clear_dirty(orr_world *world, orr_component_type type);
/* The first entity in pre-order of root's subtree (root included; none = the whole world) that has
 * the component; none when there is none. */
orr_entity orr_world_find_in_subtree(const orr_world *world, orr_entity root, orr_component_type type);

/* Typed access to the built-in components with fields (Name and MorphWeights have none: see their
 * calls). T_try_get: the entity's component, NULL when it has none or is stale; the pointer stays
 * valid until the next structural change of the world (an add, remove, destroy or clone). T_edit:
 * the same, writable, and marks the component dirty and logs the edit (orr_component_edit). Host
 * components go through the untyped orr_component_try_get / orr_component_edit with their type. */
static inline const orr_mesh_renderer *orr_mesh_renderer_try_get(const orr_world *world, orr_entity entity)
{
    return (const orr_mesh_renderer *)orr_component_try_get(world, entity, ORR_COMPONENT_MESH_RENDERER);
}
static inline orr_mesh_renderer *orr_mesh_renderer_edit(orr_world *world, orr_entity entity)
{
    return (orr_mesh_renderer *)orr_component_edit(world, entity, ORR_COMPONENT_MESH_RENDERER);
}
static inline const orr_skinned_mesh *orr_skinned_mesh_try_get(const orr_world *world, orr_entity entity)
{
    return (const orr_skinned_mesh *)orr_component_try_get(world, entity, ORR_COMPONENT_SKINNED_MESH);
}
static inline orr_skinned_mesh *orr_skinned_mesh_edit(orr_world *world, orr_entity entity)
{
    return (orr_skinned_mesh *)orr_component_edit(world, entity, ORR_COMPONENT_SKINNED_MESH);
}
static inline const orr_light *orr_light_try_get(const orr_world *world, orr_entity entity)
{
    return (const orr_light *)orr_component_try_get(world, entity, ORR_COMPONENT_LIGHT);
}
static inline orr_light *orr_light_edit(orr_world *world, orr_entity entity)
{
    return (orr_light *)orr_component_edit(world, entity, ORR_COMPONENT_LIGHT);
}
static inline const orr_camera *orr_camera_try_get(const orr_world *world, orr_entity entity)
{
    return (const orr_camera *)orr_component_try_get(world, entity, ORR_COMPONENT_CAMERA);
}
static inline orr_camera *orr_camera_edit(orr_world *world, orr_entity entity)
{
    return (orr_camera *)orr_component_edit(world, entity, ORR_COMPONENT_CAMERA);
}
static inline const orr_animation_player *orr_animation_player_try_get(const orr_world *world, orr_entity entity)
{
    return (const orr_animation_player *)orr_component_try_get(world, entity, ORR_COMPONENT_ANIMATION_PLAYER);
}
static inline orr_animation_player *orr_animation_player_edit(orr_world *world, orr_entity entity)
{
    return (orr_animation_player *)orr_component_edit(world, entity, ORR_COMPONENT_ANIMATION_PLAYER);
}
static inline const orr_fur_instance *orr_fur_instance_try_get(const orr_world *world, orr_entity entity)
{
    return (const orr_fur_instance *)orr_component_try_get(world, entity, ORR_COMPONENT_FUR);
}
static inline orr_fur_instance *orr_fur_instance_edit(orr_world *world, orr_entity entity)
{
    return (orr_fur_instance *)orr_component_edit(world, entity, ORR_COMPONENT_FUR);
}

/* Adds the Name component when absent; any length (NULL = ""), copied. Logged as an edit. The string
 * orr_entity_name returns is the world's, valid until the next set_name of that entity or the removal
 * of its Name. */
orr_result orr_entity_set_name(orr_world *world, orr_entity entity, const char *name);
const char *orr_entity_name(const orr_world *world, orr_entity entity); /* "" when none or stale */

/* Queries over one or more component types, in ascending entity index:
 *   orr_query q; orr_query_begin(world, types, n, &q);
 *   while (orr_query_next(&q)) { q.entity; q.components[0] ... }
 *   orr_query_end(&q); */
#define ORR_QUERY_MAX_TYPES 8
typedef struct orr_query {
    orr_world *world;
    orr_component_type types[ORR_QUERY_MAX_TYPES];
    uint32_t type_count;
    uint32_t cursor;
    orr_entity entity;                      /* current entity */
    void *components[ORR_QUERY_MAX_TYPES];  /* current components, in `types` order */
    bool live;                              /* holds the iteration guard; released when next() returns false or by end() */
} orr_query;
void orr_query_begin(orr_world *world, const orr_component_type *types, uint32_t type_count, orr_query *q);
bool orr_query_next(orr_query *q);
void orr_query_end(orr_query *q);

/* ---- clone -------------------------------------------------------------------------------- */

/* Deep copy of `root`'s subtree from `source` (may be `world` itself) under `parent`, with `local`
 * (NULL = the source root's local). Resource ids are shared; entity references inside the subtree are
 * remapped, those outside are kept (across worlds: outside references become none). */
orr_result orr_world_clone(orr_world *world, const orr_world *source, orr_entity root, orr_entity parent,
                           const orr_transform *local, orr_entity *out);

/* ---- revisions ---------------------------------------------------------------------------- */

/* Bumps on create, destroy, reparent, set_sibling_index, and add or remove of a renderable component
 * (MeshRenderer, SkinnedMesh, Light, Camera, Fur, MorphWeights, user types registered renderable). */
uint64_t orr_world_structure_version(const orr_world *world);
/* Bumps when a pose (set_local and friends, set_world_matrix), visibility, mesh or material binding
 * changes (orr_component_edit of a renderable type), and with every structure version bump. */
uint64_t orr_world_revision(const orr_world *world);

/* ---- change log --------------------------------------------------------------------------- */

/* What changed for a reader of the world (frame extraction) since the last orr_world_clear_changes:
 *   moved   every entity whose world matrix orr_world_update_transforms recomputed;
 *   edited  every entity whose renderable component (MeshRenderer, SkinnedMesh, Light, Camera, Fur,
 *           MorphWeights, user types registered renderable) was edited through orr_component_edit, or whose Name was
 *           added, edited or removed (adding or removing a renderable component is structural).
 * Each entity index is listed at most once per list, in the order first seen (deterministic); a
 * destroyed entity's index may stay listed. Writes through a pointer kept from an earlier
 * orr_component_edit are not seen: call edit for each change. `all` set: the structure changed (see
 * orr_world_structure_version), a list could not grow, or every transform was recomputed at once
 * (orr_world_invalidate_transforms); every entity counts as changed and the lists are incomplete
 * (nothing is listed from then on until the clear). `epoch` counts the clears. The arrays are the world's, valid
 * until the next change or clear. */
typedef struct orr_world_changes {
    const uint32_t *moved;  /* entity indices */
    uint32_t moved_count;
    const uint32_t *edited; /* entity indices */
    uint32_t edited_count;
    bool all;
    uint64_t epoch;
} orr_world_changes;
orr_world_changes orr_world_get_changes(const orr_world *world);
/* Empties the log. Its one reader calls this after reading it (orr_extractor_update does; a session
 * with the dedicated-server profile clears it every frame). */
void orr_world_clear_changes(orr_world *world);

/* Bytes the world holds through its allocator (node table, pools, side tables). */
size_t orr_world_memory_bytes(const orr_world *world);

#ifdef __cplusplus
}
#endif
#endif /* ORRERY_WORLD_H */
