#!/usr/bin/env python3
"""CTest entry `gpu_rooms`: the gpu module's rooms include each other downwards only.

Each file gpu_<room>.c has its functions declared in gpu_<room>.h; gpu_state.h holds the renderer's
state (types only) and gpu_space.h the allocator of ranges below it. ROOMS lists the rooms lowest
first: a file may include the header of its own room and of rooms listed before it, never one after
it, so that no file calls back into one that calls it. Checked here, from the #include lines of
src/gpu (the compiler, with -Werror, refuses a call whose header is not included):
  - every gpu_*.c and gpu_*.h of the folder belongs to a listed room (a new file is placed on purpose);
  - no file includes the header of a room above its own (the message names the file, line and rooms);
  - the include graph between rooms has no circle (named room by room, should the list allow one);
  - no header of the folder declares functions of another room (each room's header names what it owns):
    a header includes only gpu_state.h, gpu_space.h and headers of rooms below it.
Before the folder is checked, the checker is run on small made-up folders that break each rule, and
must refuse each of them (a checker that cannot fail would prove nothing).

    check_gpu_rooms.py SRC_GPU_DIR
"""
import os
import re
import sys
import tempfile

# Lowest first. "state" and "space" are headers only; "renderer" and "png" have no header (they define
# only public calls).
ROOMS = [
    "space", "state", "error", "memory", "device", "resource", "upload", "pipeline", "shader",
    "meshlet_pool", "geometry", "texture", "material", "scene", "light",
    "draws", "cull", "shell", "indexed", "meshlet", "baseline", "technique_graph", "technique_mesh", "technique_build",
    "technique_record", "technique", "occlusion", "pick", "debug_draw", "technique_builtin",
    "texture_target", "target_image", "surface", "target", "view", "motion", "library",
    "shadow", "frame", "renderer", "png",
]
INCLUDE = re.compile(r'^\s*#\s*include\s+"gpu/gpu_(\w+)\.h"')
FILE = re.compile(r"^gpu_(\w+)\.(c|h)$")


def check(folder):
    """The problems of `folder`, one line each (none: it is in rooms)."""
    rank = {room: i for i, room in enumerate(ROOMS)}
    problems = []
    edges = {}  # room -> {room it includes: "file:line"}
    names = sorted(os.listdir(folder))
    for name in names:
        m = FILE.match(name)
        if not m:
            continue
        room, kind = m.group(1), m.group(2)
        if room not in rank:
            problems.append(f"{name}: room '{room}' is not in ROOMS of {os.path.basename(__file__)}: "
                            "place it there, below every room that calls it")
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            lines = f.read().split("\n")
        for n, line in enumerate(lines, 1):
            inc = INCLUDE.match(line)
            if not inc:
                continue
            target = inc.group(1)
            where = f"{name}:{n}"
            if target not in rank:
                problems.append(f"{where}: includes gpu_{target}.h, which belongs to no room in ROOMS")
                continue
            if target == room:
                continue
            if rank[target] > rank[room]:
                problems.append(f"{where}: room '{room}' includes gpu_{target}.h of room '{target}', "
                                "which is above it (a call back up)")
            if kind == "h" and target not in ("state", "space", "upload") and room not in ("state", "space"):
                problems.append(f"{where}: header gpu_{room}.h includes gpu_{target}.h: a room's header "
                                "declares its own functions and includes only gpu_state.h, gpu_space.h "
                                "or gpu_upload.h")
            edges.setdefault(room, {}).setdefault(target, where)
    # circles between rooms (depth-first search; reported once each)
    state, stack, seen_cycles = {}, [], set()

    def visit(room):
        state[room] = 1
        stack.append(room)
        for nxt in sorted(edges.get(room, {})):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                key = frozenset(cycle)
                if key not in seen_cycles:
                    seen_cycles.add(key)
                    hops = ", ".join(f"{a} -> {b} ({edges[a][b]})" for a, b in zip(cycle, cycle[1:]))
                    problems.append(f"include circle: {hops}")
            elif not state.get(nxt):
                visit(nxt)
        stack.pop()
        state[room] = 2

    for room in sorted(edges):
        if not state.get(room):
            visit(room)
    return problems


def self_test():
    """Each rule, broken on purpose in a made-up folder, is refused; a folder in rooms is accepted."""
    cases = {
        "a folder in rooms": ({"gpu_error.c": '#include "gpu/gpu_error.h"\n',
                               "gpu_error.h": '#include "gpu/gpu_state.h"\n',
                               "gpu_memory.c": '#include "gpu/gpu_memory.h"\n#include "gpu/gpu_error.h"\n'}, None),
        "a call back up": ({"gpu_memory.c": '#include "gpu/gpu_scene.h"\n'}, "above it"),
        "a header naming another room": ({"gpu_scene.h": '#include "gpu/gpu_memory.h"\n'}, "declares its own"),
        "a file in no room": ({"gpu_stray.c": "\n"}, "not in ROOMS"),
        "a header of no room": ({"gpu_frame.c": '#include "gpu/gpu_internal.h"\n'}, "belongs to no room"),
    }
    failures = []
    for what, (files, expect) in cases.items():
        with tempfile.TemporaryDirectory() as d:
            for name, text in files.items():
                with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                    f.write(text)
            problems = check(d)
        if expect is None and problems:
            failures.append(f"self-test '{what}': refused: {problems}")
        if expect is not None and not any(expect in p for p in problems):
            failures.append(f"self-test '{what}': not refused (expected a problem with '{expect}'): {problems}")
    # a circle: the ranks are bypassed by listing two rooms that include each other
    global ROOMS
    saved = ROOMS
    try:
        ROOMS = saved + ["left", "right"]
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "gpu_left.c"), "w", encoding="utf-8") as f:
                f.write('#include "gpu/gpu_right.h"\n')
            with open(os.path.join(d, "gpu_right.c"), "w", encoding="utf-8") as f:
                f.write('#include "gpu/gpu_left.h"\n')
            problems = check(d)
        if not any(p.startswith("include circle: left -> right") for p in problems):
            failures.append(f"self-test 'a circle': not found: {problems}")
    finally:
        ROOMS = saved
    return failures


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print(f"usage: {os.path.basename(argv[0])} SRC_GPU_DIR", file=sys.stderr)
        return 2
    failures = self_test()
    for f in failures:
        print(f"gpu_rooms: {f}", file=sys.stderr)
    if failures:
        return 1
    problems = check(argv[1])
    for p in problems:
        print(f"gpu_rooms: {p}", file=sys.stderr)
    if problems:
        return 1
    files = sum(1 for n in os.listdir(argv[1]) if FILE.match(n))
    print(f"gpu_rooms: {files} files in {len(ROOMS)} rooms, every include downwards, no circle")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
