/* Orrery debug drawing: lines a host draws for one frame, over the shared scene.
 *
 *   orr_renderer_debug_line, _box, _sphere, _frustum, _axes   add to the frame's list (binary64 world)
 *   orr_renderer_set_debug_draw                                built-in drawings every frame: each
 *                                                              instance's bounds, the views' cull frusta
 *
 * Immediate mode: what is added between two orr_renderer_render calls is drawn by the next one, in
 * every view of its target, and then forgotten (a host adds its lines again each frame it wants them).
 * Each view draws the list after its passes, inside them: relative to its own binary64 origin (every
 * point is made relative to it in binary64, then rounded), into its colour and, for lines that ask for
 * it, tested against its depth (hidden behind the scene's surfaces) without writing it; alpha blends
 * over. A frame with an empty list and no built-in drawing records no debug command: its image is the
 * same bytes as without debug drawing.
 */
#ifndef ORRERY_DEBUG_DRAW_H
#define ORRERY_DEBUG_DRAW_H

#include <orrery/gpu.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ORR_DEBUG_MAX_LINES (1u << 20) /* lines per frame, the built-in ones included; more are dropped */
#define ORR_DEBUG_SPHERE_SEGMENTS 32u  /* segments of each of a sphere's three circles */

/* How a debug shape is drawn. Zero-initialised: transparent black (invisible), no depth test. */
typedef struct orr_debug_style {
    float color[4];  /* linear RGBA (the target stores sRGB); alpha blends over */
    bool depth_test; /* hidden where the view's surfaces are nearer; false: drawn over everything */
} orr_debug_style;

/* Built-in drawings (orr_renderer_set_debug_draw), bits. */
typedef enum orr_debug_flags {
    ORR_DEBUG_BOUNDS = 1u << 0,   /* each visible instance's bounds in the view's layers, as placed (an
                                     oriented box: the local bounds through its world transform), yellow,
                                     depth tested */
    ORR_DEBUG_FRUSTA = 1u << 1,   /* the cull frustum of each other view of the target, to 1000 x its near
                                     distance (an orthographic one whole), cyan, depth tested */
    ORR_DEBUG_CASCADES = 1u << 2, /* the shadow maps of the target's views with shadows on (orr_view_desc
                                     .shadows), as the frame made them: each directional cascade's box (its
                                     map's square over the depth range it draws), cascade 0 red, 1 green,
                                     2 blue, 3 magenta; a spot light's map's frustum (to 1000 x its near
                                     distance) red; a point light's six faces' frusta likewise, face k in
                                     cascade k % 4's colour; depth tested */
} orr_debug_flags;

/* Every call below fails only with ORR_ERROR_CAPACITY (ORR_DEBUG_MAX_LINES lines in the list already:
 * nothing of the shape added) or ORR_ERROR_OUT_OF_MEMORY. */

/* A line from a to b. */
orr_result orr_renderer_debug_line(orr_renderer *renderer, orr_vec3d a, orr_vec3d b, const orr_debug_style *style);
/* The 12 edges of `box` (axis-aligned in its own space) through `transform` (NULL: world space). */
orr_result orr_renderer_debug_box(orr_renderer *renderer, orr_aabbd box, const orr_mat4d *transform,
                                  const orr_debug_style *style);
/* Three great circles (in the XY, YZ and ZX planes) of ORR_DEBUG_SPHERE_SEGMENTS segments each. */
orr_result orr_renderer_debug_sphere(orr_renderer *renderer, orr_vec3d centre, double radius,
                                     const orr_debug_style *style);
/* The frustum of a camera at `pose` (camera to world, looking along -Z, +Y up): perspective with a
 * vertical field of view `yfov` (radians) and width / height `aspect`, from znear to zfar (> znear);
 * its 12 edges. */
orr_result orr_renderer_debug_frustum(orr_renderer *renderer, const orr_mat4d *pose, double yfov, double aspect,
                                      double znear, double zfar, const orr_debug_style *style);
/* The axes of `pose` from its origin, `length` metres long: X red, Y green, Z blue (style's colour
 * ignored, its depth test kept). */
orr_result orr_renderer_debug_axes(orr_renderer *renderer, const orr_mat4d *pose, double length,
                                   const orr_debug_style *style);
/* The built-in drawings every frame from now on (orr_debug_flags, 0: none, the default). */
void orr_renderer_set_debug_draw(orr_renderer *renderer, uint32_t flags);
/* Lines in the list now (what the next frame draws besides the built-in ones). */
uint32_t orr_renderer_debug_line_count(const orr_renderer *renderer);

#ifdef __cplusplus
}
#endif
#endif /* ORRERY_DEBUG_DRAW_H */
