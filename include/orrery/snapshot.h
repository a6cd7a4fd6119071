/* Orrery render snapshot: what one presented frame hands to the renderer, as a value.
 *
 * The snapshot module (this header, its own library: the replay component of the installed package)
 * owns the snapshot types and what can be done with a snapshot without a world: init, fini, copy,
 * equality, a diff by instance id, and the recording format (orrery/snapshot.h, below: a file of
 * snapshots with the resources they draw). It depends on core and asset ids only. The frame module
 * extracts snapshots from a world (orrery/frame.h); the draw and gpu modules read them; a replay host
 * reads them from a recording; none of them needs the world.
 *
 * Ownership, one rule: a snapshot owns every array it points to, allocated with its `allocator`;
 * orr_snapshot_fini frees them all (and a hand-built snapshot released with orr_snapshot_fini hands its
 * arrays over, each of its `_capacity` entries; one built on the stack and never passed to fini stays
 * the caller's). A `const orr_snapshot *` passed to a call is only read during the call. A snapshot
 * carries no GPU object and no pointer into the world, and is updated in place by the next extraction
 * (or recording read) into it. Hidden instances stay in it (visible = false) and are not submitted.
 *
 * Change tracking, for readers that keep state across frames (the renderer uploads only what changed):
 *   changed / removed   the instance ids whose data differs from the snapshot of frame `delta_base`
 *                       (new ones included), and the ids that left since then; both exact, in snapshot
 *                       order (removed: in the earlier snapshot's order). delta_base 0 = no delta: a
 *                       reader takes every instance as changed (a snapshot built by hand leaves it 0).
 *   layout_version      bumps when anything the prepared draw protocol's retained output depends on
 *                       changes: the set or order of instances, or an instance's mesh, material
 *                       bindings, skinning, shadow flag or fur entry (having one, and its being usable).
 *                       Poses, visibility, layers and fur values do not bump it.
 * A reader that saw the snapshot of frame delta_base applies the delta; any other reader starts over.
 */
#ifndef ORRERY_SNAPSHOT_H
#define ORRERY_SNAPSHOT_H

#include <orrery/assets.h>
#include <orrery/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 192 bytes, three cache lines (168 used): what a moved instance changes (its pose) and what is read with
 * it come first, in the first two lines of an array that starts on a line (the snapshot's large arrays
 * do); at 168 bytes a record would straddle four lines in every second place. */
typedef struct orr_render_instance {
    orr_affine3d world;       /* resolved binary64 pose, scale included */
    orr_entity entity;        /* diagnostic link to the world; never dereferenced by the renderer */
    uint32_t id;              /* stable instance id: the same entity keeps it while it lives */
    uint32_t joint_offset;    /* into orr_snapshot.joints */
    uint32_t joint_count;     /* 0 = not skinned */
    uint32_t layers;
    bool visible;
    bool casts_shadows;
    orr_mesh_id mesh;
    orr_aabbf bounds;         /* local bounds of the mesh as drawn: the mesh's, grown where a morph weight
                                 lies outside [0, 1] (orr_morph_target.delta_bounds) */
    uint32_t name;            /* offset of the entity's name in orr_snapshot.names */
    uint32_t material_offset; /* into orr_snapshot.material_bindings */
    uint32_t material_count;  /* override slots, one per primitive from 0; none (or past the count) =
                                 the primitive's own material */
    uint32_t weight_offset;   /* into orr_snapshot.weights (like joint_offset: a move lists the instance
                                 as changed) */
    uint32_t weight_count;    /* morph weights: one per morph target of the mesh (orr_mesh.weight_count);
                                 0 = the mesh has none */
    uint32_t reserved[4];     /* zero */
} orr_render_instance;

typedef struct orr_render_light {
    orr_entity entity;
    uint32_t name;
    orr_light_type type;
    orr_affine3d world; /* the light shines along its -Z */
    float color[3];     /* linear */
    float intensity;    /* lux (directional) or candela (point, spot) */
    float range;        /* 0 = infinite */
    float cos_inner, cos_outer;
} orr_render_light;

