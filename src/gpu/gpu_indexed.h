/* The indexed strategies (gpu_indexed.c): direct, batched, indirect. */
#ifndef ORRERY_GPU_INDEXED_H
#define ORRERY_GPU_INDEXED_H

#include "gpu/gpu_state.h"

void orri_indexed_record(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, orri_view *v, uint32_t *draw_calls);
#endif
