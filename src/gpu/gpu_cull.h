/* The GPU cull (gpu_cull.c): its compute pipelines and dispatches. */
#ifndef ORRERY_GPU_CULL_H
#define ORRERY_GPU_CULL_H

#include "gpu/gpu_state.h"

orr_result orri_cull_create_pipeline(orr_renderer *r);
/* The GPU culls of the frame (compute), with the barriers that order them after the uploads and before
 * the draws; feedback copied into the frame buffer. */
void orri_cull_record(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const uint32_t *views, uint32_t view_count);

/* An occluding view's share of one phase (gpu_occlusion.c): its set 1 and block, and its buffer of
 * counters and bits. */
typedef struct orri_cull_occlusion {
    VkDescriptorSet set;
    uint32_t offset;  /* its block in the frame buffer */
    uint32_t phase;   /* 1 or 2 */
} orri_cull_occlusion;
/* One occluding view's cull (orri_cull_record leaves those out), all four stages with the occlusion
 * test in the count stage: ordered after the uploads and after earlier draws that read its records and
 * commands, and before the draws that read them. */
void orri_cull_record_view(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const orri_view *v,
                           const orri_cull_occlusion *occ);
/* Its counts copied to its feedback in the frame buffer, as orri_cull_record copies those of the other
 * views; the caller orders the copy after the last cull and before the host reads. */
void orri_cull_record_feedback(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const orri_view *v);
#endif
