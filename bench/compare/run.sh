#!/usr/bin/env bash
# One command for the KV side-by-side benchmark (see docs/BENCHMARKS.md):
#   bench/compare/run.sh [--reps N] [--quick] [--only a,b] [--out DIR]
# Builds duet in release mode (build-release/), then runs side_by_side.py:
# duet-kv-stackless and duet-kv-stackful on io_uring and epoll, the thread-per-
# connection and callback-reactor baselines, Debian's redis-server, and the two
# floor servers, alternated across repetitions, server and client pinned apart.
# Workloads: PING/SET/GET (redis-benchmark and bench/echo/echo_load) and the
# pub/sub fan-out (pubsub_fanout P1 and P16: bench/echo/pubsub_load, one
# publisher and 1,000 subscribers; servers without pub/sub show "unsupported").
#   bench/compare/run.sh --only redis,stackless/io_uring --workloads "pubsub_fanout P16" --reps 5 --idle 0
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v redis-benchmark >/dev/null || { echo "run.sh: needs redis-tools and redis-server (./dev.sh installs them)" >&2; exit 1; }
[[ -d build-release ]] || meson setup build-release --buildtype=release -Dtests=false -Dexamples=false
ninja -C build-release
exec python3 bench/compare/side_by_side.py --build build-release "$@"
