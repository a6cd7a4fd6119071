/* The technique mesh room: a scene technique's task and mesh stages (orr_technique_scene.mesh, a mesh
 * technique): the desc's mesh fields and the stages' reflected interfaces checked (the device's
 * limits among them), and its draws recorded: a vkCmdDrawMeshTasksEXT per run of records of its view,
 * or its fixed count once. Compiling is the build room's (gpu_technique_build), which calls this one. */
#ifndef ORRERY_GPU_TECHNIQUE_MESH_H
#define ORRERY_GPU_TECHNIQUE_MESH_H

#include "gpu/gpu_state.h"

#include <orrery/technique.h>

typedef struct orri_tech orri_tech;                   /* gpu_technique_graph.h */
typedef struct orri_shader_io orri_shader_io;         /* gpu_shader.h */
typedef struct orri_sorted_record orri_sorted_record; /* gpu_indexed.h */

/* The stages a mesh technique's push block is seen by (its layout's range and every push). */
#define ORRI_TECH_MESH_PUSH_STAGES                                                                             \
    (VK_SHADER_STAGE_TASK_BIT_EXT | VK_SHADER_STAGE_MESH_BIT_EXT | VK_SHADER_STAGE_FRAGMENT_BIT)

/* Whether `d` gives a task or mesh shader (a mesh technique, or a task shader refused without one). */
bool orri_technique_is_mesh(const orr_technique_desc *d);
/* The bytes of a mesh technique's push block: the host's, then (per record) the run's first record. */
uint32_t orri_technique_mesh_push(const orr_technique_desc *d);
/* A mesh technique's desc fields, before its shaders are compiled: not with a vertex shader, a mesh
 * shader with any task shader, FILLED, the view's strategy, a fixed count in range, per record a view
 * its settings cull on the CPU. Refused with a message naming the technique. */
orr_result orri_technique_mesh_check_desc(orr_renderer *r, const orr_technique_desc *d);
/* A compiled task (`stage` ORRI_SHADER_TASK) or mesh stage's (ORRI_SHADER_MESH) reflection `io` (its set
 * 0 already checked by the caller) against the desc and the device: no sampler, its push block, its
 * outputs and workgroup within the device's limits (when it has mesh shaders). `first`: the dispatched
 * stage. */
orr_result orri_technique_mesh_check_stage(orr_renderer *r, const orr_technique_desc *d, uint32_t stage,
                                           const orri_shader_io *io, const char *sname, bool first);
/* After every stage compiled and matched: whether the renderer draws with mesh shaders. */
orr_result orri_technique_mesh_device(orr_renderer *r, const orr_technique_desc *d);

/* Before a mesh technique's rendering (outside any): the frame's uploads (transfers) and the scatter
 * and culls (compute) made visible to the task and mesh stages, which the frame's own barriers name
 * only where a meshlet view draws. */
void orri_technique_mesh_barrier(VkCommandBuffer cmd);
/* A mesh technique's draws of view `v`, inside its rendering (viewport and scissor set), in frame slot
 * `slot`: its runs of records (`sorted`, sorted_count of them, in a technique order; NULL: the view's
 * order), or its fixed count. Adds its vkCmdDrawMeshTasksEXT calls to *draw_calls. */
void orri_technique_mesh_draw(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, uint32_t slot, const orri_view *v,
                              const orri_tech *t, const orri_sorted_record *sorted, uint32_t sorted_count,
                              uint32_t *draw_calls);

#endif /* ORRERY_GPU_TECHNIQUE_MESH_H */
