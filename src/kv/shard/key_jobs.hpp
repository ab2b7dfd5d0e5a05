// duet::kv key jobs — commands over keys that live on several shards:
// split by key, run as the same command on each shard, merged (SplitJob);
// MSETNX (all or nothing) and RENAME across shards (two phases).
// Contract and threads as ShardJob's (kv/shard/shard_job.hpp); made by
// plan_job (kv/shard/shard_jobs.hpp) only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kv/keyspace.hpp"
#include "kv/shard/shard_job.hpp"

namespace duet::kv {

// DEL, UNLINK, EXISTS (summed), MSET (OK), MGET (values back in key order).
class SplitJob final : public ShardJob {
 public:
  enum class Merge : unsigned char { sum, ok, mget };
  SplitJob(KvShard& origin, int db, Merge merge) noexcept : ShardJob(origin, db), merge_(merge) {}
  // MGET: key i's value is element `position` of shard `shard`'s reply.
  struct Slot {
    std::size_t shard;
    std::size_t position;
  };
  std::vector<Slot> slots;

 private:
  void run_part(KvShard& shard, Part& part) override;
  void finish(std::string& reply) override;
  Merge merge_;
};

// MSETNX: every part counts its existing keys; only if none exists anywhere
// does each part run its MSET.
class MsetnxJob final : public ShardJob {
 public:
  using ShardJob::ShardJob;
  std::vector<Args> sets;  // by shard number: that shard's "mset k v ..."

 private:
  // The check (EXISTS) is the job's probe: Redis's MSETNX looks its keys up
  // for a write, which fires no "keymiss".
  void run_part(KvShard& shard, Part& part) override { run_argv(shard, part.argv, part.reply, 2, true); }
  bool two_phase() const noexcept override { return true; }
  bool decide() override;
  void apply_part(KvShard& shard, Part& part) override;
  void finish(std::string& reply) override;
  bool applied_ = false;
};

// RENAME / RENAMENX with the two keys on two shards: read the source and see
// the destination, then (if it goes on) SET + PEXPIREAT there and DEL here.
class RenameJob final : public ShardJob {
 public:
  RenameJob(KvShard& origin, int db, bool nx, std::string from, std::string to, std::size_t from_shard,
            std::size_t to_shard);

 private:
  void run_part(KvShard& shard, Part& part) override;
  bool two_phase() const noexcept override { return true; }
  bool decide() override;
  void apply_part(KvShard& shard, Part& part) override;
  void finish(std::string& reply) override;

  bool nx_;
  std::string from_, to_;
  std::size_t from_shard_, to_shard_;
  bool found_ = false;
  bool target_exists_ = false;
  std::string records_;  // the source's value as ValueRecords, under the destination key
  std::int64_t expire_at_ = Entry::no_expiry;
  std::string reply_;
};

}  // namespace duet::kv
