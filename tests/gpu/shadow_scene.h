/* The shadow tests' scene (test_shadow.c, test_shadow_casters.c): a floor, a box over it and one light,
 * rendered into a W x H target seen from SHADOW_EYE, and what the tests measure on the images. */
#ifndef ORRERY_TESTS_GPU_SHADOW_SCENE_H
#define ORRERY_TESTS_GPU_SHADOW_SCENE_H

#include "gpu_fixture.h"

#define W 160
#define H 120

/* The camera's eye, looking at the scene's offset (the floor's centre). */
extern const orr_vec3d SHADOW_EYE;

/* The floor (a cube 12 x 0.2 x 12 whose top is y = 0), a unit box at (0, 1.5, 0), a directional light
 * shining along `shine`, everything moved by `offset`. */
void shadow_scene(fixture *f, orr_vec3d offset, orr_vec3d shine, bool box_casts, bool light_casts);
/* The scene's light made a point light of `candela` at `at`, casting or not. */
void shadow_point_light(fixture *f, orr_vec3d at, float candela, bool casts);
/* A view from SHADOW_EYE (moved by offset), its shadows on or off: 512-texel maps, 30 m. */
orr_view_desc shadow_view(orr_vec3d offset, bool shadows, orr_strategy strategy, orr_cull cull);
/* One frame of the fixture's snapshot through `view` into a new W x H target; its pixels (the caller
 * frees them); `stats` (NULL-able) completed by orr_renderer_finish. */
uint8_t *shadow_render(orr_renderer *r, fixture *f, const orr_view_desc *view, orr_render_stats *stats);
/* ORRT_SHADOW_PNG=DIR writes the images the tests compare there as `name`.png, to be looked at. */
void shadow_keep_png(const char *name, const uint8_t *px);
/* The pixel the world point p (relative to the scene's offset) lands on, seen from SHADOW_EYE. */
void shadow_project(orr_vec3d p, double *x, double *y);
/* Where the image got darker than in `plain` (by more than 30 in R + G + B): the count and the
 * centroid (-1 where none). */
uint32_t shadow_darkened(const uint8_t *plain, const uint8_t *shadowed, double *cx, double *cy);

/* The floor pixels (seen from SHADOW_EYE, not behind the box) whose point on y = 0 does not see a point
 * light at `at` past the box: the exact shadow, at pixel centres. Writes mask (W x H); returns its count
 * and centroid. */
uint32_t shadow_analytic(orr_vec3d at, bool *mask, double *cx, double *cy);

/* A point light's shadow of the box against the exact one (shadow_analytic), pixel by pixel: the pixels
 * darker than in `plain` (count, centroid), the exact shadow's (count, centroid), and the pixels where
 * the two differ. */
typedef struct shadow_match {
    uint32_t dark, exact, differ;
    double dark_x, dark_y, exact_x, exact_y;
} shadow_match;
shadow_match shadow_against_exact(const uint8_t *plain, const uint8_t *shadowed, orr_vec3d at);

static inline uint32_t shadow_sum3(const uint8_t *p) { return (uint32_t)p[0] + p[1] + p[2]; }
#endif
