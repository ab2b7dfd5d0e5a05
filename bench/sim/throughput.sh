#!/bin/sh
# Simulated KV requests per minute of CPU: duet-kv-sim in a release tree, both
# voices, A B A B, the median of the runs (the target: >= 1,000,000).
#
#   bench/sim/throughput.sh [build-release] [requests] [reps] [threads]
#
# The run includes what duet-kv-sim always does: the AOF under appendfsync
# always on the simulated disk, 2 crashes and restarts with read-backs, resets.
# With threads > 1 the shards are threads taking turns on the world's baton:
# each switch is a futex hand-off, so system CPU grows.
set -eu
build=${1:-build-release}
requests=${2:-1000000}
reps=${3:-5}
threads=${4:-1}
sim="$build/src/kv/duet-kv-sim"
[ -x "$sim" ] || { echo "no $sim: meson setup $build --buildtype=release && ninja -C $build src/kv/duet-kv-sim" >&2; exit 2; }
grep -m1 "model name" /proc/cpuinfo
for voice in stackless stackful; do : > "/tmp/duet-sim-$voice.$$"; done
i=0
while [ "$i" -lt "$reps" ]; do
  for voice in stackless stackful; do
    # user + system CPU seconds of one run (GNU time's %U %S)
    cpu=$( { /usr/bin/time -f "%U %S" "$sim" --seed $((i + 1)) --requests "$requests" --voice "$voice" --threads "$threads" > /dev/null; } 2>&1 | tail -n 1 | awk '{print $1 + $2}')
    echo "$cpu" >> "/tmp/duet-sim-$voice.$$"
  done
  i=$((i + 1))
done
for voice in stackless stackful; do
  median=$(sort -n "/tmp/duet-sim-$voice.$$" | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}')
  rm -f "/tmp/duet-sim-$voice.$$"
  awk -v v="$voice" -v t="$threads" -v r="$requests" -v c="$median" \
    'BEGIN { printf "%s, %d thread(s): %d requests in %.2f s of CPU (median of runs): %.1f million requests per CPU-minute\n", v, t, r, c, r / c * 60 / 1e6 }'
done
