/* Residency of meshlets (gpu_meshlet_pool.c), beside the geometry pool's: gpu_geometry.c calls these
 * for the meshes it plans, uploads, commits and releases. */
#ifndef ORRERY_GPU_MESHLET_POOL_H
#define ORRERY_GPU_MESHLET_POOL_H

#include "gpu/gpu_state.h"
#include "gpu/gpu_upload.h"

/* Residency, beside the geometry pool's (gpu_geometry.c calls these): a mesh planned for upload gets pool
 * space for its meshlets (none when it has none; a mesh too large for the pool then draws indexed); its
 * staging bytes; a released mesh's space goes back; the upload of the pending meshes' meshlets; the
 * frame's end (commit or abort) and another library (release). */
void orri_meshlets_plan_mesh(orr_renderer *r, const orr_mesh *mesh, orr_mesh_id id);
uint64_t orri_meshlets_stage(const orr_renderer *r, const orr_mesh *mesh);
void orri_meshlets_release_mesh(orr_renderer *r, uint32_t mesh_index);
orr_result orri_meshlets_upload(orr_renderer *r, const orr_assets *assets, orri_upload *up);
uint64_t orri_meshlets_bytes(const orr_renderer *r); /* pool bytes in use */
uint32_t orri_meshlets_retirements(const orr_renderer *r); /* buffers orri_meshlets_commit retires */
void orri_meshlets_commit(orr_renderer *r, uint64_t frame_number);
void orri_meshlets_abort(orr_renderer *r);
void orri_meshlets_release(orr_renderer *r, uint64_t last_use);
/* The meshlets of mesh `id` in the pool, or NULL when none are resident. */
const orri_meshlet_mesh *orri_meshlets_resident(const orr_renderer *r, orr_mesh_id id);
void orri_meshlets_pool_fini(orr_renderer *r);

#endif
