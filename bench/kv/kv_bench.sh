#!/usr/bin/env bash
# KV throughput and CPU cost per request: duet-kv-stackless and duet-kv-stackful
# on both backends, next to redis-server, with redis-benchmark (GET/SET).
# Usage: bench/kv/kv_bench.sh [build-dir=build] [requests=1000000] [pipeline=16] [clients=50]
# (port: $KV_BENCH_PORT, default 6479)
# Prints one line per server: requests/s for SET and GET and the server's CPU
# microseconds per request (user+sys from /proc, so "per CPU" comparisons are fair
# on a machine where the benchmark client shares the cores).
set -euo pipefail
build="${1:-build}"
n="${2:-1000000}"
pipeline="${3:-16}"
clients="${4:-50}"
port="${KV_BENCH_PORT:-6479}"
tck=$(getconf CLK_TCK)

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

run_one() {  # name, command...
  local name="$1"; shift
  "$@" > /dev/null 2>&1 &
  local pid=$!
  for _ in $(seq 50); do redis-cli -p "$port" ping > /dev/null 2>&1 && break; sleep 0.05; done
  local before; before=$(cpu_ticks "$pid")
  local out; out=$(redis-benchmark -p "$port" -t set,get -n "$n" -P "$pipeline" -c "$clients" -q 2>/dev/null | tr '\r' '\n' | grep 'requests per second')
  local after; after=$(cpu_ticks "$pid")
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
  local set get
  set=$(echo "$out" | awk '/^SET/ {print $2}')
  get=$(echo "$out" | awk '/^GET/ {print $2}')
  local us; us=$(awk -v t=$((after - before)) -v hz="$tck" -v r=$((2 * n)) 'BEGIN {printf "%.3f", t / hz * 1e6 / r}')
  printf '%-28s SET %12s/s  GET %12s/s  server CPU %s us/request\n' "$name" "$set" "$get" "$us"
}

for exe in stackless stackful; do
  for backend in io_uring epoll; do
    run_one "duet-kv-$exe ($backend)" "$build/src/kv/duet-kv-$exe" --port "$port" --backend "$backend"
  done
done
if command -v redis-server > /dev/null; then
  run_one "redis-server $(redis-server --version | awk '{print $3}')" redis-server --port "$port" --save '' --appendonly no
fi
