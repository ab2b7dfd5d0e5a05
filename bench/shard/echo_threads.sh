#!/usr/bin/env bash
# The sharded echo examples with --threads 1 and --threads 2 under the same
# client (bench/echo/echo_load), servers alternating within each repetition
# (A B C ... A B C ...). On a 2-core machine the client needs a core too: by
# default nothing is pinned (the client and the server's threads share both
# cores, as the scheduler decides); CLIENT_CPU=0 pins the client to core 0
# and the server to both. Prints a Markdown table of medians; raw JSON lines
# go to $OUT.
#
#   meson setup build-release -Dbuildtype=release && ninja -C build-release
#   bench/shard/echo_threads.sh build-release
#
# Knobs (environment): REPS=3 DURATION=3 WARMUP=1 CONNS=100 DEPTH=1 SIZE=64
#                      VOICE=stackless|stackful BACKEND=io_uring CLIENT_CPU= OUT=/tmp/duet-echo-threads.jsonl
set -euo pipefail

BUILD=${1:-build-release}
REPS=${REPS:-3}
DURATION=${DURATION:-3}
WARMUP=${WARMUP:-1}
CONNS=${CONNS:-100}
DEPTH=${DEPTH:-1}
SIZE=${SIZE:-64}
VOICE=${VOICE:-stackless}
BACKEND=${BACKEND:-io_uring}
OUT=${OUT:-/tmp/duet-echo-threads.jsonl}
PORT=${PORT:-7700}
CLIENT_PIN=()
[[ -n "${CLIENT_CPU:-}" ]] && CLIENT_PIN=(taskset -c "$CLIENT_CPU")
SERVER="$BUILD/examples/echo_sharded_$VOICE"
CONFIGS=("1 reuseport" "2 reuseport" "2 single")
: > "$OUT"

for rep in $(seq "$REPS"); do
  for config in "${CONFIGS[@]}"; do
    read -r threads mode <<< "$config"
    label="threads$threads-$mode"
    PORT=$((PORT + 1))
    "$SERVER" --port "$PORT" --backend "$BACKEND" --threads "$threads" --accept "$mode" > /dev/null &
    server=$!
    for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.05; done
    "${CLIENT_PIN[@]}" "$BUILD/bench/echo/echo_load" --port "$PORT" --connections "$CONNS" --depth "$DEPTH" \
      --size "$SIZE" --duration "$DURATION" --warmup "$WARMUP" --label "$label" >> "$OUT"
    kill -TERM "$server"
    wait "$server" 2>/dev/null || true
    echo "rep $rep/$REPS $label: $(tail -1 "$OUT")" >&2
  done
done

python3 - "$OUT" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
labels = list(dict.fromkeys(r["label"] for r in rows))
base = statistics.median(r["rps"] for r in rows if r["label"] == labels[0])
print("| server | req/s (median) | vs threads1 | p50 µs | p99 µs | runs |")
print("|---|---:|---:|---:|---:|---:|")
for label in labels:
    rs = [r for r in rows if r["label"] == label]
    rps = statistics.median(r["rps"] for r in rs)
    p50 = statistics.median(r["p50_us"] for r in rs)
    p99 = statistics.median(r["p99_us"] for r in rs)
    print(f"| {label} | {rps:,.0f} | {rps / base:.2f}× | {p50:.1f} | {p99:.1f} | {len(rs)} |")
PY
