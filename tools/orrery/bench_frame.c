/* bench frame: the live loop (placeholder while it is written). */
#include "tool.h"

int orr_tool_bench_frame(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return 2;
}
