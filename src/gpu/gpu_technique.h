/* The technique room: the host's techniques (include/orrery/technique.h), per target a list checked,
 * ordered and built at registration, and recorded after the target's views each frame. What the rest
 * of the renderer calls; everything else stays in gpu_technique.c. */
#ifndef ORRERY_GPU_TECHNIQUE_H
#define ORRERY_GPU_TECHNIQUE_H

#include "gpu/gpu_state.h"

typedef struct orri_techniques orri_techniques; /* renderer.techniques (NULL until a list is set) */

/* Destroys every list (the device idle). */
void orri_techniques_fini(orr_renderer *r);
/* The target at `target` (index) is destroyed: its list goes (waiting for its frames when `now` is
 * false and a submitted frame used it). */
void orri_techniques_target_gone(orr_renderer *r, uint32_t target, bool now);
/* Whether the target has techniques (its frames then record their commands every frame). */
bool orri_techniques_active(const orr_renderer *r, uint32_t target);
/* Whether a scene technique draws in place of the built-in passes of the view at `view` (index) of the
 * target (orr_technique_scene.replaces_view): the view's passes are then not recorded. */
bool orri_techniques_replace_view(const orr_renderer *r, uint32_t target, uint32_t view);
/* Whether a technique samples the depth of the view at `view` (index): the view then stores it. */
bool orri_techniques_read_depth(const orr_renderer *r, uint32_t view);
/* Before the frame's commands are begun: the target's transient images at its size now. */
orr_result orri_techniques_prepare(orr_renderer *r, uint32_t target);
/* After the target's views, in the frame's draw command buffer: its techniques, with their barriers;
 * "color" is left as the views leave it (colour attachment, written at colour output). Returns the
 * draw calls of its scene techniques. */
uint32_t orri_techniques_record(orr_renderer *r, VkCommandBuffer cmd, uint32_t slot, uint32_t target);
/* Before (`after` false) or right after the built-in passes of the view at `view` (index) of the
 * target: the scene techniques placed there (their draw calls added to *draw_calls). The view's depth
 * is in the depth-attachment layout (before: its contents undefined) and the target's colour a colour
 * attachment; they are left so. Returns whether any ran: before the view, its passes then load the
 * depth they wrote (after a barrier) instead of clearing it. */
bool orri_techniques_record_view(orr_renderer *r, VkCommandBuffer cmd, uint32_t slot, uint32_t target, uint32_t view,
                                 bool after, uint32_t *draw_calls);

#endif /* ORRERY_GPU_TECHNIQUE_H */
