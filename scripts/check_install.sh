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

for kind in static shared; do
    shared=OFF
    [ "$kind" = shared ] && shared=ON
    build=$work/build-$kind
    prefix=$work/prefix-$kind
    echo "== install ($kind): $prefix"
    cmake -S "$src" -B "$build" -DBUILD_SHARED_LIBS=$shared -DORRERY_WERROR=ON -DCMAKE_BUILD_TYPE=Release \
          -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
    cmake --build "$build" --target orrery orrery_tool example_png_check docs_html -j "$jobs" >/dev/null
    cmake --install "$build" >/dev/null
    (cd "$prefix" && find . | sort)
    # the package holds one library, the headers, the CMake package and the pkg-config files
    lib=$prefix/lib
    [ "$kind" = static ] && test -f "$lib/liborrery.a" && ! test -e "$lib/liborrery.so"
    [ "$kind" = shared ] && test -f "$lib/liborrery.so" && ! test -e "$lib/liborrery.a"
    test -f "$prefix/include/orrery/world.h" && test -f "$lib/cmake/orrery/orreryConfig.cmake"
    test -f "$prefix/include/orrery/scene.glsl" && test -f "$prefix/include/orrery/gpu_shared.h" # technique shaders
    test -f "$lib/pkgconfig/orrery.pc" && test -f "$lib/pkgconfig/orrery-world.pc" && test -f "$lib/pkgconfig/orrery-scene.pc"
    # and the API reference: the tour as its main page, an entry for the first call a host makes
    html=$prefix/share/doc/orrery/html
    if ! grep -q "API tour" "$html/index.html" || ! grep -rq 'id="ga\?[0-9a-f]*".*\|orr_gltf_load' "$html/scene_8h.html"; then
        echo "check_install: the API reference is not installed in $html (or lacks its tour, or orr_gltf_load)" >&2
        exit 1
    fi
    "$prefix/bin/orrery" serve --ticks 3 --json | grep -q '"extractions": 0'

    echo "== dedicated_server ($kind) with find_package(orrery COMPONENTS scene)"
    cmake -S "$src/examples/dedicated_server" -B "$work/server-cmake-$kind" -DCMAKE_PREFIX_PATH="$prefix" \
          -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >/dev/null
    cmake --build "$work/server-cmake-$kind" >/dev/null
    cmake -DEXE="$work/server-cmake-$kind/dedicated_server" -DSOURCE="$src" -P "$src/examples/dedicated_server/check.cmake"

    echo "== dedicated_server ($kind) with pkg-config orrery-scene"
    static_flag=""
    [ "$kind" = static ] && static_flag=--static
    flags=$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config $static_flag --cflags --libs orrery-scene)
    # shellcheck disable=SC2086
    cc -std=c11 -Wall -Wextra -Werror "$src/examples/dedicated_server/main.c" -o "$work/server-pc-$kind" $flags \
       -Wl,-rpath,"$lib"
    cmake -DEXE="$work/server-pc-$kind" -DSOURCE="$src" -P "$src/examples/dedicated_server/check.cmake"

    # the rendering examples, each against the whole package or its component, both ways; their
    # checks read the PNGs with png_check (built with the package: a test tool, not an example)
    png_check=$build/png_check
    for example in first_render:orrery minimal_host:orrery prefab:orrery replay_host:orrery-replay post_process:orrery-replay scene_techniques:orrery-replay deferred:orrery-replay; do
        name=${example%%:*}
        pc=${example#*:}
        echo "== $name ($kind) with find_package and with pkg-config $pc"
        cmake -S "$src/examples/$name" -B "$work/$name-cmake-$kind" -DCMAKE_PREFIX_PATH="$prefix" \
              -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >/dev/null
        cmake --build "$work/$name-cmake-$kind" >/dev/null
        flags=$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config $static_flag --cflags --libs "$pc")
        # shellcheck disable=SC2086
        cc -std=c11 -Wall -Wextra -Werror "$src/examples/$name/main.c" -o "$work/$name-pc-$kind" $flags -lm \
           -Wl,-rpath,"$lib"
        for exe in "$work/$name-cmake-$kind/$name" "$work/$name-pc-$kind"; do
            cmake -DEXE="$exe" -DPNG_CHECK="$png_check" -DSOURCE="$src" -DWORK="$work/$name-out" -DVALIDATION=ON \
                  -P "$src/examples/$name/check.cmake" >/dev/null
        done
    done

    # a dedicated server links the world side and the loader only: statically, Vulkan is not even on its
    # link line (the toolchain's --as-needed would hide it from the binary), and no renderer code is
    # pulled in; a host of the world component alone (a session ticking a world) links no glTF decoder
    # either: neither its link line nor the binary names JSON, PNG, JPEG, WebP or Draco
    if [ "$kind" = static ]; then
        scene_libs=$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --static --libs orrery-scene)
        cmake_link=$(cat "$work/server-cmake-$kind/CMakeFiles/dedicated_server.dir/link.txt")
        for line in "$scene_libs" "$cmake_link"; do
            if echo "$line" | grep -q vulkan; then
                echo "check_install: the scene component links Vulkan: $line" >&2
                exit 1
            fi
        done
        echo "== a world-only host ($kind) with find_package(orrery COMPONENTS world) and pkg-config orrery-world"
        mkdir -p "$work/world-host"
        cat >"$work/world-host/main.c" <<'HOST'
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
        cat >"$work/world-host/CMakeLists.txt" <<'HOST'
