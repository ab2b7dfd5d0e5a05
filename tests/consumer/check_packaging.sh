#!/usr/bin/env bash
# Checks the ways other projects use duet, each in a scratch directory:
#  1. a library-only build (-Dkv=false: no KV server, no abseil looked up),
#     shared and static at once, installed into a DESTDIR, then
#     a. g++ with `pkg-config --cflags --libs duet` and no flags of its own
#        (duet.pc carries -std=c++20 and -fstack-clash-protection),
#     b. the same linked statically (`pkg-config --static`),
#     c. CMake: find_package(duet CONFIG REQUIRED) and duet::duet (+ _static);
#  2. the main tree's install: the KV servers start without LD_LIBRARY_PATH
#     (their rpath is relative to where they are installed);
#  3. a Meson project that pulls duet in as a subproject with the README's line.
# Run from anywhere after `meson setup build && ninja -C build`.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
here="$repo/tests/consumer"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "packaging: $*" >&2; exit 1; }

# 1. The library alone. -O0 without debug info: this checks packaging, not code.
meson setup "$scratch/lib" "$repo" -Dkv=false -Dtests=false -Dexamples=false -Dbenchmarks=false \
  -Ddefault_library=both -Doptimization=0 -Ddebug=false --prefix /usr/local >/dev/null
grep -qi 'absl' "$scratch/lib/meson-logs/meson-log.txt" && fail "-Dkv=false still looked for abseil"
ninja -C "$scratch/lib" >/dev/null
root="$scratch/root"
meson install -C "$scratch/lib" --destdir "$root" --quiet
[[ -z $(find "$root" -name 'duet-kv-*') ]] || fail "-Dkv=false installed a KV server"
lib=$(find "$root" -name 'libduet.so.*.*.*' | head -n1)
[[ -n $lib ]] || fail "no versioned libduet.so installed"
readelf -d "$lib" | grep -q 'SONAME.*\[libduet\.so\.0\.1\]' || fail "libduet's soname is not libduet.so.0.1"
lib_dir=$(dirname "$lib")
[[ -f $root/usr/local/include/duet/duet.hpp && -f $root/usr/local/include/duet/task/task.hpp ]] ||
  fail "headers are not under <prefix>/include/duet/"

export PKG_CONFIG_PATH="$lib_dir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$root"
# Every installed public header compiles from the install alone (a header
# that includes one missing from the install lists fails here).
(cd "$root/usr/local/include" && find duet -name '*.hpp' -not -path '*/detail/*' | sort |
  sed 's/.*/#include <&>/') >"$scratch/all_headers.cpp"
# shellcheck disable=SC2046
g++ -fsyntax-only "$scratch/all_headers.cpp" $(pkg-config --cflags duet) || fail "an installed header does not compile alone"
pkg-config --cflags duet | grep -q -- '-std=c++20' || fail "duet.pc does not carry -std=c++20"
pkg-config --libs duet | grep -q -- '-lfmt' && fail "duet.pc exports fmt to shared users"
# shellcheck disable=SC2046
g++ "$here/consumer.cpp" -o "$scratch/pc_consumer" $(pkg-config --cflags --libs duet)
LD_LIBRARY_PATH="$lib_dir" "$scratch/pc_consumer"
echo "packaging: library-only install + pkg-config consumer OK"

static_libs=$(pkg-config --libs --static duet)
static_libs=${static_libs/-lduet/-Wl,-Bstatic -lduet -Wl,-Bdynamic}
# shellcheck disable=SC2046,SC2086
g++ "$here/consumer.cpp" -o "$scratch/pc_static_consumer" $(pkg-config --cflags duet) $static_libs
ldd "$scratch/pc_static_consumer" | grep -q libduet && fail "the static consumer still needs libduet.so"
"$scratch/pc_static_consumer"
echo "packaging: static libduet + pkg-config --static consumer OK"

# (liburing's, fmt's and OpenSSL's own .pc files are the system's: no sysroot.)
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
cmake -S "$here" -B "$scratch/cmake" -DCMAKE_PREFIX_PATH="$root/usr/local" >/dev/null
cmake --build "$scratch/cmake" >/dev/null
LD_LIBRARY_PATH="$lib_dir" "$scratch/cmake/consumer"
"$scratch/cmake/consumer_static"
echo "packaging: CMake find_package(duet) consumer (duet::duet, duet::duet_static) OK"
# The version file: 0.x promises the ABI within a minor only (0.1.0 meets a
# request for 0.1; 0.2 and 1.0 are refused).
version_check() {
  mkdir -p "$scratch/cmake-version-$1"
  printf 'cmake_minimum_required(VERSION 3.18)\nproject(v CXX)\nfind_package(duet %s CONFIG REQUIRED)\n' "$1" \
    >"$scratch/cmake-version-$1/CMakeLists.txt"
  cmake -S "$scratch/cmake-version-$1" -B "$scratch/cmake-version-$1/build" \
    -DCMAKE_PREFIX_PATH="$root/usr/local" >/dev/null 2>&1
}
version_check 0.1 || fail "find_package(duet 0.1) refused duet 0.1.0"
for wanted in 0.2 1.0; do
  version_check "$wanted" && fail "find_package(duet $wanted) accepted duet 0.1.0"
done
echo "packaging: CMake version check refuses duet 0.2 and 1.0 OK"

# 2. The main tree, KV servers included.
meson install -C "$repo/build" --destdir "$scratch/full" --quiet
server=$(find "$scratch/full" -name duet-kv-stackless -type f | head -n1)
env -u LD_LIBRARY_PATH "$server" --help >/dev/null || fail "an installed server does not start"
echo "packaging: installed KV servers find libduet (rpath) OK"

# 3. The subproject, with the README's dependency() options.
grep -qF "default_options : ['kv=false', 'tests=false', 'examples=false', 'benchmarks=false']" "$repo/README.md" ||
  fail "README's subproject line differs from tests/consumer/meson.build"
mkdir -p "$scratch/project/subprojects"
cp "$here/meson.build" "$here/consumer.cpp" "$scratch/project/"
ln -s "$repo" "$scratch/project/subprojects/duet"
# The symlinked subproject must not reuse the main tree's build directories.
meson setup "$scratch/project/build" "$scratch/project" >/dev/null
ninja -C "$scratch/project/build" >/dev/null
"$scratch/project/build/consumer"
echo "packaging: subproject consumer OK"
