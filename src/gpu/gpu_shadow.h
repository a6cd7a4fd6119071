/* Shadows (gpu_shadow.c): per camera view with shadows on, its shadowed lights' maps (a directional
 * light's cascades, a spot light's map, a point light's cube) as shadow views of the shared scene, culled
 * on the GPU and drawn depth-only into one depth array. */
#ifndef ORRERY_GPU_SHADOW_H
#define ORRERY_GPU_SHADOW_H

#include "gpu/gpu_state.h"

struct orri_view_frame; /* gpu_view.h */

/* After the views are planned (their scenes and cameras known, before orri_draws_layout): each view's
 * shadowed lights into renderer.shadows.lights, their layers into renderer.shadows.views, its block's
 * shadow settings (frames[k].gpu), the map at the size and layers they need; adds their staging to
 * *stage. */
orr_result orri_shadows_plan(orr_renderer *r, const uint32_t *views, uint32_t view_count, struct orri_view_frame *frames,
                             const orr_snapshot *s, uint64_t *stage);
/* The shadow records of the view at `frame_view` of the frame order into the frame buffer, and its
 * lights (written at lights_at in it, orri_lights_write's) pointed at them (orr_gpu_light.shadow). */
orr_result orri_shadows_write_lights(orr_renderer *r, orri_frame *f, uint32_t frame_view, VkDeviceSize lights_at);
/* The shadow views' view and cull blocks into the frame buffer (after orri_draws_layout placed their
 * regions). */
orr_result orri_shadows_upload(orr_renderer *r, orri_frame *f);
/* After the cull: every shadow view drawn into its layer, then the map made readable by the mesh
 * fragment shaders (with no shadow view, only that); the cull's count of each one's instances copied
 * to the frame buffer. Adds its draw calls to *calls. */
void orri_shadows_record(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, uint32_t *calls);
/* Once frame f completed: renderer.shadows.casters from its shadow views' counts. */
void orri_shadows_completed(orr_renderer *r, const orri_frame *f);
/* The map's sampler and the map itself (made at creation: the frame set names them every frame). */
orr_result orri_shadows_init(orr_renderer *r);
void orri_shadows_fini(orr_renderer *r);
#endif
