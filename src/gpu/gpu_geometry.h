/* Residency of meshes (gpu_geometry.c): the geometry pool. */
#ifndef ORRERY_GPU_GEOMETRY_H
#define ORRERY_GPU_GEOMETRY_H

#include "gpu/gpu_state.h"
#include "gpu/gpu_upload.h"

/* Each plan step adds to *stage the frame-buffer bytes its upload takes (with alignment slack).
 * `whole`: the snapshot is taken whole; otherwise only its changed and removed instances are looked at. */
/* Residency: plans pool space for every mesh the instances `scan` names use that is not resident yet,
 * and releases meshes the library removed (r->geometry.released). */
typedef enum orri_scan {
    ORRI_SCAN_NONE = 0, /* no instance can name a new mesh (the layout did not change) */
    ORRI_SCAN_CHANGED,  /* the snapshot's changed instances */
    ORRI_SCAN_ALL,      /* every instance (the snapshot is taken whole) */
} orri_scan;
orr_result orri_geometry_plan(orr_renderer *r, const orr_snapshot *s, const orr_assets *assets, orri_scan scan,
                              uint64_t *stage);
/* Grows the pool when needed (copying what it held) and uploads the planned meshes. */
orr_result orri_geometry_upload(orr_renderer *r, const orr_assets *assets, orri_upload *up);
const orri_resident_primitive *orri_geometry_find(const orr_renderer *r, orr_mesh_id mesh, uint32_t primitive);
/* The end of a frame: how many buffers orri_geometry_commit retires (room for them is made before the
 * submit, so that the commit cannot fail); the planned meshes resident; or, the frame failed, a grown
 * pool back to its old buffer (pending meshes stay pending). */
uint32_t orri_geometry_retirements(const orr_renderer *r);
void orri_geometry_commit(orr_renderer *r, uint64_t frame_number);
void orri_geometry_abort(orr_renderer *r);
/* Another library: every mesh forgotten, the buffers retired after the frames in flight. */
void orri_geometry_release(orr_renderer *r);
void orri_geometry_fini(orr_renderer *r);

#endif
