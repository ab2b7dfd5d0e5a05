#!/usr/bin/env bash
# Echo benchmark: duet's two voices (the stackless and the stackful echo
# example) on io_uring and on epoll, and Asio, all driven by the same duet
# client (echo_load, io_uring backend), alternating
# servers within each repetition (A B C A B C ...), server and client pinned to
# different cores. Prints a Markdown table of medians; raw JSON lines go to $OUT.
#
#   meson setup build-release -Dbuildtype=release && ninja -C build-release
#   bench/echo/run.sh build-release
#
# Knobs (environment): REPS=5 DURATION=5 WARMUP=1 CONNS="1 100" DEPTH=1 SIZE=64
#                      SERVER_CPU=1 CLIENT_CPU=0 OUT=/tmp/duet-echo.jsonl
#                      RT=1: run client and server SCHED_FIFO (chrt -f 50) so that other
#                      work on a shared machine cannot preempt them (needs CAP_SYS_NICE;
#                      the kernel's RT throttling still leaves 5% of each core to others).
set -euo pipefail

BUILD=${1:-build-release}
REPS=${REPS:-5}
DURATION=${DURATION:-5}
WARMUP=${WARMUP:-1}
CONNS=${CONNS:-"1 100"}
DEPTH=${DEPTH:-1}
SIZE=${SIZE:-64}
SERVER_CPU=${SERVER_CPU:-1}
CLIENT_CPU=${CLIENT_CPU:-0}
OUT=${OUT:-/tmp/duet-echo.jsonl}
PORT=${PORT:-7600}
PRIO=()
[[ "${RT:-0}" == 1 ]] && PRIO=(chrt -f 50)

BIN="$BUILD/bench/echo"
SERVERS=("duet-io_uring" "duet-epoll" "fiber-io_uring" "fiber-epoll")
[[ -x "$BIN/asio_echo_server" ]] && SERVERS+=("asio")
: > "$OUT"

server_cmd() {  # name port
  case "$1" in
    duet-io_uring) echo "$BIN/duet_echo_server --port $2 --backend io_uring" ;;
    duet-epoll) echo "$BIN/duet_echo_server --port $2 --backend epoll" ;;
    fiber-io_uring) echo "$BIN/duet_fiber_echo_server --port $2 --backend io_uring" ;;
    fiber-epoll) echo "$BIN/duet_fiber_echo_server --port $2 --backend epoll" ;;
    asio) echo "$BIN/asio_echo_server --port $2" ;;
  esac
}

wait_for_port() {
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "server on port $1 did not come up" >&2
  return 1
}

for conns in $CONNS; do
  for rep in $(seq "$REPS"); do
    for name in "${SERVERS[@]}"; do
      PORT=$((PORT + 1))  # a fresh port: a closing io_uring server may hold the old one briefly
      "${PRIO[@]}" taskset -c "$SERVER_CPU" $(server_cmd "$name" "$PORT") > /dev/null &
      server=$!
      wait_for_port "$PORT"
      "${PRIO[@]}" taskset -c "$CLIENT_CPU" "$BIN/echo_load" --port "$PORT" --connections "$conns" --depth "$DEPTH" \
        --size "$SIZE" --duration "$DURATION" --warmup "$WARMUP" --label "$name" >> "$OUT"
      kill "$server"
      wait "$server" 2>/dev/null || true
      echo "rep $rep/$REPS conns $conns $name: $(tail -1 "$OUT")" >&2
    done
  done
done

python3 - "$OUT" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
keys = sorted({(r["connections"], r["label"]) for r in rows}, key=lambda k: (k[0], k[1]))
print("| connections | server | req/s (median) | p50 µs | p99 µs | p99.9 µs | runs |")
print("|---:|---|---:|---:|---:|---:|---:|")
for conns, label in keys:
    rs = [r for r in rows if r["connections"] == conns and r["label"] == label]
    med = lambda f: statistics.median(r[f] for r in rs)
    print(f"| {conns} | {label} | {med('rps'):,.0f} | {med('p50_us'):.1f} | {med('p99_us'):.1f} | "
          f"{med('p999_us'):.1f} | {len(rs)} |")
PY
