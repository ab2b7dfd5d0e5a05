#!/usr/bin/env bash
# HTTP benchmark: hello-world keep-alive under wrk (-t1 -c50) against duet's
# two voices (examples/http_hello_*, io_uring and epoll), nginx-light
# (`return 200 "hello"`, one worker) and a Boost.Beast server
# (bench/http/beast_http_hello.cpp), alternating servers within each
# repetition (A B C ... A B C ...), server and wrk pinned to different cores.
# Each server runs one thread on one core, so requests per second is per
# server core; beside it the server's CPU time per request (utime+stime from
# /proc, over the run, and each apart), requests per server-CPU second and its
# ratio to nginx's and Beast's. Prints a Markdown table of medians.
#
#   meson setup build-release -Dbuildtype=release && ninja -C build-release
#   bench/http/run.sh build-release
#
# Knobs (environment): REPS=5 DURATION=5 CONNS=50 SERVER_CPU=1 CLIENT_CPU=0 PORT=7700 ONLY="names" (a subset)
set -euo pipefail
source "$(dirname "$0")/common.sh"  # wait_for_port, median

BUILD=${1:-build-release}
REPS=${REPS:-5}
DURATION=${DURATION:-5}
CONNS=${CONNS:-50}
SERVER_CPU=${SERVER_CPU:-1}
CLIENT_CPU=${CLIENT_CPU:-0}
PORT=${PORT:-7700}
TICKS=$(getconf CLK_TCK)
WORK=$(mktemp -d /tmp/duet-http-bench-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

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
    wrk -t1 -c"$CONNS" -d1 "http://127.0.0.1:$PORT/" > /dev/null  # warm-up
    read -r user0 sys0 < <(awk '{print $14, $15}' "/proc/$pid/stat")
    out=$(taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNS" -d"$DURATION" "http://127.0.0.1:$PORT/")
    read -r user1 sys1 < <(awk '{print $14, $15}' "/proc/$pid/stat")
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
    rps=$(awk '/Requests\/sec/ {print $2}' <<< "$out")
    requests=$(awk '/requests in/ {print $1}' <<< "$out")
    errors=$(awk '/Non-2xx|Socket errors/ {print}' <<< "$out")
    [[ -n "$errors" ]] && echo "$name: $errors" >&2
    # µs per request: all, user, system; and requests per server-CPU second (per core).
    stats=$(awk -v u=$((user1 - user0)) -v s=$((sys1 - sys0)) -v hz="$TICKS" -v n="$requests" \
      'BEGIN {printf "%.2f %.2f %.2f %.0f", (u + s) / hz * 1e6 / n, u / hz * 1e6 / n, s / hz * 1e6 / n, n * hz / (u + s)}')
    echo "$name $rps $stats" | tee -a "$WORK/results" >&2
  done
done

# Per core: requests ÷ server CPU seconds, and its ratio to nginx's and Beast's (medians).
base() { [[ " ${SERVERS[*]} " == *" $1 "* ]] && median "$WORK/results" "$1" 6 || echo 0; }
nginx_core=$(base nginx)
beast_core=$(base beast)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}'; }
echo "| server | requests/s (median of $REPS) | server CPU µs/request | user µs | system µs | requests/s per server core | ÷ nginx | ÷ Beast |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for name in "${SERVERS[@]}"; do
  core=$(median "$WORK/results" "$name" 6)
  echo "| $name | $(median "$WORK/results" "$name" 2) | $(median "$WORK/results" "$name" 3) |" \
       "$(median "$WORK/results" "$name" 4) | $(median "$WORK/results" "$name" 5) | $core |" \
       "$(ratio "$core" "$nginx_core") | $(ratio "$core" "$beast_core") |"
done
