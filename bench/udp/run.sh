#!/usr/bin/env bash
# UDP echo benchmark: duet's UDP echo server in both voices (io_uring and
# epoll) beside Asio's, all driven by the same closed-loop client (udp_load,
# io_uring), servers alternating within each repetition (A B C A B C ...),
# server and client pinned to different cores. For each run it reads the
# server's CPU time (utime + stime from /proc/PID/stat) before and after the
# measured window, so "server µs CPU / request" is what the server spent per
# echo. Prints a Markdown table of medians; raw JSON lines go to $OUT.
#
#   meson setup build-release -Dbuildtype=release && ninja -C build-release
#   bench/udp/run.sh build-release
#
# Knobs (environment): REPS=3 DURATION=3 WARMUP=1 FLOWS="1 16" SIZE=64
#                      SERVER_CPU=1 CLIENT_CPU=0 OUT=/tmp/duet-udp.jsonl
set -euo pipefail

BUILD=${1:-build-release}
REPS=${REPS:-3}
DURATION=${DURATION:-3}
WARMUP=${WARMUP:-1}
FLOWS=${FLOWS:-"1 16"}
SIZE=${SIZE:-64}
SERVER_CPU=${SERVER_CPU:-1}
CLIENT_CPU=${CLIENT_CPU:-0}
OUT=${OUT:-/tmp/duet-udp.jsonl}
PORT=${PORT:-7700}

BIN="$BUILD/bench/udp"
SERVERS=("task-io_uring" "fiber-io_uring" "task-epoll" "fiber-epoll")
[[ -x "$BIN/asio_udp_echo_server" ]] && SERVERS+=("asio")
: > "$OUT"
TICK=$(getconf CLK_TCK)

server_cmd() {  # name port
  case "$1" in
    task-*) echo "$BIN/udp_echo_server --port $2 --voice stackless --backend ${1#task-}" ;;
    fiber-*) echo "$BIN/udp_echo_server --port $2 --voice stackful --backend ${1#fiber-}" ;;
    asio) echo "$BIN/asio_udp_echo_server --port $2" ;;
  esac
}

cpu_ticks() {  # pid -> utime + stime
  awk '{ print $14 + $15 }' "/proc/$1/stat"
}

for flows in $FLOWS; do
  for rep in $(seq "$REPS"); do
    for name in "${SERVERS[@]}"; do
      PORT=$((PORT + 1))
      taskset -c "$SERVER_CPU" $(server_cmd "$name" "$PORT") > /dev/null &
      server=$!
      sleep 0.2  # bound before the first datagram (UDP has no connect to wait on)
      taskset -c "$CLIENT_CPU" "$BIN/udp_load" --port "$PORT" --flows "$flows" --size "$SIZE" \
        --duration "$DURATION" --warmup "$WARMUP" --label "$name" > /tmp/duet-udp-run.json &
      client=$!
      sleep "$WARMUP"
      before=$(cpu_ticks "$server")
      sleep "$DURATION"
      after=$(cpu_ticks "$server")
      wait "$client"
      kill "$server"
      wait "$server" 2>/dev/null || true
      python3 - /tmp/duet-udp-run.json "$before" "$after" "$TICK" >> "$OUT" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["server_cpu_s"] = (int(sys.argv[3]) - int(sys.argv[2])) / int(sys.argv[4])  # clock ticks -> seconds
print(json.dumps(r))
PY
      echo "rep $rep/$REPS flows $flows $name: $(tail -1 "$OUT")" >&2
    done
  done
done

python3 - "$OUT" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
keys = sorted({(r["flows"], r["label"]) for r in rows}, key=lambda k: (k[0], k[1]))
print("| flows | server | echoes/s (median) | server µs CPU / echo (median) | lost | runs |")
print("|---:|---|---:|---:|---:|---:|")
for flows, label in keys:
    rs = [r for r in rows if r["flows"] == flows and r["label"] == label]
    rps = statistics.median(r["rps"] for r in rs)
    cpu = statistics.median(1e6 * r["server_cpu_s"] / max(r["requests"], 1) for r in rs)
    print(f"| {flows} | {label} | {rps:,.0f} | {cpu:.2f} | {sum(r['lost'] for r in rs)} | {len(rs)} |")
PY
