#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

const char *orrt_assets_dir(void)
{
    const char *dir = getenv("ORRERY_ASSETS");
    if (!dir || !*dir) dir = ORRERY_ASSETS_DIR_DEFAULT;
    struct stat st;
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) return dir;
    return NULL;
}

const char *orrt_asset(const char *relative)
{
    static char path[4096];
    const char *dir = orrt_assets_dir();
    if (!dir) {
        const char *req = getenv("ORRERY_REQUIRE_ASSETS");
        if (req && *req && strcmp(req, "0") != 0) fail_msg("sample models required but missing (ORRERY_ASSETS)");
        print_message("sample models not found (set ORRERY_ASSETS); skipping\n");
        skip();
    }
    snprintf(path, sizeof path, "%s/%s", dir, relative);
    return path;
}

const char *orrt_source_dir(void) { return ORRERY_SOURCE_DIR; }
const char *orrt_binary_dir(void) { return ORRERY_BINARY_DIR; }

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
