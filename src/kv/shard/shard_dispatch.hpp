// duet::kv::ShardDispatch — one connection's side of the sharded keyspace:
// which shard each command runs on, and its replies back in request order.
//
// Contract
// - A Session on a shard of a KvCluster with more than one shard owns one
//   (with one shard, or none, there is no dispatch and no cost). Session calls:
//   must_stall(cmd, argv) before each parsed command: true means "not now", and the
//   session stops running commands until a wake-up; takes(cmd, argv) after
//   the session's checks: true means the command went to another shard (or
//   became a job over several), false that the session runs it here; sink(out)
//   is where a reply made here goes.
// - Order: a connection's commands on keys of its own shard run at once
//   (unless the gate holds them up, below);
//   commands on keys of another shard go there in one batch per shard and
//   run in order there; replies leave in request order. Any other command (a
//   job over several shards, SELECT, CLIENT, PING ...) waits until everything
//   before it is done, and everything after it waits for it, so a connection
//   always reads its own writes; only a command that only reads (MGET, EXISTS
//   ...) may start beside this connection's jobs that only read. Commands on
//   different shards within one pipeline may apply in parallel (docs/KV.md,
//   "Many shards").
// - A command on this shard's keys runs here while the shard's gate lets it
//   (a read: while no job holds the gate alone; a write: while none holds it
//   at all: ShardGate); else it goes as a batch to this shard itself, which
//   the gate runs in its turn, like another connection's, so it cannot
//   starve behind jobs that only read. A job takes its gates itself, and a
//   command that touches no key (PING, SELECT ...) needs no gate.
// - waiting(): nothing can move until a batch or a job reports;
//   the waker (set_waker) then runs — it must only note it (set an Event).
//   busy(): replies or commands are still held here (the session reads no
//   more input meanwhile). Session calls begin_run(out) before a run of
//   commands (it moves complete replies to out: never while a send reads
//   out) and end_run() after it (sends the run's batches).
// - At most max_remote_in_flight commands wait on other shards at once, and
//   held_bytes() counts against the output limit (Session::run_commands).
// - The destructor orphans what is in flight: batches and jobs still run to
//   their end (their writes stand) and free themselves.
// - One thread: the connection's shard's.
//
//   dispatch.begin_run(out);
//   for (each parsed argv) { if (dispatch.must_stall(cmd, argv)) break;
//                            if (!dispatch.takes(cmd, argv)) run_here(Reply(dispatch.sink(out))); }
//   dispatch.end_run();
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kv/client_registry.hpp"
#include "kv/detail/args.hpp"

namespace duet::kv {

struct Command;
class KvShard;
class RemoteBatch;
class MultiBlock;
class RemoteBlock;
class ShardJob;

class ShardDispatch {
 public:
  using Waker = void (*)(void* context) noexcept;

  ShardDispatch(KvShard& shard, ClientInfo& client);
  ShardDispatch(const ShardDispatch&) = delete;
  ShardDispatch& operator=(const ShardDispatch&) = delete;
  ~ShardDispatch();

  // `cmd`: find_command(argv[0]) as the session already looked it up (null: unknown).
  [[nodiscard]] bool must_stall(const Command* cmd, std::span<const std::string_view> argv);
  [[nodiscard]] bool takes(const Command& cmd, std::span<const std::string_view> argv);
  [[nodiscard]] std::string& sink(std::string& out);
  // Around each run of commands: begin_run collects what is complete,
  // end_run sends this run's batches.
  void begin_run(std::string& out);
  void end_run() noexcept;

  [[nodiscard]] bool waiting() const noexcept { return !holes_.empty() && !holes_.front().ready; }
  [[nodiscard]] bool outstanding() const noexcept {
    return pending_ != 0;
  }
  [[nodiscard]] bool busy() const noexcept { return !holes_.empty() || stalled_; }
  // Reply bytes made here and waiting behind replies due from elsewhere, and
  // those expected of the commands still on other shards (each sized as this
  // connection's recent replies): they count against the output limit like
  // the output (Session::run_commands).
  [[nodiscard]] std::size_t held_bytes() const noexcept {
    return held_.size() - held_from_ + remote_commands_ * reply_estimate_;
  }
  // The size of a reply made here (Session::execute): a connection whose
  // replies are big gets fewer commands on other shards at once.
  void note_reply(std::size_t bytes) noexcept {
    reply_estimate_ = bytes >= reply_estimate_ ? bytes : reply_estimate_ - (reply_estimate_ - bytes) / 8;
  }
  // At most this many commands of one connection wait on other shards at
  // once, so a pipeline of big GETs for another shard does not make that
  // shard build every reply before the first leaves; 32 covers P16 pipelines.
  // Fewer when the replies are big (remote_limit()): what is held for a
  // connection is then bounded by the output limit and an eighth of it more.
  static constexpr std::size_t max_remote_in_flight = 32;
  // At most this many jobs that only read (a pipeline of MGETs) at once: a
  // client that never reads holds at most this many job replies beside the
  // output limit and the remote commands' bound.
  static constexpr std::size_t max_jobs_in_flight = 64;
  [[nodiscard]] const KvShard& shard() const noexcept { return shard_; }
  [[nodiscard]] ClientInfo& client() noexcept { return client_; }
  void set_waker(Waker waker, void* context) noexcept {
    waker_ = waker;
    waker_context_ = context;
  }

