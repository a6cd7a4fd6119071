/* The asset library: typed generational pools of meshes, materials, textures, skins, clips, prefabs.
 * This file: the pools, the library's lifetime and counts, removal, and prefabs. Each kind of asset is
 * added and read in a file of its own (assets_internal.h lists them). */
#include "core/internal.h"
#include "assets/assets_internal.h"

#include <string.h>

static void pool_init(orri_assets_pool *p, const orr_allocator *a, size_t item_size)
{
    orr_handle_pool_init(&p->handles, a, 0);
    p->items = NULL;
    p->capacity = 0;
    p->item_size = item_size;
}

orr_result orri_assets_pool_add(orr_assets *a, orri_assets_pool *p, orr_handle *out, void **item)
{
    orr_handle h = {0, 0};
    orr_result r = orr_handle_pool_alloc(&p->handles, &h);
    if (r != ORR_OK) return orri_error(&a->error, r, "asset pool: %s", orr_result_name(r));
    if (!orri_grow(&a->allocator, &p->items, &p->capacity, h.index + 1, p->item_size)) {
        orr_handle_pool_free(&p->handles, h);
        return orri_error(&a->error, ORR_ERROR_OUT_OF_MEMORY, "asset pool: out of memory");
    }
    *item = (char *)p->items + (size_t)h.index * p->item_size;
    memset(*item, 0, p->item_size);
    *out = h;
    a->revision++;
    return ORR_OK;
}

static void pool_fini(orr_assets *a, orri_assets_pool *p) /* items must be released by the caller first */
{
    orri_free(&a->allocator, p->items, (size_t)p->capacity * p->item_size);
    orr_handle_pool_fini(&p->handles);
}

/* ---- lifetime ---------------------------------------------------------------------------- */

orr_result orr_assets_create(const orr_assets_desc *desc, orr_assets **out, orr_error *err)
{
    ORRI_REQUIRE(out, err, "orr_assets_create: out is required");
    orr_allocator alloc = orri_allocator_or_default(desc ? &desc->allocator : NULL);
    orr_assets *a = orri_alloc(&alloc, sizeof *a);
    if (!a) return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "orr_assets_create: out of memory for the library");
    a->allocator = alloc;
    a->alive = ORRI_ALIVE;
    if (desc) a->logger = desc->logger;
    pool_init(&a->meshes, &alloc, sizeof(orr_mesh));
    pool_init(&a->materials, &alloc, sizeof(orri_assets_material_slot));
    pool_init(&a->textures, &alloc, sizeof(orr_texture));
    pool_init(&a->skins, &alloc, sizeof(orr_skin));
    pool_init(&a->clips, &alloc, sizeof(orr_clip));
    pool_init(&a->prefabs, &alloc, sizeof(orri_assets_prefab_slot));
    orr_material def = orr_material_default();
    orr_result r = orr_assets_add_material(a, &def, &a->default_material);
    if (r != ORR_OK) {
        orri_error(err, r, "orr_assets_create: %s for the default material", orr_result_name(r));
        orr_assets_destroy(a);
        return r;
    }
    *out = a;
    return ORR_OK;
}

void orr_assets_destroy(orr_assets *a)
{
    if (!a) return;
    ORRI_DESTROY_ONCE(a, "orr_assets_destroy");
    /* Prefabs first: their payloads (template worlds) refer to the other resources by id only. */
    for (uint32_t i = 0; i < a->prefabs.handles.count; i++) {
        orr_handle h = {i, a->prefabs.handles.generations[i]};
        orri_assets_prefab_slot *p = pool_item(&a->prefabs, h);
        if (!p) continue;
        if (p->destroy) p->destroy(p->payload);
        orri_strfree(&a->allocator, p->path);
    }
    for (uint32_t i = 0; i < a->meshes.handles.count; i++) {
        orr_mesh *m = pool_item(&a->meshes, (orr_handle){i, a->meshes.handles.generations[i]});
        if (m) orri_assets_mesh_release(a, m);
    }
    for (uint32_t i = 0; i < a->textures.handles.count; i++) {
        orr_texture *t = pool_item(&a->textures, (orr_handle){i, a->textures.handles.generations[i]});
        if (t) orri_assets_texture_release(a, t);
    }
    for (uint32_t i = 0; i < a->skins.handles.count; i++) {
        orr_skin *s = pool_item(&a->skins, (orr_handle){i, a->skins.handles.generations[i]});
        if (s) orri_assets_skin_release(a, s);
    }
    for (uint32_t i = 0; i < a->clips.handles.count; i++) {
        orr_clip *c = pool_item(&a->clips, (orr_handle){i, a->clips.handles.generations[i]});
        if (c) orri_assets_clip_release(a, c);
    }
    pool_fini(a, &a->meshes);
    pool_fini(a, &a->materials);
    pool_fini(a, &a->textures);
    pool_fini(a, &a->skins);
    pool_fini(a, &a->clips);
    pool_fini(a, &a->prefabs);
    for (uint32_t i = 0; i < a->shared.count; i++) orri_free(&a->allocator, a->shared.items[i].data, a->shared.items[i].bytes);
    ORRI_VEC_FREE(&a->allocator, &a->shared);
    orr_allocator alloc = a->allocator;
    orri_free(&alloc, a, sizeof *a);
}

