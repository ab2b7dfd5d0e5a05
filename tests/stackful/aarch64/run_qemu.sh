#!/usr/bin/env bash
# Builds the AArch64 context-switch check with the cross compiler and runs it
# under qemu-user. Needs: apt-get install qemu-user g++-aarch64-linux-gnu
# Exits 77 (meson's "skipped") when the tools are not installed.
set -euo pipefail
if ! command -v aarch64-linux-gnu-g++ >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
  echo "aarch64-linux-gnu-g++ or qemu-aarch64 missing: skipped" >&2
  exit 77
fi
repo=$(cd "$(dirname "$0")/../../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
aarch64-linux-gnu-g++ -std=c++20 -O2 -Wall -Wextra -Wpedantic -static -I"$repo/src" \
  "$repo/tests/stackful/aarch64/switch_check.cpp" "$repo/tests/stackful/aarch64/probe_aarch64.S" \
  "$repo/src/duet/stackful/detail/switch_aarch64.S" "$repo/src/duet/stackful/stack.cpp" -o "$out/switch_check"
qemu-aarch64 "$out/switch_check"
