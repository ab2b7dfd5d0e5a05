#!/usr/bin/env bash
# Memory per idle keep-alive HTTP connection: start a server, read its memory,
# open CONNS connections (bench/http/idle_client.py), each sending one
# keep-alive `GET /` and reading the response, leave them idle, let the server
# settle and read its memory again (VmRSS from /proc/PID/status, Pss from
# /proc/PID/smaps_rollup). Servers: duet's http_hello_stackless and
# http_hello_stackful on io_uring and epoll, and beside them nginx-light
# (`return 200`, one process) and Boost.Beast (bench/http/beast_http_hello),
# when present. Prints a Markdown table: KiB per connection as
# (after - before) / CONNS, and as the slope between CONNS/2 and CONNS
# connections (which leaves out one-time costs such as the first pool blocks).
#
#   meson setup build-release -Dbuildtype=release
#   ninja -C build-release examples/http_hello_stackless examples/http_hello_stackful bench/http/beast_http_hello
#   bench/http/idle_memory.sh build-release
#
# Knobs (environment): CONNS=4000 SETTLE=2 REPS=1 SERVER_CPU=1 PORT=7800 ONLY="names" (a subset)
# The client and each server need CONNS + 64 file descriptors (ulimit -n).
# duet's servers close a connection idle for 60 s (HttpServerOptions::idle_timeout):
# a run takes well under that, and the table's last column says how many were still open.
set -euo pipefail
source "$(dirname "$0")/common.sh"  # wait_for_port, median

BUILD=${1:-build-release}
CONNS=${CONNS:-4000}
SETTLE=${SETTLE:-2}
REPS=${REPS:-1}
SERVER_CPU=${SERVER_CPU:-1}
PORT=${PORT:-7800}
CLIENT="$(dirname "$0")/idle_client.py"
WORK=$(mktemp -d /tmp/duet-idle-bench-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

limit=$(ulimit -n)
if (( CONNS + 64 > limit )); then
  echo "CONNS=$CONNS needs $((CONNS + 64)) file descriptors per process; ulimit -n is $limit" >&2
  exit 1
fi
NGINX_NOFILE=$limit
NGINX_SLOTS=$((2 * CONNS + 64))  # short of free slots, nginx closes idle keep-alive connections
SERVERS=("duet-io_uring" "duet-epoll" "fiber-io_uring" "fiber-epoll")
command -v nginx >/dev/null && SERVERS+=("nginx")
[[ -x "$BUILD/bench/http/beast_http_hello" ]] && SERVERS+=("beast")
apply_only hello_server_cmd

: > "$WORK/results"
for rep in $(seq "$REPS"); do
  for name in "${SERVERS[@]}"; do
    PORT=$((PORT + 1))
    taskset -c "$SERVER_CPU" $(hello_server_cmd "$name" "$PORT") > /dev/null 2>&1 &
    pid=$!
    wait_for_port "$PORT"
    if ! out=$(/usr/bin/python3 "$CLIENT" --port "$PORT" --pid "$pid" --conns "$CONNS" --settle "$SETTLE"); then
      kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
      echo "$name: idle_client failed" >&2
      exit 1
    fi
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
    awk -v n="$name" -v c="$CONNS" -v r0="$(field rss0 "$out")" -v rh="$(field rss_half "$out")" \
        -v r="$(field rss "$out")" -v p0="$(field pss0 "$out")" -v p="$(field pss "$out")" \
        -v open="$(field open "$out")" 'BEGIN {
      half = int(c / 2)
      printf "%s %d %d %.2f %.2f %.2f %d\n", n, r0, r, (r - r0) / c, (r - rh) / (c - half), (p - p0) / c, open
    }' | tee -a "$WORK/results" >&2
  done
done

echo "| server | RSS before (KiB) | RSS with $CONNS idle (KiB) | KiB/connection (after − before) ÷ $CONNS | KiB/connection, slope $((CONNS / 2))→$CONNS | Pss KiB/connection | still open |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for name in "${SERVERS[@]}"; do
  row="| $name"
  for column in 2 3 4 5 6 7; do row+=" | $(median "$WORK/results" "$name" "$column")"; done
  echo "$row |"
done
