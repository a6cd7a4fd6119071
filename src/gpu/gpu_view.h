/* A view's place and camera for a frame (gpu_view.c). */
#ifndef ORRERY_GPU_VIEW_H
#define ORRERY_GPU_VIEW_H

#include "gpu/gpu_state.h"

typedef struct orri_view_frame {
    orr_draw_view draw;  /* origin, rotation-only view, projection */
    orr_gpu_view gpu;
} orri_view_frame;

/* The view's viewport on a target of w x h (its desc's, scaled from the size it was given for). */
orr_viewport orri_view_rect(const orri_view *v, uint32_t w, uint32_t h);
/* The snapshot camera a view looks through, or NULL. */
const orr_render_camera *orri_view_snapshot_camera(const orri_view *v, const orr_snapshot *s);
/* The aspect ratio a snapshot camera fixes (glTF aspectRatio, or xmag / ymag), or 0. */
double orri_view_camera_aspect(const orr_render_camera *cam);
/* The largest rectangle of `aspect` centred in `vp` (vp itself when aspect is 0). */
orr_viewport orri_view_letterbox(orr_viewport vp, double aspect);
/* The camera in binary64: origin, then rotation and projection relative to it, then floats; and the
 * view's lighting settings. */
void orri_view_camera(const orri_view *v, const orr_snapshot *s, orr_viewport rect, orri_view_frame *out);

#endif
