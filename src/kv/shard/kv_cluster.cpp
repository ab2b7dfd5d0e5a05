#include "kv/shard/kv_cluster.hpp"

namespace duet::kv {

KvShard::KvShard(KvCluster& cluster, std::size_t index, ServerConfig config)
    : cluster_(&cluster), index_(index), state_(std::move(config)) {}

KvCluster::KvCluster(std::size_t shards, const ServerConfig& config) {
  shards_.reserve(shards);
  for (std::size_t i = 0; i < shards; ++i) shards_.push_back(std::make_unique<KvShard>(*this, i, config));
  for (std::size_t i = 0; i < shards; ++i) shards_[i]->state().clients().number_ids(i + 1, shards);
}

}  // namespace duet::kv
