// duet::kv::AofService — the append-only file of one server: load at start,
// log every write, group commit, fsync policy, rewrite (manual and automatic).
//
// Contract
// - open(): loads <dir>/<appendfilename> into the state (a truncated tail is cut
//   and logged as a warning; a corrupt file throws std::runtime_error naming the
//   byte offset), opens it for appending, and installs itself as the state's
//   WriteObserver and as every database's expire hook. Call once, on the loop
//   thread, before accepting connections.
// - Drivers: before sending replies, `must_wait()` → `wait(waiter)` (see
//   aof_wait_task.hpp / aof_wait_fiber.hpp), so a reply leaves only once the
//   writes before it are written (everysec, no) or on disk (always).
// - tick(): from the server's timer: everysec fsync, leftover writes, automatic
//   rewrite when the file grew past auto-aof-rewrite-percentage over its size
//   after the last rewrite (or load) and is at least auto-aof-rewrite-min-size.
// - shutdown(): completes in-flight work and fsyncs; the loop must be alive.
//   The service must outlive every session of the state. Loop thread only.
//
//   AofService aof(state, loop, log);
//   aof.open();
//   ... every 100 ms: aof.tick(); at exit: aof.shutdown();
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "duet/io/event_loop.hpp"
#include "kv/aof/aof_buffer.hpp"
#include "kv/aof/aof_durability.hpp"
#include "kv/aof/aof_loader.hpp"
#include "kv/aof/aof_rewriter.hpp"
#include "kv/aof/aof_worker.hpp"
#include "kv/aof/aof_writer.hpp"
#include "kv/aof/write_observer.hpp"
#include "kv/server_state.hpp"

namespace duet::kv {

class AofService final : public WriteObserver, public AofSink {
 public:
  using Log = AofRewriter::Log;

  AofService(ServerState& state, EventLoop& loop, Log log);
  AofService(const AofService&) = delete;
  AofService& operator=(const AofService&) = delete;
  AofService(AofService&&) = delete;
  AofService& operator=(AofService&&) = delete;
  ~AofService();

  AofLoadResult open();
  [[nodiscard]] bool must_wait() const noexcept override { return writer_ && writer_->must_wait(); }
  void wait(DurableWaiter& waiter) override { writer_->wait(waiter); }
  void forget(DurableWaiter& waiter) noexcept override { writer_->forget(waiter); }
  // Many shards (kv/aof/aof_feed.hpp): another shard's records, in its order.
  void append_from_shard(int db, std::string_view records) override { log_records(db, records); }
  // Many shards: BGREWRITEAOF and the automatic rewrite go through `launch`
  // (a job that snapshots every shard, kv/aof/shard_rewrite.hpp), which ends
  // in start_rewrite_from() here with the snapshot of every shard at one point.
  using Launcher = std::function<bool(std::string& message)>;
  void set_rewrite_launcher(Launcher launch) { launcher_ = std::move(launch); }
  bool start_rewrite_from(std::string snapshot, std::string& message);
  void set_rewrite_ended(std::function<void()> ended) { rewriter_->set_on_end(std::move(ended)); }
  void log_warning(const std::string& line) const { log_(true, line); }
  void tick();
  void shutdown();

  [[nodiscard]] const AofWriter& writer() const noexcept { return *writer_; }
  [[nodiscard]] const AofRewriter& rewriter() const noexcept { return *rewriter_; }
  [[nodiscard]] const AofWorker& worker() const noexcept { return worker_; }
  [[nodiscard]] std::string path() const;

  void before_write(const Command& cmd, CommandContext& ctx) override;
  void after_write(const Command& cmd, CommandContext& ctx, std::string_view reply) override;
  void log_block(const LoggedBlock& block) override;
  void on_expired(int db, const Entry& entry) override;
  bool request_rewrite(std::string& message) override;
  void info(std::string& out) const override;

 private:
  struct DbHook {
    AofService* self;
    int db;
  };
  static void expired_thunk(void* context, const Entry& entry);
  void log_records(int db, std::string_view staged);
  void maybe_auto_rewrite();

  ServerState& state_;
  EventLoop& loop_;
  Log log_;
  AofWorker worker_;
  std::unique_ptr<AofWriter> writer_;
  std::unique_ptr<AofRewriter> rewriter_;
  AofBuffer staged_;
  std::array<DbHook, Store::db_count> hooks_{};
  std::uint64_t base_size_ = 0;  // file size after the last load or rewrite
  std::uint64_t rewrites_seen_ = 0;
  bool stopped_ = false;
  Launcher launcher_;
};

}  // namespace duet::kv
