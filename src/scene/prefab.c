/* Prefabs: read access to the template and instantiation (a cross-world subtree clone). */
#include "core/internal.h"
#include "scene/prefab_internal.h"

static const orri_prefab *prefab_get(const orr_assets *assets, orr_prefab_id id)
{
    if (!assets || orr_id_is_none(id)) return NULL;
    return orr_assets_try_get_prefab(assets, id);
}

const orr_world *orr_prefab_world(const orr_assets *assets, orr_prefab_id prefab)
{
    const orri_prefab *p = prefab_get(assets, prefab);
    return p ? p->world : NULL;
}

orr_entity orr_prefab_root(const orr_assets *assets, orr_prefab_id prefab)
{
    const orri_prefab *p = prefab_get(assets, prefab);
    return p ? p->root : ORR_ENTITY_NONE;
}

uint32_t orr_prefab_default_scene(const orr_assets *assets, orr_prefab_id prefab)
{
    const orri_prefab *p = prefab_get(assets, prefab);
    return p ? p->default_scene : 0;
}

uint32_t orr_prefab_scene_count(const orr_assets *assets, orr_prefab_id prefab)
{
    const orri_prefab *p = prefab_get(assets, prefab);
    return p ? p->scene_count : 0;
}

uint32_t orr_prefab_clips(const orr_assets *assets, orr_prefab_id prefab, orr_clip_id *out, uint32_t max)
{
    const orri_prefab *p = prefab_get(assets, prefab);
    if (!p) return 0;
    for (uint32_t i = 0; i < p->clip_count && i < max && out; i++) out[i] = p->clips[i];
    return p->clip_count;
}

orr_result orr_prefab_instantiate(orr_world *world, const orr_assets *assets, orr_prefab_id prefab, orr_entity parent,
                                  const orr_transform *local, orr_entity *out)
{
    ORRI_REQUIRE(world && assets && out, NULL, "orr_prefab_instantiate: world, assets and out are required");
    *out = ORR_ENTITY_NONE;
    const orri_prefab *p = prefab_get(assets, prefab);
    if (!p) return ORR_ERROR_STALE_HANDLE;
    orr_transform identity = orr_transform_identity();
    return orr_world_clone(world, p->world, p->root, parent, local ? local : &identity, out);
}
