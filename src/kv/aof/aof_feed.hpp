// duet::kv::AofFeed — a shard's writes on their way to the one append-only
// file, which lives on another shard (the sink: AofService on shard 0).
//
// Contract
// - install() makes it shard's write observer, its stores' expiry hook and
//   its AofDurability; uninstall() undoes that. Records of write commands and
//   expiries are translated here (translate_write, as AofService does) and
//   staged, with their database.
// - publish() sends what is staged to the sink's shard as one message; there
//   the sink appends it (in arrival order, which keeps this shard's order)
//   and, once it is safe per the fsync policy, the message comes back and
//   releases this shard's waiters up to it. wait() publishes first, so the
//   first connection that waits in a turn carries everyone's records (group
//   commit across shards, one message per turn and shard).
// - request_rewrite() goes to the launcher (kv/aof/shard_rewrite.hpp); info()
//   adds nothing (INFO shows the sink shard's persistence section).
// - The feed must outlive the messages it sent (the ShardSet drains them
//   before the feeds go). Its shard's thread only; the sink's part runs on the
//   sink's thread.
//
//   AofFeed feed(cluster.shard(1), 0, service, launcher);
//   feed.install();
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kv/aof/aof_buffer.hpp"
#include "kv/aof/aof_durability.hpp"
#include "kv/aof/write_observer.hpp"
#include "kv/shard/kv_cluster.hpp"
#include "kv/store.hpp"

namespace duet::kv {

class AofFeed final : public WriteObserver, public AofDurability {
 public:
  using Launcher = std::function<bool(std::string& message)>;
  AofFeed(KvShard& shard, std::size_t sink_shard, AofSink& sink, Launcher launch);
  AofFeed(const AofFeed&) = delete;
  AofFeed& operator=(const AofFeed&) = delete;
  ~AofFeed() = default;

  void install();
  void uninstall();

  void before_write(const Command&, CommandContext&) override {}
  void after_write(const Command& cmd, CommandContext& ctx, std::string_view reply) override;
  void log_block(const LoggedBlock& block) override;
  void on_expired(int db, const Entry& entry) override;
  bool request_rewrite(std::string& message) override { return launch_(message); }
  void info(std::string& /*out*/) const override {}

  [[nodiscard]] bool must_wait() const noexcept override { return appended_ > durable_; }
  void wait(DurableWaiter& waiter) override;
  void forget(DurableWaiter& waiter) noexcept override;
  void publish() override;

 private:
  struct Run {
    int db;
    std::string records;
  };
  struct Chunk;
  struct DbHook {
    AofFeed* self;
    int db;
  };
  void stage(int db, std::string_view records);
  void acked(std::uint64_t upto) noexcept;

  KvShard& shard_;
  std::size_t sink_shard_;
  AofSink& sink_;
  Launcher launch_;
  std::vector<Run> runs_;  // staged, not yet published
  AofBuffer staged_;
  std::uint64_t appended_ = 0;  // bytes staged so far
  std::uint64_t durable_ = 0;   // bytes the sink has made safe
  DurableWaiter* waiters_ = nullptr;
  std::array<DbHook, Store::db_count> hooks_{};
};

}  // namespace duet::kv
