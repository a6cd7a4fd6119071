/* The groups of test_assets; main() in test_assets.c runs them all. */
#ifndef ORRT_ASSETS_TESTS_H
#define ORRT_ASSETS_TESTS_H

#include "testutil.h"

#include <orrery/assets.h>

int orrt_assets_meshlets(void); /* meshlets stored once, index order, culling bounds (test_meshlets.c) */
int orrt_assets_lods(void);     /* levels of detail (test_lods.c) */
int orrt_assets_fur(void);      /* the fur shading mode and the fur noise texture (test_fur.c) */

#endif
