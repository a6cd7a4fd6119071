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
/* The scene techniques the target's list places in the view's list (its built-in passes and those
 * placed among them, gpu_technique_builtin) at `at`: right before built-in pass `at` (an orr_pass), or
 * after the last (ORR_PASS_COUNT). */
bool orri_techniques_placed_at(const orr_renderer *r, uint32_t target, uint32_t view, uint32_t at);
/* Records those, in list order (their draw calls added to *draw_calls). The view's depth is in the
 * depth-attachment layout and the target's colour a colour attachment; they are left so. `written`:
 * something before them in the view's list wrote the depth and colour (a barrier comes first, and the
 * depth is kept by default); else the first finds the depth undefined (cleared unless it asks for
 * what was there). Returns whether any ran. */
bool orri_techniques_record_at(orr_renderer *r, VkCommandBuffer cmd, uint32_t slot, uint32_t target, uint32_t view,
                               uint32_t at, bool written, const orri_tech_frame *fr, uint32_t *draw_calls);

/* A description being written: text[0, size) holds what fits (NUL-terminated), len counts it all. */
typedef struct orri_text {
    char *text;
    size_t size, len;
} orri_text;
void orri_text_say(orri_text *out, const char *fmt, ...) ORRI_PRINTF(2, 3);
/* A line per technique placed at `at` in the view's list (as orri_techniques_record_at records them). */
void orri_techniques_describe_at(orr_renderer *r, uint32_t target, uint32_t view, uint32_t at, orri_text *out);
/* The techniques after the views, as orri_techniques_record records them (passes, barriers), then the
 * list's resources and the transients' memory. */
void orri_techniques_describe_list(orr_renderer *r, uint32_t target, orri_text *out);

#endif /* ORRERY_GPU_TECHNIQUE_RECORD_H */
