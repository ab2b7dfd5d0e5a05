#include "kv/shard/kv_cluster.hpp"

#include <latch>
#include <string>
#include <vector>

#include "kv/shard/key_shard.hpp"
#include "kv/shard/remote_batch.hpp"

namespace duet::kv {

KvShard::KvShard(KvCluster& cluster, std::size_t index, ServerConfig config)
    : cluster_(&cluster), index_(index), state_(std::move(config)) {}

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
    shards_[i]->state().set_memory_shares(shards);
  }
}

// Shard k copies its keys out of shard 0's store on its own thread (so its
// allocations count as its memory: detail::CountingAllocator), while shard
// 0's thread waits; then shard 0 drops what it no longer owns.
void KvCluster::redistribute_keys() {
  if (size() < 2) return;
  Store& from = shard(0).state().store();
  struct Copy final : LoopMessage {
    KvCluster* cluster = nullptr;
    std::size_t shard = 0;
    std::latch* done = nullptr;
  };
  std::latch done(static_cast<std::ptrdiff_t>(size() - 1));
  std::vector<Copy> copies(size());
  for (std::size_t k = 1; k < size(); ++k) {
    copies[k].cluster = this;
    copies[k].shard = k;
    copies[k].done = &done;
    copies[k].run_ = [](LoopMessage* msg) noexcept {
      auto& copy = static_cast<Copy&>(*msg);
      KvCluster& cluster = *copy.cluster;
      Store& source = cluster.shard(0).state().store();
      Store& target = cluster.shard(copy.shard).state().store();
      for (int db = 0; db < Store::db_count; ++db) {
        source.db(db).scan(0, SIZE_MAX, 0, [&](Entry& e) {  // now = 0: read, never expire, on a store not ours
          if (key_shard(as_view(e.key), cluster.size()) != copy.shard) return;
          bool created = false;
          Entry& mine = target.db(db).upsert(as_view(e.key), 0, created);
          mine.value.assign(e.value.data(), e.value.size());
          target.db(db).set_expire(mine, e.expire_at);
        });
      }
      copy.done->count_down();
    };
    send(k, copies[k]);
  }
  done.wait();
  for (int db = 0; db < Store::db_count; ++db) {
    std::vector<Entry*> moved;
    from.db(db).scan(0, SIZE_MAX, 0, [&](Entry& e) {
      if (key_shard(as_view(e.key), size()) != 0) moved.push_back(&e);
    });
    for (Entry* e : moved) from.db(db).erase(*e);  // entries never move: the pointers hold
  }
}

}  // namespace duet::kv
