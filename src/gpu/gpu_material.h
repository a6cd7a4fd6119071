/* Residency of materials (gpu_material.c): the material slots, made resident before anything is planned. */
#ifndef ORRERY_GPU_MATERIAL_H
#define ORRERY_GPU_MATERIAL_H

#include "gpu/gpu_state.h"
#include "gpu/gpu_upload.h"

/* Materials: a draw scene names `id`; refreshes its record (and asks for its textures) when its
 * revision changed. */
orr_result orri_materials_touch(orr_renderer *r, const orr_assets *assets, orr_material_id id);
/* Every material the scene's batches name, touched (before its batch states are resolved). */
orr_result orri_materials_touch_scene(orr_renderer *r, const orr_assets *assets, const orr_draw_scene *scene);
/* After the library changed (orr_assets_revision): refreshes every material slot in use; *restate is
 * set when a material's drawing state (alpha mode, sides, its descriptor set) changed. */
orr_result orri_materials_refresh(orr_renderer *r, const orr_assets *assets, bool *restate);
uint64_t orri_materials_plan(orr_renderer *r); /* staging bytes */
/* The set a batch of material `id` binds (set 1): its own, or VK_NULL_HANDLE with the texture array. */
VkDescriptorSet orri_materials_set(const orr_renderer *r, orr_material_id id);
orr_result orri_materials_upload(orr_renderer *r, orri_upload *up);
/* The frame was submitted: its dirty records are clean. */
void orri_materials_commit(orr_renderer *r);
/* Another library: every slot forgotten (its texture set dropped). */
void orri_materials_release(orr_renderer *r);
void orri_materials_fini(orr_renderer *r);

#endif
