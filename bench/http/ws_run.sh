#!/usr/bin/env bash
# WebSocket benchmark: echo of 64-byte text messages over 100 connections
# (bench/http/ws_load, depth 1 in flight per connection) against duet's two
# voices (examples/ws_echo_*, io_uring and epoll) and a Boost.Beast echo
# server (bench/http/beast_ws_echo.cpp), alternating servers within each
# repetition (A B C ... A B C ...), server and load pinned to different cores.
# Each server runs one thread on one core. ws_load reads the server's
# utime+stime from /proc over its timed window (after the handshakes and a
# 1 s warm-up), so beside messages/s the table gives the server's CPU per
# message and messages/s per server core (messages ÷ server CPU seconds: what
# one saturated core would do, whether or not the load saturated it), and
# that figure's ratio to Beast's. Prints a Markdown table of medians.
#
#   meson setup build-release -Dbuildtype=release
#   ninja -C build-release examples/ws_echo_stackless examples/ws_echo_stackful \
#         bench/http/ws_load bench/http/beast_ws_echo
#   bench/http/ws_run.sh build-release
#
# Knobs (environment): REPS=5 DURATION=5 CONNS=100 SIZE=64 DEPTH=1
#                      SERVER_CPU=1 CLIENT_CPU=0 PORT=7750 ONLY="names" (a subset)
set -euo pipefail
source "$(dirname "$0")/common.sh"  # wait_for_port, median

BUILD=${1:-build-release}
REPS=${REPS:-5}
DURATION=${DURATION:-5}
CONNS=${CONNS:-100}
SIZE=${SIZE:-64}
DEPTH=${DEPTH:-1}
SERVER_CPU=${SERVER_CPU:-1}
CLIENT_CPU=${CLIENT_CPU:-0}
PORT=${PORT:-7750}
LOAD="$BUILD/bench/http/ws_load"
WORK=$(mktemp -d /tmp/duet-ws-bench-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

[[ -x "$LOAD" ]] || { echo "$LOAD is not built" >&2; exit 1; }
SERVERS=("duet-io_uring" "duet-epoll" "fiber-io_uring" "fiber-epoll")
[[ -x "$BUILD/bench/http/beast_ws_echo" ]] && SERVERS+=("beast")

server_cmd() {  # name port
  case "$1" in
    duet-io_uring) echo "$BUILD/examples/ws_echo_stackless --port $2 --backend io_uring" ;;
    duet-epoll) echo "$BUILD/examples/ws_echo_stackless --port $2 --backend epoll" ;;
    fiber-io_uring) echo "$BUILD/examples/ws_echo_stackful --port $2 --backend io_uring" ;;
    fiber-epoll) echo "$BUILD/examples/ws_echo_stackful --port $2 --backend epoll" ;;
    beast) echo "$BUILD/bench/http/beast_ws_echo --port $2" ;;
  esac
}

apply_only server_cmd

: > "$WORK/results"
for rep in $(seq "$REPS"); do
  for name in "${SERVERS[@]}"; do
    PORT=$((PORT + 1))
    taskset -c "$SERVER_CPU" $(server_cmd "$name" "$PORT") > /dev/null 2>&1 &
    pid=$!
    wait_for_port "$PORT"
    if ! out=$(taskset -c "$CLIENT_CPU" "$LOAD" --port "$PORT" --conns "$CONNS" --size "$SIZE" \
                 --duration "$DURATION" --depth "$DEPTH" --server-pid "$pid"); then
      kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
      echo "$name: ws_load failed" >&2
      exit 1
    fi
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
    mps=$(field messages_per_s "$out")
    awk -v n="$name" -v mps="$mps" -v m="$(field messages "$out")" -v s="$(field seconds "$out")" \
        -v sc="$(field server_cpu_s "$out")" -v cc="$(field client_cpu_s "$out")" 'BEGIN {
      if (sc <= 0) sc = 1e-9
      printf "%s %.0f %.2f %.0f %.0f %.0f\n", n, mps, sc * 1e6 / m, m / sc, 100 * sc / s, 100 * cc / s
    }' | tee -a "$WORK/results" >&2
  done
done

beast_core=$(median "$WORK/results" beast 4)
echo "| server | messages/s (median of $REPS) | server CPU µs/message | messages/s per server core | ÷ Beast per core | server CPU % | load CPU % |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for name in "${SERVERS[@]}"; do
  core=$(median "$WORK/results" "$name" 4)
  ratio=$(awk -v a="$core" -v b="${beast_core:-0}" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}')
  echo "| $name | $(median "$WORK/results" "$name" 2) | $(median "$WORK/results" "$name" 3) | $core | $ratio |" \
       "$(median "$WORK/results" "$name" 5) | $(median "$WORK/results" "$name" 6) |"
done
