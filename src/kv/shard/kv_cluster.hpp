// duet::kv::KvCluster — the KV server's keyspace split over N shards
// (--threads N), each shard owning its part on its own thread: Dragonfly's
// shared-nothing design over duet's shards (docs/KV.md, "Many shards").
//
// Contract
// - KvCluster(n, config) makes n KvShards, each with a ServerState of its own
//   (store, stats, clients, pub/sub, a copy of the config) and a ShardGate.
//   Shard i owns the keys with key_shard(key, n) == i, in every database;
//   only shard i's thread touches shard i (after construction, which happens
//   before the threads start).
// - Messages between shards are LoopMessages handed to the transport the
//   server's edge installs (set_transport: ShardSet's shard(i).send; a test's
//   in-thread queue). The core does no I/O and starts no thread: it only
//   says "run this message on shard i".
// - Sessions on shard i take `KvShard&` (Session's constructor); the routing
//   (kv/shard/shard_dispatch.hpp) is written once, for both voices.
//
//   KvCluster cluster(2, config);
//   cluster.set_transport([](void* set, std::size_t i, LoopMessage& m) noexcept { ... }, &set);
//   Session session(cluster.shard(0).state(), fd, &cluster.shard(0));
//
// - redistribute_keys(done) moves every key of shard 0's store to the shard
//   that owns it: the append-only file is loaded into shard 0 as one server
//   would load it (atomic commands replayed whole), then spread. On shard 0's
//   thread, before any shard serves, with every shard's loop running: each
//   copies its keys on its own thread, and done() runs on shard 0 after.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "duet/io/loop_message.hpp"
#include "kv/aof/aof_durability.hpp"
#include "kv/server_state.hpp"
#include "kv/shard/shard_event_relay.hpp"
#include "kv/shard/shard_gate.hpp"

namespace duet::kv {

class KvCluster;
class RemoteBatch;

class KvShard {
 public:
  KvShard(KvCluster& cluster, std::size_t index, ServerConfig config);
  KvShard(const KvShard&) = delete;
  KvShard& operator=(const KvShard&) = delete;
  ~KvShard();

  [[nodiscard]] ServerState& state() noexcept { return state_; }
  [[nodiscard]] std::size_t index() const noexcept { return index_; }
  [[nodiscard]] std::size_t count() const noexcept;
  [[nodiscard]] KvCluster& cluster() const noexcept { return *cluster_; }
  [[nodiscard]] ShardGate& gate() noexcept { return gate_; }
  // Runs msg.run_ on shard `target`'s thread (any thread may send).
  void send(std::size_t target, LoopMessage& msg) const noexcept;
  // send() of a message that will come back to this thread, which calls
  // reply_came() when it has: the transport then knows this thread awaits
  // an answer (its loop spins for it before sleeping).
  void send_for_reply(std::size_t target, LoopMessage& msg) const noexcept;
  void reply_came() const noexcept;
  // The append-only file as this shard sees it (null without one): a batch
  // run here goes back once its writes are safe, and a job publishes the
  // shard's records before it logs its own (kv/aof/aof_durability.hpp).
  [[nodiscard]] AofDurability* durability() const noexcept { return durability_; }
  void set_durability(AofDurability* durability) noexcept { durability_ = durability; }
  // The pool of this shard's connections' batches (kv/shard/remote_batch.hpp).
  [[nodiscard]] RemoteBatch* take_batch() noexcept;
  void keep_batch(RemoteBatch* batch) noexcept;

 private:
  KvCluster* cluster_;
  std::size_t index_;
  ServerState state_;
  ShardGate gate_;
  ShardEventRelay events_{*this};  // keyspace events for the other shards' subscribers
  AofDurability* durability_ = nullptr;
  std::vector<RemoteBatch*> batch_pool_;
};

class KvCluster {
 public:
  using Transport = void (*)(void* context, std::size_t shard, LoopMessage& msg) noexcept;
  // Told on the calling thread when it starts (true) or stops awaiting a
  // message back (KvShard::send_for_reply / reply_came). Optional.
  using ReplyWatch = void (*)(bool awaiting) noexcept;

  KvCluster(std::size_t shards, const ServerConfig& config);
  KvCluster(const KvCluster&) = delete;
  KvCluster& operator=(const KvCluster&) = delete;
  ~KvCluster() = default;

  [[nodiscard]] std::size_t size() const noexcept { return shards_.size(); }
  [[nodiscard]] KvShard& shard(std::size_t i) noexcept { return *shards_[i]; }
  void set_transport(Transport transport, void* context) noexcept {
    transport_ = transport;
    transport_context_ = context;
  }
  void send(std::size_t shard, LoopMessage& msg) const noexcept { transport_(transport_context_, shard, msg); }
  void set_reply_watch(ReplyWatch watch) noexcept { reply_watch_ = watch; }
  void watch_reply(bool awaiting) const noexcept {
    if (reply_watch_ != nullptr) reply_watch_(awaiting);
  }
  // Bit i is set while shard i's pub/sub has a channel or pattern
  // subscription (PubSub::set_listening): keyspace events go only where
  // someone listens (kv/shard/shard_event_relay.hpp).
  [[nodiscard]] std::atomic<std::uint64_t>& listening() noexcept { return listening_; }
  void redistribute_keys(std::function<void()> done);
  void drop_moved_keys();  // shard 0's keys that other shards own: gone

 private:
  // Before shards_: subscribers leaving as the shards go still clear their bit.
  std::atomic<std::uint64_t> listening_{0};
  std::vector<std::unique_ptr<KvShard>> shards_;
  Transport transport_ = nullptr;
  void* transport_context_ = nullptr;
  ReplyWatch reply_watch_ = nullptr;
};

inline std::size_t KvShard::count() const noexcept { return cluster_->size(); }
inline void KvShard::send(std::size_t target, LoopMessage& msg) const noexcept { cluster_->send(target, msg); }
inline void KvShard::send_for_reply(std::size_t target, LoopMessage& msg) const noexcept {
  cluster_->watch_reply(true);
  cluster_->send(target, msg);
}
inline void KvShard::reply_came() const noexcept { cluster_->watch_reply(false); }

}  // namespace duet::kv
