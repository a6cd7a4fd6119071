/* Texture targets (gpu_texture_target.c): which ones a frame samples, the order they are drawn in
 * (cycles refused), their layouts between frames. */
#ifndef ORRERY_GPU_TEXTURE_TARGET_H
#define ORRERY_GPU_TEXTURE_TARGET_H

#include "gpu/gpu_state.h"

/* A texture target was made (`t` alive), remade at another size, or is about to go: target textures
 * showing it are released (white in the texture array before either frame set is used again) and
 * every material is looked at again at the next frame. */
orr_result orri_texture_target_changed(orr_renderer *r, orri_target *t);
/* Before the draw scenes are planned: the draw orders the texture targets' views use are marked used. */
void orri_texture_targets_mark_used(orr_renderer *r);
/* After them, with renderer.view_order holding the views of the frame's target `main` (count views):
 * the texture targets the frame samples, in drawing order (texture_targets.order, `main` last), their
 * views put before main's in view_order (*view_count grows), the fallbacks counted into `stats`. A
 * texture target that would sample itself, directly or through others: ORR_ERROR_INVALID_ARGUMENT
 * naming them and the material. */
orr_result orri_texture_targets_plan(orr_renderer *r, const orr_snapshot *s, const orr_assets *assets, uint32_t main,
                                     uint32_t *view_count, orr_render_stats *stats);
/* Before the frame's first target is cleared: texture targets whose sampled image is new are
 * cleared there and made readable, so that every image a descriptor can show is valid. */
void orri_texture_targets_record_init(orr_renderer *r, VkCommandBuffer cmd);
/* After a texture target's views: its colour image copied into its sampled image, which is then
 * readable by the fragment shaders of what follows; with `readback`, its pixels into that too. */
void orri_texture_targets_record_publish(orr_renderer *r, VkCommandBuffer cmd, orri_target *t, orri_buffer *readback);
/* The frame was submitted: the images it initialised or drew are readable from now on. */
void orri_texture_targets_commit(orr_renderer *r);
void orri_texture_targets_fini(orr_renderer *r);
#endif
