/* Lights and cameras between ticks. Instances blend in the vertex stage from a motion record per slot
 * (gpu_scene.c, vertex.glsl); lights and cameras are few and go up whole every frame (the views' blocks
 * and light records), so they blend here, on the CPU, by the same rule: one that changed at the
 * snapshot's tick stands at the blend of the pose it held before and its current one, translation
 * linear, rotation by normalised quaternion and scale linear, so that a camera that follows a body (or a
 * light carried by one) moves with it frame by frame. */
#include "gpu/gpu_motion.h"

#include "gpu/gpu_error.h"

#include <stddef.h>
#include <string.h>

#define NO_TICK UINT64_MAX

/* The earlier entry of `entity` (the one at `hint` first: lights and cameras keep their order from frame
 * to frame unless the world's structure changes), or NULL. */
static const orri_pose_motion *find(const orri_pose_motions *m, uint32_t hint, orr_entity entity)
{
    if (hint < m->count && orr_entity_eq(m->items[hint].entity, entity)) return &m->items[hint];
    /* A search when the order changed: over the few lights or cameras, not the instances. */
    for (uint32_t k = 0; k < m->count; k++)
        if (orr_entity_eq(m->items[k].entity, entity)) return &m->items[k];
    return NULL;
}

/* The entries of this snapshot's `count` poses (entity and world `stride` bytes apart), from the
 * earlier ones: a pose that differs from the one held moves that to `before`, at `tick`. `*any`: whether
 * any changed at `tick`. Out of memory: nothing is kept (the next frame starts over, no pose blended). */
static orr_result track(orr_renderer *r, orri_pose_motions *m, const uint8_t *first, size_t stride, size_t entity_at,
                        size_t world_at, uint32_t count, uint64_t tick, bool *any_out)
{
    *any_out = false;
    if (count > m->spare_capacity && !ORRI_GROW(&r->allocator, m->spare, m->spare_capacity, count)) {
        m->count = 0;
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for the poses of %u lights or cameras", count);
    }
    bool any = false;
    for (uint32_t i = 0; i < count; i++) {
        orr_entity e;
        orr_affine3d world;
        memcpy(&e, first + i * stride + entity_at, sizeof e);
        memcpy(&world, first + i * stride + world_at, sizeof world);
        const orri_pose_motion *was = find(m, i, e);
        orri_pose_motion *now = &m->spare[i];
        if (!was) *now = (orri_pose_motion){.entity = e, .tick = NO_TICK, .now = world, .before = world};
        else if (memcmp(&was->now, &world, sizeof world))
            *now = (orri_pose_motion){.entity = e, .tick = tick, .now = world, .before = was->now};
        else *now = *was;
        any |= now->tick == tick;
    }
    orri_pose_motion *items = m->items;
    uint32_t capacity = m->capacity;
    m->items = m->spare, m->capacity = m->spare_capacity, m->count = count;
    m->spare = items, m->spare_capacity = capacity;
    *any_out = any;
    return ORR_OK;
}

