#!/usr/bin/env bash
# User-space instructions per WebSocket echo (64 B, 100 connections, depth 1)
# under callgrind: each server runs twice under valgrind --tool=callgrind,
# loaded by bench/http/ws_load for SHORT and LONG seconds, and the difference
# of the two runs' instruction totals over the difference of their echoes is
# the cost of one echo: start-up, the handshakes and shutdown cancel out.
# Deterministic where the timed runs of ws_run.sh are not, but it counts only
# user space (the kernel's TCP path, most of an echo's CPU, is left out).
#
#   bench/http/ws_callgrind.sh build-release
#
# Knobs (environment): SHORT=2 LONG=6 PORT=7900 ONLY="duet-epoll fiber-epoll beast"
set -euo pipefail
source "$(dirname "$0")/common.sh"  # wait_for_port

BUILD=${1:-build-release}
SHORT=${SHORT:-2}
LONG=${LONG:-6}
PORT=${PORT:-7900}
read -r -a SERVERS <<< "${ONLY:-duet-epoll duet-io_uring fiber-epoll fiber-io_uring beast}"
WORK=$(mktemp -d /tmp/duet-ws-callgrind-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

server_cmd() {  # name port
  case "$1" in
    duet-io_uring) echo "$BUILD/examples/ws_echo_stackless --port $2 --backend io_uring" ;;
    duet-epoll) echo "$BUILD/examples/ws_echo_stackless --port $2 --backend epoll" ;;
    fiber-io_uring) echo "$BUILD/examples/ws_echo_stackful --port $2 --backend io_uring" ;;
    fiber-epoll) echo "$BUILD/examples/ws_echo_stackful --port $2 --backend epoll" ;;
    beast) echo "$BUILD/bench/http/beast_ws_echo --port $2" ;;
    *) echo "unknown server $1" >&2; exit 2 ;;
  esac
}

run_once() {  # name seconds -> "instructions echoes"
  PORT=$((PORT + 1))
  valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" $(server_cmd "$1" "$PORT") > /dev/null 2>&1 &
  local pid=$! out
  wait_for_port "$PORT" || wait_for_port "$PORT"  # valgrind starts slowly
  out=$("$BUILD/bench/http/ws_load" --port "$PORT" --duration "$2" --warmup 0.5)
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
  echo "$(awk '/^totals:/ {print $2}' "$WORK/cg.out") $(tr ' ' '\n' <<< "$out" | awk -F= '$1 == "all_messages" {print $2}')"
}

echo "| server | instructions per echo (user space) |"
echo "|---|---:|"
for name in "${SERVERS[@]}"; do
  read -r ir1 n1 <<< "$(run_once "$name" "$SHORT")"
  read -r ir2 n2 <<< "$(run_once "$name" "$LONG")"
  echo "$name: $ir1 Ir / $n1 echoes, $ir2 Ir / $n2 echoes" >&2
  echo "| $name | $(awk -v a="$ir1" -v b="$ir2" -v m="$n1" -v n="$n2" 'BEGIN {printf "%.0f", (b - a) / (n - m)}') |"
done
