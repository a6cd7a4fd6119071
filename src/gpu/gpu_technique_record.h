/* The technique record room: a frame's technique commands, with the barriers their declared reads
 * and writes need, and the same walk written out as text (the frame graph). */
#ifndef ORRERY_GPU_TECHNIQUE_RECORD_H
#define ORRERY_GPU_TECHNIQUE_RECORD_H

#include "gpu/gpu_state.h"

/* What scene techniques that sort their records read of the frame being recorded: the snapshot, and
 * the frame's views' cameras (draw_views[k] is renderer.view_order[k]'s). The caller's, for the call. */
typedef struct orri_tech_frame {
    const orr_snapshot *snapshot;
    const orr_draw_view *draw_views;
    uint32_t view_count;
} orri_tech_frame;

/* After the target's views, in the frame's draw command buffer: its techniques, with their barriers;
 * "color" is left as the views leave it (colour attachment, written at colour output). Returns the
 * draw calls of its scene techniques. */
uint32_t orri_techniques_record(orr_renderer *r, VkCommandBuffer cmd, uint32_t slot, uint32_t target,
                                const orri_tech_frame *fr);
/* Before (`after` false) or right after the built-in passes of the view at `view` (index) of the
 * target: the scene techniques placed there (their draw calls added to *draw_calls). The view's depth
 * is in the depth-attachment layout (before: its contents undefined) and the target's colour a colour
 * attachment; they are left so. Returns whether any ran: before the view, its passes then load the
 * depth they wrote (after a barrier) instead of clearing it. */
bool orri_techniques_record_view(orr_renderer *r, VkCommandBuffer cmd, uint32_t slot, uint32_t target, uint32_t view,
                                 bool after, const orri_tech_frame *fr, uint32_t *draw_calls);

#endif /* ORRERY_GPU_TECHNIQUE_RECORD_H */
