/* The end-to-end tests in other files, run by test_e2e.c's main. */
#ifndef ORRERY_TESTS_E2E_H
#define ORRERY_TESTS_E2E_H

#include "testutil.h"

void test_soak_live_loop(void **state);
/* test_goldens.c */
void test_sample_goldens(void **state);
void test_best_practices_truck(void **state);
void test_render_file_cameras(void **state);
void test_render_msaa(void **state);
/* test_shell.c */
void test_shell_strategy_samples(void **state);
void test_fur_through_the_tool(void **state);

#endif
