/* orrery: the command-line tool. Dispatches to one command per file. */
#include "tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: orrery COMMAND [ARGS]\n"
    "       orrery --version | -V    print the version (orrery MAJOR.MINOR.PATCH)\n"
    "       orrery --help | -h       this help\n"
    "\n"
    "commands:\n"
    "  render [FILE] [-o|--output PATH] [--size WxH] [--views N] [--msaa N] [--camera N|NAME|frame]\n"
    "         [--exposure X] [--strategy direct|batched|indirect|shell|meshlet] [--cull cpu|gpu] [--occlusion]\n"
    "         [--order hierarchy|mesh] [--meshlets] [--meshlet-fallback] [--fur LENGTH[,D]] [--shells N]\n"
    "         [--time SECONDS] [--anim N|none] [--instances N] [--offset X,Y,Z] [--belt N] [--stats]\n"
    "         [--post FILE.frag] [--graph] [--shadows] [--shadow-lights N] [--shadow-distance M] [--cascades N]\n"
    "         [--floor] [--pick centre|X,Y] [--lods [N]] [--lod-pixels PX]\n"
    "         [--debug bounds,frusta,cascades]\n"
    "         [--validation] [-q|--quiet]\n"
    "                       render one frame of FILE (glTF 2.0), or the built-in orrery, to a PNG\n"
    "  view [FILE] [--size WxH] [--views N] [--strategy S] [--present fifo|mailbox|immediate]\n"
    "       [--frames N [--screenshot PATH]] [--offscreen] [--keys F:KEY,...] [--click F:X,Y] [--meshlets]\n"
    "       [--fur LENGTH[,D]] [--time SECONDS] [--anim N|none] [--instances N] [--offset X,Y,Z]\n"
    "       [--belt N] [--shadows] [--floor] [--lods [N]] [--lod-pixels PX] [--stats] [--validation]\n"
    "       [-q|--quiet]\n"
    "                       a window: the live loop on screen (mouse orbits, keys: see view --help);\n"
    "                       --offscreen --frames N where there is no display\n"
    "  view REC [--size WxH] [--views N] [--strategy S] [--frames N [--screenshot PATH]] [--offscreen]\n"
    "       [--keys F:KEY,...] [--stats] [--validation] [-q|--quiet]\n"
    "                       play a recording at 60 frames a second, looping; space pauses, N/P step\n"
    "  snapshot [FILE] [--time SECONDS] [--anim N|none] [--instances N] [--offset X,Y,Z] [--belt N]\n"
    "           [--fur LENGTH[,D]] [--meshlets] [--json] [-q|--quiet]\n"
    "  snapshot REC [--frame K] [--json]\n"
    "                       print the render snapshot of one frame (of a recording: as recorded)\n"
    "  info FILE [--json] [-q|--quiet]\n"
    "                       counts of scenes, nodes, meshes, instances drawn, ... and the scene bounds\n"
    "  validate [-q|--quiet] FILE...\n"
    "                       exit 0 when every file loads and every file it names can be read, 1 when\n"
    "                       one does not, with the reasons; then a count of valid and invalid files\n"
    "  serve [FILE] --ticks N [--json] [--time SECONDS] [--anim N|none] [--instances N]\n"
    "        [--offset X,Y,Z] [--belt N] [--fur LENGTH[,D]] [--meshlets] [-q|--quiet]\n"
    "                       dedicated server: tick the world, never extract a snapshot\n"
    "  record [FILE] -o|--output REC [--frames N | --time SECONDS] [--anim N|none] [--instances N]\n"
    "         [--offset X,Y,Z] [--belt N] [--fur LENGTH[,D]] [--meshlets] [-q|--quiet]\n"
    "                       the live loop's presented frames, with the resources they draw, to a recording\n"
    "  replay REC [-o|--output PATH] [--frame K] [--frames A:B --out-pattern P] [--size WxH]\n"
    "         [--views N] [--strategy S] [--order O] [--bench] [--validation] [--info [--json]] [-q|--quiet]\n"
    "                       render recorded frames with no world and no glTF file\n"
    "  bench world [--n N] [--shape wide|deep] [--reps R] [--threads T] [--json]\n"
    "  bench gltf FILE [--seconds S] [--threads N] [--json]\n"
    "  bench extract [--n N] [--interleaved] [--moving PCT] [--skinned [--joints J]] [--json]\n"
    "  bench draw [--n N] [--interleaved] [--json]\n"
    "  bench frame [FILE] [--n N] [--moving PCT] [--churn PCT] [--views V] [--frames F] [--size WxH] [--strategy S]\n"
    "              [--cull cpu|gpu] [--camera C] [--mesh cube|sphere:R] [--meshlets]\n"
    "              [--meshlet-fallback] [--fur LENGTH] [--shells S] [--record PATH] [--threads T]\n"
    "              [--lods [N]] [--lod-pixels PX] [--range N,F[,M]] [--no-baseline-gpu] [--settle] [--shadows]\n"
    "              [--pick K] [--tick-every K] [--interpolate] [--threaded [--sim-ms MS]]\n"
    "              [--scene cubes|city|spheres] [--occlusion] [--png PATH] [--json]\n"
    "                       benchmarks, each beside a baseline measured in the same run\n"
    "\n"
    "Run 'orrery COMMAND --help' for a command's options. Exit status: 0 done, 1 failed, 2 bad usage.\n"
    "Warnings (a texture that cannot be read, untidy input) go to stderr; --quiet drops them.\n";

