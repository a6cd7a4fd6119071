/* Orrery render snapshot: what one presented frame hands to the renderer.
 *
 * The frame module extracts it from the world once per presented frame (orrery/frame.h). It owns all
 * its arrays, carries no GPU object and no pointer into the world, and is replaced by the next one.
 * The draw and gpu modules read it; they never see the world. Hidden instances stay in it (visible =
 * false) and are not submitted.
 */
#ifndef ORRERY_SNAPSHOT_H
#define ORRERY_SNAPSHOT_H

#include <orrery/assets.h>
#include <orrery/core.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct orr_render_instance {
    uint32_t id;         /* stable instance id: the same entity keeps it while it lives */
    orr_entity entity;   /* diagnostic link to the world; never dereferenced by the renderer */
    uint32_t name;       /* offset of the entity's name in orr_snapshot.names */
    orr_mesh_id mesh;
    orr_material_id materials[ORR_MATERIAL_SLOTS]; /* logical overrides per primitive slot; none = mesh's */
    orr_mat4d world;     /* resolved binary64 pose, scale included */
    orr_aabbd bounds;    /* the mesh's local bounds */
    uint32_t layers;
    bool visible;
    bool casts_shadows;
    uint32_t joint_offset; /* into orr_snapshot.joints; joint_count 0 = not skinned */
    uint32_t joint_count;
} orr_render_instance;

typedef struct orr_render_light {
    orr_entity entity;
    uint32_t name;
    orr_light_type type;
    orr_mat4d world;  /* the light shines along its -Z */
    float color[3];   /* linear */
    float intensity;  /* lux (directional) or candela (point, spot) */
    float range;      /* 0 = infinite */
    float cos_inner, cos_outer;
} orr_render_light;

typedef struct orr_render_camera {
    orr_entity entity;
    uint32_t name;
    orr_mat4d world;  /* camera looks along its -Z, +Y up */
    orr_projection projection;
    double yfov, aspect, xmag, ymag, znear, zfar;
} orr_render_camera;

typedef struct orr_snapshot {
    uint64_t frame;    /* counts extractions, not ticks */
    uint64_t tick;     /* the simulation tick that produced it */
    uint64_t revision; /* the world revision */
    uint64_t structure_version;
    uint32_t instance_count;
    orr_render_instance *instances; /* pre-order: the default draw order */
    uint32_t light_count;
    orr_render_light *lights; /* enabled lights only */
    uint32_t camera_count;
    orr_render_camera *cameras;
    uint32_t joint_count;
    orr_mat4d *joints; /* per skinned instance: inverse(instance world) x joint world x inverse bind */
    uint32_t changed_count;
    uint32_t *changed; /* indices of instances whose data changed since the previous snapshot */
    uint32_t names_size;
    char *names;       /* NUL-terminated names, indexed by the `name` offsets */

    /* Storage: the arrays above are allocated with `allocator` and reused by the next extraction into
     * the same snapshot. Release with orr_snapshot_fini (frame module). */
    orr_allocator allocator;
    uint32_t instance_capacity, light_capacity, camera_capacity, joint_capacity, changed_capacity, names_capacity;
} orr_snapshot;

static inline const char *orr_snapshot_name(const orr_snapshot *s, uint32_t offset)
{
    return s->names && offset < s->names_size ? s->names + offset : "";
}

#ifdef __cplusplus
}
#endif
#endif /* ORRERY_SNAPSHOT_H */
