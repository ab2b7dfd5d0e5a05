#!/bin/sh
# The nightly-style run of duet-kv-sim: many seeds, both voices, until the
# first failure (whose line carries the command that replays it).
#
#   tests/sim/long_run.sh [first-seed] [seeds] [requests] [build-dir] [threads]
#   tests/sim/long_run.sh 1 5000 20000 build       # ~22 min on 2 cores (debugoptimized)
#
# Exit 0 when every seed passed, 1 at the first FAIL (printed).
set -eu
first=${1:-1}
count=${2:-1000}
requests=${3:-20000}
build=${4:-build}
threads=${5:-1}
sim="$build/src/kv/duet-kv-sim"
[ -x "$sim" ] || { echo "no $sim: build it first (ninja -C $build src/kv/duet-kv-sim)" >&2; exit 2; }
seed=$first
last=$((first + count - 1))
while [ "$seed" -le "$last" ]; do
  for voice in stackless stackful; do
    line=$("$sim" --seed "$seed" --requests "$requests" --voice "$voice" --threads "$threads" | tail -n 1) || true
    case "$line" in
      *" ok") ;;
      *) echo "$line"; exit 1 ;;
    esac
  done
  if [ $(( (seed - first + 1) % 100 )) -eq 0 ]; then echo "seeds $first..$seed ok ($requests requests each, both voices, $threads thread(s))"; fi
  seed=$((seed + 1))
done
echo "seeds $first..$last ok ($requests requests each, both voices, $threads thread(s))"
