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
#define orrt_asset(relative) orrt_asset_in(__func__, (relative))
const char *orrt_asset_in(const char *test, const char *relative);

/* Skips the calling test, saying why. Every skip is recorded: one line "test: reason" in the file
 * ORRERY_SKIP_LOG names (set by CTest per entry; emptied when the executable starts), which `make
 * test` prints after the run, and orrt_exit_status then reports the skip to CTest. */
#define orrt_skip(reason) orrt_skip_in(__func__, (reason))
void orrt_skip_in(const char *test, const char *reason);
/* What main returns: 1 when a test failed, else ORRT_SKIPPED when one was skipped (CTest's
 * SKIP_RETURN_CODE: the entry shows as skipped, not passed), else 0. */
#define ORRT_SKIPPED 77
int orrt_exit_status(int failed);
/* Whether main should run the group `name`: ORRT_GROUPS (comma-separated; unset or empty = every
 * group) lets CTest run an executable's sample-model tests as an entry of their own. */
int orrt_group_selected(const char *name);
/* Source and build folders, for goldens and the tool. */
const char *orrt_source_dir(void);
const char *orrt_binary_dir(void);
/* The name a golden image's device is recorded under: the renderer's device name, and for a CPU
 * rasterizer (llvmpipe) the host's vector units and its CPU's vendor, family and model too, since its
 * compiled shaders round differently with them (AVX-512's reciprocal estimates are not AVX's, and LLVM
 * tunes for the CPU by name): a golden is byte-exact on its own kind of machine, within a tolerance
 * elsewhere. Into a static buffer. */
const char *orrt_golden_device(const char *device);
/* A folder of the calling executable's own for the files its tests write: made on the first call for
 * `tag` as $TMPDIR/orrery_<tag>_XXXXXX (else under /tmp), the same one after that, and removed with
 * everything in it when the executable exits, unless orrt_exit_status was told of a failure (it then
 * says where they are kept). At most 8 tags. NULL when it cannot be made. */
const char *orrt_scratch(const char *tag);
/* Runs a shell command, captures stdout (up to cap - 1 bytes) and returns the exit status. */
int orrt_run(const char *command, char *out, size_t cap);
/* The orrery tool under test (ORRERY_TOOL, which ctest sets); fails the test when it is not set. */
const char *orrt_tool(void);

/* A counting allocator (orr_allocator.realloc with user = an orrt_counter): the bytes outstanding, the calls
 * made, and how many blocks were allocated at `size` bytes and at `size2` (0: none counted). */
typedef struct orrt_counter {
    long long bytes, calls;
    size_t size, size2;
    int of_size, of_size2;
} orrt_counter;
void *orrt_counting_realloc(void *user, void *ptr, size_t old_size, size_t new_size);

#endif
