#!/usr/bin/env bash
# Checks the two ways other projects use duet, each in a scratch directory:
#  1. `meson install` into a DESTDIR, then a plain g++ build with pkg-config duet;
#  2. a Meson project that pulls duet in as a subproject (dependency fallback).
# Run from anywhere after `meson setup build && ninja -C build`.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
here="$repo/tests/consumer"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

meson install -C "$repo/build" --destdir "$scratch/root" --quiet
pc_dir=$(dirname "$(find "$scratch/root" -name duet.pc | head -n1)")
export PKG_CONFIG_PATH="$pc_dir" PKG_CONFIG_SYSROOT_DIR="$scratch/root"
lib_dir=$(dirname "$(find "$scratch/root" -name 'libduet.so' | head -n1)")
g++ -std=c++20 "$here/consumer.cpp" -o "$scratch/installed_consumer" $(pkg-config --cflags --libs duet)
LD_LIBRARY_PATH="$lib_dir" "$scratch/installed_consumer"
echo "packaging: install + pkg-config consumer OK"

mkdir -p "$scratch/project/subprojects"
cp "$here/meson.build" "$here/consumer.cpp" "$scratch/project/"
ln -s "$repo" "$scratch/project/subprojects/duet"
# The symlinked subproject must not reuse the main tree's build directories.
meson setup "$scratch/project/build" "$scratch/project" >/dev/null
ninja -C "$scratch/project/build" >/dev/null
"$scratch/project/build/consumer"
echo "packaging: subproject consumer OK"
