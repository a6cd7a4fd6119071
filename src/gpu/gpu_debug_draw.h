/* The debug-drawing room (gpu_debug_draw.c): the host's per-frame list of lines
 * (include/orrery/debug_draw.h) and the built-in drawings, made relative to each view's origin when
 * the frame is planned and drawn inside each view's passes. A frame with nothing to draw only asks
 * orri_debug_planned. */
#ifndef ORRERY_GPU_DEBUG_DRAW_H
#define ORRERY_GPU_DEBUG_DRAW_H

#include "gpu/gpu_state.h"

/* Destroys the list and its GPU objects (the device idle). */
void orri_debug_fini(orr_renderer *r);
/* The frame in slot `slot` draws the views view_order[0 .. count) with the cameras `cameras` (one per
 * view): those of target `target` get the list and the built-in drawings of snapshot `s`, made
 * relative to their origins in the slot's vertex buffer. */
orr_result orri_debug_plan(orr_renderer *r, uint32_t slot, uint32_t target, const uint32_t *view_order,
                           const orr_draw_view *cameras, uint32_t count, const orr_snapshot *s);
/* Whether the frame being made draws debug lines (its commands are then recorded, never reused). */
bool orri_debug_planned(const orr_renderer *r);
/* Inside the rendering of the view at `view` (index), after its passes (viewport and scissor set): its
 * lines, depth-tested ones first. */
void orri_debug_record(orr_renderer *r, VkCommandBuffer cmd, uint32_t slot, uint32_t view, uint32_t *draw_calls);
/* The frame was submitted: the host's list is drawn, and forgotten. */
void orri_debug_submitted(orr_renderer *r);

#endif /* ORRERY_GPU_DEBUG_DRAW_H */
