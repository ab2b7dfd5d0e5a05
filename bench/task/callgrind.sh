#!/usr/bin/env bash
# Instructions per iteration of each task_bench row, counted by callgrind (the
# machine's load does not change them). Each row runs twice, with N1 and N2
# iterations; (Ir(N2) - Ir(N1)) / (N2 - N1) cancels start-up and set-up.
#   bench/task/callgrind.sh build [regex]      e.g. bench/task/callgrind.sh build-clang 'create'
# clang 14 writes DWARF 5, which valgrind 3.19 cannot read: configure a clang
# tree with -Dcpp_args=-gdwarf-4 (docs/BENCHMARKS.md).
set -euo pipefail
build=${1:?usage: callgrind.sh BUILD_DIR [REGEX]}
filter=${2:-.}
bin=$build/bench/task/task_bench
n1=${N1:-20000}
n2=${N2:-120000}

instructions() {  # $1 row name, $2 iterations -> total Ir of the whole run
  local out
  out=$(mktemp)
  TASK_BENCH_ITERATIONS=$2 valgrind --tool=callgrind --callgrind-out-file="$out" \
    "$bin" --benchmark_filter="^$1(/iterations:[0-9]+)?\$" >/dev/null 2>&1 </dev/null
  awk '/^(summary|totals):/ { print $2; exit }' "$out"
  rm -f "$out"
}

for row in $("$bin" --benchmark_list_tests=true | grep -E -- "$filter" | sed "s,/iterations:[0-9]*$,,"); do
  a=$(instructions "$row" "$n1")
  b=$(instructions "$row" "$n2")
  awk -v r="$row" -v a="$a" -v b="$b" -v n="$((n2 - n1))" 'BEGIN { printf "%-48s %8.1f Ir/iteration\n", r, (b - a) / n }'
done
