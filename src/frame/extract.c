/* Extraction: world -> owned render snapshot. Pre-order, so the snapshot's order is the hierarchy's. */
#include "core/internal.h"

#include <math.h>
#include <orrery/frame.h>
#include <string.h>

void orr_snapshot_init(orr_snapshot *s, const orr_allocator *allocator)
{
    *s = (orr_snapshot){.allocator = orri_allocator_or_default(allocator)};
}

void orr_snapshot_fini(orr_snapshot *s)
{
    if (!s || !s->allocator.realloc) return;
    const orr_allocator *a = &s->allocator;
    orri_free(a, s->instances, (size_t)s->instance_capacity * sizeof *s->instances);
    orri_free(a, s->lights, (size_t)s->light_capacity * sizeof *s->lights);
    orri_free(a, s->cameras, (size_t)s->camera_capacity * sizeof *s->cameras);
    orri_free(a, s->joints, (size_t)s->joint_capacity * sizeof *s->joints);
    orri_free(a, s->changed, (size_t)s->changed_capacity * sizeof *s->changed);
    orri_free(a, s->names, s->names_capacity);
    orr_allocator keep = s->allocator;
    *s = (orr_snapshot){.allocator = keep};
}

#define GROW(s, arr, cap, need) ORRI_GROW(&(s)->allocator, (s)->arr, (s)->cap, (need))

static bool push_name(orr_snapshot *s, const char *name, uint32_t *offset)
{
    uint32_t len = (uint32_t)strlen(name) + 1;
    if (!orri_grow(&s->allocator, (void **)&s->names, &s->names_capacity, s->names_size + len, 1)) return false;
    memcpy(s->names + s->names_size, name, len);
    *offset = s->names_size;
    s->names_size += len;
    return true;
}

static orr_result extract_instance(orr_snapshot *s, const orr_world *w, const orr_assets *assets, orr_entity e,
                                   const orr_mesh_renderer *mr, const orr_mat4d *world_m, bool any_skin)
{
    if (!GROW(s, instances, instance_capacity, s->instance_count + 1)) return ORR_ERROR_OUT_OF_MEMORY;
    orr_render_instance *in = &s->instances[s->instance_count++];
    *in = (orr_render_instance){
        .id = e.index,
        .entity = e,
        .mesh = mr->mesh,
        .world = *world_m,
        .layers = mr->layers,
        .visible = mr->visible,
        .casts_shadows = mr->casts_shadows,
    };
    memcpy(in->materials, mr->materials, sizeof in->materials);
    const orr_mesh *mesh = orr_assets_get_mesh(assets, mr->mesh);
    in->bounds = mesh ? mesh->bounds : (orr_aabbd){{0, 0, 0}, {0, 0, 0}};
    if (!push_name(s, orr_entity_name(w, e), &in->name)) return ORR_ERROR_OUT_OF_MEMORY;

    const orr_skinned_mesh *sk = any_skin ? ORR_GET(w, e, orr_skinned_mesh, ORR_COMPONENT_SKINNED_MESH) : NULL;
    const orr_skin *skin = sk ? orr_assets_get_skin(assets, sk->skin) : NULL;
    if (sk && skin && sk->joint_count > ORR_SKIN_JOINTS_MAX) {
        /* A component edited past its joint array: bad data. The range points nowhere, so the draw
         * protocol drops the instance and counts it as a skin range error. */
        in->joint_offset = UINT32_MAX;
        in->joint_count = sk->joint_count;
    } else if (sk && skin) {
        /* palette[j] = inverse(instance world) x joint world x inverse bind */
        uint32_t n = sk->joint_count < skin->joint_count ? sk->joint_count : skin->joint_count;
        if (!GROW(s, joints, joint_capacity, s->joint_count + n)) return ORR_ERROR_OUT_OF_MEMORY;
        orr_mat4d inv;
        if (!orr_mat4d_inverse_affine(world_m, &inv)) orr_mat4d_inverse(world_m, &inv);
        in->joint_offset = s->joint_count;
        in->joint_count = n;
        for (uint32_t j = 0; j < n; j++) {
            orr_mat4d jw, m, palette;
            if (orr_entity_cached_world(w, sk->joints[j], &jw) != ORR_OK) {
                orr_mat4d_identity(&palette); /* a destroyed joint holds the bind pose */
            } else {
                orr_mat4d_mul(&inv, &jw, &m);
                orr_mat4d_mul(&m, &skin->inverse_bind[j], &palette);
            }
            s->joints[s->joint_count++] = palette;
        }
    }
    return ORR_OK;
}

static bool instance_equal(const orr_render_instance *a, const orr_render_instance *b, const orr_snapshot *sa,
                           const orr_snapshot *sb)
{
    if (a->id != b->id || !ORR_ENTITY_EQ(a->entity, b->entity) || !ORR_ID_EQ(a->mesh, b->mesh) ||
        a->layers != b->layers || a->visible != b->visible || a->casts_shadows != b->casts_shadows ||
        a->joint_count != b->joint_count || memcmp(&a->world, &b->world, sizeof a->world) != 0 ||
        memcmp(a->materials, b->materials, sizeof a->materials) != 0 ||
        memcmp(&a->bounds, &b->bounds, sizeof a->bounds) != 0)
        return false;
    return a->joint_count == 0 ||
           memcmp(sa->joints + a->joint_offset, sb->joints + b->joint_offset, a->joint_count * sizeof(orr_mat4d)) == 0;
}

