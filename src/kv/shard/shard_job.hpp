// duet::kv::ShardJob — one command over several shards, atomic across them:
// MSET, MGET, DEL over keys of two shards, a cross-shard RENAME, DBSIZE ...
//
// Contract
// - A job has parts, one per shard it touches, kept in ascending shard order.
//   start() (on the connection's shard) takes the parts' gates one at a time
//   in that order (shared when the job only reads: share_gates()) (ShardGate: ordered locking, so no deadlock, and two jobs
//   that share shards apply in one order on all of them); as each gate is
//   taken, run_part() runs there. Every gate is held until every part has
//   run (the last part's is released at once when there is no second phase),
//   so no other command sees some parts done and others not.
// - Two-phase jobs (MSETNX, RENAME across shards): after every part ran,
//   decide() (on the origin, all gates still held) says whether to go on;
//   then apply_part() runs on each part's shard just before its release.
// - finish(reply) writes the command's one reply, on the origin; the job
//   hands it to its connection (ShardDispatch::on_job) unless orphan() was
//   called (the connection went away: the job still completes, so gates are
//   always released).
// - One instant: start() reads the origin's clock once, and every part, in
//   both phases, and the logged command run at that `now()`, as one command
//   of Redis's one thread does. A second reading at the apply could find a key
//   the check saw alive expired there, and that lazy expiry's DEL would be
//   logged on its shard after the job's record: the replay would then undo
//   what the client was told. At one instant apply_part touches only keys its
//   run_part looked up, so every lazy-expiry record comes before the job's.
// - The append-only file: parts never log (run_argv runs without the write
//   observer); a write job logs its command once, whole (log_as), on the
//   origin while it still holds every gate, after each part's shard published
//   its own records. So the one log has every key's writes in their order and
//   replays the job atomically.
// - Inside a transaction (kv/shard/tx_job.hpp): start_within(parent) runs a
//   job whose parent already holds every gate it needs, alone: the parts run
//   without touching a gate, at the parent's instant, the log record goes
//   into the parent's block, and the reply to the parent (child_done).
// - hold(): a job that still has work once every gate is held (a
//   transaction's commands, one at a time) says true and calls complete()
//   when done; the default says false and the job completes at once.
// - A job owns itself from start() on and frees itself, on the origin's
//   thread, once its last message has run. Thread rules: start/orphan/decide/finish on the origin shard's
//   thread, run_part/apply_part on the part's shard's thread.
//
//   auto job = std::make_unique<SplitJob>(origin, db, ...);
//   job->part(1).argv = {"mget", "b"};
//   job.release()->start(&dispatch);
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "duet/io/loop_message.hpp"
#include "kv/aof/write_observer.hpp"
#include "kv/detail/args.hpp"
#include "kv/shard/shard_gate.hpp"

namespace duet::kv {

struct Command;
class KvShard;
class ShardDispatch;

class ShardJob {
 public:
  struct Part final : LoopMessage, GateWaiter {
    enum class Op : unsigned char { take, apply, release };
    ShardJob* job = nullptr;
    std::size_t shard = 0;
    Args argv;  // the part's own command, when it runs one
    std::string reply;              // what run_part wrote
    Op op = Op::take;
    bool released = false;
  };

  ShardJob(KvShard& origin, int db) noexcept : origin_(&origin), db_(db) {}
  ShardJob(const ShardJob&) = delete;
  ShardJob& operator=(const ShardJob&) = delete;
  virtual ~ShardJob() = default;

  // The part on `shard` (made on first use).
  Part& part(std::size_t shard);
  [[nodiscard]] std::size_t part_count() const noexcept { return parts_.size(); }
  void start(ShardDispatch* connection);
  // A job whose gates `parent` holds (header): the reply goes to parent.child_done().
  void start_within(ShardJob& parent);
  // The shards of its parts (after the parts were made).
  [[nodiscard]] std::vector<std::size_t> shards() const;
  // A write command: what the log gets once the job is done.
  void log_as(const Command& cmd, std::span<const std::string_view> argv);
  void orphan() noexcept { connection_ = nullptr; }
  // The connection's protocol: finish() writes the reply in it (the parts'
  // replies, which only the job reads, stay RESP2). Before start().
  void set_resp(int resp) noexcept { resp_ = resp; }
  // A job that only reads shares its gates with other readers (ShardGate):
  // before start().
  void share_gates() noexcept { shares_ = true; }
  [[nodiscard]] bool shares_gates() const noexcept { return shares_; }

 protected:
  virtual void run_part(KvShard& shard, Part& part) = 0;
  [[nodiscard]] virtual bool two_phase() const noexcept { return false; }
  [[nodiscard]] virtual bool decide() { return false; }
  virtual void apply_part(KvShard& /*shard*/, Part& /*part*/) {}
  virtual void finish(std::string& reply) = 0;
  // Every gate is held (header): true when the job goes on by itself and calls complete().
  [[nodiscard]] virtual bool hold() { return false; }
  // A job started with start_within(*this) has finished: its reply.
  virtual void child_done(ShardJob& /*child*/, std::string /*reply*/) {}
  // The rest of the job once hold() is done: decide, finish, log, release.
  void complete();
  // Where a job started within this one logs its record (null: the observer).
  [[nodiscard]] virtual LoggedBlock* block() noexcept { return nullptr; }

  // Runs argv as a command on `shard` (as the connection, in its database),
  // appending the reply to `out`.
  // `silent`: a probe of the job's own, not the client's command (no keyspace events).
  void run_argv(KvShard& shard, const Args& argv, std::string& out, int resp = 2, bool silent = false) const;
  [[nodiscard]] std::span<const std::unique_ptr<Part>> parts() const noexcept { return parts_; }
  [[nodiscard]] int db() const noexcept { return db_; }
  [[nodiscard]] int resp() const noexcept { return resp_; }
  [[nodiscard]] KvShard& origin() const noexcept { return *origin_; }
  // The connection that waits for the reply (null once orphaned, or inside a transaction).
  [[nodiscard]] ShardDispatch* connection() const noexcept { return connection_; }
  // The job's one clock reading (start()): what every part runs at.
  [[nodiscard]] std::int64_t now() const noexcept { return now_; }
  // Started within a transaction (start_within): its command must not block.
  [[nodiscard]] bool in_transaction() const noexcept { return parent_ != nullptr; }

 private:
  struct Back final : LoopMessage {
    ShardJob* job = nullptr;
  };

  void take_next();
  void taken(Part& p);
  void finish_all();
  void end_part(Part& p, bool apply);
  void drop_ref(bool on_origin) noexcept;
  void log_command(std::string_view reply);
  static void at_part(LoopMessage* msg) noexcept;
  static void on_resume(GateWaiter* w) noexcept;
  static void at_origin(LoopMessage* msg) noexcept;
  static void delete_at_origin(LoopMessage* msg) noexcept;

  KvShard* origin_;
  int db_;
  int resp_ = 2;
  std::int64_t now_ = 0;
  ShardDispatch* connection_ = nullptr;
  ShardJob* parent_ = nullptr;  // start_within: the gates are the parent's
  std::vector<std::unique_ptr<Part>> parts_;
  std::size_t next_ = 0;
  bool shares_ = false;
  Back back_;
  const Command* logged_ = nullptr;
  std::vector<std::string> logged_argv_;
  // The origin's reference plus one per apply/release message in flight;
  // those run on other threads, hence atomic.
  std::atomic<int> refs_{1};
};

}  // namespace duet::kv
