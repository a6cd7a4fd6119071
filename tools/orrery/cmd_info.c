/* info FILE [--json]: what a glTF file declares, plus vertex/index totals and the scene bounds; the
 * parse's warnings (and one per external file that cannot be used) on stderr.
 * validate FILE...: loads each file fully (buffers, images, prefab) and opens every external file it
 * names, used or not; exit 0 when all load without an error, 1 when one does not, with one line per
 * reason (FILE: reason): the refusal, each file that is missing or unreadable, or each place where a
 * file that loads breaks the glTF spec (the loader's ORR_LOG_ERROR messages). */
#include "tool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void info_usage(FILE *f)
{
    fputs("usage: orrery info FILE [--json] [--quiet]\n"
          "  counts of what FILE declares, vertex and index totals, the mesh instances the default scene\n"
          "  draws (a node with a mesh once, an EXT_mesh_gpu_instancing node once per instance) and its bounds;\n"
          "  warnings on stderr unless -q, --quiet. Exit status: 0, 1 the file is refused, 2 bad usage.\n",
          f);
}

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
    bool json = false, quiet = false, ended = false;
    for (int i = 1; i < argc; i++) {
        int kind = tool_arg_kind(argv[i], &ended);
        if (kind == 1) continue;
        if (kind == 2 && !file) file = argv[i];
        else if (kind == 2) {
            return tool_usage_error("info", "unexpected argument '%s' (one FILE: '%s')", argv[i], file);
        } else if (!strcmp(argv[i], "--json")) json = true;
        else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) quiet = true;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            info_usage(stdout);
            return 0;
        } else {
            return tool_unknown_option("info", argv[i]);
        }
    }
    if (!file) return tool_usage_error("info", "FILE is required");
    orr_gltf_info info;
    orr_error err;
    tool_log log;
    tool_log_init(&log, file, quiet);
    orr_logger logger = tool_log_logger(&log);
    if (orr_gltf_info_file(file, NULL, &logger, &info, &err) != ORR_OK) {
        fprintf(stderr, "%s: %s\n", file, err.message);
        return 1;
    }
    const struct {
        const char *name;
        uint64_t value;
    } counts[] = {
        {"scenes", info.scenes},     {"nodes", info.nodes},       {"instances", info.instances},
        {"meshes", info.meshes},
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

/* validate's logger: warnings on stderr (unless --quiet), errors (each external file that cannot be
 * used) on stdout beside the refusals, each as "FILE: reason". */
typedef struct validate_sink {
    tool_log log; /* the file, and the name the loader gives it */
    uint32_t errors;
} validate_sink;

static void validate_log(void *user, orr_log_level level, const char *msg)
{
    validate_sink *s = user;
    const char *rest = tool_log_strip(&s->log, msg);
    if (level >= ORR_LOG_ERROR) {
        s->errors++;
        printf("%s: %s\n", s->log.file, rest);
    } else if (level == ORR_LOG_WARNING && !s->log.quiet) {
        fprintf(stderr, "warning: %s: %s\n", s->log.file, rest);
    }
}

static const char validate_usage[] =
    "usage: orrery validate [--quiet] FILE...\n"
    "  loads each file as the renderer would, and opens every buffer and image file it names, used or\n"
    "  not; prints one line per reason a file is bad (FILE: reason) on stdout: why it is refused, or\n"
    "  each place where it breaks the glTF 2.0 spec although it loads; then one line counting the\n"
    "  files (\"3 files: 2 valid, 1 invalid\"). Warnings go to stderr. -q, --quiet: no warnings and no\n"
    "  count, the reasons only. Exit status: 0 all valid, 1 one is not, 2 bad usage.\n";

int orr_tool_validate(int argc, char **argv)
{
    bool quiet = false;
    int files = 0, bad = 0;
    bool ended = false;
    for (int i = 1; i < argc; i++) {
        if (tool_arg_kind(argv[i], &ended)) continue; /* "--", or a file */
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(validate_usage, stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) quiet = true;
        else if (argv[i][0] == '-' && argv[i][1]) {
            return tool_unknown_option("validate", argv[i]);
        }
    }
    ended = false;
    for (int i = 1; i < argc; i++) {
        if (tool_arg_kind(argv[i], &ended) != 2) continue; /* an option, or "--" */
        files++;
        validate_sink *sink = malloc(sizeof *sink);
        if (!sink) {
            printf("%s: out of memory\n", argv[i]);
            return 1;
        }
        tool_log_init(&sink->log, argv[i], quiet);
        sink->errors = 0;
        orr_assets_desc ad = {.logger = {validate_log, sink}};
        orr_assets *assets;
        if (orr_assets_create(&ad, &assets, NULL) != ORR_OK) {
            printf("%s: out of memory\n", argv[i]);
            free(sink);
            return 1;
        }
        orr_prefab_id prefab;
        orr_error err;
        orr_gltf_options opt = {.require_files = true, .check_images = true};
        if (orr_gltf_load(assets, argv[i], &opt, &prefab, &err) != ORR_OK) {
            /* the errors logged name every file that cannot be used; the refusal only repeats them */
            if (!sink->errors) printf("%s: %s\n", argv[i], tool_log_strip(&sink->log, err.message));
            bad++;
        } else if (sink->errors) {
            bad++; /* loads, but breaks the spec where each line printed says */
        }
        orr_assets_destroy(assets);
        free(sink);
    }
    if (!files) return tool_usage_error("validate", "FILE is required");
    if (!quiet) printf("%d file%s: %d valid, %d invalid\n", files, files == 1 ? "" : "s", files - bad, bad);
    return bad ? 1 : 0;
}
