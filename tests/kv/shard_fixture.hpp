// A sharded keyspace in one thread, for the tests of kv/shard: every shard's
// messages wait in a queue of their own and run when the test pumps them, in
// an order a seeded generator picks, so a test can try many interleavings of
// "threads" and repeat any one of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "kv/session.hpp"
#include "kv/shard/key_shard.hpp"
#include "kv/shard/kv_cluster.hpp"

namespace kvtest {

struct FakeShards {
  std::int64_t now = 1'700'000'000'000;
  duet::kv::KvCluster cluster;
  std::vector<std::deque<duet::LoopMessage*>> queues;
  std::mt19937_64 rng;

  explicit FakeShards(std::size_t n, std::uint64_t seed = 1) : cluster(n, {}), queues(n), rng(seed) {
    cluster.set_transport(&post, this);
    for (std::size_t i = 0; i < n; ++i) cluster.shard(i).state().set_clock([this] { return now; });
  }
  FakeShards(const FakeShards&) = delete;
  FakeShards& operator=(const FakeShards&) = delete;
  ~FakeShards() { pump(); }  // jobs and batches in flight free themselves

  static void post(void* self, std::size_t shard, duet::LoopMessage& msg) noexcept {
    static_cast<FakeShards*>(self)->queues[shard].push_back(&msg);
  }
  // Runs one message of a shard picked at random; false when none is queued.
  bool step() {
    std::vector<std::size_t> ready;
    for (std::size_t i = 0; i < queues.size(); ++i) {
      if (!queues[i].empty()) ready.push_back(i);
    }
    if (ready.empty()) return false;
    return step(ready[rng() % ready.size()]);
  }
  // Runs the next message of `shard` (a test's chosen interleaving); false when none is queued.
  bool step(std::size_t shard) {
    if (queues[shard].empty()) return false;
    duet::LoopMessage* msg = queues[shard].front();
    queues[shard].pop_front();
    msg->run_(msg);
    return true;
  }
  void pump() {
    while (step()) {
    }
  }
  // A key named prefix + a number that lives on `shard`.
  std::string key_on(std::size_t shard, std::string_view prefix = "k") const {
    for (int i = 0;; ++i) {
      std::string key = std::string(prefix) + std::to_string(i);
      if (duet::kv::key_shard(key, cluster.size()) == shard) return key;
    }
  }
};

// One connection on one shard, driven as the drivers drive it: send what
// is out, process when it cannot take input and is not waiting.
struct ShardClient {
  duet::kv::Session session;
  std::string received;
  bool woken = false;

  ShardClient(FakeShards& shards, std::size_t shard)
      : session(shards.cluster.shard(shard).state(), -1, &shards.cluster.shard(shard)) {
    session.set_shard_waker([](void* self) noexcept { static_cast<ShardClient*>(self)->woken = true; }, this);
  }
  void send(std::string_view bytes) {
    session.feed(bytes);
    drain();
  }
  // True if it moved (sent bytes or ran commands).
  bool drain() {
    bool moved = false;
    for (;;) {
      std::string_view out = session.output();
      if (!out.empty()) {
        received.append(out);
        session.consume_output(out.size());
        moved = true;
        continue;
      }
      if (session.wants_input() || session.waiting_on_shards() || session.closing()) return moved;
      session.process();
      moved = true;
    }
  }
  // Takes everything received so far.
  std::string take() { return std::exchange(received, {}); }
};

// Pumps messages and drives clients until nothing moves.
inline void settle(FakeShards& shards, std::vector<ShardClient*> clients) {
  for (;;) {
    bool moved = shards.step();
    for (ShardClient* c : clients) moved = c->drain() || moved;
    if (!moved) return;
  }
}

// Sends `bytes` on `client`, settles, and returns what came back.
inline std::string settled_reply(FakeShards& shards, ShardClient& client, const std::string& bytes) {
  client.send(bytes);
  settle(shards, {&client});
  return client.take();
}

}  // namespace kvtest