typedef struct orr_render_camera {
    orr_entity entity;
    uint32_t name;
    orr_affine3d world; /* camera looks along its -Z, +Y up */
    orr_projection projection;
    double yfov, aspect, xmag, ymag, znear, zfar;
} orr_render_camera;

/* The fur sidecar (payload ORR_PAYLOAD_FUR, draw module): one entry per instance that wears fur, beside
 * the common instance stream rather than in it, keyed by instance index. The entries are in the order of
 * the instances (`instance` strictly ascending, each below instance_count); a sidecar that breaks the
 * order is ignored whole, and an entry with an unknown `set` bit or a value outside orr_fur's ranges is
 * ignored, each counted as ORR_DROP_SIDECAR. An instance with an entry draws the surfaces of its fur
 * materials as fur; the entry overrides the material's values named in `set` (zero-initialised: none,
 * the material's look). Which instances have entries, and whether each entry is usable, is part of the
 * draw protocol's layout: a change there must bump layout_version, like a material binding. An entry's
 * values are the instance's data: a change there lists the instance in `changed` (extraction does both).
 * A hand-built snapshot that sets `fur` itself and is released with orr_snapshot_fini hands the array
 * over (it is freed with the snapshot's allocator, fur_capacity entries). */
typedef struct orr_render_fur {
    uint32_t instance;    /* index into orr_snapshot.instances */
    uint32_t set;         /* ORR_FUR_SET_* bits: which of the values below override the material's */
    uint32_t shell_count; /* 1..ORR_FUR_MAX_SHELLS */
    float shell_length;   /* metres, finite, >= 0 */
    float density;        /* noise repeats per texture-coordinate unit; finite, > 0 */
    float thinning;       /* 0..1 */
} orr_render_fur;

typedef struct orr_snapshot {
    uint64_t frame;    /* counts extractions, not ticks */
    uint64_t tick;     /* the simulation tick that produced it */
    uint64_t revision; /* the world revision */
    uint64_t structure_version; /* the world's */
    uint64_t layout_version;    /* see the top of this header */
    uint64_t delta_base;        /* the frame changed/removed are relative to; 0 = none */
    uint32_t instance_count;
    orr_render_instance *instances; /* pre-order: the default draw order */
    uint32_t light_count;
    orr_render_light *lights; /* enabled lights only */
    uint32_t camera_count;
    orr_render_camera *cameras;
    uint32_t joint_count;
    orr_affine3d *joints; /* per skinned instance: inverse(instance world) x joint world x inverse bind */
    uint32_t material_binding_count;
    orr_material_id *material_bindings; /* per instance, its override slots (material_offset, count) */
    uint32_t weight_count;
    float *weights; /* per morphed instance (weight_offset, weight_count): its entity's MorphWeights, the
                       mesh's default weights past their end (orrery/world.h) */
    uint32_t fur_count;
    orr_render_fur *fur; /* the fur sidecar, see orr_render_fur: extracted from the world's Fur components
                            (one entry per instance whose entity has one), copied and freed with the
                            other arrays */
    uint32_t changed_count;
    uint32_t *changed; /* instance ids, see above */
    uint32_t removed_count;
    uint32_t *removed; /* instance ids, see above */
    uint32_t names_size;
    char *names;       /* NUL-terminated names, indexed by the `name` offsets */
    uint32_t index_capacity;
    uint32_t *index_of; /* instance id -> index into instances, UINT32_MAX when absent (ids below
                           index_capacity; use orr_snapshot_find) */

    /* Storage: the arrays above are allocated with `allocator` and reused by the next extraction (or
     * copy, or recording read) into the same snapshot. Release with orr_snapshot_fini. */
    orr_allocator allocator;
    uint32_t instance_capacity, light_capacity, camera_capacity, joint_capacity, material_binding_capacity,
        changed_capacity, removed_capacity, names_capacity, fur_capacity, weight_capacity;
} orr_snapshot;

static inline const char *orr_snapshot_name(const orr_snapshot *s, uint32_t offset)
{
    return s->names && offset < s->names_size ? s->names + offset : "";
}

