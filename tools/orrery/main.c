/* orrery: the command-line tool. Dispatches to one command per file. */
#include "tool.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: orrery COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  render [FILE] [-o out.png] [--size WxH] [--views N] [--strategy direct|batched|indirect]\n"
    "         [--order hierarchy|mesh] [--time SECONDS] [--anim N|none] [--instances N]\n"
    "         [--offset X,Y,Z] [--stats] [--validation]\n"
    "                       render one frame of FILE (glTF 2.0), or the built-in orrery, to a PNG\n"
    "  snapshot [FILE] [--time SECONDS] [--anim N|none] [--instances N] [--offset X,Y,Z] [--json]\n"
    "                       print the render snapshot of one frame\n"
    "  info FILE [--json]   counts of scenes, nodes, meshes, ... and the scene bounds\n"
    "  validate FILE...     exit 0 when every file loads, 1 when one does not, with the reason\n"
    "  serve [FILE] --ticks N [--json]\n"
    "                       dedicated server: tick the world, never extract a snapshot\n"
    "  bench world|gltf|extract|draw [...] [--json]\n"
    "                       benchmarks, each beside a baseline measured in the same run\n"
    "\n"
    "Run 'orrery COMMAND --help' for a command's options.\n";

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } commands[] = {
        {"render", orr_tool_render},   {"snapshot", orr_tool_snapshot}, {"info", orr_tool_info},
        {"validate", orr_tool_validate}, {"serve", orr_tool_serve},     {"bench", orr_tool_bench},
    };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    }
    fprintf(stderr, "orrery: unknown command '%s'\n\n%s", argv[1], usage);
    return 2;
}

int orr_tool_bench(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help")) {
        puts("usage: orrery bench world [--n N] [--shape wide|deep] [--json]\n"
             "       orrery bench gltf FILE [--json]\n"
             "       orrery bench extract|draw [--n N] [--json]");
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "world")) return orr_tool_bench_world(argc - 1, argv + 1);
    if (!strcmp(argv[1], "gltf")) return orr_tool_bench_gltf(argc - 1, argv + 1);
    if (!strcmp(argv[1], "extract") || !strcmp(argv[1], "draw")) return orr_tool_bench_frame(argc - 1, argv + 1);
    fprintf(stderr, "orrery bench: unknown benchmark '%s'\n", argv[1]);
    return 2;
}

/* ---- parsing ----------------------------------------------------------------------------- */

bool tool_parse_u32(const char *s, uint32_t *v)
{
    char *end;
    errno = 0;
    unsigned long x = strtoul(s, &end, 10);
    if (errno || end == s || *end || x > UINT32_MAX || s[0] == '-') return false;
    *v = (uint32_t)x;
    return true;
}

bool tool_parse_double(const char *s, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(x)) return false;
    *v = x;
    return true;
}

bool tool_parse_size(const char *s, uint32_t *w, uint32_t *h)
{
    unsigned a, b;
    char tail;
    if (sscanf(s, "%ux%u%c", &a, &b, &tail) != 2 || !a || !b || a > 16384 || b > 16384) return false;
    *w = a;
    *h = b;
    return true;
}

bool tool_parse_vec3(const char *s, orr_vec3d *v)
{
    char tail;
    if (sscanf(s, "%lf,%lf,%lf%c", &v->x, &v->y, &v->z, &tail) != 3) return false;
    return isfinite(v->x) && isfinite(v->y) && isfinite(v->z);
}

int tool_scene_option(int argc, char **argv, int *i, tool_scene_options *o)
{
    const char *opt = argv[*i];
    const char *val = *i + 1 < argc ? argv[*i + 1] : NULL;
    bool ok;
    if (!strcmp(opt, "--instances")) ok = val && tool_parse_u32(val, &o->instances) && o->instances >= 1;
    else if (!strcmp(opt, "--offset")) ok = val && tool_parse_vec3(val, &o->offset);
    else if (!strcmp(opt, "--time")) ok = val && tool_parse_double(val, &o->time) && o->time >= 0 && o->time < 1e7;
    else if (!strcmp(opt, "--anim")) {
        uint32_t n = 0;
        ok = val && (!strcmp(val, "none") || (tool_parse_u32(val, &n) && n < 100000));
        if (ok) o->anim = !strcmp(val, "none") ? -1 : (int)n;
    } else return 0;
    if (!ok) {
        fprintf(stderr, "orrery: %s needs a valid value (got '%s')\n", opt, val ? val : "nothing");
        return -1;
    }
    (*i)++;
    return 1;
}

/* ---- JSON -------------------------------------------------------------------------------- */

void tool_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

void tool_json_double(FILE *f, double v)
{
    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    if (v == 0.0) v = 0.0; /* no "-0" */
    fprintf(f, "%.17g", v);
}

void tool_json_mat4(FILE *f, const orr_mat4d *m)
{
    fputc('[', f);
    for (int i = 0; i < 16; i++) {
        if (i) fputc(',', f);
        tool_json_double(f, m->m[i]);
    }
    fputc(']', f);
}

orr_result tool_fail(orr_error *err, orr_result code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}
