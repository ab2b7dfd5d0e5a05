// bench/kv/session_workload.hpp — the redis-benchmark GET/SET workload, without
// sockets, for measuring duet::kv::Session's CPU cost per request.
//
// Contract
// - preload(): 100,000 keys "key:%012d" (redis-benchmark -r 100000's form) with
//   3-byte values in database 0, written straight into the store.
// - make_batches(): `pool` byte strings, each `per_batch` RESP-encoded GET or
//   SET commands (SET key xxx: -d 3) on pseudo-random keys (fixed seed), exactly
//   what redis-benchmark -P <per_batch> sends. The pool size does not depend on
//   how many batches run, so a run with 0 batches measures only the set-up.
// - Single thread; deterministic.
//
//   duet::kv::ServerState state;  bench::kv::preload(state);
//   auto batches = bench::kv::make_batches(true, 16, 1024);
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "kv/server_state.hpp"

namespace bench::kv {

inline constexpr int key_range = 100'000;
inline constexpr std::size_t batch_pool = 1024;

inline std::string key_name(std::uint64_t n) {
  char buf[32];
  int len = std::snprintf(buf, sizeof(buf), "key:%012llu", static_cast<unsigned long long>(n));
  return {buf, static_cast<std::size_t>(len)};
}

inline void preload(duet::kv::ServerState& state) {
  bool created = false;
  for (int i = 0; i < key_range; ++i) {
    std::string key = key_name(static_cast<std::uint64_t>(i));
    state.store().db(0).upsert(key, 0, created).value.set_string("xxx");
  }
}

inline std::vector<std::string> make_batches(bool get, std::size_t per_batch, std::size_t pool) {
  std::uint64_t rng = 0x2545F4914F6CDD1Dull;
  std::vector<std::string> batches(pool);
  for (auto& batch : batches) {
    for (std::size_t i = 0; i < per_batch; ++i) {
      rng = rng * 6364136223846793005ull + 1442695040888963407ull;
      std::string key = key_name((rng >> 33) % key_range);
      batch += get ? "*2\r\n$3\r\nGET\r\n$16\r\n" : "*3\r\n$3\r\nSET\r\n$16\r\n";
      batch += key;
      batch += get ? "\r\n" : "\r\n$3\r\nxxx\r\n";
    }
  }
  return batches;
}

}  // namespace bench::kv
