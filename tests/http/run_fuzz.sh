#!/usr/bin/env bash
# Builds the HTTP request parser's libFuzzer target with clang and runs it for
# a bounded time. Usage: tests/http/run_fuzz.sh [seconds=60] [build-dir=build-http-fuzz]
# Exit status is libFuzzer's: non-zero when it found a crash (the reproducer is
# left in the build dir as crash-*), zero otherwise.
set -euo pipefail
seconds="${1:-60}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${2:-$root/build-http-fuzz}"
mkdir -p "$out/corpus"
cxx="${CXX_FUZZ:-clang++}"
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I "$root/src")
# The parser's sources, as src/duet/http/meson.build lists them (no I/O, no
# other part of the library).
core=()
for f in http_error.cpp request_head.cpp request_parser.cpp detail/field_section.cpp detail/request_rules.cpp \
         detail/message_framing.cpp detail/body_decoder.cpp; do
  core+=("$root/src/duet/http/$f")
done
core+=("$root/tests/http/fuzz_http_parser.cpp")
echo "building $out/http_fuzz with $cxx"
"$cxx" "${flags[@]}" "${core[@]}" -o "$out/http_fuzz"
# Seeds (the first byte picks the piece size; >= 0x80 the small limits):
# pipelined GETs, a Content-Length body, chunked with extensions and trailers,
# absolute-form with Expect, a smuggling attempt.
printf '\x03GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /b?c HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n' > "$out/corpus/seed1"
printf '\x05POST /p HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello' > "$out/corpus/seed2"
printf '\x87POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;a="b"\r\nhello\r\n0\r\nX-T: 1\r\n\r\n' > "$out/corpus/seed3"
printf '\x01PUT http://h/x HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi\r\nOPTIONS * HTTP/1.0\r\n\r\n' > "$out/corpus/seed4"
printf '\x02POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n' > "$out/corpus/seed5"
cd "$out"
exec ./http_fuzz -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 corpus
