#include "kv/shard/gather_job.hpp"

#include <memory>
#include <utility>

#include "kv/command_table.hpp"
#include "kv/shard/kv_cluster.hpp"
#include "kv/value/value_records.hpp"

namespace duet::kv {

GatherJob::GatherJob(KvShard& origin, int db, std::vector<Key> keys, std::span<const std::string_view> argv,
                     bool reads_only)
    : ShardJob(origin, db), keys_(std::move(keys)), reads_only_(reads_only) {
  before_.resize(keys_.size());
  after_.resize(keys_.size());
  argv_.assign(argv);
  for (const Key& k : keys_) part(k.shard);
}

void GatherJob::run_part(KvShard& shard, Part& part) {
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i].shard != part.shard) continue;
    Keyspace& keys = shard.state().store().db(keys_[i].db);
    const Entry* e = keys.find(keys_[i].name, now());
    if (e == nullptr) continue;
    before_[i] = {true, ValueRecords::encode(e->value, keys_[i].name), keys.expire_at(*e)};
  }
}

// On the origin: the keys rebuilt in a store of their own, the command run
// there by its own handler, and each key's state read back.
void GatherJob::run_whole() {
  ran_ = true;
  ServerState& state = origin().state();
  auto copies = std::make_unique<Store>();  // 16 empty databases: no allocation until a key arrives
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    const State& b = before_[i];
    if (!b.present) continue;
    Keyspace& keys = copies->db(keys_[i].db);
    if (keys.peek(keys_[i].name, now()) != nullptr) continue;  // the same key named twice
    ValueRecords::replay(state, *copies, keys_[i].db, b.records, now());
    keys.set_expire(*keys.peek(keys_[i].name, now()), b.expire_at);
  }
  std::vector<std::string_view> views;
  views.reserve(argv_.size());
  for (std::size_t i = 0; i < argv_.size(); ++i) views.push_back(argv_[i]);
  ClientInfo client;
  client.authenticated = true;
  client.db = db();
  client.resp = resp();  // the handler's reply goes to the connection as written
  CommandContext ctx{state, client, views, Reply(reply_, resp()), now(), copies.get()};
  ctx.deny_blocking = in_transaction();  // BLMOVE inside EXEC answers as Redis's MULTI does
  find_command(views[0])->handler(ctx);
  ++state.stats().commands_processed;
  if (reads_only_) return;
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    Keyspace& keys = copies->db(keys_[i].db);
    if (const Entry* e = keys.peek(keys_[i].name, now())) {
      after_[i] = {true, ValueRecords::encode(e->value, keys_[i].name), keys.expire_at(*e)};
    }
  }
}

bool GatherJob::decide() {
  run_whole();
  return before_ != after_;
}

void GatherJob::apply_part(KvShard& shard, Part& part) {
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i].shard != part.shard || before_[i] == after_[i]) continue;
    Keyspace& keys = shard.state().store().db(keys_[i].db);
    keys.erase(keys_[i].name, now());
    shard.state().store().touch(keys_[i].db, keys_[i].name);  // WATCH: the key changed
    const State& a = after_[i];
    if (!a.present) continue;
    ValueRecords::replay(shard.state(), shard.state().store(), keys_[i].db, a.records, now());
    if (Entry* e = keys.peek(keys_[i].name, now())) keys.set_expire(*e, a.expire_at);
  }
}

void GatherJob::finish(std::string& reply) {
  if (!ran_) run_whole();  // a read-only job: every part has run, no second phase
  reply = std::move(reply_);
}

}  // namespace duet::kv
