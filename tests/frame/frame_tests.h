/* The frame module's tests in other files, run by test_frame.c's main. */
#ifndef ORRERY_TESTS_FRAME_H
#define ORRERY_TESTS_FRAME_H

#include "testutil.h"

void test_incremental_equals_full(void **state);
void test_threads_same_snapshot(void **state);
void test_threads_same_snapshot_unskinned(void **state);
/* test_render_thread.c */
void test_render_thread_same_snapshots(void **state);
void test_render_thread_contract(void **state);

/* A world of random content (meshes, morphs, skins, fur, lights, cameras added to `assets`) changed at
 * random by each step as test_incremental.c changes it (moves, edits, renames, creates, destroys,
 * reparents, clones, joints, weights, fur); the same seed, the same worlds. */
#include <orrery/frame.h>
typedef struct orrt_random_world orrt_random_world;
orrt_random_world *orrt_random_world_create(orr_world *world, orr_assets *assets, uint64_t seed);
void orrt_random_world_step(orrt_random_world *rw);
/* Moves only (a few entities): the extraction's in-place path. */
void orrt_random_world_move(orrt_random_world *rw);
/* Every root destroyed and a new world made in its place. */
void orrt_random_world_replace(orrt_random_world *rw);
void orrt_random_world_destroy(orrt_random_world *rw);

#endif
