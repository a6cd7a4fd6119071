/* Orrery render snapshot: what one presented frame hands to the renderer.
 *
 * The frame module extracts it from the world once per presented frame (orrery/frame.h). It owns all
 * its arrays, carries no GPU object and no pointer into the world, and is updated in place by the next
 * extraction into it. The draw and gpu modules read it; they never see the world. Hidden instances stay
 * in it (visible = false) and are not submitted.
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
    orr_aabbf bounds;         /* the mesh's local bounds */
    uint32_t name;            /* offset of the entity's name in orr_snapshot.names */
    uint32_t material_offset; /* into orr_snapshot.material_bindings */
    uint32_t material_count;  /* override slots, one per primitive from 0; none (or past the count) =
                                 the primitive's own material */
    uint32_t reserved[6];     /* zero */
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

struct orri_extract_state; /* the frame module's bookkeeping for incremental extraction */

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

    /* Storage: the arrays above are allocated with `allocator` and reused by the next extraction into
     * the same snapshot. Release with orr_snapshot_fini (frame module). */
    orr_allocator allocator;
    uint32_t instance_capacity, light_capacity, camera_capacity, joint_capacity, material_binding_capacity,
        changed_capacity, removed_capacity, names_capacity, fur_capacity;
    struct orri_extract_state *extract;
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

#ifdef __cplusplus
}
#endif
#endif /* ORRERY_SNAPSHOT_H */
