// RemoteBatch: the arguments travel as one string (no allocation per
// argument), the replies come back as one string with each command's end, so
// a pipeline's commands for one shard cost two messages and a few
// allocations in all, however many there are.
#include "kv/shard/remote_batch.hpp"

#include <algorithm>
#include <array>

#include "kv/command_table.hpp"
#include "kv/detail/run_command.hpp"
#include "kv/shard/kv_cluster.hpp"
#include "kv/shard/shard_dispatch.hpp"
#include "kv/shard/shard_jobs.hpp"

namespace duet::kv {

RemoteBatch* RemoteBatch::make(ShardDispatch& origin, KvShard& from, std::size_t to) {
  RemoteBatch* batch = from.take_batch();
  if (batch == nullptr) batch = new RemoteBatch;
  batch->origin_ = &origin;
  batch->from_ = &from;
  batch->to_ = to;
  batch->holes_ = 0;
  batch->mode_ = Mode::pass_read;  // until a command that writes joins
  return batch;
}

void RemoteBatch::recycle(KvShard& from, RemoteBatch* batch) noexcept {
  batch->commands_.clear();
  batch->arg_ends_.clear();
  batch->args_.clear();
  batch->reply_ends_.clear();
  batch->out_.clear();
  if (batch->out_.capacity() > 64 * 1024) std::string().swap(batch->out_);  // one big reply does not stay
  if (batch->args_.capacity() > 64 * 1024) std::string().swap(batch->args_);
  from.keep_batch(batch);
}

void RemoteBatch::add(const Command& cmd, std::span<const std::string_view> argv, int db, int resp) {
  if (!reads_only(cmd)) mode_ = Mode::pass_write;
  commands_.push_back({&cmd, static_cast<std::uint32_t>(arg_ends_.size()), static_cast<std::uint32_t>(argv.size()), db, resp});
  for (std::string_view arg : argv) {
    args_.append(arg);
    arg_ends_.push_back(static_cast<std::uint32_t>(args_.size()));
  }
}

void RemoteBatch::send() noexcept {
  run_ = &arrive;
  from_->send_for_reply(to_, *this);
}

void RemoteBatch::arrive(LoopMessage* self) noexcept {
  auto* batch = static_cast<RemoteBatch*>(self);
  KvShard& here = batch->from_->cluster().shard(batch->to_);
  batch->resume_ = &resumed;
  if (!here.gate().wait(*batch)) return;  // a job over several shards holds it: run at its release
  batch->run_all(here);
  batch->settle(here);
}

void RemoteBatch::resumed(GateWaiter* self) noexcept {
  auto* batch = static_cast<RemoteBatch*>(self);
  KvShard& here = batch->from_->cluster().shard(batch->to_);
  batch->run_all(here);
  batch->settle(here);
}

void RemoteBatch::settle(KvShard& shard) {
  AofDurability* log = shard.durability();
  if (log == nullptr || !log->must_wait()) return go_back();
  durable_.context_ = this;
  durable_.resume_ = [](DurableWaiter* w) noexcept { static_cast<RemoteBatch*>(w->context_)->go_back(); };
  log->wait(durable_);
}

// Runs as the connection would have on its own shard: the checks (arity,
// auth, maxmemory) were made there; what the command touches is here.
void RemoteBatch::run_all(KvShard& shard) {
  ServerState& state = shard.state();
  ClientInfo client;  // stands in for the connection: its database, authenticated
  client.authenticated = true;
  const std::int64_t now = state.now_ms();
  std::vector<std::string_view>& argv = argv_;
  reply_ends_.reserve(commands_.size());
  for (std::size_t i = 0; i < commands_.size(); ++i) {
    if (i % Keyspace::max_prefetch == 0 && commands_.size() - i >= 2) prefetch(state, i);
    const Queued& q = commands_[i];
    argv.clear();
    std::uint32_t start = q.first_arg == 0 ? 0 : arg_ends_[q.first_arg - 1];
    for (std::uint32_t a = q.first_arg; a < q.first_arg + q.argc; ++a) {
      argv.emplace_back(args_.data() + start, arg_ends_[a] - start);
      start = arg_ends_[a];
    }
    client.db = q.db;
    client.resp = q.resp;
    CommandContext ctx{state, client, argv, Reply(out_, q.resp), now};
    detail::run_command(*q.command, ctx);
    reply_ends_.push_back(static_cast<std::uint32_t>(out_.size()));
  }
}

// Starts the cache misses of the keys of commands [first, first + 16) in
// the first one's database together, as Session does for its own keys: the
// batch is a pipeline's commands for this shard, run back to back.
void RemoteBatch::prefetch(ServerState& state, std::size_t first) const noexcept {
  std::array<std::string_view, Keyspace::max_prefetch> keys;
  std::size_t n = 0;
  const int db = commands_[first].db;
  const std::size_t end = std::min(commands_.size(), first + Keyspace::max_prefetch);
  for (std::size_t i = first; i < end; ++i) {
    const Queued& q = commands_[i];
    const auto key = static_cast<std::uint32_t>(q.command->first_key);
    if (q.db != db || key == 0 || key >= q.argc) continue;
    const std::uint32_t a = q.first_arg + key;
    const std::uint32_t start = arg_ends_[a - 1];  // a >= 1: the command's name comes first
    keys[n++] = std::string_view(args_.data() + start, arg_ends_[a] - start);
  }
  if (n >= 2) state.store().db(db).prefetch(std::span(keys).first(n));
}

void RemoteBatch::go_back() noexcept {
  run_ = &returned;
  from_->cluster().shard(to_).send(from_->index(), *this);
}

void RemoteBatch::returned(LoopMessage* self) noexcept {
  auto* batch = static_cast<RemoteBatch*>(self);
  batch->from_->reply_came();
  if (batch->origin_ == nullptr) return recycle(*batch->from_, batch);
  batch->origin_->on_batch(*batch);  // its holes read it, then give it back
}

std::string_view RemoteBatch::replies(std::size_t first, std::size_t count) const noexcept {
  const std::size_t begin = first == 0 ? 0 : reply_ends_[first - 1];
  return std::string_view(out_).substr(begin, reply_ends_[first + count - 1] - begin);
}

}  // namespace duet::kv