const orr_error *orr_assets_last_error(const orr_assets *a) { return &a->error; }
orr_allocator orr_assets_allocator(const orr_assets *a) { return a->allocator; }
orr_logger orr_assets_logger(const orr_assets *a) { return a->logger; }

uint32_t orr_assets_mesh_count(const orr_assets *a) { return a->meshes.handles.alive; }
uint32_t orr_assets_material_count(const orr_assets *a) { return a->materials.handles.alive; }
uint32_t orr_assets_texture_count(const orr_assets *a) { return a->textures.handles.alive; }
uint32_t orr_assets_skin_count(const orr_assets *a) { return a->skins.handles.alive; }
uint32_t orr_assets_clip_count(const orr_assets *a) { return a->clips.handles.alive; }
uint32_t orr_assets_prefab_count(const orr_assets *a) { return a->prefabs.handles.alive; }

uint64_t orr_assets_revision(const orr_assets *a) { return a->revision; }
uint64_t orr_assets_removals(const orr_assets *a) { return a->removals; }

/* ---- removal ----------------------------------------------------------------------------- */

/* The id is freed first: if that fails (out of memory growing the free list) the resource stays
 * whole and alive rather than released behind a live id. */
#define ORRI_REMOVE(fn, kind, idtype, pool_field, type, release)                                                  \
    orr_result fn(orr_assets *a, idtype id)                                                                    \
    {                                                                                                          \
        ORRI_REQUIRE(a, NULL, kind ": assets is NULL");                                                        \
        type *item = pool_item(&a->pool_field, AS_HANDLE(id));                                                 \
        if (!item) return orri_error(&a->error, ORR_ERROR_STALE_HANDLE, kind ": stale id %u", id.index);       \
        orr_result fr = orr_handle_pool_free(&a->pool_field.handles, AS_HANDLE(id));                           \
        if (fr != ORR_OK) return orri_error(&a->error, fr, kind ": %s", orr_result_name(fr));                  \
        release;                                                                                               \
        a->revision++;                                                                                         \
        a->removals++;                                                                                         \
        return ORR_OK;                                                                                         \
    }

ORRI_REMOVE(orr_assets_remove_mesh, "remove_mesh", orr_mesh_id, meshes, orr_mesh, orri_assets_mesh_release(a, item))
ORRI_REMOVE(orr_assets_remove_texture, "remove_texture", orr_texture_id, textures, orr_texture, orri_assets_texture_release(a, item))
ORRI_REMOVE(orr_assets_remove_skin, "remove_skin", orr_skin_id, skins, orr_skin, orri_assets_skin_release(a, item))
ORRI_REMOVE(orr_assets_remove_clip, "remove_clip", orr_clip_id, clips, orr_clip, orri_assets_clip_release(a, item))
static ORRI_REMOVE(remove_material_slot, "remove_material", orr_material_id, materials, orri_assets_material_slot, (void)item)
#undef ORRI_REMOVE

orr_result orr_assets_remove_material(orr_assets *a, orr_material_id id)
{
    ORRI_REQUIRE(a, NULL, "remove_material: assets is NULL");
    if (orr_id_eq(id, a->default_material))
        return orri_error(&a->error, ORR_ERROR_INVALID_ARGUMENT, "remove_material: the default material stays");
    return remove_material_slot(a, id);
}

/* ---- prefabs ----------------------------------------------------------------------------- */

orr_result orr_assets_add_prefab(orr_assets *a, const char *path, void *payload, orr_prefab_destroy_fn destroy,
                                 orr_prefab_id *out)
{
    ORRI_REQUIRE(a, NULL, "orr_assets_add_prefab: assets is NULL");
    ORRI_REQUIRE(out, &a->error, "orr_assets_add_prefab: out is required");
    orr_handle h = {0, 0};
    orri_assets_prefab_slot *p = NULL;
    orr_result r = orri_assets_pool_add(a, &a->prefabs, &h, (void **)&p);
    if (r != ORR_OK) return r;
    p->path = path ? orri_strdup(&a->allocator, path) : NULL;
    if (path && !p->path) {
        orr_handle_pool_free(&a->prefabs.handles, h);
        return orri_error(&a->error, ORR_ERROR_OUT_OF_MEMORY, "prefab: out of memory");
    }
    p->payload = payload;
    p->destroy = destroy;
    *out = (orr_prefab_id){h.index, h.generation};
    return ORR_OK;
}

orr_prefab_id orr_assets_find_prefab(const orr_assets *a, const char *path)
{
    if (!path) return (orr_prefab_id){0, 0};
    for (uint32_t i = 0; i < a->prefabs.handles.count; i++) {
        orr_handle h = {i, a->prefabs.handles.generations[i]};
        orri_assets_prefab_slot *p = pool_item(&a->prefabs, h);
        if (p && p->path && strcmp(p->path, path) == 0) return (orr_prefab_id){h.index, h.generation};
    }
    return (orr_prefab_id){0, 0};
}

void *orr_assets_try_get_prefab(const orr_assets *a, orr_prefab_id id)
{
    orri_assets_prefab_slot *p = pool_item(&a->prefabs, AS_HANDLE(id));
    return p ? p->payload : NULL;
}
