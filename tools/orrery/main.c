/* orrery: the command-line tool. Dispatches to one command per file. */
#include "tool.h"

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
