/* Internal to the glTF build (gltf_build.c and the files it hands parts to): the state of one build,
 * from a validated document (gltf_internal.h) to the asset library and the prefab world, and what
 * its files share. Included by those files only.
 *
 *   gltf_build.c           the entry, skins, clips, the template world
 *   gltf_build_report.c    messages, errors, memory, the budget, progress
 *   gltf_build_textures.c  textures (images decoded on the worker pool) and materials
 *   gltf_build_meshes.c    meshes
 *   gltf_build_lods.c      MSFT_lod: a node's levels as one mesh's
 */
#ifndef ORRI_SCENE_GLTF_BUILD_INTERNAL_H
#define ORRI_SCENE_GLTF_BUILD_INTERNAL_H

#include "scene/gltf_internal.h"

#include <orrery/scene.h>

/* One load's build: what it has added so far (none until added), and its budget. */
typedef struct orri_gltf_bctx {
    orr_assets *assets;
    const orri_gltf_doc *doc;
    const orr_gltf_options *options;
    orr_allocator alloc;
    orr_logger logger;
    orr_error *err;
    const char *name;
    orr_texture_id *textures;        /* per glTF texture: sRGB when a material reads it as color, else linear */
    orr_texture_id *textures_linear; /* the linear copy of a texture used both as color and as data */
    orr_material_id *materials;
    orr_mesh_id *meshes;
    orr_mesh_id *lod_meshes;         /* per node: the mesh of its MSFT_lod levels (none: its own mesh) */
    orr_skin_id *skins;
    orr_clip_id *clips;
    uint64_t entities; /* what the prefab world will hold (check_entity_budget) */
    uint8_t *texture_fallback; /* per glTF texture: 1 when its image could not be used (white stands in) */
    uint64_t budget, spent; /* bytes of decoded vertices, indices, keys and pixels the load may add (orri_gltf_spend) */
    uint32_t image_threads; /* threads that decoded the images */
    uint64_t image_ns;      /* spent decoding them */
    uint32_t *view_users, *accessor_users; /* what reads each (sole_user), counted at the first need */
} orri_gltf_bctx;

/* ---- reporting, memory, budget (gltf_build_report.c) ---- */

/* A warning through the load's logger, the file's name first. */
void orri_gltf_bwarn(orri_gltf_bctx *b, const char *fmt, ...) ORRI_PRINTF(2, 3);
/* The same for a place where the file breaks the glTF 2.0 spec (ORR_LOG_ERROR). */
void orri_gltf_bviolation(orri_gltf_bctx *b, const char *fmt, ...) ORRI_PRINTF(2, 3);
/* count x size zeroed bytes (NULL for none, too many, or out of memory); freed with orri_gltf_bfree. */
void *orri_gltf_balloc(orri_gltf_bctx *b, size_t count, size_t size);
void orri_gltf_bfree(orri_gltf_bctx *b, void *p);
/* ORR_ERROR_OUT_OF_MEMORY into the load's error: "what: out of memory", "array[index]: out of memory". */
orr_result orri_gltf_oom(orri_gltf_bctx *b, const char *what);
orr_result orri_gltf_oom_at(orri_gltf_bctx *b, const char *array, uint32_t index);
/* The asset library's refusal r (its last error) into the load's error, prefixed with `what`. */
orr_result orri_gltf_from_assets(orri_gltf_bctx *b, orr_result r, const char *what);
/* Whether `bytes` more fit the load's budget (ORR_ERROR_CAPACITY naming `what` if not); spend also
 * counts them. */
orr_result orri_gltf_affordable(orri_gltf_bctx *b, uint64_t bytes, const char *what);
orr_result orri_gltf_spend(orri_gltf_bctx *b, uint64_t bytes, const char *what);
/* orr_gltf_options.progress, when there is one. */
void orri_gltf_progress(const orr_gltf_options *o, orr_gltf_phase phase, uint64_t done, uint64_t total);

/* ---- textures and materials (gltf_build_textures.c) ---- */

orr_result orri_gltf_build_textures(orri_gltf_bctx *b);
orr_result orri_gltf_build_materials(orri_gltf_bctx *b);
/* orr_gltf_options.check_images: each image no texture uses, decoded only to check it. */
orr_result orri_gltf_check_unused_images(orri_gltf_bctx *b);

/* ---- meshes (gltf_build_meshes.c) ---- */

orr_result orri_gltf_build_mesh(orri_gltf_bctx *b, uint32_t mi);
/* An accessor's values as count x comps floats (missing components `fill`), allocated with
 * orri_gltf_balloc; NULL for acc -1, and NULL with *ok false when out of memory. */
float *orri_gltf_read_stream(orri_gltf_bctx *b, int32_t acc, uint32_t comps, float fill, bool *ok);

/* ---- MSFT_lod (gltf_build_lods.c) ---- */

/* Each node with MSFT_lod levels that can be one mesh's: that mesh (lod_meshes), after the meshes. */
orr_result orri_gltf_build_lods(orri_gltf_bctx *b);

#endif
