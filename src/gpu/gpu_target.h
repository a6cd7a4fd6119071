/* Targets and views (gpu_target.c): their handles and lifetimes. */
#ifndef ORRERY_GPU_TARGET_H
#define ORRERY_GPU_TARGET_H

#include "gpu/gpu_state.h"

/* The live target or view of an id, or NULL when the id is stale. */
orri_target *orri_target_get(orr_renderer *r, orr_target_id id);
/* Its images and buffers retired after the frames in flight (`now`: destroyed at once), its surface
 * destroyed; the slot is dead. */
void orri_target_release(orr_renderer *r, orri_target *t, bool now);
void orri_view_release(orr_renderer *r, orri_view *v, bool now);

#endif
