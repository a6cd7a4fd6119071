/* The technique room: the host's techniques (include/orrery/technique.h), per target a list checked
 * (gpu_technique_graph), built (gpu_technique_build) and replaced whole at registration, its transients
 * made at the target's size, its hot reloads built at the next frame; recorded after the target's views
 * (gpu_technique_record). What the rest of the renderer calls about the lists. */
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
#endif /* ORRERY_GPU_TECHNIQUE_H */
