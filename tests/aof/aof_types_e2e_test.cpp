// The types in the append-only file (issues 25 and 28): writers append to a
// list, a hash, a set, a bitmap, a sorted set and a HyperLogLog each while
// rewrites run back to back (each one
// dumping big values in batches of at most 64 elements), the server is killed
// with SIGKILL and started again at once; every acknowledged element must be
// there, in order for the list, and the big values whole.
#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "aof/aof_e2e_support.hpp"
#include "support/temp_dir.hpp"

using aofe2e::Client;
using aofe2e::exe;
using aofe2e::Server;
using duet::test::TempDir;

namespace {

constexpr int keys_per_writer = 6;

// The commands that write element i of writer `w`'s keys.
std::string writes(const std::string& w, int i) {
  const std::string n = std::to_string(i);
  return aofe2e::resp({"RPUSH", "l:" + w, n}) + aofe2e::resp({"HSET", "h:" + w, "f" + n, n}) +
         aofe2e::resp({"SADD", "s:" + w, n}) + aofe2e::resp({"SETBIT", "b:" + w, n, "1"}) +
         aofe2e::resp({"ZADD", "z:" + w, n + ".5", "m" + n}) + aofe2e::resp({"PFADD", "p:" + w, n});
}

// Writes elements 0, 1, ... until `stop`; `acked` counts those whose four
// replies all came back.
void write_elements(int port, const std::string& w, const std::atomic<bool>& stop, int& acked) {
  try {
    Client c(port);
    for (int i = 0; !stop.load(); ++i) {
      if (!c.send(writes(w, i))) return;
      for (int r = 0; r < keys_per_writer; ++r) {
        if (c.reply(5000).rfind(':', 0) != 0) return;
      }
      acked = i + 1;
    }
  } catch (const std::exception&) {
  }
}

// Element i of each of writer w's keys, pipelined; how many are missing.
std::size_t count_missing(Client& c, const std::string& w, int n) {
  std::string batch;
  for (int i = 0; i < n; ++i) {
    const std::string s = std::to_string(i);
    batch += aofe2e::resp({"LINDEX", "l:" + w, s}) + aofe2e::resp({"HGET", "h:" + w, "f" + s}) +
             aofe2e::resp({"SISMEMBER", "s:" + w, s}) + aofe2e::resp({"GETBIT", "b:" + w, s}) +
             aofe2e::resp({"ZSCORE", "z:" + w, "m" + s});
  }
  // Every acknowledged element is in the HyperLogLog when adding them all to a
  // copy of it changes no register (PFADD answers 0).
  std::string all;
  for (int i = 0; i < n; ++i) all += aofe2e::resp({"PFADD", "p:" + w + ":copy", std::to_string(i)});
  batch += aofe2e::resp({"PFMERGE", "p:" + w + ":copy", "p:" + w}) + all;
  if (!c.send(batch)) return keys_per_writer * static_cast<std::size_t>(n);
  std::size_t missing = 0;
  for (int i = 0; i < n; ++i) {
    const std::string s = std::to_string(i);
    missing += c.reply() == s ? 0 : 1;
    missing += c.reply() == s ? 0 : 1;
    missing += c.reply() == ":1" ? 0 : 1;
    missing += c.reply() == ":1" ? 0 : 1;
    missing += c.reply() == s + ".5" ? 0 : 1;
  }
  missing += c.reply() == "+OK" ? 0 : 1;
  for (int i = 0; i < n; ++i) missing += c.reply() == ":0" ? 0 : 1;
  return missing;
}

// Big values of every type, so each rewrite writes several 64-element records per key.
bool preload(Client& c) {
  std::string batch;
  for (int i = 0; i < 1000; ++i) {
    const std::string s = std::to_string(i);
    batch += aofe2e::resp({"RPUSH", "big:l", s}) + aofe2e::resp({"HSET", "big:h", "f" + s, s}) +
             aofe2e::resp({"SADD", "big:s", "m" + s}) + aofe2e::resp({"SADD", "big:i", s}) +
             aofe2e::resp({"ZADD", "big:z", s, "m" + s}) + aofe2e::resp({"PFADD", "big:p", s});
  }
  if (!c.send(batch)) return false;
  for (int i = 0; i < 6000; ++i) {
    if (c.reply().rfind(':', 0) != 0) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("every acknowledged list, hash, set, bitmap, sorted-set and HyperLogLog write survives a kill -9 during rewrites, for both executables on both backends, on one thread or two") {
  const char* voice = GENERATE("stackless", "stackful");
  const char* backend = GENERATE("io_uring", "epoll");
  const char* threads = GENERATE("1", "2");
  INFO(voice << " on " << backend << ", --threads " << threads);
  TempDir dir("duet-aof-types");
  auto server = std::make_unique<Server>(exe(voice), backend, dir.path(),
                                         std::vector<std::string>{"--appendfsync", "always", "--threads", threads});
  REQUIRE(server->running());
  const int port = server->port();
  Client admin(port);
  REQUIRE(preload(admin));
  std::atomic<bool> stop{false};
  std::vector<int> acked(3, 0);
  std::vector<std::thread> writers;
  for (std::size_t t = 0; t < acked.size(); ++t) {
    writers.emplace_back([&, t] { write_elements(port, "w" + std::to_string(t), stop, acked[t]); });
  }
  int rewrites = 0;
  for (auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(600);
       std::chrono::steady_clock::now() < until; ++rewrites) {
    REQUIRE(admin.call({"BGREWRITEAOF"}) == "+Background append only file rewriting started");
    REQUIRE(aofe2e::wait_rewrite_done(admin));
  }
  ::kill(server->pid(), SIGKILL);
  stop = true;
  for (auto& w : writers) w.join();
  server.reset();
  Server again(exe(voice), backend, dir.path(), {"--threads", threads}, port);
  INFO(again.log());
  REQUIRE(again.running());
  Client check(port);
  int total = 0;
  for (std::size_t t = 0; t < acked.size(); ++t) {
    total += acked[t];
    CHECK(count_missing(check, "w" + std::to_string(t), acked[t]) == 0);
  }
  CHECK(total > 0);
  CHECK(rewrites > 3);
  CHECK(check.call({"LLEN", "big:l"}) == ":1000");
  CHECK(check.call({"LINDEX", "big:l", "999"}) == "999");
  CHECK(check.call({"HLEN", "big:h"}) == ":1000");
  CHECK(check.call({"HGET", "big:h", "f640"}) == "640");
  CHECK(check.call({"SCARD", "big:s"}) == ":1000");
  CHECK(check.call({"SCARD", "big:i"}) == ":1000");
  CHECK(check.call({"OBJECT", "ENCODING", "big:i"}) == "hashtable");  // 1000 > set-max-intset-entries
  CHECK(check.call({"OBJECT", "ENCODING", "big:h"}) == "hashtable");  // 1000 > hash-max-listpack-entries
  CHECK(check.call({"ZCARD", "big:z"}) == ":1000");
  CHECK(check.call({"ZRANK", "big:z", "m640"}) == ":640");
  CHECK(check.call({"OBJECT", "ENCODING", "big:z"}) == "skiplist");  // 1000 > zset-max-listpack-entries
  CHECK(check.call({"PFCOUNT", "big:p"}) == ":1001");  // Redis's estimate for "0".."999"
}
