/* Internal to the asset library: the library itself (one pool per kind of asset) and what the files of
 * each kind share. Included by those files only.
 *
 *   assets.c           the pools, create/destroy, counts, removal, prefabs
 *   assets_mesh.c      meshes: streams, packed streams, meshlets, the worker-pool passes
 *   assets_lod.c       meshes' levels of detail (the simplifier)
 *   assets_texture.c   textures, render targets, fur noise
 *   assets_material.c  materials and their revisions, fur parameters
 *   assets_anim.c      skins, clips
 *   encode.c           resources as little-endian bytes and back (recording payloads)
 */
#ifndef ORRI_ASSETS_ASSETS_INTERNAL_H
#define ORRI_ASSETS_ASSETS_INTERNAL_H

#include "core/internal.h"

#include <orrery/assets.h>

/* One pool per resource kind: generational handles plus a dense-by-index array of records. */
typedef struct orri_assets_pool {
    orr_handle_pool handles;
    void *items;
    uint32_t capacity;
    size_t item_size;
} orri_assets_pool;

typedef struct orri_assets_material_slot {
    orr_material value;
    uint64_t revision;
} orri_assets_material_slot;

typedef struct orri_assets_prefab_slot {
    char *path;
    void *payload;
    orr_prefab_destroy_fn destroy;
} orri_assets_prefab_slot;

struct orr_assets {
    orr_allocator allocator;
    uint32_t alive; /* ORRI_ALIVE until destroyed */
    orr_logger logger;
    orr_error error;
    orri_assets_pool meshes, materials, textures, skins, clips, prefabs;
    orr_material_id default_material;
    /* Streams a primitive's source did not have all read the same: zeros (tangents, texture
     * coordinates, joints, weights) or white (colors). They share read-only blocks instead of each
     * primitive holding its own copy; a block is replaced by a larger one when a bigger primitive
     * needs it, and the old one stays alive for the primitives that point into it. */
    ORRI_VEC(struct shared_block {
        void *data;
        size_t bytes;
    }) shared;
    void *zeros; /* the current largest block */
    size_t zeros_bytes;
    uint64_t revision; /* orr_assets_revision */
    uint64_t removals; /* orr_assets_removals */
};

static inline void *pool_item(const orri_assets_pool *p, orr_handle h)
{
    if (!orr_handle_pool_is_alive(&p->handles, h)) return NULL;
    return (char *)p->items + (size_t)h.index * p->item_size;
}

#define AS_HANDLE(id) ((orr_handle){(id).index, (id).generation})

/* Uninitialised memory for data that is overwritten right away (copies), so large streams are
 * written once instead of zeroed first. */
static inline void *alloc_raw(orr_assets *a, size_t bytes)
{
    return a->allocator.realloc(a->allocator.user, NULL, 0, bytes ? bytes : 1);
}

/* Adds an item to pool p: its handle in *out, its zeroed record in *item (valid until the next add). */
orr_result orri_assets_pool_add(orr_assets *a, orri_assets_pool *p, orr_handle *out, void **item);

/* What each kind's record owns, freed (the record stays in its pool: the caller frees its handle). */
void orri_assets_mesh_release(orr_assets *a, orr_mesh *m);       /* assets_mesh.c */
void orri_assets_texture_release(orr_assets *a, orr_texture *t); /* assets_texture.c */
void orri_assets_skin_release(orr_assets *a, orr_skin *s);       /* assets_anim.c */
void orri_assets_clip_release(orr_assets *a, orr_clip *c);       /* assets_anim.c */
/* Levels 1.. of every triangle primitive of m (lod_indices, lods, the mesh's lod_count and errors), at
 * most `levels` of them; level 0 alone when 0. Before meshlets are built. (assets_lod.c) */
orr_result orri_assets_build_lods(orr_assets *a, orr_mesh *m, uint32_t levels, float ratio);
/* What is wrong with a desc's own levels (orr_mesh_desc.lod_given, lod_errors, the primitives'
 * lod_indices), or NULL; *primitive names the primitive at fault (UINT32_MAX: the mesh). (assets_lod.c) */
const char *orri_assets_given_lods_misuse(const orr_mesh_desc *desc, uint32_t *primitive);
/* The desc's own levels into m (checked by the above): lod_indices copied, lods, lod_count, errors
 * (estimated where the desc has none) and triangles. Before meshlets are built. (assets_lod.c) */
orr_result orri_assets_given_lods(orr_assets *a, orr_mesh *m, const orr_mesh_desc *desc);

#endif
