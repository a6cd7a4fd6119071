#!/bin/sh
# Installs the Debian packages Orrery needs, as root, non-interactively; does nothing when all are there.
set -eu
packages="cmake make gcc clang libclang-rt-14-dev pkg-config libvulkan-dev mesa-vulkan-drivers
vulkan-validationlayers glslc libcjson-dev libstb-dev libmeshoptimizer-dev libcmocka-dev
g++ libspng-dev libturbojpeg0-dev libwebp-dev libdraco-dev gltfpack libglfw3-dev xvfb xauth doxygen python3
glslang-dev spirv-tools libspirv-cross-c-shared-dev"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "setup: installing$missing"
if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages ($missing); run as root or: sudo $0" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
