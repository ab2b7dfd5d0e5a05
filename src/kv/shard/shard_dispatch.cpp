// ShardDispatch: the hot path is must_stall → takes for a command on one key:
// one hash to find the key's shard, then either "run here" (the gate open) or
// one more command in this run's batch for that shard.
#include "kv/shard/shard_dispatch.hpp"

#include <algorithm>
#include <memory>

#include "kv/command_table.hpp"
#include "kv/shard/key_shard.hpp"
#include "kv/shard/kv_cluster.hpp"
#include "kv/shard/multi_block.hpp"
#include "kv/shard/remote_batch.hpp"
#include "kv/shard/remote_block.hpp"
#include "kv/shard/shard_gate.hpp"
#include "kv/shard/shard_job.hpp"
#include "kv/shard/shard_jobs.hpp"
#include "kv/shard/tx_job.hpp"

namespace duet::kv {
namespace {

bool one_key(const Command& cmd, std::size_t argc) noexcept {
  return cmd.route == ShardRoute::derived && cmd.first_key == 1 && cmd.last_key == 1 && argc >= 2;
}

// PING, SELECT, CLIENT SETNAME, SUBSCRIBE, SSUBSCRIBE (its "keys" are shard
// channels) ...: a command of the connection itself, which no job's hold on
// the keyspace concerns.
bool touches_keys(const Command& cmd) noexcept { return cmd.route != ShardRoute::here && cmd.first_key != 0; }

}  // namespace

ShardDispatch::ShardDispatch(KvShard& shard, ClientInfo& client)
    : shard_(shard), client_(client), open_(shard.count(), nullptr) {}

ShardDispatch::~ShardDispatch() {
  for (RemoteBatch* b : open_) {  // never sent
    if (b != nullptr) RemoteBatch::recycle(shard_, b);
  }
  for (RemoteBatch* b : in_flight_) b->orphan();
  for (const Hole& h : holes_) {  // back, not collected: this connection was their last user
    if (h.ready && h.batch != nullptr && h.batch->drop_hole()) RemoteBatch::recycle(shard_, h.batch);
  }
  for (ShardJob* job : jobs_) job->orphan();
  for (Hole& h : holes_) {
    if (h.block != nullptr && !h.ready) h.block->orphan();
    if (h.multi != nullptr && !h.ready) h.multi->orphan();
  }
}

bool ShardDispatch::must_stall(const Command* cmd, std::span<const std::string_view> argv) {
  if (!jobs_.empty() && (write_job_ || argv.empty())) return stall();  // nothing passes a job that writes
  if (argv.empty()) return false;  // "*0", "*-1", a blank line: no command, no reply
  const bool reads = cmd != nullptr && reads_only(*cmd);
  // Behind jobs that only read, only what only reads goes on: it cannot
  // change what they read, and its reply still leaves after theirs.
  if (!jobs_.empty() && !reads) return stall();
  if (cmd != nullptr && one_key(*cmd, argv.size())) {
    target_ = key_shard(argv[1], shard_.count());
    if (target_ == shard_.index() && runs_here(reads)) {
      plan_ = Plan::here;
      return false;
    }
    plan_ = Plan::remote;  // another shard's key, or the gate holds this one up
    return remote_commands_ >= remote_limit() ? stall() : false;
  }
  // Everything else runs once all before it is done: jobs see this
  // connection's writes, and SELECT, AUTH, SUBSCRIBE ... apply in order. A
  // command that only reads need not wait for this connection's other jobs
  // that only read: a pipeline of MGETs runs its jobs side by side.
  // A job takes its gates itself (takes()); what runs here is seen to there.
  plan_ = Plan::job;
  return reads ? pending_ != jobs_.size() || jobs_.size() >= max_jobs_in_flight : outstanding();
}

// A command on this shard's keys runs here at once when the gate would let a
// batch of it pass and none of this connection's batches for this shard is
// on its way (it must not pass them). Else it goes as a batch to this very
// shard, whose gate runs it inside its turn (ShardGate: a passer that only
// woke the session would find the gate shared again by the readers' jobs
// queued behind it, and could starve behind a stream of them). The session
// never waits on the gate itself, so a client that reads no replies holds up
// no job, and nothing holds the gate while the session waits for another
// shard's reply (which could wait for a job queued behind it).
bool ShardDispatch::runs_here(bool reads) const noexcept {
  return own_remote_ == 0 && shard_.gate().passes(reads ? GateWaiter::Mode::pass_read : GateWaiter::Mode::pass_write);
}

// A client that never reads, pipelining whole-value reads of 2 MB replies
// from another shard, held 190-650 MB beside the 64 MB output limit with 32
// such replies in flight (and the batches' buffers they are built in): the
// bytes those in flight may reach are kept to an eighth of the limit.
std::size_t ShardDispatch::remote_limit() const noexcept {
  if (reply_estimate_ == 0) return max_remote_in_flight;
  const std::size_t budget = shard_.state().config().client_output_limit / 8;
  return std::clamp<std::size_t>(budget / reply_estimate_, 1, max_remote_in_flight);
}

bool ShardDispatch::takes(const Command& cmd, std::span<const std::string_view> argv) {
  switch (plan_) {
    case Plan::here:
      return false;
    case Plan::remote:
      queue_remote(cmd, argv, target_);
      return true;
    case Plan::job:
      break;
  }
  std::size_t single = shard_.index();
  if (cmd.route == ShardRoute::blocking) [[unlikely]] {
    // BLPOP ...: blocks where its keys are; over several shards, first a job
    // that cannot block, then (on_job) it blocks if that found nothing
    // (shard_dispatch_blocking.cpp).
    if (blocking_target(shard_, cmd, argv, single)) {
      if (single == shard_.index() && runs_here(false)) return false;  // the handler, as the client itself
      block_remote(cmd, argv, single);
      return true;
    }
  }
  std::unique_ptr<ShardJob> job;
  if (cmd.route == ShardRoute::exec || cmd.route == ShardRoute::watch) [[unlikely]] {
    // MULTI/EXEC, WATCH (kv/shard/tx_job.hpp): a job when keys live elsewhere, else the handler here.
    job = cmd.route == ShardRoute::exec ? plan_exec(shard_, client_, runs_here(false)) : plan_watch(shard_, client_, argv);
    if (job == nullptr) return false;
  } else {
    job = plan_job(shard_, cmd, argv, client_, single);
  }
  if (job != nullptr) {
    Hole& due = holes_.emplace_back(quiet_);
    due.at = held_.size();
    due.job = job.get();
    if (cmd.route == ShardRoute::blocking) [[unlikely]] {  // over several shards: blocks if the job finds nothing
      due.blocks_if_empty = &cmd;
      due.block_argv = std::make_unique<Args>();
      due.block_argv->assign(argv);
    }
    ++pending_;
    write_job_ = !job->shares_gates();
    jobs_.push_back(job.get());
    job.release()->start(this);
    return true;
  }
  if (single == shard_.index() && (!touches_keys(cmd) || runs_here(reads_only(cmd)))) return false;
  queue_remote(cmd, argv, single);
  return true;
}

void ShardDispatch::queue_remote(const Command& cmd, std::span<const std::string_view> argv, std::size_t target) {
  RemoteBatch*& batch = open_[target];
  if (batch == nullptr) batch = RemoteBatch::make(*this, shard_, target);
  const auto index = static_cast<std::uint32_t>(batch->size());
  batch->add(cmd, argv, client_.db, client_.resp);
  ++remote_commands_;
  if (target == shard_.index()) ++own_remote_;
  if (!quiet_ && !holes_.empty() && holes_.back().batch == batch && holes_.back().at == held_.size() &&
      !holes_.back().quiet) {
    ++holes_.back().count;  // a run of commands for one shard: one hole
    return;
  }
  Hole& due = holes_.emplace_back(quiet_);
  due.at = held_.size();
  due.batch = batch;
  due.first = index;
  due.count = 1;
  batch->add_hole();
  ++pending_;
}

std::string& ShardDispatch::sink(std::string& out) { return holes_.empty() ? out : held_; }

void ShardDispatch::begin_run(std::string& out) {
  stalled_ = false;
  if (!holes_.empty() || held_from_ != held_.size()) collect(out);
}

void ShardDispatch::end_run() noexcept {
  for (RemoteBatch*& batch : open_) {
    if (batch == nullptr) continue;
    in_flight_.push_back(batch);
    std::exchange(batch, nullptr)->send();
  }
}

// Everything before the first reply still due, in order, onto `out`.
void ShardDispatch::collect(std::string& out) {
  while (!holes_.empty() && holes_.front().ready) {
    Hole& h = holes_.front();
    out.append(held_, held_from_, h.at - held_from_);
    held_from_ = h.at;
    if (h.batch != nullptr) {
      if (!h.quiet) out.append(h.batch->replies(h.first, h.count));
      if (h.batch->drop_hole()) RemoteBatch::recycle(shard_, h.batch);
    } else if (!h.quiet) {
      out.append(h.reply);
    }
    holes_.pop_front();
  }
  if (!holes_.empty()) {  // what was made here before the first reply still due
    out.append(held_, held_from_, holes_.front().at - held_from_);
    held_from_ = holes_.front().at;
    return;
  }
  if (held_from_ != held_.size()) {
    out.append(held_, held_from_, std::string::npos);
  }
  held_.clear();
  held_from_ = 0;
}

void ShardDispatch::on_batch(RemoteBatch& batch) {
  for (Hole& h : holes_) {
    if (h.batch != &batch || h.ready) continue;
    h.ready = true;
    --pending_;
  }
  in_flight_.erase(std::find(in_flight_.begin(), in_flight_.end(), &batch));
  note_reply(batch.reply_bytes() / std::max<std::size_t>(batch.size(), 1));
  remote_commands_ -= batch.size();
  if (batch.target() == shard_.index()) own_remote_ -= batch.size();
  wake();
}

void ShardDispatch::on_job(ShardJob& job, std::string reply) {
  for (Hole& h : holes_) {
    if (h.job != &job) continue;
    h.job = nullptr;
    if (h.blocks_if_empty != nullptr && after_blocking_job(h, reply)) [[unlikely]] continue;  // blocks (again)
    h.reply = std::move(reply);
    h.ready = true;
    --pending_;
  }
  jobs_.erase(std::find(jobs_.begin(), jobs_.end(), &job));
  if (jobs_.empty()) write_job_ = false;
  wake();
}

}  // namespace duet::kv
