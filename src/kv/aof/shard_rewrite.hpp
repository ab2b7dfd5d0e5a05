// duet::kv::ShardedAof — the one append-only file of a server whose keyspace
// is split over shards (--threads N > 1).
//
// Contract
// - Made on shard 0's thread once AofService (shard 0) has opened and loaded
//   the file into shard 0's store; start(serve) spreads the loaded keys to
//   their shards (KvCluster::redistribute_keys), installs an AofFeed on every
//   other shard, routes every rewrite (BGREWRITEAOF from any shard, and the
//   automatic one) through launch_rewrite(), then calls serve(). Every
//   shard's loop must be running, and no shard may serve before serve().
// - A rewrite is a job over every shard (RewriteJob): holding every gate, each
//   shard publishes its staged records and writes its keyspace as records;
//   then, before any gate opens, shard 0 starts the rewrite with that
//   snapshot (AofRewriter::start(message, snapshot)), capturing every record
//   that arrives after it. Each shard's records before its snapshot reach
//   shard 0 before that start, and none after it can, so snapshot + capture
//   is every write once. Every shard stands still while it writes out its
//   keyspace (documented in docs/AOF.md; the one-shard rewrite is incremental).
// - launch_rewrite() from any shard's thread: false and Redis's message when
//   one is already on its way or running (until the rewriter says it ended).
// - Shutdown: every other shard calls feed(i).uninstall() on its own thread
//   (which publishes what it still holds) before shard 0's AofService shuts
//   down.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kv/aof/aof_feed.hpp"
#include "kv/aof/aof_service.hpp"
#include "kv/shard/kv_cluster.hpp"

namespace duet::kv {

class ShardedAof {
 public:
  ShardedAof(KvCluster& cluster, AofService& service);
  ShardedAof(const ShardedAof&) = delete;
  ShardedAof& operator=(const ShardedAof&) = delete;
  ~ShardedAof() = default;

  // Spreads the loaded keys, then installs the feeds, then calls serve() (on shard 0).
  void start(std::function<void()> serve);
  bool launch_rewrite(KvShard& from, std::string& message);
  // The feed of shard i (i > 0), for its thread's shutdown: feed(i).uninstall().
  [[nodiscard]] AofFeed& feed(std::size_t i) noexcept { return *feeds_[i]; }
  void begin_rewrite(std::string snapshot);  // shard 0: RewriteJob's last step

 private:
  void install();
  KvCluster& cluster_;
  AofService& service_;
  std::vector<std::unique_ptr<AofFeed>> feeds_;  // [0] is empty: shard 0 has the service
  std::atomic<bool> rewriting_{false};  // launched, until it ends on shard 0
};

}  // namespace duet::kv
