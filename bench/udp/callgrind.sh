#!/usr/bin/env bash
# Instructions per UDP echo in the server's user space (callgrind), which
# machine load does not change: each server runs under callgrind for N1 and
# then N2 echoes (--count), and (Ir(N2) - Ir(N1)) / (N2 - N1) cancels start-up
# and shutdown. The kernel's work (recvmsg, sendmsg, io_uring_enter) is not
# counted: this is the framework's own cost per echo.
#
#   bench/udp/callgrind.sh build-release
#
# Knobs (environment): N1=2000 N2=12000 PORT=7800
set -euo pipefail

BUILD=${1:-build-release}
N1=${N1:-2000}
N2=${N2:-12000}
PORT=${PORT:-7800}
BIN="$BUILD/bench/udp"
SERVERS=("task-io_uring" "fiber-io_uring" "task-epoll" "fiber-epoll")
[[ -x "$BIN/asio_udp_echo_server" ]] && SERVERS+=("asio")
TMP=$(mktemp -d /tmp/duet-udp-callgrind-XXXXXX)
trap 'rm -rf "$TMP"' EXIT

server_cmd() {  # name port count
  case "$1" in
    task-*) echo "$BIN/udp_echo_server --port $2 --count $3 --voice stackless --backend ${1#task-}" ;;
    fiber-*) echo "$BIN/udp_echo_server --port $2 --count $3 --voice stackful --backend ${1#fiber-}" ;;
    asio) echo "$BIN/asio_udp_echo_server --port $2 --count $3" ;;
  esac
}

instructions() {  # name count -> Ir of the whole run
  PORT=$((PORT + 1))
  valgrind --tool=callgrind --callgrind-out-file="$TMP/out" $(server_cmd "$1" "$PORT" "$2") > /dev/null 2>&1 &
  local server=$!
  sleep 2  # valgrind starts slowly; a datagram before bind would be lost (the flow retries after 100 ms)
  "$BIN/udp_load" --port "$PORT" --flows 1 --duration 600 --warmup 0 > /dev/null &
  local client=$!
  wait "$server"
  kill "$client"
  wait "$client" 2>/dev/null || true
  awk '/^summary:/ { print $2 }' "$TMP/out"
}

echo "| server | Ir / echo (user space) |"
echo "|---|---:|"
for name in "${SERVERS[@]}"; do
  a=$(instructions "$name" "$N1")
  b=$(instructions "$name" "$N2")
  echo "| $name | $(( (b - a) / (N2 - N1) )) |"
done
