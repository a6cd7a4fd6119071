/* The frame module's tests in other files, run by test_frame.c's main. */
#ifndef ORRERY_TESTS_FRAME_H
#define ORRERY_TESTS_FRAME_H

#include "testutil.h"

void test_incremental_equals_full(void **state);
void test_threads_same_snapshot(void **state);

#endif
