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
# Rows named .../t2 run duet-kv with --threads 2 (thread_rows.py: server on
# every CPU), compared with their --threads 1 twin; "mget10 3B P1|P16" is MGET
# of 10 random keys (both shards). --pin none leaves client and server unpinned.
#   bench/compare/run.sh --only stackless/io_uring,stackless/io_uring/t2 \
#     --workloads "set 3B P16,get 3B P16,mget10 3B P16" --reps 5 --idle 0
#   bench/compare/run.sh --only redis,stackless/io_uring --workloads "pubsub_fanout P16" --reps 5 --idle 0
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v redis-benchmark >/dev/null || { echo "run.sh: needs redis-tools and redis-server (./dev.sh installs them)" >&2; exit 1; }
[[ -d build-release ]] || meson setup build-release --buildtype=release -Dtests=false -Dexamples=false
ninja -C build-release
exec python3 bench/compare/side_by_side.py --build build-release "$@"
