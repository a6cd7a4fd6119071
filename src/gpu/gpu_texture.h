/* Residency of textures (gpu_texture.c): images with their mip chains, samplers, and the way materials
 * reach them (the texture array, or a descriptor set per material). */
#ifndef ORRERY_GPU_TEXTURE_H
#define ORRERY_GPU_TEXTURE_H

#include "gpu/gpu_state.h"
#include "gpu/gpu_upload.h"

/* prefer_sets: per-material sets even where the array would do (orr_renderer_desc.texture_sets). */
orr_result orri_textures_init(orr_renderer *r, bool prefer_sets);
orr_result orri_textures_create_white(orr_renderer *r); /* after the command pools exist */
void orri_textures_fini(orr_renderer *r);
/* A material names `id`: creates its image now (and marks its array element), uploads it in this
 * frame's upload step. A stale id or one without pixels: nothing (the slot samples white). */
orr_result orri_textures_request(orr_renderer *r, const orr_assets *assets, orr_texture_id id);
/* Textures the library removed go (after the frames in flight); their elements become white. */
orr_result orri_textures_release_removed(orr_renderer *r, const orr_assets *assets);
bool orri_textures_resident(const orr_renderer *r, orr_texture_id id);
/* The array element a material slot samples `id` at: id.index + 1, or ORR_GPU_WHITE_TEXTURE (no array,
 * or not resident). */
uint32_t orri_textures_index(const orr_renderer *r, orr_texture_id id);
uint64_t orri_textures_plan(const orr_renderer *r, const orr_assets *assets); /* staging bytes */
/* One texture's levels below the first: `levels` in all of a width x height RGBA8 image, levels 1.. one
 * after the other at `out` (NULL: nothing to build); `staged`: where the upload places the whole chain. */
typedef struct orri_mip_job {
    const uint8_t *level0;
    uint32_t width, height, levels;
    bool srgb;
    uint8_t *out, *staged;
} orri_mip_job;
#define ORRI_MIP_BAND_ROWS 32                 /* rows of level 1 a job builds */
#define ORRI_STAGE_PIECE ((size_t)1 << 20)    /* bytes a job copies into the staging buffer */
#define ORRI_UPLOAD_SHARED_BYTES (4u << 20)   /* texture bytes a frame stages from which its threads share them */
/* Builds them on `threads` threads of `workers` (NULL: started for each of its two runs), in bands of
 * band_rows rows of level 1 (0: ORRI_MIP_BAND_ROWS): the same bytes at any thread count and band
 * height. */
void orri_mip_build(const orri_textures *tx, const orri_mip_job *jobs, uint32_t count, uint32_t band_rows,
                    uint32_t threads, orr_workers *workers);
/* Copies each chain (level 0, then `out`) to `staged` (NULL: not staged), in pieces on `threads` threads
 * of `workers`. */
void orri_mip_stage(const orri_mip_job *jobs, uint32_t count, uint32_t threads, orr_workers *workers);
orr_result orri_textures_upload(orr_renderer *r, const orr_assets *assets, orri_upload *up);
void orri_textures_commit(orr_renderer *r); /* the pending textures were submitted; nothing to abort */
void orri_textures_release(orr_renderer *r, uint64_t last_use); /* another asset library */
/* Target textures showing target index `target` are released (their elements white). */
orr_result orri_textures_release_target(orr_renderer *r, uint32_t target);
/* Without the array: the entry of the set showing `ids` (none where one is not resident), made when
 * no material shows them yet; a reference for the caller, dropped with orri_textures_put_set (the last
 * one retires the set after the frames in flight). */
orr_result orri_textures_get_set(orr_renderer *r, const orr_texture_id ids[ORR_GPU_TEXTURE_SLOTS], uint32_t *entry);
void orri_textures_put_set(orr_renderer *r, uint32_t entry);
VkDescriptorSet orri_textures_set(const orr_renderer *r, uint32_t entry); /* entry 0: all white */
/* Whether set `entry` shows `ids` as they are resident now (the same images). */
bool orri_textures_set_shows(const orr_renderer *r, uint32_t entry, const orr_texture_id ids[ORR_GPU_TEXTURE_SLOTS]);
/* The array: before frame slot `frame_slot` records, its set's changed elements are written; inside a
 * view's rendering, the set is bound once (both do nothing without the array). */
void orri_textures_write_frame(orr_renderer *r, uint32_t frame_slot);
void orri_textures_bind_frame(const orr_renderer *r, VkCommandBuffer cmd, uint32_t frame_slot);
/* The live texture target with `key`, or NULL. */
orri_target *orri_texture_target_find(orr_renderer *r, uint64_t key);

#endif