/* The index of instance `id` in s->instances, or UINT32_MAX when it is not in the snapshot. */
static inline uint32_t orr_snapshot_find(const orr_snapshot *s, uint32_t id)
{
    return s->index_of && id < s->index_capacity ? s->index_of[id] : UINT32_MAX;
}

/* The material an instance draws primitive `primitive` with: its override, or `own` (the primitive's). */
static inline orr_material_id orr_snapshot_material(const orr_snapshot *s, const orr_render_instance *in,
                                                    uint32_t primitive, orr_material_id own)
{
    if (primitive < in->material_count && in->material_offset + primitive < s->material_binding_count) {
        orr_material_id m = s->material_bindings[in->material_offset + primitive];
        if (m.generation != 0) return m;
    }
    return own;
}


/* ---- storage, copy, comparison ------------------------------------------------------------ */

/* An empty snapshot (frame 0, no arrays) whose arrays will come from `allocator` (NULL: the default). */
void orr_snapshot_init(orr_snapshot *snapshot, const orr_allocator *allocator);
/* Frees every array (see the ownership rule above) and leaves the snapshot empty, still initialised
 * with its allocator. NULL, or a snapshot never initialised (zeroed), is a no-op. */
void orr_snapshot_fini(orr_snapshot *snapshot);
/* Deep copy of `src` into `dst` (initialised; its storage reused): every field, the delta included. */
orr_result orr_snapshot_copy(const orr_snapshot *src, orr_snapshot *dst);

/* Whether two instances hold the same extracted data: every field of the records, offsets into the
 * shared arrays compared by what they point at (names, material bindings, the joint palette) except
 * the joint offset, which is compared itself (a renderer's instance record holds it), and their fur
 * sidecar entries (both none, or equal values). Floats and doubles compare by their bits. */
bool orr_snapshot_instance_equal(const orr_snapshot *a, const orr_render_instance *ia, const orr_snapshot *b,
                                 const orr_render_instance *ib);
/* Whether two snapshots are the same frame field for field: frame, tick, revision, structure and layout
 * versions, delta_base; the instances in order (orr_snapshot_instance_equal) and joint_count; the
 * lights and cameras in order (names by content); the fur sidecar; changed and removed. Storage
 * (capacities, where a name or binding lies, index_of past the ids present) is not compared. */
bool orr_snapshot_equal(const orr_snapshot *a, const orr_snapshot *b);

/* What differs from `from` to `to`, by instance id (orr_snapshot_diff). The arrays are allocated with
 * `allocator` and reused by the next orr_snapshot_diff into the same value; release with
 * orr_snapshot_delta_fini. */
typedef struct orr_snapshot_delta {
    uint32_t changed_count;
    uint32_t *changed; /* ids of `to` whose data differs from `from` (orr_snapshot_instance_equal), new
                          ones included, in `to`'s order */
    uint32_t removed_count;
    uint32_t *removed; /* ids of `from` that `to` lacks, in `from`'s order */
    bool layout;       /* something layout_version covers differs (the set or order of the instances, or
                          an instance's mesh, bindings, skinning, shadow flag or having a fur entry; an
                          entry's usability is the asset library's to judge, orr_fur_override_valid) */
    bool lights;       /* the lights differ (count, order or any field) */
    bool cameras;      /* likewise the cameras */
    bool fur;          /* the fur sidecars differ (entries, their instance indices or values) */
    orr_allocator allocator;
    uint32_t changed_capacity, removed_capacity;
} orr_snapshot_delta;

void orr_snapshot_delta_init(orr_snapshot_delta *delta, const orr_allocator *allocator);
void orr_snapshot_delta_fini(orr_snapshot_delta *delta);
/* Fills `delta` with what differs from `from` to `to` (NULL `from`: every instance of `to` is new, and
 * layout, lights, cameras and fur are set where `to` has any). Walks every instance of both: O(n).
 * ORR_ERROR_OUT_OF_MEMORY leaves `delta` empty. */
orr_result orr_snapshot_diff(const orr_snapshot *from, const orr_snapshot *to, orr_snapshot_delta *delta);

#ifdef __cplusplus
}
#endif
#endif /* ORRERY_SNAPSHOT_H */
