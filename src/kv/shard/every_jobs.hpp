// duet::kv every-shard jobs — commands over the whole keyspace or the whole
// server: the same command on every shard, the replies merged (EveryJob);
// RANDOMKEY (a key of a shard picked by its size); SCAN (the shard its cursor
// names, the cursor re-encoded). Contract and threads as ShardJob's
// (kv/shard/shard_job.hpp); made by plan_job (kv/shard/shard_jobs.hpp) only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kv/shard/info_merge.hpp"
#include "kv/shard/shard_job.hpp"

namespace duet::kv {

class EveryJob final : public ShardJob {
 public:
  enum class Merge : unsigned char {
    sum,          // DBSIZE, PUBLISH: integers added
    patterns,     // PUBSUB NUMPAT: the patterns of every shard, each counted once
    concat,       // KEYS: arrays joined
    all_ok,       // FLUSHDB, FLUSHALL: the first error, else OK
    origin,       // CONFIG SET/RESETSTAT: every shard applies it, the origin's reply
    lines,        // CLIENT LIST: bulk strings joined
    killed,       // CLIENT KILL: counts added, or OK if any shard had the client (duet has no CLIENT KILL yet: its error)
    union_names,  // PUBSUB CHANNELS: arrays joined without repeats
    count_pairs,  // PUBSUB NUMSUB: [name, count, ...] with counts added
    info,         // INFO: counters summed, pub/sub names counted once (kv/shard/info_merge.hpp)
  };
  EveryJob(KvShard& origin, int db, Merge merge, std::size_t shards, std::span<const std::string_view> argv);

 private:
  void run_part(KvShard& shard, Part& part) override;
  void finish(std::string& reply) override;
  Merge merge_;
  std::size_t origin_shard_;
  // By shard, for Merge::patterns and info: each written on its shard's
  // thread by run_part, read by finish once every part has run.
  std::vector<PubSubNames> names_;
};

class RandomKeyJob final : public ShardJob {
 public:
  RandomKeyJob(KvShard& origin, int db, std::size_t shards);

 private:
  void run_part(KvShard& shard, Part& part) override;
  void finish(std::string& reply) override;
  std::vector<std::size_t> sizes_;  // by shard
  KvShard& origin_;
};

// SCAN's cursor here is inner * shards + shard: `shard` is where the scan
// is, `inner` that shard's own cursor (a slot number, so well below 2^32).
class ScanJob final : public ShardJob {
 public:
  ScanJob(KvShard& origin, int db, std::size_t shards, std::uint64_t cursor, std::span<const std::string_view> argv);

 private:
  void run_part(KvShard& shard, Part& part) override { run_argv(shard, part.argv, part.reply); }
  void finish(std::string& reply) override;
  std::size_t shards_;
  std::size_t shard_;
};

}  // namespace duet::kv