orr_result orr_extract(const orr_world *w, const orr_assets *assets, uint64_t frame, uint64_t tick,
                       const orr_snapshot *previous, orr_snapshot *s)
{
    ORRI_ASSERT(w && assets && s && s->allocator.realloc, "orr_extract: world, assets and an initialised snapshot");
    s->frame = frame;
    s->tick = tick;
    s->revision = orr_world_revision(w);
    s->structure_version = orr_world_structure_version(w);
    s->instance_count = s->light_count = s->camera_count = s->joint_count = s->changed_count = 0;
    s->names_size = 0;

    /* Only what an entity has is looked at: most entities of a large world carry a MeshRenderer and
     * nothing else, so lights, cameras and skins are only looked up when the world has any. */
    bool any_light = orr_world_component_count(w, ORR_COMPONENT_LIGHT) > 0;
    bool any_camera = orr_world_component_count(w, ORR_COMPONENT_CAMERA) > 0;
    bool any_skin = orr_world_component_count(w, ORR_COMPONENT_SKINNED_MESH) > 0;
    orr_subtree_iter it;
    orr_subtree_begin(w, ORR_ENTITY_NONE, &it);
    orr_result r = ORR_OK;
    for (orr_entity e; r == ORR_OK && orr_subtree_next(&it, &e);) {
        const orr_mesh_renderer *mr = ORR_GET(w, e, orr_mesh_renderer, ORR_COMPONENT_MESH_RENDERER);
        const orr_light *l = any_light ? ORR_GET(w, e, orr_light, ORR_COMPONENT_LIGHT) : NULL;
        const orr_camera *c = any_camera ? ORR_GET(w, e, orr_camera, ORR_COMPONENT_CAMERA) : NULL;
        if (!mr && !(l && l->enabled) && !c) continue;
        orr_mat4d world_v;
        orr_entity_cached_world(w, e, &world_v); /* e is alive: it comes from the iteration */
        const orr_mat4d *world_m = &world_v;
        if (mr) r = extract_instance(s, w, assets, e, mr, world_m, any_skin);
        if (r == ORR_OK && l && l->enabled) {
            if (!GROW(s, lights, light_capacity, s->light_count + 1)) {
                r = ORR_ERROR_OUT_OF_MEMORY;
                break;
            }
            orr_render_light *rl = &s->lights[s->light_count++];
            *rl = (orr_render_light){
                .entity = e,
                .type = l->type,
                .world = *world_m,
                .color = {l->color[0], l->color[1], l->color[2]},
                .intensity = l->intensity,
                .range = l->range,
                .cos_inner = cosf(l->inner_cone),
                .cos_outer = cosf(l->outer_cone),
            };
            if (!push_name(s, orr_entity_name(w, e), &rl->name)) r = ORR_ERROR_OUT_OF_MEMORY;
        }
        if (r == ORR_OK && c) {
            if (!GROW(s, cameras, camera_capacity, s->camera_count + 1)) {
                r = ORR_ERROR_OUT_OF_MEMORY;
                break;
            }
            orr_render_camera *rc = &s->cameras[s->camera_count++];
            *rc = (orr_render_camera){.entity = e, .world = *world_m, .projection = c->projection, .yfov = c->yfov,
                                      .aspect = c->aspect, .xmag = c->xmag, .ymag = c->ymag, .znear = c->znear,
                                      .zfar = c->zfar};
            if (!push_name(s, orr_entity_name(w, e), &rc->name)) r = ORR_ERROR_OUT_OF_MEMORY;
        }
    }
    orr_subtree_end(&it);
    if (r != ORR_OK) return r;

    /* Which instances changed since `previous`: compared by position when the structure is the same,
     * otherwise every instance counts as changed. */
    if (!GROW(s, changed, changed_capacity, s->instance_count)) return ORR_ERROR_OUT_OF_MEMORY;
    bool same_shape = previous && previous->instance_count == s->instance_count;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        if (same_shape && instance_equal(&s->instances[i], &previous->instances[i], s, previous)) continue;
        s->changed[s->changed_count++] = i;
    }
    return ORR_OK;
}

orr_result orr_snapshot_copy(const orr_snapshot *src, orr_snapshot *dst)
{
    orr_snapshot *d = dst;
    d->frame = src->frame;
    d->tick = src->tick;
    d->revision = src->revision;
    d->structure_version = src->structure_version;
#define COPY(arr, cnt, cap)                                                                                \
    do {                                                                                                   \
        if (!GROW(d, arr, cap, src->cnt)) return ORR_ERROR_OUT_OF_MEMORY;                                  \
        if (src->cnt) memcpy(d->arr, src->arr, (size_t)src->cnt * sizeof *d->arr);                         \
        d->cnt = src->cnt;                                                                                 \
    } while (0)
    COPY(instances, instance_count, instance_capacity);
    COPY(lights, light_count, light_capacity);
    COPY(cameras, camera_count, camera_capacity);
    COPY(joints, joint_count, joint_capacity);
    COPY(changed, changed_count, changed_capacity);
    COPY(names, names_size, names_capacity);
#undef COPY
    return ORR_OK;
}
