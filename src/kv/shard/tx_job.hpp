// duet::kv::TxJob, duet::kv::WatchJob — MULTI/EXEC and WATCH when the keys
// live on several shards (--threads N): a transaction as atomic as Redis's
// one thread, through the gates the multi-key commands already take.
//
// Contract
// - plan_exec(origin, client, gate_open) on EXEC: nullptr when the whole
//   transaction runs on the origin (every key named by its commands and its
//   watches lives there, and `gate_open`: the origin's gate lets a write run
//   now) — the EXEC handler then runs it (kv/multi/transaction.hpp); else a
//   TxJob (not started). The client's queue and watches move into the job.
// - A TxJob takes, alone and in ascending order, the gate of every shard the
//   transaction touches (its commands' keys, its watched keys, every shard
//   for a whole-keyspace command), checks on each whether a watched key
//   expired since WATCH, and once all are held checks the watch ticket: a
//   change answers a null array. Else it runs the commands one at a time,
//   in order: a command on the origin's keys (or of the connection itself:
//   SELECT, PING ...) right there, a command on one other shard's keys as a
//   message to that shard, a command over several shards as its usual job
//   started within this one (ShardJob::start_within: no gate of its own).
//   No other command runs on those shards until the last reply is in, and
//   two transactions over shared shards meet first on the lowest one, so
//   they apply in one order everywhere (ShardGate).
// - The log: each command's records are translated where it ran into the
//   transaction's one block, logged on the origin as MULTI ... EXEC while
//   every gate is still held (LoggedBlock).
// - Commands of the connection itself (SELECT, CLIENT SETNAME, SUBSCRIBE ...)
//   run on the origin as the connection (it waits for the reply meanwhile);
//   a command on another shard runs there as a stand-in with its db.
// - When every command is on the keys of one other shard, that part runs them
//   all once it holds the gate: one round trip, as a batch.
// - plan_watch(origin, client, argv) on WATCH: nullptr when the handler can
//   do it (every key on the origin, or it answers without watching); else a
//   WatchJob that registers each key with the client's ticket on its shard.
// - Thread rules as ShardJob's.
//
//   std::unique_ptr<ShardJob> job = plan_exec(shard, client, dispatch.runs_here(false));
//   if (job) job.release()->start(&dispatch);  // else the handler runs EXEC here
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kv/client_registry.hpp"
#include "kv/multi/multi_state.hpp"
#include "kv/shard/shard_job.hpp"

namespace duet::kv {

class TxJob final : public ShardJob {
 public:
  // whole_there: every command is on the one part's shard's keys (a remote
  // shard): the part runs them all as soon as it holds the gate, no hop per command.
  TxJob(KvShard& origin, const ClientInfo& client, std::vector<QueuedCommand> queued, WatchTicket* ticket,
        std::vector<WatchedKey> watched, const std::vector<std::size_t>& shards, bool whole_there);
  TxJob(const TxJob&) = delete;
  TxJob& operator=(const TxJob&) = delete;
  ~TxJob() override;

 private:
  struct Hop final : LoopMessage {
    TxJob* job = nullptr;
    std::size_t shard = 0;
    std::size_t index = 0;
    int db = 0;  // the connection's, as the commands before left it
  };

  void run_part(KvShard& shard, Part& part) override;
  // Every gate stays held until the last command ran (none opens early,
  // as a read-only job's last one does); nothing to apply afterwards.
  bool two_phase() const noexcept override { return true; }
  bool hold() override;
  void finish(std::string& reply) override;
  void child_done(ShardJob& child, std::string reply) override;
  LoggedBlock* block() noexcept override { return &block_; }

  void step();
  void run_one(KvShard& shard, std::size_t index, ClientInfo& client);
  // A stand-in for the connection on another shard's thread (its id, db, protocol).
  [[nodiscard]] ClientInfo stand_in(int db) const;
  // The connection's own state while it waits (SELECT, SUBSCRIBE ... change it
  // there), or, once it went away, the copy.
  [[nodiscard]] ClientInfo& live_client() noexcept;
  [[nodiscard]] bool watch_changed(KvShard& shard, std::size_t part_shard);
  void release_watches();
  static void at_hop(LoopMessage* msg) noexcept;
  static void hop_back(LoopMessage* msg) noexcept;

  std::vector<QueuedCommand> queued_;
  std::size_t next_command_ = 0;
  ClientInfo client_;  // a copy of the connection's state at EXEC (its id, db, protocol)
  WatchTicket* ticket_;
  std::vector<WatchedKey> watched_;
  bool whole_there_;
  std::vector<std::size_t> watched_shard_;
  bool watch_changed_ = false;  // run_part found a watched key expired
  bool aborted_ = false;
  bool stepping_ = false;
  bool child_finished_ = false;
  std::string replies_;
  LoggedBlock block_;
  std::vector<std::string_view> views_;
  Hop hop_;
};

class WatchJob final : public ShardJob {
 public:
  struct Key {
    std::string name;
    std::size_t shard;
  };
  WatchJob(KvShard& origin, int db, WatchTicket& ticket, std::vector<Key> keys);
  WatchJob(const WatchJob&) = delete;
  WatchJob& operator=(const WatchJob&) = delete;
  ~WatchJob() override { ticket_->unref(); }

 private:
  void run_part(KvShard& shard, Part& part) override;
  void finish(std::string& reply) override;

  WatchTicket* ticket_;
  std::vector<Key> keys_;
};

[[nodiscard]] std::unique_ptr<ShardJob> plan_exec(KvShard& origin, ClientInfo& client, bool gate_open);
[[nodiscard]] std::unique_ptr<ShardJob> plan_watch(KvShard& origin, ClientInfo& client,
                                                   std::span<const std::string_view> argv);

}  // namespace duet::kv
