/* The floor of a frame (gpu_baseline.c): with orr_renderer_desc.baseline_gpu, every view's visible
 * records drawn again by the leanest pipeline that can draw them, into scratch images, and timed. */
#ifndef ORRERY_GPU_BASELINE_H
#define ORRERY_GPU_BASELINE_H

#include "gpu/gpu_state.h"

/* Its shaders (at creation, when `enabled`). */
orr_result orri_baseline_init(orr_renderer *r, bool enabled);
void orri_baseline_fini(orr_renderer *r);
/* Before recording: the pipeline for `samples` and scratch attachments of at least width x height. */
orr_result orri_baseline_plan(orr_renderer *r, uint32_t width, uint32_t height, VkSampleCountFlagBits samples);
/* After the frame's end timestamp: views[0 .. count) (those drawn at the scratch's sample count), each
 * one indirect draw of its commands, then the floor's end timestamp (query `query`). Returns whether
 * it wrote that timestamp. */
bool orri_baseline_record(orr_renderer *r, VkCommandBuffer cmd, const orri_frame *f, const uint32_t *views,
                          uint32_t count, uint32_t query);
#endif
