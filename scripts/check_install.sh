#!/bin/sh
# CI: install Orrery to a temporary prefix, static and shared, and build and run the examples against
# each installed package both ways a user would: CMake's find_package and pkg-config. The package holds
# the API reference too (share/doc/orrery/html).
#   scripts/check_install.sh [WORK]     (WORK defaults to a new temporary folder, removed on success)
# Needs what scripts/setup.sh installs (cmake, gcc, pkg-config, the -dev packages).
set -eu
cd "$(dirname "$0")/.."
src=$PWD
work=${1:-$(mktemp -d /tmp/orrery-install.XXXXXX)}
jobs=${JOBS:-2}
mkdir -p "$work"

# build_host DIR CMAKE_BUILD PC_EXE PC: the host whose sources are in DIR (main.c beside its
# CMakeLists.txt) built against the package in $prefix both ways a user would: find_package into the
# build folder CMAKE_BUILD, and pkg-config PC (static linking for the static package) into PC_EXE.
# Leaves the pkg-config line in $host_flags.
build_host() {
    cmake -S "$1" -B "$2" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >/dev/null
    cmake --build "$2" >/dev/null
    host_flags=$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config $static_flag --cflags --libs "$4")
    # shellcheck disable=SC2086
    cc -std=c11 -Wall -Wextra -Werror "$1/main.c" -o "$3" $host_flags -lm -Wl,-rpath,"$lib"
}

# host_project DIR NAME COMPONENT: the CMakeLists.txt of a one-file host of the package's COMPONENT
host_project() {
    cat >"$1/CMakeLists.txt" <<HOST
cmake_minimum_required(VERSION 3.25)
project($2 LANGUAGES C)
set(CMAKE_C_STANDARD 11)
find_package(orrery 0.1 REQUIRED COMPONENTS $3)
add_executable($2 main.c)
target_link_libraries($2 PRIVATE orrery::$3)
HOST
}

