/* The GPU cull (gpu_cull.c): its compute pipelines and dispatches. */
#ifndef ORRERY_GPU_CULL_H
#define ORRERY_GPU_CULL_H

#include "gpu/gpu_state.h"

orr_result orri_cull_create_pipeline(orr_renderer *r);
/* The GPU culls of the frame (compute), with the barriers that order them after the uploads and before
 * the draws; feedback copied into the frame buffer. */
void orri_cull_record(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const uint32_t *views, uint32_t view_count);
#endif
