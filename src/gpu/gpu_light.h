/* Lights (gpu_light.c): each view's lights, relative to its origin. */
#ifndef ORRERY_GPU_LIGHT_H
#define ORRERY_GPU_LIGHT_H

#include "gpu/gpu_state.h"

/* How many lights view `v` gets of the snapshot `s` (staging: that many orr_gpu_light). */
uint32_t orri_lights_count(const orr_view_desc *v, const orr_snapshot *s);
/* Writes them into the frame buffer, positions relative to `origin` (in binary64 first); *first is
 * the first one's index in the frame buffer taken as an array of orr_gpu_light. */
orr_result orri_lights_write(orr_renderer *r, orri_frame *f, const orr_view_desc *v, const orr_snapshot *s,
                             orr_vec3d origin, uint32_t *first, uint32_t *count);
#endif
