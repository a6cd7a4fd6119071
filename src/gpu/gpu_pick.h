/* The pick room (gpu_pick.c): the host's picks (include/orrery/pick.h), each drawn by an id pass after
 * its view's passes in the next frame of its view's target, read back, and answered once that frame
 * has completed. What the frame calls; a frame without picks only asks orri_picks_planned. */
#ifndef ORRERY_GPU_PICK_H
#define ORRERY_GPU_PICK_H

#include "gpu/gpu_state.h"

/* Destroys every pick (the device idle). */
void orri_picks_fini(orr_renderer *r);
/* The frame `number` (in slot `slot`) draws the views view_order[0 .. count), with the cameras
 * `cameras` (one per view, in that order): the picks waiting for one of them get their rectangle,
 * camera and images. */
orr_result orri_picks_plan(orr_renderer *r, const uint32_t *view_order, const orr_draw_view *cameras, uint32_t count);
/* Whether the frame being made draws picks (its commands are then recorded, never reused). */
bool orri_picks_planned(const orr_renderer *r);
/* After the passes of the view at `view` (index), outside any rendering: its planned picks' id passes
 * and their copies into host memory. */
void orri_picks_record(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, uint32_t view, uint32_t *draw_calls);
/* The frame was submitted as renderer frame `number` (orr_render_stats.frame `stats_frame`). */
void orri_picks_submitted(orr_renderer *r, uint64_t number, uint64_t stats_frame);
/* Renderer frame `number` has completed (its fence signalled): its picks are answered. */
void orri_picks_completed(orr_renderer *r, uint64_t number);

#endif /* ORRERY_GPU_PICK_H */
