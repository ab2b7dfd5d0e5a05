// duet::kv::plan_job — the jobs of the commands that span shards, and the
// one place that says how each such command is split and merged.
//
// Contract
// - plan_job(origin, cmd, argv, client, single) returns the job for a command
//   that touches more than one shard (not started), or nullptr with `single`
//   set to the one shard that should run it as it is (its keys all live there;
//   or it is a command of the connection itself: the origin).
// - Splits (docs/KV.md "Many shards"): DEL/UNLINK/EXISTS/MGET/MSET by key
//   (replies summed, or re-ordered as the keys were); MSETNX all or nothing;
//   RENAME/RENAMENX across two shards; SCAN on the shard its cursor names;
//   DBSIZE, KEYS, RANDOMKEY, FLUSHDB, FLUSHALL, PUBLISH, SPUBLISH, CONFIG
//   SET/RESETSTAT, CLIENT LIST/KILL, PUBSUB CHANNELS/NUMSUB/NUMPAT on every
//   shard with the replies merged.
// - A command split by key is whole before it is split: one whose keys and
//   values do not form whole groups (MSET a 1 b) gets no job and runs on the
//   origin, whose handler answers Redis's error, so no part ever runs alone.
//   A command only joins the split table if every check its handler makes
//   is of that kind (arity and whole groups); a part never fails alone.
// - A job of a command that only reads (reads_only: Redis's "readonly" flag)
//   shares its gates with other readers; any other takes them alone.
// - The origin shard's thread.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include "kv/client_registry.hpp"
#include "kv/command_table.hpp"
#include "kv/shard/shard_job.hpp"

namespace duet::kv {

class KvShard;

// The command only reads keys (MGET, EXISTS, DBSIZE, SCAN ...): inline, it
// is asked once per command on the sharded path.
[[nodiscard]] inline bool reads_only(const Command& cmd) noexcept { return (cmd.flags & cmd_readonly) != 0; }

[[nodiscard]] std::unique_ptr<ShardJob> plan_job(KvShard& origin, const Command& cmd,
                                                 std::span<const std::string_view> argv, const ClientInfo& client,
                                                 std::size_t& single);

}  // namespace duet::kv
