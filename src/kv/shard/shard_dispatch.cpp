// ShardDispatch: the hot path is must_stall → takes for a command on one key:
// one hash to find the key's shard, then either "run here" (the gate open) or
// one more command in this run's batch for that shard.
#include "kv/shard/shard_dispatch.hpp"

#include <algorithm>
#include <memory>

#include "kv/command_table.hpp"
#include "kv/shard/key_shard.hpp"
#include "kv/shard/kv_cluster.hpp"
#include "kv/shard/remote_batch.hpp"
#include "kv/shard/shard_job.hpp"
#include "kv/shard/shard_jobs.hpp"

namespace duet::kv {
namespace {

bool one_key(const Command& cmd, std::size_t argc) noexcept {
  return cmd.route == ShardRoute::derived && cmd.first_key == 1 && cmd.last_key == 1 && argc >= 2;
}

}  // namespace

ShardDispatch::ShardDispatch(KvShard& shard, ClientInfo& client)
    : shard_(shard), client_(client), open_(shard.count(), nullptr) {
  gate_waiter_.owner = this;
  gate_waiter_.resume_ = &gate_opened;
}

ShardDispatch::~ShardDispatch() {
  shard_.gate().cancel(gate_waiter_);
  for (RemoteBatch* b : open_) delete b;  // never sent
  for (RemoteBatch* b : in_flight_) b->orphan();
  if (job_ != nullptr) job_->orphan();
}

bool ShardDispatch::must_stall(std::span<const std::string_view> argv) {
  if (job_ != nullptr) return stall();  // nothing passes a job of this connection
  if (argv.empty()) return false;       // "*0", "*-1", a blank line: no command, no reply
  const Command* cmd = find_command(argv[0]);
  if (cmd != nullptr && one_key(*cmd, argv.size())) {
    target_ = key_shard(argv[1], shard_.count());
    if (target_ != shard_.index()) {
      plan_ = Plan::remote;
      return false;
    }
    plan_ = Plan::here;
    return shard_.gate().open() ? false : wait_gate();
  }
  // Everything else runs once all before it is done: jobs see this
  // connection's writes, and SELECT, AUTH, SUBSCRIBE ... apply in order.
  plan_ = Plan::job;
  if (outstanding()) return stall();
  return shard_.gate().open() ? false : wait_gate();
}

bool ShardDispatch::wait_gate() {
  if (!gate_waiting_ && !shard_.gate().wait(gate_waiter_)) gate_waiting_ = true;
  return stall();
}

void ShardDispatch::gate_opened(GateWaiter* w) noexcept {
  ShardDispatch& self = *static_cast<GateSlot*>(w)->owner;
  self.gate_waiting_ = false;
  self.wake();
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
  std::unique_ptr<ShardJob> job = plan_job(shard_, cmd, argv, client_, single);
  if (job != nullptr) {
    Segment& due = segments_.emplace_back();
    due.job = job.get();
    due.ready = false;
    ++pending_;
    job_ = job.release();
    job_->start(this);
    return true;
  }
  if (single == shard_.index()) return false;
  queue_remote(cmd, argv, single);
  return true;
}

void ShardDispatch::queue_remote(const Command& cmd, std::span<const std::string_view> argv, std::size_t target) {
  RemoteBatch*& batch = open_[target];
  if (batch == nullptr) batch = new RemoteBatch(*this, shard_, target);
  const auto index = static_cast<std::uint32_t>(batch->size());
  batch->add(cmd, argv, client_.db);
  if (!segments_.empty() && segments_.back().batch == batch) {
    ++segments_.back().count;  // a run of commands for one shard: one segment
    return;
  }
  Segment& due = segments_.emplace_back();
  due.batch = batch;
  due.first = index;
  due.count = 1;
  due.ready = false;
  ++pending_;
}

std::string& ShardDispatch::sink(std::string& out) {
  if (segments_.empty()) return out;
  if (!segments_.back().ready) segments_.emplace_back();
  return segments_.back().bytes;
}

void ShardDispatch::begin_run(std::string& out) {
  stalled_ = false;
  collect(out);
}

void ShardDispatch::end_run() noexcept {
  for (RemoteBatch*& batch : open_) {
    if (batch == nullptr) continue;
    in_flight_.push_back(batch);
    std::exchange(batch, nullptr)->send();
  }
}

void ShardDispatch::collect(std::string& out) {
  while (!segments_.empty() && segments_.front().ready) {
    std::string& bytes = segments_.front().bytes;
    if (out.empty()) {
      out.swap(bytes);
    } else {
      out.append(bytes);
    }
    segments_.pop_front();
  }
}

void ShardDispatch::on_batch(RemoteBatch& batch) {
  for (Segment& s : segments_) {
    if (s.batch != &batch) continue;
    s.bytes.assign(batch.replies(s.first, s.count));
    s.batch = nullptr;
    s.ready = true;
    --pending_;
  }
  in_flight_.erase(std::find(in_flight_.begin(), in_flight_.end(), &batch));
  wake();
}

void ShardDispatch::on_job(ShardJob& job, std::string reply) {
  for (Segment& s : segments_) {
    if (s.job != &job) continue;
    s.bytes = std::move(reply);
    s.job = nullptr;
    s.ready = true;
    --pending_;
  }
  job_ = nullptr;
  wake();
}

}  // namespace duet::kv
