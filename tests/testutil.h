/* Shared test helpers: where the sample models are, and cmocka glue. */
#ifndef ORRERY_TESTUTIL_H
#define ORRERY_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four includes above first */
#include <cmocka.h>

/* The sample-model folder (ORRERY_ASSETS env var, else the CMake setting ORRERY_ASSETS_DIR), or NULL
 * when it is absent. When absent and ORRERY_REQUIRE_ASSETS is set (CI), the test fails instead. */
const char *orrt_assets_dir(void);
/* Joins the assets folder with a relative path into a static buffer; skips the calling test (or fails
 * it under ORRERY_REQUIRE_ASSETS) when the folder is absent. */
const char *orrt_asset(const char *relative);
/* Source and build folders, for goldens and the tool. */
const char *orrt_source_dir(void);
const char *orrt_binary_dir(void);
/* Runs a shell command, captures stdout (up to cap - 1 bytes) and returns the exit status. */
int orrt_run(const char *command, char *out, size_t cap);

#endif
