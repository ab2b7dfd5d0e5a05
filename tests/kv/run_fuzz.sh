#!/usr/bin/env bash
# Builds the KV parser+session libFuzzer target with clang and runs it for a
# bounded time. Usage: tests/kv/run_fuzz.sh [seconds=60] [build-dir=build-kv-fuzz]
# Exit status is libFuzzer's: non-zero when it found a crash (the reproducer is
# left in the build dir as crash-*), zero otherwise.
set -euo pipefail
seconds="${1:-60}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${2:-$root/build-kv-fuzz}"
mkdir -p "$out/corpus"
cxx="${CXX_FUZZ:-clang++}"
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I "$root/src")
# The core's sources, as src/kv/meson.build lists them in kv_core_sources
# (its first list and the type modules' blocks added to it, one line or many).
core=()
while read -r f; do core+=("$root/src/kv/$f"); done < <(
  awk '/^kv_core_sources \+?= files\(/ { take = 1 } take { print } take && /\)/ { take = 0 }' "$root/src/kv/meson.build" |
    grep -o "'[^']*\.cpp'" | tr -d "'")
core+=("$root/tests/kv/fuzz_session.cpp")
echo "building $out/kv_fuzz with $cxx"
# shellcheck disable=SC2046
"$cxx" "${flags[@]}" "${core[@]}" -o "$out/kv_fuzz" $(pkg-config --cflags --libs absl_flat_hash_map absl_hash)
# A few seeds: multibulk, inline with quotes, pipelined writes, expiry.
printf '\x03*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n' > "$out/corpus/seed1"
printf '\x05set "a\\x41b" '"'"'c d'"'"'\r\nGETRANGE a 0 -1\nINCRBYFLOAT f 1.5\n' > "$out/corpus/seed2"
printf '\x01SET k v PX 100\nKEYS *?*\nSCAN 0 MATCH k* COUNT 5\nEXPIRE k 10 GT\nRENAME k j\n' > "$out/corpus/seed3"
printf '\x07*0\r\n*-1\r\n\r\nCLIENT SETNAME x\r\nCONFIG GET *\r\nINFO\r\nQUIT\r\n' > "$out/corpus/seed4"
# The types (issue 25), in RESP3 too.
printf '\x02HELLO 3\nRPUSH l a b c\nLRANGE l 0 -1\nLPOS l b RANK -1\nLMOVE l m LEFT RIGHT\nLTRIM l 1 0\n' > "$out/corpus/seed5"
printf '\x04HSET h f v g 1\nHINCRBYFLOAT h g 1.5\nHRANDFIELD h -5 WITHVALUES\nHSCAN h 0\nHGETALL h\n' > "$out/corpus/seed6"
printf '\x06SADD s 1 2 x\nSINTERCARD 2 s t LIMIT 1\nSPOP s 2\nSRANDMEMBER s -3\nSDIFFSTORE d s t\n' > "$out/corpus/seed7"
printf '\x03SETBIT b 7 1\nBITCOUNT b 0 -1 BIT\nBITFIELD b INCRBY i5 100 1 GET u4 0\nBITOP NOT c b\nLCS b c IDX\n' > "$out/corpus/seed8"
printf '\x05ZADD z GT CH 1 a 2 b\nZRANGE z (1 +inf BYSCORE REV LIMIT 0 1 WITHSCORES\nZRANGESTORE d z [a + BYLEX\nZREMRANGEBYRANK z 0 -1\n' > "$out/corpus/seed9"
printf '\x02HELLO 3\nZADD z 1 a 2 b\nZUNIONSTORE d 2 z s WEIGHTS 2 -1 AGGREGATE MAX\nZINTER 1 d WITHSCORES\nBZMPOP 0 2 z d MIN COUNT 2\nZSCAN d 0\n' > "$out/corpus/seed10"
printf '\x01PFADD h a b c\nPFCOUNT h g\nPFMERGE m h\nGET m\nSORT l BY w_* GET # GET h_*->f LIMIT 0 2 ALPHA DESC STORE o\n' > "$out/corpus/seed11"
cd "$out"
exec ./kv_fuzz -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 corpus
