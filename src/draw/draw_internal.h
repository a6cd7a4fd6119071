/* Internals shared by the files of the draw module. Not installed. */
#ifndef ORRERY_DRAW_INTERNAL_H
#define ORRERY_DRAW_INTERNAL_H

#include <orrery/draw.h>

/* The view's frustum planes left, right, bottom, top, near in world-minus-origin space, unnormalised,
 * inside where dot(plane.xyz, p) + plane.w >= 0: the planes the instance cull uses. */
void orri_draw_frustum_planes(const orr_draw_view *view, double planes[5][4]);
/* The distance from the view origin to the nearest point of the bounding sphere of the instance's box
 * (0 inside it), and its largest axis scale in *scale: binary32, as the GPU cull computes them (lod.c). */
float orri_draw_lod_distance(const orr_draw_lod_view *lv, const orr_render_instance *in, const orr_aabbf *bounds,
                             float *scale);

#endif
