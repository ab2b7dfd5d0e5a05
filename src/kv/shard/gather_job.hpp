// duet::kv::GatherJob — a command whose keys must be read and written
// together (SMOVE, LMOVE, RPOPLPUSH, SINTERSTORE, SUNION, COPY ...) when they
// live on several shards.
//
// Contract
// - Each part's shard encodes its keys' values (ValueRecords) and expiries
//   at the job's instant, gates held. On the origin the command then runs
//   whole, with its own handler, on a Store of copies built from them (so
//   the semantics are the handler's, written once for one shard and many);
//   each key whose state changed goes back as records to its shard, which
//   replaces the key just before its gate opens. A read-only command shares
//   its gates and never writes back.
// - Cost: every key's whole value crosses twice (there and, when changed,
//   back), so a SUNIONSTORE over two big sets on two shards copies both;
//   commands over keys of one shard never come here (the planner runs them
//   where the keys are).
// - The log: the job logs the command once, whole (ShardJob::log_as).
//   Thread rules as ShardJob's.
//
//   auto job = std::make_unique<GatherJob>(origin, db, std::move(keys), argv, reads_only);
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kv/keyspace.hpp"
#include "kv/shard/shard_job.hpp"

namespace duet::kv {

class GatherJob final : public ShardJob {
 public:
  struct Key {
    int db;
    std::string name;
    std::size_t shard;
  };

  GatherJob(KvShard& origin, int db, std::vector<Key> keys, std::span<const std::string_view> argv, bool reads_only);

 private:
  struct State {
    bool present = false;
    std::string records;  // ValueRecords under the key's own name
    std::int64_t expire_at = Entry::no_expiry;
    bool operator==(const State&) const = default;
  };

  void run_part(KvShard& shard, Part& part) override;
  bool two_phase() const noexcept override { return !reads_only_; }
  bool decide() override;
  void apply_part(KvShard& shard, Part& part) override;
  void finish(std::string& reply) override;
  void run_whole();

  std::vector<Key> keys_;
  std::vector<State> before_, after_;
  Args argv_;
  bool reads_only_;
  bool ran_ = false;
  std::string reply_;
};

}  // namespace duet::kv