for kind in static shared; do
    static_flag=""
    [ "$kind" = static ] && static_flag=--static
    shared=OFF
    [ "$kind" = shared ] && shared=ON
    build=$work/build-$kind
    prefix=$work/prefix-$kind
    echo "== install ($kind): $prefix"
    cmake -S "$src" -B "$build" -DBUILD_SHARED_LIBS=$shared -DORRERY_WERROR=ON -DCMAKE_BUILD_TYPE=Release \
          -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
    cmake --build "$build" --target orrery_libraries orrery_tool example_png_check docs_html -j "$jobs" >/dev/null
    cmake --install "$build" >/dev/null
    (cd "$prefix" && find . | sort)
    # the package holds one library per layer, of the kind asked for, and no other
    lib=$prefix/lib
    libs="core snapshot world scene draw gpu"
    [ -f "$build/pkgconfig/orrery-window.pc" ] && libs="$libs window"
    for l in $libs; do
        if [ "$kind" = static ]; then
            test -f "$lib/liborrery-$l.a" && ! test -e "$lib/liborrery-$l.so"
        else
            test -f "$lib/liborrery-$l.so" && ! test -e "$lib/liborrery-$l.a"
        fi
        test -f "$lib/pkgconfig/orrery-$l.pc"
    done
    ! test -e "$lib/liborrery.a" && ! test -e "$lib/liborrery.so"
    test -f "$prefix/include/orrery/world.h" && test -f "$lib/cmake/orrery/orreryConfig.cmake"
    test -f "$prefix/include/orrery/scene.glsl" && test -f "$prefix/include/orrery/gpu_shared.h" # technique shaders
    test -f "$lib/pkgconfig/orrery.pc" && test -f "$lib/pkgconfig/orrery-replay.pc"
    # and the API reference: the tour as its main page, an entry for the first call a host makes
    html=$prefix/share/doc/orrery/html
    if ! grep -q "API tour" "$html/index.html" || ! grep -rq 'id="ga\?[0-9a-f]*".*\|orr_gltf_load' "$html/scene_8h.html"; then
        echo "check_install: the API reference is not installed in $html (or lacks its tour, or orr_gltf_load)" >&2
        exit 1
    fi
    "$prefix/bin/orrery" serve --ticks 3 --json | grep -q '"extractions": 0'

    echo "== dedicated_server ($kind) with find_package(orrery COMPONENTS scene) and pkg-config orrery-scene"
    build_host "$src/examples/dedicated_server" "$work/server-cmake-$kind" "$work/server-pc-$kind" orrery-scene
    for exe in "$work/server-cmake-$kind/dedicated_server" "$work/server-pc-$kind"; do
        cmake -DEXE="$exe" -DSOURCE="$src" -P "$src/examples/dedicated_server/check.cmake"
    done

    # the rendering examples, each against the whole package or its component, both ways; their
    # checks read the PNGs with png_check (built with the package: a test tool, not an example)
    png_check=$build/png_check
    for example in first_render:orrery minimal_host:orrery prefab:orrery replay_host:orrery-replay post_process:orrery-replay scene_techniques:orrery-replay deferred:orrery-replay mesh_markers:orrery-replay; do
        name=${example%%:*}
        pc=${example#*:}
        echo "== $name ($kind) with find_package and with pkg-config $pc"
        build_host "$src/examples/$name" "$work/$name-cmake-$kind" "$work/$name-pc-$kind" "$pc"
        for exe in "$work/$name-cmake-$kind/$name" "$work/$name-pc-$kind"; do
            cmake -DEXE="$exe" -DPNG_CHECK="$png_check" -DSOURCE="$src" -DWORK="$work/$name-out" -DVALIDATION=ON \
                  -P "$src/examples/$name/check.cmake" >/dev/null
        done
    done

    # Each kind of host links the libraries of its side and nothing of the other:
    # - a host of the world library alone (a session ticking a world) links and loads no Vulkan, no
    #   JSON, PNG, JPEG, WebP or Draco decoder, and no library of the loader or the renderer;
    # - a dedicated server (the world side and the loader) links and loads no Vulkan, no renderer;
    # - a replay host (gpu, draw, snapshot, core) links and loads no world, loader or extraction.
    # Statically the link lines and the binaries' symbols (nm) show it, shared the libraries the
    # binaries load (ldd: what a host maps at run time, through every library it loads).
    echo "== a world-only host ($kind) with find_package(orrery COMPONENTS world) and pkg-config orrery-world"
    host=$work/world-host-$kind
    mkdir -p "$host"
    cat >"$host/main.c" <<'HOST'
#include <orrery/frame.h>
#include <stdio.h>
int main(void)
{
    orr_session *session;
    orr_error err = {0};
    if (orr_session_create(&(orr_session_desc){.profile = ORR_PROFILE_DEDICATED_SERVER}, &session, &err) != ORR_OK)
        return fprintf(stderr, "world_host: %s\n", err.message), 1;
    orr_entity e;
    int ok = orr_entity_create(orr_session_world(session), &(orr_entity_desc){.name = "e"}, &e) == ORR_OK &&
             orr_session_run_frame(session, 1.0 / 60.0) == ORR_OK;
    printf("{\"ticks\": %llu}\n", (unsigned long long)orr_session_tick(session));
    orr_session_destroy(session);
    return ok ? 0 : 1;
}
HOST
    host_project "$host" world_host world
    build_host "$host" "$host/build" "$host/world_host_pc" orrery-world
    world_flags=$host_flags
    # (the C++ runtime is on no world link line, but meshoptimizer, a C++ library, loads it)
    renderer='vulkan|spirv|glslang|glfw|orrery-(draw|gpu|window)'
    loader='cjson|spng|turbojpeg|webp|draco|orrery-scene'
    cmake_link=$(cat "$host/build/CMakeFiles/world_host.dir/link.txt")
    for line in "$world_flags" "$cmake_link"; do
        if echo "$line" | grep -Eq "$renderer|$loader|stdc\+\+"; then
            echo "check_install: the world library links more than the world side: $line" >&2
            exit 1
        fi
    done
    for exe in "$host/build/world_host" "$host/world_host_pc"; do
        "$exe" | grep -q '"ticks": 1' || { echo "check_install: $exe did not tick" >&2; exit 1; }
        if ldd "$exe" | grep -Eq "$renderer|$loader"; then
            echo "check_install: $exe loads a library of the renderer or the glTF loader: $(ldd "$exe")" >&2
            exit 1
        fi
        if [ "$kind" = static ]; then
            if nm "$exe" | grep -Eq ' T (orr_gltf_load|orr_renderer_create)$'; then
                echo "check_install: $exe contains the glTF loader or the renderer" >&2
                exit 1
            fi
        else
            ldd "$exe" | grep -q 'liborrery-world\.so' && ldd "$exe" | grep -q 'liborrery-core\.so' ||
                { echo "check_install: $exe does not load liborrery-world and -core: $(ldd "$exe")" >&2; exit 1; }
        fi
    done

    # a dedicated server links the world side and the loader only: Vulkan is not even on its link line
    # (the toolchain's --as-needed would hide it from the binary), nor loaded; no renderer code in it
    scene_libs=$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config $static_flag --libs orrery-scene)
    cmake_link=$(cat "$work/server-cmake-$kind/CMakeFiles/dedicated_server.dir/link.txt")
    for line in "$scene_libs" "$cmake_link"; do
        if echo "$line" | grep -Eq "$renderer"; then
            echo "check_install: the scene library links the renderer: $line" >&2
            exit 1
        fi
    done
    for exe in "$work/server-cmake-$kind/dedicated_server" "$work/server-pc-$kind"; do
        if [ "$kind" = static ]; then
            if nm "$exe" | grep -q ' T orr_renderer_create$'; then
                echo "check_install: $exe contains the renderer" >&2
                exit 1
            fi
        elif ldd "$exe" | grep -Eq "$renderer" || ! ldd "$exe" | grep -q 'liborrery-scene\.so'; then
            echo "check_install: $exe loads the renderer, or not the loader: $(ldd "$exe")" >&2
            exit 1
        fi
    done

    # and a renderer-only host links no world: the replay example and a host of the replay component
    # that uses the snapshot library and the renderer's (a recorder's or replayer's two halves)
    echo "== a replay-only host ($kind) with find_package(orrery COMPONENTS replay) and pkg-config orrery-replay"
    host=$work/replay-only-$kind
    mkdir -p "$host"
    cat >"$host/main.c" <<'HOST'