/* now blended toward before by lag (0: now, 1: before). */
static void blend(const orr_affine3d *now, const orr_affine3d *before, double lag, orr_affine3d *out)
{
    orr_mat4d a, b;
    orr_affine3d_to_mat4d(now, &a);
    orr_affine3d_to_mat4d(before, &b);
    orr_vec3d ta, tb, sa, sb;
    orr_quatd qa, qb;
    bool rigid_now = orr_mat4d_decompose(&a, &ta, &qa, &sa);
    bool rigid = orr_mat4d_decompose(&b, &tb, &qb, &sb) && rigid_now; /* both decomposed: ta is blended either way */
    rigid = rigid && (sa.x < 0) == (sb.x < 0); /* a mirror on one side only: no scale passes through 0 */
    orr_vec3d t = {ta.x + (tb.x - ta.x) * lag, ta.y + (tb.y - ta.y) * lag, ta.z + (tb.z - ta.z) * lag};
    if (!rigid) { /* its current linear part, the translation blended */
        *out = *now;
        out->m[9] = t.x, out->m[10] = t.y, out->m[11] = t.z;
        return;
    }
    /* normalised quaternion, the shorter way round: as the vertex stage blends instances */
    double sign = qa.x * qb.x + qa.y * qb.y + qa.z * qb.z + qa.w * qb.w < 0 ? -1.0 : 1.0;
    orr_quatd q = orr_quatd_normalize((orr_quatd){qa.x * (1 - lag) + sign * qb.x * lag, qa.y * (1 - lag) + sign * qb.y * lag,
                                                  qa.z * (1 - lag) + sign * qb.z * lag, qa.w * (1 - lag) + sign * qb.w * lag});
    orr_vec3d s = {sa.x + (sb.x - sa.x) * lag, sa.y + (sb.y - sa.y) * lag, sa.z + (sb.z - sa.z) * lag};
    orr_mat4d m;
    orr_mat4d_from_trs(t, q, s, &m);
    orr_affine3d_from_mat4d(&m, out);
}

orr_result orri_motion_snapshot(orr_renderer *r, const orr_snapshot *s, orr_snapshot *scratch, const orr_snapshot **out)
{
    orri_motions *mo = &r->motions;
    *out = s;
    bool lights, cameras;
    ORRI_TRY(track(r, &mo->lights, (const uint8_t *)s->lights, sizeof *s->lights, offsetof(orr_render_light, entity),
                   offsetof(orr_render_light, world), s->light_count, s->tick, &lights));
    ORRI_TRY(track(r, &mo->cameras, (const uint8_t *)s->cameras, sizeof *s->cameras, offsetof(orr_render_camera, entity),
                   offsetof(orr_render_camera, world), s->camera_count, s->tick, &cameras));
    double lag = s->lag;
    if (!(lag > 0 && lag <= 1) || !(lights || cameras)) return ORR_OK;
    if ((lights && s->light_count > mo->blended_light_capacity &&
         !ORRI_GROW(&r->allocator, mo->blended_lights, mo->blended_light_capacity, s->light_count)) ||
        (cameras && s->camera_count > mo->blended_camera_capacity &&
         !ORRI_GROW(&r->allocator, mo->blended_cameras, mo->blended_camera_capacity, s->camera_count)))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for blended lights or cameras");
    *scratch = *s;
    if (lights) {
        memcpy(mo->blended_lights, s->lights, sizeof *s->lights * s->light_count);
        for (uint32_t i = 0; i < s->light_count; i++)
            if (mo->lights.items[i].tick == s->tick)
                blend(&mo->lights.items[i].now, &mo->lights.items[i].before, lag, &mo->blended_lights[i].world);
        scratch->lights = mo->blended_lights;
    }
    if (cameras) {
        memcpy(mo->blended_cameras, s->cameras, sizeof *s->cameras * s->camera_count);
        for (uint32_t i = 0; i < s->camera_count; i++)
            if (mo->cameras.items[i].tick == s->tick)
                blend(&mo->cameras.items[i].now, &mo->cameras.items[i].before, lag, &mo->blended_cameras[i].world);
        scratch->cameras = mo->blended_cameras;
    }
    *out = scratch;
    return ORR_OK;
}

static void poses_fini(orr_renderer *r, orri_pose_motions *m)
{
    orri_free(&r->allocator, m->items, sizeof *m->items * m->capacity);
    orri_free(&r->allocator, m->spare, sizeof *m->spare * m->spare_capacity);
    memset(m, 0, sizeof *m);
}

void orri_motion_fini(orr_renderer *r)
{
    orri_motions *mo = &r->motions;
    poses_fini(r, &mo->lights);
    poses_fini(r, &mo->cameras);
    orri_free(&r->allocator, mo->blended_lights, sizeof *mo->blended_lights * mo->blended_light_capacity);
    orri_free(&r->allocator, mo->blended_cameras, sizeof *mo->blended_cameras * mo->blended_camera_capacity);
    memset(mo, 0, sizeof *mo);
}
