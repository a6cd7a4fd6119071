/* World-space bounds of a subtree's renderables (zoom-to-fit). It lives in the scene module because
 * it reads mesh bounds from the asset library: the world module may speak asset ids but does not link
 * the library (DESIGN.md, Modules), and scene is the lowest module that uses both. */
#include "core/internal.h"

#include <orrery/scene.h>

/* The box of `mesh_box` as the skinned entity draws it: every vertex is a weighted blend of its
 * joints' transforms (weights >= 0, summing to 1), so it lies in the hull of the boxes that each
 * joint's (joint world x inverse bind) makes of the mesh's box. Joints that are not alive count for
 * nothing; with none left, false (the caller uses the entity's own pose). */
static bool skinned_box(orr_world *world, const orr_assets *assets, orr_entity e, const orr_skinned_mesh *sm,
                        orr_aabbd mesh_box, orr_aabbd *out)
{
    const orr_skin *skin = orr_assets_try_get_skin(assets, sm->skin);
    if (!skin) return false;
    uint32_t count = 0;
    const orr_entity *joints = orr_skinned_mesh_joints(world, e, &count);
    uint32_t n = count < skin->joint_count ? count : skin->joint_count;
    bool any = false;
    orr_aabbd box = orr_aabbd_empty();
    for (uint32_t j = 0; j < n; j++) {
        orr_mat4d joint, m;
        if (orr_entity_cached_world(world, joints[j], &joint) != ORR_OK) continue;
        if (skin->inverse_bind) {
            orr_mat4d_mul(&joint, &skin->inverse_bind[j], &m);
        } else {
            m = joint;
        }
        box = orr_aabbd_union(box, orr_aabbd_transform(&m, mesh_box));
        any = true;
    }
    *out = box;
    return any;
}

orr_result orr_scene_bounds(orr_world *world, const orr_assets *assets, orr_entity root, orr_aabbd *out)
{
    ORRI_REQUIRE(world && assets && out, NULL, "orr_scene_bounds: world, assets and out are required");
    *out = orr_aabbd_empty();
    if (!orr_entity_eq(root, ORR_ENTITY_NONE) && !orr_entity_is_alive(world, root)) return ORR_ERROR_STALE_HANDLE;
    orr_world_update_transforms(world);
    orr_aabbd box = orr_aabbd_empty();
    orr_subtree_iter it;
    orr_subtree_begin(world, root, &it);
    for (orr_entity e; orr_subtree_next(&it, &e);) {
        const orr_mesh_renderer *mr = orr_mesh_renderer_try_get(world, e);
        if (!mr || !mr->visible) continue;
        const orr_mesh *mesh = orr_assets_try_get_mesh(assets, mr->mesh);
        if (!mesh || orr_aabbd_is_empty(mesh->bounds)) continue;
        const orr_skinned_mesh *sm = orr_skinned_mesh_try_get(world, e);
        orr_aabbd b;
        if (!sm || !skinned_box(world, assets, e, sm, mesh->bounds, &b)) {
            orr_mat4d m;
            orr_entity_cached_world(world, e, &m);
            b = orr_aabbd_transform(&m, mesh->bounds);
        }
        box = orr_aabbd_union(box, b);
    }
    orr_subtree_end(&it);
    *out = box;
    return ORR_OK;
}
