#define _XOPEN_SOURCE 700 /* nftw */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

const char *orrt_assets_dir(void)
{
    const char *dir = getenv("ORRERY_ASSETS");
    if (!dir || !*dir) dir = ORRERY_ASSETS_DIR_DEFAULT;
    struct stat st;
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) return dir;
    return NULL;
}

static unsigned skipped; /* skips in this process */

/* An empty skip log for this run, before any test records into it. */
__attribute__((constructor)) static void reset_skip_log(void)
{
    const char *log = getenv("ORRERY_SKIP_LOG");
    if (log && *log) remove(log);
}

void orrt_skip_in(const char *test, const char *reason)
{
    skipped++;
    const char *log = getenv("ORRERY_SKIP_LOG");
    FILE *f = log && *log ? fopen(log, "a") : NULL;
    if (f) {
        fprintf(f, "%s: %s\n", test, reason);
        fclose(f);
    }
    print_message("skipped: %s\n", reason);
    skip();
}

static struct {
    char tag[32], dir[512];
} scratch[8];
static int scratch_n, scratch_kept;

int orrt_exit_status(int failed)
{
    if (failed) {
        scratch_kept = 1; /* what a failed test wrote is evidence */
        for (int i = 0; i < scratch_n; i++) fprintf(stderr, "the tests' files are kept in %s\n", scratch[i].dir);
        return 1;
    }
    return skipped ? ORRT_SKIPPED : 0;
}

int orrt_group_selected(const char *name)
{
    const char *groups = getenv("ORRT_GROUPS");
    if (!groups || !*groups) return 1;
    size_t n = strlen(name);
    for (const char *p = groups; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0) return 1;
        p += len + (end ? 1 : 0);
    }
    return 0;
}

const char *orrt_asset_in(const char *test, const char *relative)
{
    static char path[4096];
    const char *dir = orrt_assets_dir();
    if (!dir) {
        const char *req = getenv("ORRERY_REQUIRE_ASSETS");
        const char *env = getenv("ORRERY_ASSETS");
        char why[4200];
        snprintf(why, sizeof why, "sample models not found at %s (set ORRERY_ASSETS or -DORRERY_ASSETS_DIR)",
                 env && *env ? env : ORRERY_ASSETS_DIR_DEFAULT);
        if (req && *req && strcmp(req, "0") != 0) fail_msg("%s: %s, and ORRERY_REQUIRE_ASSETS is set", test, why);
        orrt_skip_in(test, why);
    }
    snprintf(path, sizeof path, "%s/%s", dir, relative);
    return path;
}

const char *orrt_source_dir(void) { return ORRERY_SOURCE_DIR; }
const char *orrt_binary_dir(void) { return ORRERY_BINARY_DIR; }

const char *orrt_golden_device(const char *device)
{
    static char key[320];
    snprintf(key, sizeof key, "%s", device);
#if defined(__x86_64__) || defined(__i386__)
    if (!strncmp(device, "llvmpipe", 8)) {
        __builtin_cpu_init();
        snprintf(key + strlen(key), sizeof key - strlen(key), " on x86%s%s%s", __builtin_cpu_supports("avx2") ? " avx2" : "",
                 __builtin_cpu_supports("fma") ? " fma" : "", __builtin_cpu_supports("avx512f") ? " avx512f" : "");
        /* LLVM schedules and selects instructions for the host CPU by name, which cpuid's vendor, family
         * and model decide: an AMD and an Intel CPU with the same vector units rounded 1 level apart */
        unsigned a, b, c, d;
        if (__get_cpuid(0, &a, &b, &c, &d)) {
            char vendor[13];
            memcpy(vendor, &b, 4), memcpy(vendor + 4, &d, 4), memcpy(vendor + 8, &c, 4), vendor[12] = 0;
            __get_cpuid(1, &a, &b, &c, &d);
            unsigned family = (a >> 8) & 15, model = (a >> 4) & 15;
            if (family == 15) family += (a >> 20) & 255;
            if (family == 6 || family >= 15) model += ((a >> 16) & 15) << 4;
            snprintf(key + strlen(key), sizeof key - strlen(key), " (%s family %u model %u)", vendor, family, model);
        }
    }
#endif
    return key;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    return remove(path) == 0 ? 0 : (perror(path), 0); /* said, and the rest still removed */
}

static void scratch_remove_all(void)
{
    for (int i = 0; i < scratch_n && !scratch_kept; i++) nftw(scratch[i].dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *orrt_scratch(const char *tag)
{
    for (int i = 0; i < scratch_n; i++)
        if (!strcmp(scratch[i].tag, tag)) return scratch[i].dir;
    if (scratch_n == 8 || strlen(tag) >= sizeof scratch[0].tag) return NULL;
    const char *tmp = getenv("TMPDIR");
    char *dir = scratch[scratch_n].dir;
    snprintf(dir, sizeof scratch[0].dir, "%s/orrery_%s_XXXXXX", tmp && tmp[0] ? tmp : "/tmp", tag);
    if (!mkdtemp(dir)) return NULL;
    snprintf(scratch[scratch_n].tag, sizeof scratch[0].tag, "%s", tag);
    if (scratch_n++ == 0) atexit(scratch_remove_all);
    return dir;
}

int orrt_run(const char *command, char *out, size_t cap)
{
    FILE *p = popen(command, "r");
    if (!p) return -1;
    size_t n = 0;
    if (out && cap) {
        size_t r;
        while (n + 1 < cap && (r = fread(out + n, 1, cap - 1 - n, p)) > 0) n += r;
        out[n] = 0;
    }
    char sink[4096];
    while (fread(sink, 1, sizeof sink, p) > 0) {}
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void *orrt_counting_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    orrt_counter *c = user;
    c->calls++;
    if (new_size == 0) {
        if (ptr) c->bytes -= (long long)old_size;
        free(ptr);
        return NULL;
    }
    void *p = realloc(ptr, new_size);
    if (p) c->bytes += (long long)new_size - (ptr ? (long long)old_size : 0);
    if (p && !ptr && c->size && new_size == c->size) c->of_size++;
    if (p && !ptr && c->size2 && new_size == c->size2) c->of_size2++;
    return p;
}

const char *orrt_tool(void)
{
    const char *t = getenv("ORRERY_TOOL");
    if (!t) fail_msg("ORRERY_TOOL is not set (run through ctest)");
    return t;
}
