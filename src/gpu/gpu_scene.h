/* Scene buffers (gpu_scene.c): instance slots and records, joints, morph weights; and the end of a
 * frame for everything the frame made resident. */
#ifndef ORRERY_GPU_SCENE_H
#define ORRERY_GPU_SCENE_H

#include "gpu/gpu_state.h"
#include "gpu/gpu_upload.h"

void orri_scene_init(orr_renderer *r);
void orri_scene_fini(orr_renderer *r);
/* Forgets everything kept for the bound library (a new binding starts from nothing); GPU buffers are
 * retired after the frames in flight. */
void orri_scene_release(orr_renderer *r);
/* Instance slots (freed for removed instances first, then given to new ones lowest first) and the
 * records to upload; joints likewise. */
orr_result orri_instances_plan(orr_renderer *r, const orr_snapshot *s, bool whole, uint64_t *stage);
orr_result orri_instances_upload(orr_renderer *r, const orr_snapshot *s, orri_upload *up);
/* The dispatch that writes the changed records into their slots (after the uploads, before anything
 * reads the instance buffer), with its barrier. */
orr_result orri_instances_scatter(orr_renderer *r, orri_upload *up);
orr_result orri_scene_create_pipelines(orr_renderer *r);
uint32_t orri_instances_slot(const orr_renderer *r, uint32_t instance_id); /* UINT32_MAX when absent */
orr_result orri_joints_plan(orr_renderer *r, const orr_snapshot *s, bool whole, uint64_t *stage);
orr_result orri_joints_upload(orr_renderer *r, const orr_snapshot *s, orri_upload *up);
/* The morph weights likewise, each changed instance's range only when it differs from what the buffer
 * holds. */
orr_result orri_weights_plan(orr_renderer *r, const orr_snapshot *s, bool whole, uint64_t *stage);
orr_result orri_weights_upload(orr_renderer *r, const orr_snapshot *s, orri_upload *up);
/* Before the submit: room for what orri_scene_commit retires, so that a submitted frame's commit
 * cannot fail. */
orr_result orri_scene_reserve_commit(orr_renderer *r);
void orri_scene_commit(orr_renderer *r, uint64_t frame_number);
void orri_scene_abort(orr_renderer *r);
#endif