static int dispatch(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        printf("orrery %s\n", ORRERY_VERSION);
        return 0;
    }
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } commands[] = {
        {"render", orr_tool_render},   {"snapshot", orr_tool_snapshot}, {"info", orr_tool_info},
        {"validate", orr_tool_validate}, {"serve", orr_tool_serve},     {"bench", orr_tool_bench},
        {"view", orr_tool_view},       {"record", orr_tool_record},     {"replay", orr_tool_replay},
    };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    }
    fprintf(stderr, "orrery: unknown %s '%s'; see 'orrery --help'\n", argv[1][0] == '-' ? "option" : "command", argv[1]);
    return 2;
}

/* Exit status of every command: 0 done, 1 failed (a file that does not load, a write that fails,
 * stdout included), 2 bad usage (an unknown option, a value out of its stated range). */
int main(int argc, char **argv)
{
    /* Off a terminal, stdout is written in 64 KiB blocks: a help text longer than stdio's default block
     * (4 KiB, this usage) would otherwise fail in the middle of puts, whose error stdio keeps without its
     * reason (errno), so tool_finish_stdout could not say why the output failed. */
    static char block[1 << 16];
    if (!isatty(STDOUT_FILENO)) setvbuf(stdout, block, _IOFBF, sizeof block);
    return tool_finish_stdout(dispatch(argc, argv));
}

int orr_tool_bench(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help")) {
        puts("usage: orrery bench world [--n N] [--shape wide|deep] [--json]\n"
             "       orrery bench gltf FILE [--json]\n"
             "       orrery bench extract|draw [--n N] [--json]\n"
             "       orrery bench extract --moving PCT [--n N] [--json]\n"
             "       orrery bench extract --skinned [--n CHARACTERS] [--joints J] [--json]\n"
             "       orrery bench frame [FILE] [options] [--json]\n"
             "Run 'orrery bench NAME --help' for a benchmark's options.");
        return argc < 2 ? 2 : 0;
    }
    /* argv[0] of a benchmark names it in messages ("orrery bench world: --n must be ...") */
    char world[] = "bench world", gltf[] = "bench gltf";
    if (!strcmp(argv[1], "world")) return argv[1] = world, orr_tool_bench_world(argc - 1, argv + 1);
    if (!strcmp(argv[1], "gltf")) return argv[1] = gltf, orr_tool_bench_gltf(argc - 1, argv + 1);
    if (!strcmp(argv[1], "extract") || !strcmp(argv[1], "draw")) return orr_tool_bench_extract(argc - 1, argv + 1);
    if (!strcmp(argv[1], "frame")) return orr_tool_bench_frame(argc - 1, argv + 1);
    if (argv[1][0] == '-') return tool_unknown_option("bench", argv[1]);
    return tool_usage_error("bench", "unknown benchmark '%s'", argv[1]);
}
