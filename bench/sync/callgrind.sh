#!/usr/bin/env bash
# Instructions per iteration (per hand-off, per event round trip) of each
# sync_bench row, counted by callgrind: the shared machine's load does not
# change them. Each row runs with N1 and N2 iterations (SYNC_BENCH_ITERATIONS);
# (Ir(N2) - Ir(N1)) / (N2 - N1) cancels start-up and the row's set-up.
#   bench/sync/callgrind.sh build-release ['regex']
# TOP=1 also prints each row's top functions by self Ir (the N2 run, whole
# program), to say where a hand-off's time goes.
set -euo pipefail
build=${1:?usage: callgrind.sh BUILD_DIR [REGEX]}
filter=${2:-.}
bin=$build/bench/sync/sync_bench
n1=${N1:-20000}
n2=${N2:-120000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

count() {  # $1 row, $2 iterations, $3 output file -> total Ir
  SYNC_BENCH_ITERATIONS=$2 valgrind --tool=callgrind --callgrind-out-file="$3" \
    "$bin" --benchmark_filter="^$1(/iterations:[0-9]+)?\$" >/dev/null 2>&1 </dev/null
  awk '/^(summary|totals):/ { print $2; exit }' "$3"
}

for row in $("$bin" --benchmark_list_tests=true | grep -E -- "$filter" | sed "s,/iterations:[0-9]*$,,"); do
  a=$(count "$row" "$n1" "$tmp/a")
  b=$(count "$row" "$n2" "$tmp/b")
  awk -v r="$row" -v a="$a" -v b="$b" -v n="$((n2 - n1))" \
    'BEGIN { printf "%-40s %8.1f Ir/iteration\n", r, (b - a) / n }'
  if [[ -n ${TOP:-} ]]; then
    callgrind_annotate "$tmp/b" 2>/dev/null | awk -v n="${TOP_LINES:-12}" '/^ *[0-9,]+ / && k++ < n { print "    " $0 }'
  fi
done
