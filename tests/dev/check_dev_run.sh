#!/usr/bin/env bash
# `./dev.sh run` on a fresh build tree builds what it runs — the server — and
# nothing else: no test, benchmark, baseline or example (issue 12, item 4: the
# first run used to build all 129 targets before the server started).
# The check configures a fresh tree through dev.sh itself and asks ninja what
# `run` would build (DUET_DEV_DRY_RUN: ninja -n), instead of building a second
# tree (that took 70-400 s of CI, issue 24); then it starts the server that
# `run` execs, from the tree meson test already built, to see that it runs.
# Usage: check_dev_run.sh SOURCE_ROOT BUILD_ROOT
set -euo pipefail
root=$1
built=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

BUILD_DIR="$tmp/build" DUET_DEV_DRY_RUN=1 "$root/dev.sh" run >"$tmp/plan" 2>"$tmp/err" || {
  echo "dev.sh run (dry) failed:"; cat "$tmp/plan" "$tmp/err"; exit 1; }

fail=0
# ninja -n prints one "[i/n] Compiling|Linking ... <output>" line per edge.
grep -q 'Linking target src/kv/duet-kv-stackless$' "$tmp/plan" ||
  { echo "dev.sh run would not build duet-kv-stackless:"; cat "$tmp/plan"; fail=1; }
# What a full build adds: test, benchmark and example executables, the other
# voice's server. None of them may be in the plan.
extra=$(grep -E ' (tests|bench|examples)/|duet-kv-stackful' "$tmp/plan" || true)
if [[ -n $extra ]]; then
  echo "dev.sh run would build more than the server:"; echo "$extra"; fail=1
fi
# The server `run` execs prints its usage for --help and exits 0.
"$built/src/kv/duet-kv-stackless" --help >"$tmp/out" 2>&1 || { echo "the server's --help failed"; fail=1; }
grep -q -- '--port' "$tmp/out" || { echo "the server did not start (no usage text)"; cat "$tmp/out"; fail=1; }
[[ $fail -eq 0 ]] && echo "dev.sh run builds only the server ($(grep -c -E 'Compiling|Linking' "$tmp/plan") steps)"
exit $fail
