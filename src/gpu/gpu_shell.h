/* The shell path (gpu_shell.c): the shell strategy and the fur adapter. */
#ifndef ORRERY_GPU_SHELL_H
#define ORRERY_GPU_SHELL_H

#include "gpu/gpu_state.h"

/* Per view, after its cull (orri_draws_plan_view): the fur draws of its custom pass (for a GPU-culled
 * view, its payload items culled here first) with their push constants and batch states, the shell
 * strategy's instance slots, and the pipelines they need. */
orr_result orri_shell_plan_view(orr_renderer *r, orri_view *v, const orr_snapshot *s, const orr_assets *assets,
                                const orr_draw_view *dv);
/* The shell strategy's draws of ranges [0, count) of the view's cull (one state: already bound): per
 * visible item, its push constant and one shell. */
void orri_shell_record_ranges(orr_renderer *r, VkCommandBuffer cmd, const orri_view *v, const orr_draw_range *ranges,
                              uint32_t count, uint32_t *draw_calls);
/* The fur draws of the view's custom pass, each with its batch's state bound (the caller's bound state
 * is then unknown). */
void orri_shell_record_fur(orr_renderer *r, VkCommandBuffer cmd, orri_view *v, uint32_t *draw_calls);
/* The shell-path pipeline of a key (made by orri_shell_plan_view). */
VkPipeline orri_shell_pipeline(const orr_renderer *r, uint32_t key, VkSampleCountFlagBits samples, bool fur);
void orri_shell_stats(const orri_view *v, orr_render_stats *st);
void orri_shell_view_fini(orr_renderer *r, orri_view *v);
void orri_shell_fini(orr_renderer *r); /* the pipelines */
#endif
