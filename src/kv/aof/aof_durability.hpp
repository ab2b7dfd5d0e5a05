// duet::kv::AofDurability — what a driver waits on before it sends replies:
// "are the writes behind these replies in the append-only file yet?".
//
// Contract
// - must_wait(): records staged on this shard are not yet safe per the fsync
//   policy. wait(w): w.resume_ runs once (on this shard's thread) when every
//   record staged so far is; forget(w) unregisters a waiter going away first.
// - publish(): hands what this shard staged to the log now (a shard that is
//   not the log's own sends it there: kv/aof/aof_feed.hpp); a no-op on the
//   log's shard. The sharded keyspace calls it before a job over several
//   shards logs its command, so the log keeps every key's order.
// - One per shard (AofService on the log's shard, AofFeed on the others); its
//   shard's thread only.
//
//   if (d->must_wait()) d->wait(waiter);   // then send
#pragma once

#include <string_view>

#include "kv/aof/durable_waiter.hpp"

namespace duet::kv {

class AofDurability {
 public:
  [[nodiscard]] virtual bool must_wait() const noexcept = 0;
  virtual void wait(DurableWaiter& waiter) = 0;
  virtual void forget(DurableWaiter& waiter) noexcept = 0;
  virtual void publish() {}

 protected:
  AofDurability() = default;
  AofDurability(const AofDurability&) = default;
  AofDurability& operator=(const AofDurability&) = default;
  ~AofDurability() = default;
};

// The log's own shard, as the other shards' feeds see it: append_from_shard
// takes their records (on its thread), in the order they arrive.
class AofSink : public AofDurability {
 public:
  virtual void append_from_shard(int db, std::string_view records) = 0;

 protected:
  AofSink() = default;
  AofSink(const AofSink&) = default;
  AofSink& operator=(const AofSink&) = default;
  ~AofSink() = default;
};

}  // namespace duet::kv
