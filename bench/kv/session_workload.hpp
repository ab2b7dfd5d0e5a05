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
// - make_type_batches(): the same for redis-benchmark's type tests (lpush,
//   rpush, lpop, rpop, sadd, hset, spop, lrange_100), each command exactly as
//   redis-benchmark sends it without -r (one key; `element:__rand_int__`
//   literally); preload_types() first fills `mylist` (lrange_100 and the
//   pops need one that does not run out) and `myset`.
// - Single thread; deterministic.
//
//   duet::kv::ServerState state;  bench::kv::preload(state);
//   auto batches = bench::kv::make_batches(true, 16, 1024);
#pragma once

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <string_view>
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

inline std::string resp_command(std::initializer_list<std::string_view> args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (std::string_view a : args) {
    out += "$" + std::to_string(a.size()) + "\r\n";
    out += a;
    out += "\r\n";
  }
  return out;
}

// The RESP of one command of a redis-benchmark type test, or "" if unknown.
inline std::string type_test_command(std::string_view test) {
  if (test == "lpush") return resp_command({"LPUSH", "mylist", "xxx"});
  if (test == "rpush") return resp_command({"RPUSH", "mylist", "xxx"});
  if (test == "lpop") return resp_command({"LPOP", "mylist"});
  if (test == "rpop") return resp_command({"RPOP", "mylist"});
  if (test == "sadd") return resp_command({"SADD", "myset", "element:__rand_int__"});
  if (test == "hset") return resp_command({"HSET", "myhash", "element:__rand_int__", "xxx"});
  if (test == "spop") return resp_command({"SPOP", "myset"});
  if (test == "lrange_100") return resp_command({"LRANGE", "mylist", "0", "99"});
  return {};
}

// A list long enough for every pop a run makes, as redis-benchmark's LPUSH
// test leaves one, and a set of one member for SADD/SPOP (SPOP's test runs
// after SADD's, which leaves `element:__rand_int__` in it).
template <class Session>
void preload_types(Session& session, std::size_t list_elements) {
  std::string batch;
  for (std::size_t i = 0; i < list_elements; ++i) {
    batch += resp_command({"RPUSH", "mylist", "xxx"});
    if (batch.size() > 64 * 1024 || i + 1 == list_elements) {
      session.feed(batch);
      session.consume_output(session.output().size());
      batch.clear();
    }
  }
  session.feed(resp_command({"SADD", "myset", "element:__rand_int__"}));
  session.consume_output(session.output().size());
}

inline std::vector<std::string> make_type_batches(std::string_view test, std::size_t per_batch, std::size_t pool) {
  const std::string one = type_test_command(test);
  std::string batch;
  for (std::size_t i = 0; i < per_batch; ++i) batch += one;
  return std::vector<std::string>(pool, batch);
}

}  // namespace bench::kv
