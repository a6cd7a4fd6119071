/* The built-in techniques room: a view's forward passes as the entries of its technique list. Each
 * orr_pass is one built-in technique (opaque; cut-out; custom: its mesh batches, then the fur adapter's
 * shells on the shell path; blended, back to front), drawn through the view's strategy (direct, batched,
 * indirect or shell: gpu_indexed; meshlet: gpu_meshlet) with the built-in pipelines and material
 * variants; the host's scene techniques placed in the view's list (gpu_technique_record) run among
 * them. Also the frame graph's text: every view's list, then the techniques after the views. */
#ifndef ORRERY_GPU_TECHNIQUE_BUILTIN_H
#define ORRERY_GPU_TECHNIQUE_BUILTIN_H

#include "gpu/gpu_state.h"

struct orri_tech_frame; /* gpu_technique_record.h: the frame's snapshot and views */

/* Runs the list of the view at `view` (index) of the target at `target`, in the frame's draw command
 * buffer: per built-in pass, the scene techniques placed right before it, then the pass; then those
 * placed after the last. Built-in passes with nothing placed between them are one rendering of the
 * target's colour and the view's depth and one walk of the view's strategy (whose runs of one state
 * may join them: the commands of a view without techniques among its passes are those of one pass);
 * a technique between two ends that rendering (the depth stored) and the next loads both. A view whose
 * passes a technique replaces (orr_technique_scene.replaces_view) runs only what is placed in its list.
 * The view's depth is in the depth-attachment layout (contents undefined), the target's colour a
 * colour attachment; both are left so. Draw calls are added to *draw_calls. */
void orri_builtin_record_view(orr_renderer *r, VkCommandBuffer cmd, uint32_t slot, uint32_t target, uint32_t view,
                              const struct orri_tech_frame *fr, uint32_t *draw_calls);

#endif /* ORRERY_GPU_TECHNIQUE_BUILTIN_H */