cmake_minimum_required(VERSION 3.25)
project(world_host LANGUAGES C)
find_package(orrery 0.1 REQUIRED COMPONENTS world)
add_executable(world_host main.c)
target_link_libraries(world_host PRIVATE orrery::world)
HOST
        cmake -S "$work/world-host" -B "$work/world-host/build" -DCMAKE_PREFIX_PATH="$prefix" \
              -DCMAKE_C_FLAGS="-std=c11 -Wall -Wextra -Werror" >/dev/null
        cmake --build "$work/world-host/build" >/dev/null
        world_flags=$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --static --cflags --libs orrery-world)
        # shellcheck disable=SC2086
        cc -std=c11 -Wall -Wextra -Werror "$work/world-host/main.c" -o "$work/world-host/world_host_pc" $world_flags
        cmake_link=$(cat "$work/world-host/build/CMakeFiles/world_host.dir/link.txt")
        for line in "$world_flags" "$cmake_link"; do
            if echo "$line" | grep -Eq 'vulkan|cjson|spng|turbojpeg|webp|draco|stdc\+\+'; then
                echo "check_install: the world component links more than the world side: $line" >&2
                exit 1
            fi
        done
        for exe in "$work/world-host/build/world_host" "$work/world-host/world_host_pc"; do
            "$exe" | grep -q '"ticks": 1' || { echo "check_install: $exe did not tick" >&2; exit 1; }
            if ldd "$exe" | grep -Eq 'vulkan|cjson|spng|turbojpeg|webp|draco'; then
                echo "check_install: $exe loads a library of the renderer or the glTF loader: $(ldd "$exe")" >&2
                exit 1
            fi
            if nm "$exe" | grep -Eq ' T (orr_gltf_load|orr_renderer_create)$'; then
                echo "check_install: $exe contains the glTF loader or the renderer" >&2
                exit 1
            fi
        done
        for exe in "$work/server-cmake-$kind/dedicated_server" "$work/server-pc-$kind"; do
            if nm "$exe" | grep -q ' T orr_renderer_create$'; then
                echo "check_install: $exe contains the renderer" >&2
                exit 1
            fi
        done
        # and a renderer-only host links no world: no world, loader or extraction code in it
        for exe in "$work/replay_host-cmake-$kind/replay_host" "$work/replay_host-pc-$kind"; do
            if nm "$exe" | grep -Eq ' T (orr_world_create|orr_gltf_load|orr_frame_extract)$'; then
                echo "check_install: $exe contains the world side" >&2
                exit 1
            fi
            nm "$exe" | grep -q ' T orr_renderer_create$' || { echo "check_install: $exe has no renderer" >&2; exit 1; }
        done
    fi
done
echo "check_install: static and shared packages install, and the examples build and run against both"
[ $# -eq 0 ] && rm -rf "$work"
exit 0
