/* Occlusion culling on the GPU, in two phases (gpu_occlusion.c), per view with its own depth. */
#ifndef ORRERY_GPU_OCCLUSION_H
#define ORRERY_GPU_OCCLUSION_H

#include "gpu/gpu_state.h"
#include "gpu/gpu_upload.h"

/* The layouts, the pyramid's pipeline and its sampler (before the cull's pipelines, which use set 1). */
orr_result orri_occlusion_init(orr_renderer *r);
void orri_occlusion_fini(orr_renderer *r);
/* A view's pyramid, bits and sets, retired after the frames in flight (now: destroyed at once). */
void orri_occlusion_view_release(orr_renderer *r, orri_view *v, bool now);
/* Which of the frame's views occlude (orri_view.occluding), once they are planned and laid out; each
 * one's pyramid and bits made or resized; *stage grows by what they stage. */
orr_result orri_occlusion_plan(orr_renderer *r, const uint32_t *views, uint32_t view_count, uint64_t *stage);
/* The occluding views' phase blocks (the frame buffer of `up`), and their bits zeroed where new (in the
 * uploads' command buffer, which a frame with an occluding view begins). */
orr_result orri_occlusion_upload(orr_renderer *r, orri_upload *up, const uint32_t *views, uint32_t view_count,
                                 const orr_draw_view *draw_views);
/* Phase 1's cull of every occluding view, in the draws' command buffer after orri_cull_record. */
void orri_occlusion_record_culls(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const uint32_t *views,
                                 uint32_t view_count);
/* Before an occluding view's draw: phase 1's surfaces drawn in `rendering` (its depth cleared and
 * stored), the pyramid built from that depth, phase 2's cull. The depth is left as an attachment with
 * that content, for the view's draw to load. */
void orri_occlusion_record_view(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, orri_view *v,
                                const VkRenderingInfo *rendering, uint32_t *draw_calls);
/* The occluding views' counts for the stats (their cull's feedback, copied after phase 2), once every
 * view is drawn. */
void orri_occlusion_record_feedback(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const uint32_t *views,
                                    uint32_t view_count);
#endif