  // From the messages, on this thread.
  void on_batch(RemoteBatch& batch);
  void on_job(ShardJob& job, std::string reply);
  void on_block(RemoteBlock& block);
  void on_multi_block(MultiBlock& block);
  // CLIENT REPLY OFF|SKIP: while set, the holes made are of their own and their replies dropped.
  void set_quiet(bool quiet) noexcept { quiet_ = quiet; }

 private:
  [[nodiscard]] bool stall() noexcept {
    stalled_ = true;
    return true;
  }
  [[nodiscard]] bool runs_here(bool reads) const noexcept;
  [[nodiscard]] std::size_t remote_limit() const noexcept;
  void collect(std::string& out);

  // Replies in request order. Replies made here while others are due go to
  // held_; a hole marks where a reply from elsewhere goes (at byte `at` of
  // held_): a batch's commands [first, first + count), read from the batch
  // itself when collected (no copy in between), or a job's reply.
  struct Hole {
    std::size_t at = 0;
    RemoteBatch* batch = nullptr;
    ShardJob* job = nullptr;
    RemoteBlock* block = nullptr;  // a blocking command waiting on another shard
    MultiBlock* multi = nullptr;   // ... on keys of several shards
    // BLPOP over several shards' keys runs first as a job that cannot block;
    // when it finds nothing, the command (kept here) blocks as a MultiBlock.
    const Command* blocks_if_empty = nullptr;
    std::unique_ptr<Args> block_argv;
    std::uint32_t first = 0;
    std::uint32_t count = 0;
    bool ready = false;
    bool quiet = false;  // CLIENT REPLY OFF|SKIP: collected, not sent
    std::string reply;  // a job's
  };
  // A FIFO of holes over one vector that keeps its capacity: a connection
  // that pipelines allocates nothing here once warm (a deque would allocate
  // and free a node every few holes).
  class Holes {
   public:
    [[nodiscard]] bool empty() const noexcept { return head_ == items_.size(); }
    [[nodiscard]] Hole& front() noexcept { return items_[head_]; }
    [[nodiscard]] const Hole& front() const noexcept { return items_[head_]; }
    [[nodiscard]] Hole& back() noexcept { return items_.back(); }
    Hole& emplace_back(bool quiet) {
      Hole& h = items_.emplace_back();
      h.quiet = quiet;
      return h;
    }
    void pop_front() noexcept {
      items_[head_].reply = std::string();
      items_[head_].block_argv.reset();
      if (++head_ == items_.size()) {
        items_.clear();
        head_ = 0;
      }
    }
    [[nodiscard]] auto begin() noexcept { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
    [[nodiscard]] auto end() noexcept { return items_.end(); }

   private:
    std::vector<Hole> items_;
    std::size_t head_ = 0;
  };
  enum class Plan : unsigned char { here, remote, job };
  // A BLMOVE over two shards whose job runs again (move_again): what its
  // timeout or CLIENT UNBLOCK asked for meanwhile.
  enum class MoveCancel : unsigned char { none, timeout, error };
  MoveCancel move_cancel_ = MoveCancel::none;

  void queue_remote(const Command& cmd, std::span<const std::string_view> argv, std::size_t target);
  void block_remote(const Command& cmd, std::span<const std::string_view> argv, std::size_t target);
  void wait_as_blocked(const Command& cmd, std::span<const std::string_view> argv, void* remote,
                       void (*cancel)(void* remote, bool error));
  void block_on_shards(Hole& h);
  void block_on_source(Hole& h);
  void move_again(Hole& h);
  void end_block(Hole& h, std::string reply);
  [[nodiscard]] bool after_blocking_job(Hole& h, std::string& reply);
  static void cancel_remote_block(void* block, bool error);
  void wake() noexcept {
    if (waker_ != nullptr) waker_(waker_context_);
  }

  KvShard& shard_;
  ClientInfo& client_;
  Holes holes_;
  std::string held_;
  std::size_t held_from_ = 0;           // held_ before this was collected already
  std::vector<RemoteBatch*> open_;      // per shard: the batch being filled in this run
  std::vector<RemoteBatch*> in_flight_;
  std::vector<ShardJob*> jobs_;         // this connection's jobs in flight
  bool write_job_ = false;              // one of them writes (then it is the only one)
  Plan plan_ = Plan::here;              // must_stall's verdict on the command it passed
  std::size_t target_ = 0;
  std::size_t pending_ = 0;             // holes not filled yet
  std::size_t remote_commands_ = 0;     // commands in open or in-flight batches
  std::size_t own_remote_ = 0;          // those of them for this shard
  std::size_t reply_estimate_ = 0;      // bytes per reply (note_reply): rises at once, decays by 1/8 a reply
  bool stalled_ = false;
  bool quiet_ = false;  // set_quiet
  Waker waker_ = nullptr;
  void* waker_context_ = nullptr;
};

}  // namespace duet::kv
