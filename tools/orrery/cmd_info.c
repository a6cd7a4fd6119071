/* info FILE [--json]: what a glTF file declares, plus vertex/index totals and the scene bounds.
 * validate FILE...: loads each file fully (buffers, images, prefab); exit 0 when all load, 1 when one
 * does not, with one line per bad file naming the file and the reason. */
#include "tool.h"

#include <math.h>
#include <string.h>

static void info_usage(FILE *f) { fputs("usage: orrery info FILE [--json]\n", f); }

static void print_vec(FILE *f, orr_vec3d v, bool json)
{
    if (json) {
        fputc('[', f);
        tool_json_double(f, v.x), fputc(',', f), tool_json_double(f, v.y), fputc(',', f), tool_json_double(f, v.z);
        fputc(']', f);
    } else {
        fprintf(f, "%g %g %g", v.x, v.y, v.z);
    }
}

int orr_tool_info(int argc, char **argv)
{
    const char *file = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) json = true;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            info_usage(stdout);
            return 0;
        } else if (argv[i][0] == '-' || file) {
            fprintf(stderr, "orrery info: unexpected argument '%s'\n", argv[i]);
            info_usage(stderr);
            return 2;
        } else file = argv[i];
    }
    if (!file) {
        info_usage(stderr);
        return 2;
    }
    orr_gltf_info info;
    orr_error err;
    if (orr_gltf_info_file(file, &info, &err) != ORR_OK) {
        fprintf(stderr, "%s: %s\n", file, err.message);
        return 1;
    }
    const struct {
        const char *name;
        uint64_t value;
    } counts[] = {
        {"scenes", info.scenes},     {"nodes", info.nodes},       {"meshes", info.meshes},
        {"primitives", info.primitives}, {"materials", info.materials}, {"textures", info.textures},
        {"skins", info.skins},       {"animations", info.animations}, {"cameras", info.cameras},
        {"lights", info.lights},     {"vertices", info.vertices}, {"indices", info.indices},
    };
    bool empty = orr_aabbd_is_empty(info.bounds);
    if (json) {
        fputc('{', stdout);
        for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
            printf("%s\"%s\": %llu", i ? ", " : "", counts[i].name, (unsigned long long)counts[i].value);
        fputs(", \"bounds\": ", stdout);
        if (empty) fputs("null", stdout);
        else {
            fputs("{\"min\": ", stdout);
            print_vec(stdout, info.bounds.min, true);
            fputs(", \"max\": ", stdout);
            print_vec(stdout, info.bounds.max, true);
            fputc('}', stdout);
        }
        fputs("}\n", stdout);
    } else {
        for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
            printf("%-11s %llu\n", counts[i].name, (unsigned long long)counts[i].value);
        if (empty) puts("bounds      empty");
        else {
            fputs("bounds      min ", stdout);
            print_vec(stdout, info.bounds.min, false);
            fputs("  max ", stdout);
            print_vec(stdout, info.bounds.max, false);
            fputc('\n', stdout);
        }
    }
    return 0;
}

typedef struct warn_sink {
    const char *file;
    bool quiet;
} warn_sink;

static void print_warning(void *user, orr_log_level level, const char *msg)
{
    warn_sink *s = user;
    if (level >= ORR_LOG_WARNING && !s->quiet) fprintf(stderr, "warning: %s: %s\n", s->file, msg);
}

int orr_tool_validate(int argc, char **argv)
{
    bool quiet = false;
    int files = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            puts("usage: orrery validate [--quiet] FILE...\n"
                 "  loads each file as the renderer would; prints one line per file that does not load\n"
                 "  (FILE: reason) and exits 1 if there was one. Warnings go to stderr unless --quiet.");
            return 0;
        }
        if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) {
            quiet = true;
            continue;
        }
        files++;
        warn_sink sink = {argv[i], quiet};
        orr_assets_desc ad = {.logger = {print_warning, &sink}};
        orr_assets *assets;
        if (orr_assets_create(&ad, &assets) != ORR_OK) {
            printf("%s: out of memory\n", argv[i]);
            return 1;
        }
        orr_prefab_id prefab;
        orr_error err;
        if (orr_gltf_load(assets, argv[i], NULL, &prefab, &err) != ORR_OK) {
            printf("%s: %s\n", argv[i], err.message);
            bad++;
        }
        orr_assets_destroy(assets);
    }
    if (!files) {
        fputs("usage: orrery validate [--quiet] FILE...\n", stderr);
        return 2;
    }
    return bad ? 1 : 0;
}
