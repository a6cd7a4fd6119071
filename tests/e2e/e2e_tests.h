/* The end-to-end tests in other files, run by test_e2e.c's main. */
#ifndef ORRERY_TESTS_E2E_H
#define ORRERY_TESTS_E2E_H

#include "testutil.h"

#include <stdbool.h>
#include <stddef.h>

/* Shared by the files of test_e2e (defined in test_e2e.c). */
extern char out[1 << 20]; /* what the last run() printed (2>&1 in ARGS adds stderr) */
/* `$ORRERY_TOOL ARGS` through the shell; its exit status. */
int run(const char *args);
typedef struct image {
    int w, h;
    unsigned char *rgba; /* stbi_image_free it */
} image;
image load_png(const char *path); /* fails the test when the file does not decode */

void test_soak_live_loop(void **state);
/* test_render_thread.c */
void test_render_thread_same_images(void **state);
void test_interpolation_linear_in_time(void **state);
void test_interpolation_camera_follows(void **state);
void test_interpolation_teleport(void **state);
/* test_goldens.c */
void test_sample_goldens(void **state);
void test_best_practices_truck(void **state);
void test_render_file_cameras(void **state);
void test_render_msaa(void **state);
void test_golden_tolerance(void **state);
/* Whether another device's render `a` is close enough to golden `g` (w x h RGBA8); why: the figures. */
bool golden_tolerance(const unsigned char *a, const unsigned char *g, int w, int h, char *why, size_t cap);
/* test_reference.c */
void test_reference_vertices(void **state);
/* test_pick_skinned.c */
void test_pick_skinned_sample(void **state);
/* test_msft_lod.c */
void test_msft_lod_drawn(void **state);
/* test_interpolation_skinned.c */
void test_interpolation_skinned_sample(void **state);
/* test_lean.c */
void test_lean_pipelines_shade_like_full(void **state);
/* test_api_misuse.c */
void test_api_misuse(void **state);
void test_non_finite_poses_refused(void **state);
void test_double_destroy_caught_in_debug(void **state);
/* test_shell.c */
void test_shell_strategy_samples(void **state);
void test_fur_through_the_tool(void **state);

/* test_replay.c */
void test_replay_samples(void **state);
void test_replay_builtin(void **state);
void test_replay_view(void **state);

#endif