#include <orrery/gpu.h>
#include <orrery/snapshot.h>
#include <stdio.h>
int main(void)
{
    orr_snapshot snapshot;
    orr_snapshot_init(&snapshot, NULL);
    orr_strategy strategy = ORR_STRATEGY_DIRECT;
    int ok = orr_strategy_parse("indirect", &strategy) && snapshot.instance_count == 0;
    printf("{\"strategy\": \"%s\"}\n", orr_strategy_name(strategy));
    orr_snapshot_fini(&snapshot);
    return ok ? 0 : 1;
}
HOST
    host_project "$host" replay_only replay
    build_host "$host" "$host/build" "$host/replay_only_pc" orrery-replay
    world='orrery-(world|scene)'
    for exe in "$host/build/replay_only" "$host/replay_only_pc"; do
        "$exe" | grep -q '"strategy": "indirect"' || { echo "check_install: $exe did not run" >&2; exit 1; }
    done
    for exe in "$host/build/replay_only" "$host/replay_only_pc" \
               "$work/replay_host-cmake-$kind/replay_host" "$work/replay_host-pc-$kind"; do
        if [ "$kind" = static ]; then
            if nm "$exe" | grep -Eq ' T (orr_world_create|orr_gltf_load|orr_frame_extract)$'; then
                echo "check_install: $exe contains the world side" >&2
                exit 1
            fi
            case $exe in
                "$host"/*) want='orr_snapshot_init orr_strategy_name' ;;
                *) want=orr_renderer_create ;;
            esac
            for f in $want; do
                nm "$exe" | grep -q " T $f\$" || { echo "check_install: $exe lacks $f" >&2; exit 1; }
            done
            continue
        fi
        loaded=$(ldd "$exe")
        if echo "$loaded" | grep -Eq "$world|$loader"; then
            echo "check_install: $exe loads the world side or the loader: $loaded" >&2
            exit 1
        fi
        # (the replay example fills its snapshots by hand: it calls no function of the snapshot library)
        want="gpu draw core"
        case $exe in "$host"/*) want="$want snapshot" ;; esac
        for l in $want; do
            echo "$loaded" | grep -q "liborrery-$l\.so" ||
                { echo "check_install: $exe does not load liborrery-$l: $loaded" >&2; exit 1; }
        done
    done
done
echo "check_install: static and shared packages install, and the examples build and run against both"
[ $# -eq 0 ] && rm -rf "$work"
exit 0
