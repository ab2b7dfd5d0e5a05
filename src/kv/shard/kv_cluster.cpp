#include "kv/shard/kv_cluster.hpp"

#include <functional>
#include <string>
#include <vector>

#include "kv/shard/key_shard.hpp"
#include "kv/shard/remote_batch.hpp"

namespace duet::kv {

KvShard::KvShard(KvCluster& cluster, std::size_t index, ServerConfig config)
    : cluster_(&cluster), index_(index), state_(std::move(config)) {
  state_.set_event_relay(&events_);
}

KvShard::~KvShard() {
  for (RemoteBatch* batch : batch_pool_) delete batch;
}

RemoteBatch* KvShard::take_batch() noexcept {
  if (batch_pool_.empty()) return nullptr;
  RemoteBatch* batch = batch_pool_.back();
  batch_pool_.pop_back();
  return batch;
}

// A few per connection in flight at most; past 256 spare ones, give memory back.
void KvShard::keep_batch(RemoteBatch* batch) noexcept {
  if (batch_pool_.size() >= 256) {
    delete batch;
    return;
  }
  try {
    batch_pool_.push_back(batch);
  } catch (...) {
    delete batch;
  }
}

KvCluster::KvCluster(std::size_t shards, const ServerConfig& config) {
  shards_.reserve(shards);
  for (std::size_t i = 0; i < shards; ++i) shards_.push_back(std::make_unique<KvShard>(*this, i, config));
  for (std::size_t i = 0; i < shards; ++i) {
    shards_[i]->state().clients().number_ids(i + 1, shards);
    shards_[i]->state().set_shard_count(shards);
    shards_[i]->state().pubsub().set_listening(&listening_, std::uint64_t{1} << i);
  }
}

namespace {

struct Spread;
struct Copy final : LoopMessage {
  Spread* spread = nullptr;
  std::size_t shard = 0;
};
struct Spread {
  KvCluster* cluster = nullptr;
  std::unique_ptr<Copy[]> copies;
  std::size_t remaining = 0;  // shard 0's thread
  std::function<void()> done;
};

void copy_keys(LoopMessage* msg) noexcept;
void copied(LoopMessage* msg) noexcept;

// On shard k: take its keys from shard 0's store (shard 0 only waits meanwhile).
void copy_keys(LoopMessage* msg) noexcept {
  auto& c = static_cast<Copy&>(*msg);
  KvCluster& cluster = *c.spread->cluster;
  Store& source = cluster.shard(0).state().store();
  Store& target = cluster.shard(c.shard).state().store();
  for (int db = 0; db < Store::db_count; ++db) {
    source.db(db).scan(0, SIZE_MAX, 0, [&](Entry& e) {  // now = 0: read, never expire, on a store not ours
      if (key_shard(as_view(e.key), cluster.size()) != c.shard) return;
      bool created = false;
      Entry& mine = target.db(db).upsert(as_view(e.key), 0, created);
      mine.value = e.value.clone();  // allocated here, on the shard that will free it
      target.db(db).set_expire(mine, source.db(db).expire_at(e));
    });
  }
  c.run_ = &copied;
  cluster.send(0, c);
}

// On shard 0: the last report drops the moved keys and goes on.
void copied(LoopMessage* msg) noexcept {
  Spread* spread = static_cast<Copy&>(*msg).spread;
  if (--spread->remaining != 0) return;
  spread->cluster->drop_moved_keys();
  auto done = std::move(spread->done);
  delete spread;
  done();
}

}  // namespace

// Shard k copies its keys out of shard 0's store on its own thread (so its
// allocations count as its memory: detail::CountingAllocator) and reports
// back; once all have, shard 0 drops what it no longer owns. Nothing blocks:
// a shard's sends wake their targets only at the end of its turn.
void KvCluster::redistribute_keys(std::function<void()> done) {
  if (size() < 2) return done();
  auto* spread = new Spread{this, std::make_unique<Copy[]>(size()), size() - 1, std::move(done)};
  for (std::size_t k = 1; k < size(); ++k) {
    Copy& copy = spread->copies[k];
    copy.spread = spread;
    copy.shard = k;
    copy.run_ = &copy_keys;
    send(k, copy);
  }
}

void KvCluster::drop_moved_keys() {
  Store& from = shard(0).state().store();
  for (int db = 0; db < Store::db_count; ++db) {
    std::vector<Entry*> moved;
    from.db(db).scan(0, SIZE_MAX, 0, [&](Entry& e) {
      if (key_shard(as_view(e.key), size()) != 0) moved.push_back(&e);
    });
    for (Entry* e : moved) from.db(db).erase(*e);  // entries never move: the pointers hold
  }
}

}  // namespace duet::kv
