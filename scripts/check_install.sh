#!/bin/sh
# CI: install Orrery to a temporary prefix, static and shared, and build and run the examples against
# each installed package both ways a user would: CMake's find_package and pkg-config.
#   scripts/check_install.sh [WORK]     (WORK defaults to a new temporary folder, removed on success)
# Needs what scripts/setup.sh installs (cmake, gcc, pkg-config, the -dev packages).
set -eu
cd "$(dirname "$0")/.."
src=$PWD
work=${1:-$(mktemp -d /tmp/orrery-install.XXXXXX)}
jobs=${JOBS:-2}
mkdir -p "$work"

for kind in static shared; do
    shared=OFF
    [ "$kind" = shared ] && shared=ON
    build=$work/build-$kind
    prefix=$work/prefix-$kind
    echo "== install ($kind): $prefix"
    cmake -S "$src" -B "$build" -DBUILD_SHARED_LIBS=$shared -DORRERY_WERROR=ON -DCMAKE_BUILD_TYPE=Release \
          -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
    cmake --build "$build" --target orrery orrery_tool -j "$jobs" >/dev/null
    cmake --install "$build" >/dev/null
    (cd "$prefix" && find . | sort)
    # the package holds one library, the headers, the CMake package and the pkg-config files
    lib=$prefix/lib
    [ "$kind" = static ] && test -f "$lib/liborrery.a" && ! test -e "$lib/liborrery.so"
    [ "$kind" = shared ] && test -f "$lib/liborrery.so" && ! test -e "$lib/liborrery.a"
    test -f "$prefix/include/orrery/world.h" && test -f "$lib/cmake/orrery/orreryConfig.cmake"
    test -f "$lib/pkgconfig/orrery.pc" && test -f "$lib/pkgconfig/orrery-world.pc"
    "$prefix/bin/orrery" serve --ticks 3 --json | grep -q '"extractions": 0'

    echo "== dedicated_server ($kind) with find_package(orrery COMPONENTS world)"
    cmake -S "$src/examples/dedicated_server" -B "$work/server-cmake-$kind" -DCMAKE_PREFIX_PATH="$prefix" \
          -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >/dev/null
    cmake --build "$work/server-cmake-$kind" >/dev/null
    cmake -DEXE="$work/server-cmake-$kind/dedicated_server" -DSOURCE="$src" -P "$src/examples/dedicated_server/check.cmake"

    echo "== dedicated_server ($kind) with pkg-config orrery-world"
    static_flag=""
    [ "$kind" = static ] && static_flag=--static
    flags=$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config $static_flag --cflags --libs orrery-world)
    # shellcheck disable=SC2086
    cc -std=c11 -Wall -Wextra -Werror "$src/examples/dedicated_server/main.c" -o "$work/server-pc-$kind" $flags \
       -Wl,-rpath,"$lib"
    cmake -DEXE="$work/server-pc-$kind" -DSOURCE="$src" -P "$src/examples/dedicated_server/check.cmake"

    echo "== the replay component ($kind) links (no renderer example yet: a PNG and a drop name)"
    probe=$work/replay-$kind
    mkdir -p "$probe"
    cat > "$probe/main.c" <<'SRC'
#include <orrery/draw.h>
#include <orrery/gpu.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    const uint8_t rgba[8] = {255, 0, 0, 255, 0, 0, 255, 255};
    orr_error err;
    if (argc < 2 || orr_write_png(argv[1], 2, 1, rgba, &err) != ORR_OK) return 1;
    printf("%s\n", orr_drop_name(ORR_DROP_STALE_HANDLE));
    return 0;
}
SRC
    cat > "$probe/CMakeLists.txt" <<'SRC'
cmake_minimum_required(VERSION 3.25)
project(replay_probe LANGUAGES C)
find_package(orrery REQUIRED COMPONENTS replay)
add_executable(replay_probe main.c)
target_link_libraries(replay_probe PRIVATE orrery::replay)
SRC
    cmake -S "$probe" -B "$probe/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
    cmake --build "$probe/build" >/dev/null
    flags=$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config $static_flag --cflags --libs orrery-replay)
    # shellcheck disable=SC2086
    cc -std=c11 -Wall -Werror "$probe/main.c" -o "$probe/replay_pc" $flags -Wl,-rpath,"$lib"
    for exe in "$probe/build/replay_probe" "$probe/replay_pc"; do
        test "$("$exe" "$probe/out.png")" = stale_handle
        test -s "$probe/out.png"
        rm "$probe/out.png"
    done

    # a dedicated server links the world side only: statically, Vulkan is not even on its link line
    # (the toolchain's --as-needed would hide it from the binary), and no renderer code is pulled in
    if [ "$kind" = static ]; then
        world_libs=$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --static --libs orrery-world)
        cmake_link=$(cat "$work/server-cmake-$kind/CMakeFiles/dedicated_server.dir/link.txt")
        for line in "$world_libs" "$cmake_link"; do
            if echo "$line" | grep -q vulkan; then
                echo "check_install: the world component links Vulkan: $line" >&2
                exit 1
            fi
        done
        for exe in "$work/server-cmake-$kind/dedicated_server" "$work/server-pc-$kind"; do
            if nm "$exe" | grep -q ' T orr_renderer_create$'; then
                echo "check_install: $exe contains the renderer" >&2
                exit 1
            fi
        done
    fi
done
echo "check_install: static and shared packages install, and the examples build and run against both"
[ $# -eq 0 ] && rm -rf "$work"
exit 0
