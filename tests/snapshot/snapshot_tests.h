/* Shared by the snapshot module's test files. */
#ifndef ORRT_SNAPSHOT_TESTS_H
#define ORRT_SNAPSHOT_TESTS_H

#include <orrery/snapshot.h>

/* Fills an initialised, empty snapshot by hand: three instances (one skinned, one with overrides and
 * fur), a light, a camera. */
void orrt_snapshot_build(orr_snapshot *s, uint64_t frame);
/* The storage, copy, equality and diff tests (test_snapshot.c): failures. */
int orrt_snapshot_basic_tests(void);

#endif
