#!/usr/bin/env bash
# The README's quick start. On a fresh Debian 12 machine (as root, or with sudo):
#   ./dev.sh run    install what is missing, build, start the KV server on 127.0.0.1:6380
#   ./dev.sh test   install what is missing, build, run the whole test suite
# Both are idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")"

# Everything a build, a test or a benchmark needs, from Debian's archive.
PACKAGES=(
  meson ninja-build g++ clang pkg-config ccache  # meson compiles through ccache when it is there (warm rebuilds)
  liburing-dev libfmt-dev catch2 libbenchmark-dev libabsl-dev
  libasio-dev libboost-context-dev libboost-fiber-dev libhiredis-dev
  redis-tools redis-server libssl-dev openssl zlib1g-dev libclang-rt-14-dev valgrind strace util-linux python3
  fio  # bench/file/run.sh runs file_randread beside fio's io_uring engine
  qemu-user g++-aarch64-linux-gnu  # the AArch64 context switch is tested under qemu-user
  python3-redis  # tests/kv/clients: redis-py, the Python client users run
  cmake  # tests/consumer: a CMake project finds the installed duet (find_package)
  curl python3-websockets  # tests/examples: the HTTP and WebSocket examples with the clients users run
  wrk nginx-light  # bench/http: the load generator and the nginx baseline
)
# node-redis and ioredis (tests/kv/clients/package-lock.json) and ws
# (tests/examples/ws_clients/package-lock.json) come from npm;
# Node.js itself from Debian unless the machine already has node and npm.
command -v node >/dev/null && command -v npm >/dev/null || PACKAGES+=(nodejs npm)

install_missing() {
  local missing=()
  for pkg in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [[ ${#missing[@]} -eq 0 ]] && return
  echo "dev.sh: installing ${missing[*]}"
  local sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# The npm clients, as each directory's lock file pins them (again only when it changed):
# the Redis clients of tests/kv/clients, the WebSocket client of tests/examples/ws_clients.
NODE_CLIENT_DIRS=(tests/kv/clients tests/examples/ws_clients)
install_node_clients() {
  local dir
  for dir in "${NODE_CLIENT_DIRS[@]}"; do
    [[ $dir/node_modules/.package-lock.json -nt $dir/package-lock.json ]] && continue
    echo "dev.sh: installing the Node.js clients of $dir (npm ci)"
    npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
  done
}

# BUILD_DIR lets a second tree (or the dev.sh test) live beside ./build.
BUILD_DIR=${BUILD_DIR:-build}

# `run` builds only what it runs (the server and the library under it), so the
# first start does not wait for the tests, benchmarks and baselines;
# `test` builds everything, since `meson test` needs every test binary.
RUN_TARGETS=(src/kv/duet-kv-stackless)

# DUET_DEV_DRY_RUN=1 configures the tree but only lists what ninja would
# build (ninja -n) and starts nothing: tests/dev/check_dev_run.sh checks with it
# that `run` builds the server alone, without spending a build on the check.
build() {
  [[ -d $BUILD_DIR ]] || meson setup "$BUILD_DIR"
  if [[ -n ${DUET_DEV_DRY_RUN:-} ]]; then
    ninja -C "$BUILD_DIR" -n "$@"
    exit 0
  fi
  ninja -C "$BUILD_DIR" "$@"
}

case "${1:-}" in
  deps)  # only the first step of both: install what is missing (CI runs it first)
    install_missing
    install_node_clients
    ;;
  run)
    install_missing
    build "${RUN_TARGETS[@]}"
    shift
    exec "$BUILD_DIR/src/kv/duet-kv-stackless" "$@"
    ;;
  test)
    install_missing
    install_node_clients
    build
    meson test -C "$BUILD_DIR" --print-errorlogs
    ;;
  *)
    echo "usage: $0 run [server flags...] | test | deps" >&2
    exit 2
    ;;
esac
