// TxJob: a transaction over several shards runs its commands one at a time
// while it holds every gate: a hop per command on another shard, a nested
// job per command over several. WatchJob: WATCH's keys registered where
// they live.
#include "kv/shard/tx_job.hpp"

#include <algorithm>

#include "kv/command_table.hpp"
#include "kv/multi/transaction.hpp"
#include "kv/notify.hpp"
#include "kv/shard/key_shard.hpp"
#include "kv/shard/kv_cluster.hpp"
#include "kv/shard/shard_dispatch.hpp"
#include "kv/shard/shard_jobs.hpp"

namespace duet::kv {

TxJob::TxJob(KvShard& origin, const ClientInfo& client, std::vector<QueuedCommand> queued, WatchTicket* ticket,
             std::vector<WatchedKey> watched, const std::vector<std::size_t>& shards, bool whole_there)
    : ShardJob(origin, client.db),
      queued_(std::move(queued)),
      ticket_(ticket),
      watched_(std::move(watched)),
      whole_there_(whole_there) {
  client_.id = client.id;
  client_.name = client.name;
  client_.db = client.db;
  client_.resp = client.resp;
  client_.authenticated = true;
  client_.created_ms = client.created_ms;
  for (const WatchedKey& w : watched_) watched_shard_.push_back(key_shard(w.key, origin.count()));
  for (std::size_t s : shards) part(s);
  hop_.job = this;
}

TxJob::~TxJob() { release_watches(); }

ClientInfo& TxJob::live_client() noexcept {
  ShardDispatch* connection = this->connection();
  return connection != nullptr ? connection->client() : client_;
}

ClientInfo TxJob::stand_in(int db) const {
  ClientInfo client;
  client.id = client_.id;
  client.name = client_.name;
  client.authenticated = true;
  client.db = db;
  client.resp = client_.resp;
  return client;
}

// Has a key watched alive on this shard expired since WATCH?
bool TxJob::watch_changed(KvShard& shard, std::size_t part_shard) {
  for (std::size_t i = 0; i < watched_.size(); ++i) {
    const WatchedKey& w = watched_[i];
    if (watched_shard_[i] == part_shard && shard.state().store().watched_key_expired(w.db, w.key, ticket_, now())) {
      return true;
    }
  }
  return false;
}

// On each shard as its gate is taken: the watched keys' expiry; and when the
// whole transaction is this shard's, the transaction itself (every watched
// key is here, so the ticket's flag is this thread's to read).
void TxJob::run_part(KvShard& shard, Part& part) {
  if (ticket_ != nullptr && watch_changed(shard, part.shard)) watch_changed_ = true;
  if (!whole_there_) return;
  if (watch_changed_ || (ticket_ != nullptr && ticket_->dirty())) {
    aborted_ = true;
    return;
  }
  for (std::size_t i = 0; i < queued_.size(); ++i) {
    ClientInfo client = stand_in(client_.db);
    run_one(shard, i, client);
  }
  flush_keyspace_events(shard.state());
  if (shard.durability() != nullptr) shard.durability()->publish();  // its expiries' records before the block
}

// Origin, every gate held: the watch decides, then the commands run.
bool TxJob::hold() {
  if (whole_there_) {  // ran in run_part
    release_watches();
    return false;
  }
  const bool changed = watch_changed_ || (ticket_ != nullptr && ticket_->dirty());
  release_watches();  // checked: Redis unwatches before running
  if (changed) {
    aborted_ = true;
    return false;
  }
  step();
  return true;
}

// The origin's own entries go now; other shards drop the released ticket's lazily.
void TxJob::release_watches() {
  if (ticket_ == nullptr) return;
  Store& local = origin().state().store();
  for (std::size_t i = 0; i < watched_.size(); ++i) {
    if (watched_shard_[i] == origin().index()) local.unwatch(watched_[i].db, watched_[i].key, ticket_);
  }
  std::exchange(ticket_, nullptr)->release();
}

// Runs commands until one must wait for another shard; then its reply
// (hop_back, child_done) calls step() again. The last one completes the job.
void TxJob::step() {
  if (stepping_) return;  // a nested job that finished at once: the loop below goes on
  stepping_ = true;
  while (next_command_ < queued_.size()) {
    const QueuedCommand& q = queued_[next_command_];
    q.argv.views(views_);
    std::size_t single = origin().index();
    std::unique_ptr<ShardJob> job = plan_job(origin(), *q.command, views_, live_client(), single);
    const std::size_t index = next_command_++;
    if (job != nullptr) {
      job.release()->start_within(*this);  // all its parts elsewhere: it ends in child_done, later
      if (!child_finished_) {
        stepping_ = false;
        return;
      }
      child_finished_ = false;
      continue;
    }
    if (single == origin().index()) {
      run_one(origin(), index, live_client());
      continue;
    }
    hop_.shard = single;
    hop_.index = index;
    hop_.db = live_client().db;
    hop_.run_ = &at_hop;
    stepping_ = false;
    origin().send_for_reply(single, hop_);
    return;
  }
  stepping_ = false;
  complete();
}

void TxJob::child_done(ShardJob& /*child*/, std::string reply) {
  replies_.append(reply);
  if (stepping_) {
    child_finished_ = true;  // inside step(): its loop goes on
    return;
  }
  step();
}

// One queued command where its keys live, as the connection (its db).
void TxJob::run_one(KvShard& shard, std::size_t index, ClientInfo& client) {
  const QueuedCommand& q = queued_[index];
  std::vector<std::string_view> views;
  q.argv.views(views);
  CommandContext ctx{shard.state(), client, views, Reply(replies_, client.resp), now()};
  ctx.deny_blocking = true;
  run_queued(*q.command, ctx, &block_);
}

void TxJob::at_hop(LoopMessage* msg) noexcept {
  auto& hop = static_cast<Hop&>(*msg);
  TxJob& job = *hop.job;
  KvShard& here = job.origin().cluster().shard(hop.shard);
  ClientInfo client = job.stand_in(hop.db);
  job.run_one(here, hop.index, client);
  flush_keyspace_events(here.state());  // its events, in order, before the transaction's reply
  if (here.durability() != nullptr) here.durability()->publish();  // its expiries' records before the block
  hop.run_ = &hop_back;
  here.send(job.origin().index(), hop);
}

void TxJob::hop_back(LoopMessage* msg) noexcept {
  TxJob& job = *static_cast<Hop&>(*msg).job;
  job.origin().reply_came();
  job.step();
}

// Origin, gates still held: the reply, the block logged, the connection's state back.
void TxJob::finish(std::string& reply) {
  Reply out(reply, resp());
  if (aborted_) return out.null_array();
  out.array(queued_.size());
  reply.append(replies_);
  if (WriteObserver* observer = origin().state().write_observer()) {
    observer->log_block(block_);
    if (origin().durability() != nullptr) origin().durability()->publish();
  }
}

WatchJob::WatchJob(KvShard& origin, int db, WatchTicket& ticket, std::vector<Key> keys)
    : ShardJob(origin, db), ticket_(&ticket), keys_(std::move(keys)) {
  ticket_->ref();  // the client may go before a part runs
  for (const Key& k : keys_) part(k.shard);
}

void WatchJob::run_part(KvShard& shard, Part& part) {
  for (const Key& k : keys_) {
    if (k.shard == part.shard) shard.state().store().watch(db(), k.name, ticket_, now());
  }
}

void WatchJob::finish(std::string& reply) { Reply(reply, resp()).ok(); }

namespace {

// The shards a command touches when it runs: its job's, or the one it runs
// on. `alone`: the one shard it runs on with no job, -1 for a job or a
// command of the connection itself (no key: it runs on the origin as the connection).
void add_shards(KvShard& origin, const QueuedCommand& q, const ClientInfo& client, std::vector<bool>& need,
                std::ptrdiff_t& alone) {
  std::vector<std::string_view> views;
  q.argv.views(views);
  std::size_t single = origin.index();
  std::unique_ptr<ShardJob> job = plan_job(origin, *q.command, views, client, single);
  const bool keyed = q.command->first_key != 0 || q.command->numkeys_at != 0;
  alone = job == nullptr && keyed && q.command->route != ShardRoute::here ? static_cast<std::ptrdiff_t>(single) : -1;
  if (job == nullptr) {
    need[single] = true;
    return;
  }
  for (std::size_t s : job->shards()) need[s] = true;
}

}  // namespace

std::unique_ptr<ShardJob> plan_exec(KvShard& origin, ClientInfo& client, bool gate_open) {
  MultiState* m = client.multi.get();
  if (m == nullptr || !m->active || m->dirty_exec) return nullptr;  // the handler answers
  std::vector<bool> need(origin.count(), false);
  bool whole_there = true;  // every command alone on one same shard
  std::ptrdiff_t there = -2;
  for (const QueuedCommand& q : m->queued) {
    std::ptrdiff_t alone = -1;
    add_shards(origin, q, client, need, alone);
    whole_there = whole_there && alone >= 0 && (there == -2 || there == alone);
    there = alone;
  }
  for (const WatchedKey& w : m->watched) need[key_shard(w.key, origin.count())] = true;
  std::vector<std::size_t> shards;
  for (std::size_t s = 0; s < need.size(); ++s) {
    if (need[s]) shards.push_back(s);
  }
  const bool here_only = shards.empty() || (shards.size() == 1 && shards.front() == origin.index());
  if (here_only && gate_open) return nullptr;
  std::vector<WatchedKey> watched;
  WatchTicket* ticket = m->take_watches(watched);
  std::vector<QueuedCommand> queued = std::move(m->queued);
  m->discard(origin.state().store());  // nothing left to unwatch: the job has it
  whole_there = whole_there && shards.size() == 1 && shards.front() != origin.index();
  auto job = std::make_unique<TxJob>(origin, client, std::move(queued), ticket, std::move(watched), shards, whole_there);
  job->set_resp(client.resp);
  return job;
}

std::unique_ptr<ShardJob> plan_watch(KvShard& origin, ClientInfo& client, std::span<const std::string_view> argv) {
  if (in_multi(client)) return nullptr;  // the handler's error
  MultiState& m = ensure_multi(client);
  if (m.watch_dirty()) return nullptr;
  std::vector<WatchJob::Key> keys;
  bool remote = false;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const auto known = [&](std::string_view key) {
      return std::any_of(m.watched.begin(), m.watched.end(), [&](const WatchedKey& w) { return w.db == client.db && w.key == key; });
    };
    if (known(argv[i])) continue;
    const std::size_t shard = key_shard(argv[i], origin.count());
    remote = remote || shard != origin.index();
    keys.push_back({std::string(argv[i]), shard});
    m.watched.push_back({client.db, std::string(argv[i]), shard == origin.index()});
  }
  if (!remote) {  // the handler registers them here: it finds them listed already
    m.watched.resize(m.watched.size() - keys.size());
    return nullptr;
  }
  auto job = std::make_unique<WatchJob>(origin, client.db, m.ticket(), std::move(keys));
  job->set_resp(client.resp);
  job->share_gates();
  return job;
}

}  // namespace duet::kv
