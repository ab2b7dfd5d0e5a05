// ShardJob: ordered gate taking, one part at a time. The message that takes
// part i's gate comes back to the origin before part i+1's goes out, so a job
// over k shards costs k round trips while it takes its gates plus one-way
// releases; a part on the origin's own shard costs no message at all.
#include "kv/shard/shard_job.hpp"

#include <algorithm>

#include "kv/aof/aof_propagation.hpp"
#include "kv/blocking/blocking.hpp"
#include "kv/command_table.hpp"
#include "kv/detail/run_command.hpp"
#include "kv/notify.hpp"
#include "kv/shard/kv_cluster.hpp"
#include "kv/shard/shard_dispatch.hpp"

namespace duet::kv {

ShardJob::Part& ShardJob::part(std::size_t shard) {
  for (auto& p : parts_) {
    if (p->shard == shard) return *p;
  }
  // Room for the usual few parts at once; a job over many shards (DBSIZE on
  // 64) grows past it, a 2-key job on a wide cluster does not reserve 64.
  if (parts_.empty()) parts_.reserve(std::min<std::size_t>(origin_->count(), 8));
  auto& p = parts_.emplace_back(std::make_unique<Part>());
  p->job = this;
  p->shard = shard;
  p->resume_ = &on_resume;
  return *p;
}

void ShardJob::start(ShardDispatch* connection) {
  connection_ = connection;
  now_ = origin_->state().now_ms();  // the job's one instant (header: "One instant")
  back_.job = this;
  for (auto& p : parts_) p->mode_ = shares_ ? GateWaiter::Mode::share : GateWaiter::Mode::take;
  std::sort(parts_.begin(), parts_.end(), [](const auto& a, const auto& b) { return a->shard < b->shard; });
  take_next();
}

void ShardJob::start_within(ShardJob& parent) {
  parent_ = &parent;
  now_ = parent.now_;
  back_.job = this;
  for (auto& p : parts_) p->mode_ = GateWaiter::Mode::take;
  std::sort(parts_.begin(), parts_.end(), [](const auto& a, const auto& b) { return a->shard < b->shard; });
  take_next();
}

std::vector<std::size_t> ShardJob::shards() const {
  std::vector<std::size_t> out;
  out.reserve(parts_.size());
  for (const auto& p : parts_) out.push_back(p->shard);
  return out;
}

// Origin thread.
void ShardJob::take_next() {
  if (next_ == parts_.size()) return finish_all();
  Part& p = *parts_[next_];
  if (p.shard == origin_->index()) {
    if (parent_ != nullptr || origin_->gate().acquire(p)) taken(p);  // else on_resume, from a release here
    return;
  }
  p.op = Part::Op::take;
  p.run_ = &at_part;
  origin_->send_for_reply(p.shard, p);  // back_ comes back: at_origin
}

// On the part's shard, holding its gate.
void ShardJob::taken(Part& p) {
  KvShard& here = origin_->cluster().shard(p.shard);
  run_part(here, p);
  flush_keyspace_events(here.state());  // the part's events (its handler's, an expiry's) before its reply
  if (logged_ != nullptr && here.durability() != nullptr) here.durability()->publish();  // this shard's records first
  if (&p == parts_.back().get() && !two_phase() && logged_ == nullptr && parent_ == nullptr) {
    p.released = true;
    here.gate().release(p);
  }
  if (p.shard == origin_->index()) {
    ++next_;
    return take_next();
  }
  back_.run_ = &at_origin;
  here.send(origin_->index(), back_);
}

void ShardJob::at_part(LoopMessage* msg) noexcept {
  auto& p = static_cast<Part&>(*msg);
  ShardJob& job = *p.job;
  KvShard& here = job.origin_->cluster().shard(p.shard);
  switch (p.op) {
    case Part::Op::take:
      if (job.parent_ != nullptr || here.gate().acquire(p)) job.taken(p);
      return;
    case Part::Op::apply:
      job.apply_part(here, p);
      flush_keyspace_events(here.state());
      [[fallthrough]];
    case Part::Op::release:
      // The job's pushes serve blocked clients while its gate is still held:
      // a release hands the gate to the next job at once, which copies the
      // keys it needs (GatherJob), so a serve after it would pop behind that
      // copy's back and the element would be handed out twice.
      if (job.parent_ == nullptr && here.state().store().has_ready()) serve_blocked(here.state(), job.now_);
      if (job.parent_ == nullptr) here.gate().release(p);
      job.drop_ref(false);
      return;
  }
}

void ShardJob::on_resume(GateWaiter* w) noexcept {
  auto& p = static_cast<Part&>(*w);
  p.job->taken(p);
}

void ShardJob::at_origin(LoopMessage* msg) noexcept {
  ShardJob& job = *static_cast<Back&>(*msg).job;
  job.origin_->reply_came();
  ++job.next_;
  job.take_next();
}

// Origin thread, every gate held (but a released last part's).
void ShardJob::finish_all() {
  if (hold()) return;  // complete() comes later
  complete();
}

void ShardJob::complete() {
  const bool apply = two_phase() && decide();
  std::string reply;
  finish(reply);
  if (logged_ != nullptr) log_command(reply);  // before any gate opens
  for (auto& p : parts_) {
    if (!p->released) end_part(*p, apply);
  }
  // The origin's events (a gathered command run here, the origin's own
  // part's apply) leave before the reply does.
  flush_keyspace_events(origin_->state());
  if (parent_ != nullptr) {
    parent_->child_done(*this, std::move(reply));
  } else if (connection_ != nullptr) {
    connection_->on_job(*this, std::move(reply));
  }
  drop_ref(true);
}

void ShardJob::log_as(const Command& cmd, std::span<const std::string_view> argv) {
  logged_ = &cmd;
  logged_argv_.assign(argv.begin(), argv.end());
}

// On the origin, as if the command had run here: the observer (the AOF)
// translates and stages it, and publish() sends it on behind the records each
// part's shard published before, and ahead of any write after the release.
void ShardJob::log_command(std::string_view reply) {
  WriteObserver* observer = origin_->state().write_observer();
  if (observer == nullptr) return;
  std::vector<std::string_view> views(logged_argv_.begin(), logged_argv_.end());
  ClientInfo client;
  client.authenticated = true;
  client.db = db_;
  std::string unused;
  CommandContext ctx{origin_->state(), client, views, Reply(unused), now_};
  if (LoggedBlock* block = parent_ != nullptr ? parent_->block() : nullptr) {  // inside a transaction's block
    AofBuffer records;
    translate_write(*logged_, ctx, reply, records);
    block->add(db_, records.bytes());
  } else {
    observer->after_write(*logged_, ctx, reply);
  }
  if (origin_->durability() != nullptr) origin_->durability()->publish();
}

void ShardJob::end_part(Part& p, bool apply) {
  p.released = true;
  if (p.shard == origin_->index()) {
    if (apply) apply_part(*origin_, p);
    if (parent_ == nullptr && origin_->state().store().has_ready()) serve_blocked(origin_->state(), now_);  // gate held: as at_part
    if (parent_ == nullptr) origin_->gate().release(p);  // inside a transaction the gate is the parent's
    return;
  }
  p.op = apply ? Part::Op::apply : Part::Op::release;
  p.run_ = &at_part;
  refs_.fetch_add(1, std::memory_order_relaxed);
  origin_->send(p.shard, p);
}

// The last of the origin and the releasing shards frees the job: acq_rel so
// that every part's writes (apply_part) happen before the delete. The delete
// itself always runs on the origin, where the job and its parts were
// allocated: glibc's malloc frees another thread's memory through that
// arena's lock, and an MGET whose release came last made every job's
// allocations cross threads (malloc and free were 27 % of a --threads 2 MGET
// profile, against ~10 % with jemalloc, which frees such memory cheaply).
void ShardJob::drop_ref(bool on_origin) noexcept {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (on_origin) {
    delete this;
    return;
  }
  back_.run_ = &delete_at_origin;  // back_ is idle once every part has run
  origin_->send(origin_->index(), back_);  // any thread may send
}

void ShardJob::delete_at_origin(LoopMessage* msg) noexcept { delete static_cast<Back&>(*msg).job; }

void ShardJob::run_argv(KvShard& shard, const Args& argv, std::string& out, int resp, bool silent) const {
  thread_local std::vector<std::string_view> views;  // kept for its capacity; one job part at a time per thread
  views.clear();
  for (std::size_t i = 0; i < argv.size(); ++i) views.push_back(argv[i]);
  const Command* cmd = find_command(views[0]);
  ClientInfo client;
  client.authenticated = true;
  client.db = db_;
  client.resp = resp;
  CommandContext ctx{shard.state(), client, views, Reply(out, resp), now_};  // not this shard's clock: the job's
  ctx.silent = silent;
  const std::size_t reply_start = out.size();
  cmd->handler(ctx);  // no write observer: the job logs the command it serves once, whole
  if ((cmd->flags & cmd_write) != 0 && shard.state().store().observed()) [[unlikely]] {
    touch_written_keys(*cmd, ctx, std::string_view(out).substr(reply_start));  // WATCH: this part's keys
  }
  ++shard.state().stats().commands_processed;
}

}  // namespace duet::kv
