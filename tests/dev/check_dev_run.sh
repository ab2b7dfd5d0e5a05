#!/usr/bin/env bash
# `./dev.sh run` on a fresh build tree builds what it runs — the server — and
# nothing else: no test, benchmark, baseline or example (issue 12, item 4: the
# first run used to build all 129 targets before the server started).
# Usage: check_dev_run.sh SOURCE_ROOT
set -euo pipefail
root=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --help makes the server print its usage and exit 0, so `run` ends by itself.
BUILD_DIR="$tmp/build" "$root/dev.sh" run --help >"$tmp/out" 2>"$tmp/err" || {
  echo "dev.sh run failed:"; cat "$tmp/out" "$tmp/err"; exit 1; }

fail=0
grep -q -- '--port' "$tmp/out" || { echo "the server did not start (no usage text)"; fail=1; }
[[ -x $tmp/build/src/kv/duet-kv-stackless ]] || { echo "duet-kv-stackless was not built"; fail=1; }

# What a full build adds: test, benchmark and example executables, the other
# voice's server. None of them may exist after `run`.
extra=$(find "$tmp/build/tests" "$tmp/build/bench" "$tmp/build/examples" \
          "$tmp/build/src/kv/duet-kv-stackful" -type f -perm -u+x 2>/dev/null || true)
if [[ -n $extra ]]; then
  echo "dev.sh run built more than the server:"; echo "$extra"; fail=1
fi
[[ $fail -eq 0 ]] && echo "dev.sh run built only the server"
exit $fail
