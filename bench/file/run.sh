#!/bin/sh
# bench/file/run.sh — file_randread beside fio's io_uring engine on the same
# file in the same run: random 4 KiB reads at queue depth 32, from the page
# cache and with O_DIRECT, interleaved (duet rows and fio in each repetition)
# so that machine noise hits both alike, in an order that rotates with each
# repetition. Prints one JSON line per run.
#
#   bench/file/run.sh [BUILD_DIR] [FILE] [SIZE_MIB] [SECONDS] [REPS]
#   defaults: build-release /tmp/duet-randread.dat 1024 5 3
#
# The file is created (random bytes) if missing and deleted at the end when
# this script created it. The page-cache rows read it once first so every
# block is cached, and run fio with --invalidate=0 (fio drops the file's
# cache before a job by default, which would make its "buffered" row a disk
# benchmark).
set -eu
build=${1:-build-release}
file=${2:-/tmp/duet-randread.dat}
size_mib=${3:-1024}
seconds=${4:-5}
reps=${5:-3}
bin="$build/bench/file/file_randread"
[ -x "$bin" ] || { echo "no $bin: meson setup $build --buildtype=release -Dbenchmarks=true" >&2; exit 2; }
command -v fio > /dev/null || { echo "fio is not installed (./dev.sh installs it)" >&2; exit 2; }
created=no
if [ ! -e "$file" ]; then
  dd if=/dev/urandom of="$file" bs=1M count="$size_mib" status=none
  created=yes
fi
trap '[ "$created" = yes ] && rm -f "$file"' EXIT

fio_iops() {  # $1: 0 or 1 (O_DIRECT)
  fio --name=randread --filename="$file" --ioengine=io_uring --iodepth=32 --rw=randread --bs=4k \
    --direct="$1" --invalidate=0 --time_based --runtime="$seconds" --output-format=json |
    python3 -c 'import json, sys; print("%.0f" % json.load(sys.stdin)["jobs"][0]["read"]["iops"])'
}

for rep in $(seq "$reps"); do
  for direct in 0 1; do
    flag=""
    [ "$direct" = 1 ] && flag="--direct"
    [ "$direct" = 0 ] && cat "$file" > /dev/null  # every block in the page cache
    # Each repetition starts one row later: a row's place in the sequence
    # (the disk's state after the rows before it) must not favour one of them.
    set -- stackless:io_uring stackless:epoll stackful:io_uring stackful:epoll fio
    i=1
    while [ "$i" -lt "$rep" ]; do first=$1; shift; set -- "$@" "$first"; i=$((i + 1)); done
    for row in "$@"; do
      if [ "$row" = fio ]; then
        echo "{\"bench\": \"fio\", \"engine\": \"io_uring\", \"direct\": $([ "$direct" = 1 ] && echo true || echo false), \"depth\": 32, \"rep\": $rep, \"iops\": $(fio_iops "$direct")}"
      else
        "$bin" --file "$file" --depth 32 --seconds "$seconds" --voice "${row%%:*}" --backend "${row#*:}" $flag
      fi
    done
  done
done
