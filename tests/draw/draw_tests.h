/* The groups of test_draw; main() in test_draw.c runs them all. */
#ifndef ORRT_DRAW_TESTS_H
#define ORRT_DRAW_TESTS_H

#include "testutil.h"

#include <orrery/draw.h>

int orrt_draw_meshlets(void); /* meshlet culling and the meshlet strategy's CPU reference (test_meshlet.c) */
int orrt_draw_lods(void);     /* levels of detail picked per view (test_lod.c) */
int orrt_draw_ranges(void);   /* visibility ranges and their hysteresis (test_range.c) */
int orrt_draw_fur(void);      /* the fur payload, its sidecar, fallback and adapter (test_fur.c) */

#endif
