/* The gpu tests in files other than test_gpu.c, run by test_gpu.c's main (ORRT_GPU_MORE_TESTS). */
#ifndef ORRERY_TESTS_GPU_TESTS_H
#define ORRERY_TESTS_GPU_TESTS_H

#include "testutil.h"

/* test_resources.c */
void test_space_aligned(void **state);
void test_memory_blocks(void **state);

#define ORRT_GPU_MORE_TESTS                                                                          \
    cmocka_unit_test(test_space_aligned), cmocka_unit_test(test_memory_blocks)

#endif
