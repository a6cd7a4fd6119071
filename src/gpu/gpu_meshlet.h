/* The meshlet strategy (gpu_meshlet.c; its state in gpu_state.h).
 *
 * Residency (gpu_meshlet_pool.c): each resident mesh's meshlets once, in four pool buffers beside the geometry pool's
 * (descriptors, bounds, vertex entries, triangle words), placed through free lists like the vertices
 * and indices, so that a mesh drawn by many instances, views and frames is uploaded once, and the space
 * of released meshes is reused.
 *
 * Per view and frame (views with ORR_STRATEGY_MESHLET): a draw per indexed command of the view (the
 * same commands every strategy draws from: its opaque batches, then its blended ranges), saying how it
 * is drawn, and then either
 *   mesh shaders  a compute stage writes each draw's task commands (workgroup counts: records x
 *                 chunks of 32 meshlets) from its indexed command's instance count; a task workgroup
 *                 culls 32 meshlets of one record and emits the survivors to the mesh shader, which
 *                 shades their vertices with vertex.glsl (the vertex shader's code) and emits their
 *                 triangles;
 *   the fallback  a compute stage writes an indexed indirect command per slot (record x meshlet) of each
 *                 draw, in record-major order: the meshlet's index range (the primitive's indices are in
 *                 meshlet order), zero counts when culled; the slots of a run of one pipeline state are
 *                 contiguous and drawn by one multi-draw, with the vertex shader of the indexed paths.
 * Either path counts, on the GPU, the meshlets and triangles it was sent and kept and the records it drew
 * through the indexed path by reason; the counts are copied into the frame buffer and read when the
 * frame is known complete (as the GPU cull's are). */
#ifndef ORRERY_GPU_MESHLET_H
#define ORRERY_GPU_MESHLET_H

#include "gpu/gpu_state.h"
#include "gpu/gpu_upload.h"

/* The stages the scene set (set 0) and the frame's barriers name for the mesh shading stages: task and
 * mesh when the strategy draws with them, else none. */
VkShaderStageFlags orri_meshlets_shader_stages(const orr_renderer *r);
VkPipelineStageFlags2 orri_meshlets_pipeline_stages(const orr_renderer *r);
/* Layouts, compute pipelines, shader modules and descriptor sets (after the scene layouts and the mesh
 * fragment shader exist). */
orr_result orri_meshlets_init(orr_renderer *r);
void orri_meshlets_fini(orr_renderer *r);
/* Per view (after orri_draws_plan_view): its draws (and task commands), the pipelines it needs; adds
 * its staging to *stage. A view of another strategy is marked inactive. */
orr_result orri_meshlets_plan_view(orr_renderer *r, orri_view *v, const orr_snapshot *s, const orr_assets *assets,
                                   uint64_t *stage);
/* The meshlet data buffer's regions for the frame's meshlet views (grown when needed). */
orr_result orri_meshlets_layout(orr_renderer *r, const uint32_t *views, uint32_t view_count);
/* Each meshlet view's block and tables into the frame buffer. */
orr_result orri_meshlets_upload_views(orr_renderer *r, orri_upload *up, const uint32_t *views, uint32_t view_count,
                                      const orr_draw_view *dvs);
/* After the culls: the counters zeroed, the compute stage of every meshlet view, with the barriers that
 * order it after the uploads and culls and before the draws. */
void orri_meshlets_dispatch(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const uint32_t *views,
                            uint32_t view_count);
/* Records a meshlet view's built-in passes [first_pass, end_pass) (inside its rendering; instead of
 * orri_indexed_record, as it does: runs join passes only within the span). */
void orri_meshlets_record(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, orri_view *v, uint32_t first_pass,
                          uint32_t end_pass, uint32_t *draw_calls);
/* After every view: the counters into the frame buffer, for the host once the frame completed. */
void orri_meshlets_feedback(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const uint32_t *views,
                            uint32_t view_count);
/* The frame was submitted: its views' counters are read when its fence has signalled (orri_meshlets_read). */
orr_result orri_meshlets_reserve_feedback(orr_renderer *r, orri_frame *f, uint32_t view_count);
void orri_meshlets_submitted(orr_renderer *r, orri_frame *f, uint64_t frame_number, const uint32_t *views,
                             uint32_t view_count);
void orri_meshlets_read(orr_renderer *r, orri_frame *f);
/* The view's counts for the stats (its latest completed frame's). */
void orri_meshlets_stats(const orr_renderer *r, const orri_view *v, orr_render_stats *st);
void orri_meshlets_view_release(orr_renderer *r, orri_view *v);
#endif
