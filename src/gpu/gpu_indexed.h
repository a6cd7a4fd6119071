/* The indexed strategies (gpu_indexed.c): direct, batched, indirect. */
#ifndef ORRERY_GPU_INDEXED_H
#define ORRERY_GPU_INDEXED_H

#include "gpu/gpu_state.h"

/* The view's built-in passes [first_pass, end_pass) (orr_pass values) with its strategy, inside its
 * rendering: the batches before the transparent pass in runs of one state (a run joins passes only
 * within the span), the custom pass's fur on the shell path, the blended ranges back to front. */
void orri_indexed_record(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, orri_view *v, uint32_t first_pass,
                         uint32_t end_pass, uint32_t *draw_calls);
/* A GPU-culled view's surfaces before the transparent pass only, indirect, with the view's pipelines
 * (an occluding view's first phase, gpu_occlusion.c: the same depth the view's draw writes). */
void orri_indexed_record_opaque(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, orri_view *v, uint32_t *draw_calls);

/* A record of a view drawn on its own, in an order of a technique's (orr_technique_order). */
typedef struct orri_sorted_record {
    uint32_t position; /* in the view's records (its visible items) */
    uint32_t batch;    /* its scene batch */
} orri_sorted_record;

/* A host scene technique's draw of a view (inside its rendering, viewport and scissor set): the view's
 * records with the technique's pipeline, whose layout has the mesh pipelines' sets 0 and 1. */
typedef struct orri_scene_draw {
    VkPipeline pipeline;
    VkPipelineLayout layout;
    VkDescriptorSet reads;      /* set 2, or VK_NULL_HANDLE */
    const void *push;           /* push_size bytes for the vertex and fragment stages; NULL-able */
    uint32_t push_size;
    uint32_t passes;            /* bit per orr_pass (the custom pass's mesh batches only: fur is never drawn) */
    int cull;                   /* -1: each batch's (the material's); else a VkCullModeFlags */
    orr_strategy strategy;      /* direct, batched or indirect; a GPU-culled view: indirect */
    const orri_sorted_record *sorted; /* NULL: the view's order; else these records in this order (those
                                         of the CPU's cull: a GPU-culled view's passes before the
                                         blended one are drawn first, in the view's order), a draw per
                                         run of one batch at adjacent positions */
    uint32_t sorted_count;
} orri_scene_draw;
void orri_indexed_record_scene(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const orri_view *v,
                               const orri_scene_draw *d, uint32_t *draw_calls);
#endif
