// plan_job: the command → split table of the sharded keyspace.
#include "kv/shard/shard_jobs.hpp"

#include <absl/container/inlined_vector.h>

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

#include "kv/command_table.hpp"
#include "kv/detail/command_util.hpp"
#include "kv/shard/every_jobs.hpp"
#include "kv/shard/gather_job.hpp"
#include "kv/shard/key_jobs.hpp"
#include "kv/shard/key_shard.hpp"
#include "kv/shard/kv_cluster.hpp"

namespace duet::kv {
namespace {

using detail::equals_ci;

// The argument positions of the command's keys: first, then every step, up to last (-1: the end).
struct KeyRange {
  std::size_t first, end, step;
};
KeyRange key_range(const Command& cmd, std::size_t argc) {
  const std::size_t first = static_cast<std::size_t>(cmd.first_key);
  // A negative last key counts from the end: -1 the last argument, -2 the one before (BLPOP's timeout).
  std::size_t end = cmd.last_key < 0 ? argc + 1 - static_cast<std::size_t>(-cmd.last_key)
                                     : static_cast<std::size_t>(cmd.last_key) + 1;
  return {first, std::min(end, argc), static_cast<std::size_t>(std::max(cmd.key_step, 1))};
}

std::unique_ptr<ShardJob> split_keys(KvShard& origin, const Command& cmd, std::span<const std::string_view> argv,
                                     int db, std::size_t& single) {
  const std::size_t n = origin.count();
  const KeyRange keys = key_range(cmd, argv.size());
  if (keys.first >= keys.end) return nullptr;
  // The command is checked whole before any part exists: its keys (with
  // their values) in whole groups, as its handler checks (MSET's pairs:
  // Redis's msetCommand answers the arity error and writes nothing). Split
  // first, a part with whole pairs was applied while another answered the
  // error. So a command that is not whole runs whole, on the origin
  // (`single` is its shard), where the handler says so in Redis's words.
  if (cmd.last_key < 0 && (argv.size() - keys.first) % keys.step != 0) return nullptr;
  // Scratch on the stack for the usual few keys and shards (abseil's
  // InlinedVector): a heap buffer costs an allocation and a free per command.
  absl::InlinedVector<std::uint32_t, 32> owner;
  owner.reserve((keys.end - keys.first + keys.step - 1) / keys.step);
  bool spread = false;
  for (std::size_t i = keys.first; i < keys.end; i += keys.step) {
    owner.push_back(static_cast<std::uint32_t>(key_shard(argv[i], n)));
    spread = spread || owner.back() != owner.front();
  }
  if (!spread) {
    single = owner.front();
    return nullptr;
  }
  const bool msetnx = cmd.route == ShardRoute::msetnx;
  const SplitJob::Merge merge = cmd.name == "mget"  ? SplitJob::Merge::mget
                                : cmd.name == "mset" ? SplitJob::Merge::ok
                                                     : SplitJob::Merge::sum;
  std::unique_ptr<ShardJob> job;
  SplitJob* split = nullptr;
  MsetnxJob* setnx = nullptr;
  if (msetnx) {
    auto j = std::make_unique<MsetnxJob>(origin, db);
    setnx = j.get();
    setnx->sets.resize(n);
    job = std::move(j);
  } else {
    auto j = std::make_unique<SplitJob>(origin, db, merge);
    split = j.get();
    job = std::move(j);
  }
  if (split != nullptr && merge == SplitJob::Merge::mget) split->slots.reserve(owner.size());
  // Each part's arguments sized once, exactly (most of a job's cost is its
  // allocations; a part never holds more than its own keys and values).
  absl::InlinedVector<std::pair<std::size_t, std::size_t>, 8> part_size(n);  // bytes, arguments
  std::size_t k = 0;
  for (std::size_t i = keys.first; i < keys.end; i += keys.step, ++k) {
    for (std::size_t a = i; a < i + keys.step && a < argv.size(); ++a) {
      if (msetnx && a != i) continue;  // its part is EXISTS: keys only
      part_size[owner[k]].first += argv[a].size();
      ++part_size[owner[k]].second;
    }
  }
  k = 0;
  for (std::size_t i = keys.first; i < keys.end; i += keys.step, ++k) {
    ShardJob::Part& p = job->part(owner[k]);
    if (p.argv.empty()) {
      const auto [bytes, count] = part_size[owner[k]];
      p.argv.reserve(bytes + argv[0].size(), count + 1);
      // The reply's room, made here on the origin, where the job is freed
      // (ShardJob::drop_ref): one allocation for a typical reply, and none
      // that another thread makes and the origin frees.
      if (split != nullptr) p.reply.reserve(256);
      p.argv.push(msetnx ? std::string_view("exists") : argv[0]);
    }
    if (split != nullptr && merge == SplitJob::Merge::mget) split->slots.push_back({owner[k], p.argv.size() - 1});
    for (std::size_t a = i; a < i + keys.step && a < argv.size(); ++a) {
      if (msetnx) {
        Args& set = setnx->sets[owner[k]];
        if (set.empty()) set.push("mset");
        set.push(argv[a]);
        if (a == i) p.argv.push(argv[a]);  // EXISTS takes the key only
      } else {
        p.argv.push(argv[a]);
      }
    }
  }
  return job;
}

// COPY's DB option, as copyCommand reads it; false when it is malformed (the
// handler then answers the error wherever it runs).
bool copy_target_db(std::span<const std::string_view> argv, int& db) {
  for (std::size_t j = 3; j + 1 < argv.size(); ++j) {
    if (!equals_ci(argv[j], "db")) continue;
    std::int64_t n = 0;
    if (!detail::parse_i64(argv[j + 1], n) || n < 0 || n >= Store::db_count) return false;
    db = static_cast<int>(n);
    ++j;
  }
  return true;
}

// The keys of a gather command, each with its database; false when the
// command is malformed (a bad numkeys, a bad DB): it then runs whole where it
// is, and its handler answers the error before it touches a key.
bool gather_keys(const Command& cmd, std::span<const std::string_view> argv, int db,
                 std::vector<GatherJob::Key>& keys) {
  std::size_t first = 0;
  std::size_t end = 0;
  std::size_t step = 1;
  if (cmd.numkeys_at > 0) {
    const auto at = static_cast<std::size_t>(cmd.numkeys_at);
    std::int64_t n = 0;
    if (argv.size() <= at || !detail::parse_i64(argv[at], n) || n < 1 ||
        static_cast<std::uint64_t>(n) > argv.size() - at - 1) {
      return false;
    }
    first = at + 1;
    end = first + static_cast<std::size_t>(n);
    // ZUNIONSTORE's destination: keys named by the table before the counted ones.
    for (int i = cmd.first_key; i > 0 && i <= cmd.last_key; ++i) {
      keys.push_back({db, std::string(argv[static_cast<std::size_t>(i)]), 0});
    }
  } else {
    const KeyRange range = key_range(cmd, argv.size());
    first = range.first;
    end = range.end;
    step = range.step;
  }
  int second_db = db;
  if (cmd.name == "copy" && !copy_target_db(argv, second_db)) return false;
  for (std::size_t i = first; i < end; i += step) {
    keys.push_back({keys.empty() ? db : (cmd.name == "copy" ? second_db : db), std::string(argv[i]), 0});
  }
  if (cmd.written_key != nullptr) {  // SORT ... STORE dst
    if (const std::size_t at = cmd.written_key(argv); at != 0) keys.push_back({db, std::string(argv[at]), 0});
  }
  return !keys.empty();
}

std::unique_ptr<ShardJob> gather(KvShard& origin, const Command& cmd, std::span<const std::string_view> argv, int db,
                                 std::size_t& single) {
  std::vector<GatherJob::Key> keys;
  if (!gather_keys(cmd, argv, db, keys)) return nullptr;
  bool spread = false;
  for (GatherJob::Key& k : keys) {
    k.shard = key_shard(k.name, origin.count());
    spread = spread || k.shard != keys.front().shard;
  }
  single = keys.front().shard;
  if (!spread) return nullptr;
  return std::make_unique<GatherJob>(origin, db, std::move(keys), argv, reads_only(cmd));
}

std::unique_ptr<ShardJob> every(KvShard& origin, int db, EveryJob::Merge merge, std::span<const std::string_view> argv) {
  return std::make_unique<EveryJob>(origin, db, merge, origin.count(), argv);
}

std::unique_ptr<ShardJob> by_subcommand(KvShard& origin, const Command& cmd, std::span<const std::string_view> argv,
                                        int db) {
  using M = EveryJob::Merge;
  const std::string_view sub = argv[1];
  if (cmd.name == "config") {
    if (equals_ci(sub, "set") || equals_ci(sub, "resetstat")) return every(origin, db, M::origin, argv);
  } else if (cmd.name == "client") {
    if (equals_ci(sub, "list")) return every(origin, db, M::lines, argv);
    if (equals_ci(sub, "kill")) return every(origin, db, M::killed, argv);
    if (equals_ci(sub, "pause") || equals_ci(sub, "unpause")) return every(origin, db, M::origin, argv);
  } else if (cmd.name == "pubsub") {
    if (equals_ci(sub, "channels") || equals_ci(sub, "shardchannels")) return every(origin, db, M::union_names, argv);
    if (equals_ci(sub, "numsub") || equals_ci(sub, "shardnumsub")) return every(origin, db, M::count_pairs, argv);
    if (equals_ci(sub, "numpat")) return every(origin, db, M::patterns, argv);
  }
  return nullptr;
}

std::unique_ptr<ShardJob> every_shard(KvShard& origin, const Command& cmd, std::span<const std::string_view> argv,
                                      int db) {
  using M = EveryJob::Merge;
  const std::string_view name = cmd.name;
  if (name == "randomkey") return std::make_unique<RandomKeyJob>(origin, db, origin.count());
  if (name == "keys") return every(origin, db, M::concat, argv);
  if (name == "flushdb" || name == "flushall") return every(origin, db, M::all_ok, argv);
  if (name == "dbsize" || name == "publish" || name == "spublish") return every(origin, db, M::sum, argv);
  if (name == "info") return every(origin, db, M::info, argv);
  // SHUTDOWN and BGREWRITEAOF run on the connection's shard: the server's
  // edge stops every shard, and the one append-only file lives on shard 0.
  return nullptr;
}

}  // namespace

namespace {

std::unique_ptr<ShardJob> plan(KvShard& origin, const Command& cmd, std::span<const std::string_view> argv,
                               const ClientInfo& client, std::size_t& single) {
  single = origin.index();
  const int db = client.db;
  switch (cmd.route) {
    case ShardRoute::here:
    case ShardRoute::watch:  // kv/shard/tx_job.hpp plans these two
    case ShardRoute::exec:
      return nullptr;
    case ShardRoute::derived:
    case ShardRoute::msetnx:
      if (cmd.first_key == 0) return nullptr;
      return split_keys(origin, cmd, argv, db, single);
    case ShardRoute::rename: {
      const std::size_t from = key_shard(argv[1], origin.count());
      const std::size_t to = key_shard(argv[2], origin.count());
      single = from;
      if (from == to) return nullptr;
      return std::make_unique<RenameJob>(origin, db, cmd.name == "renamenx", std::string(argv[1]),
                                         std::string(argv[2]), from, to);
    }
    case ShardRoute::gather:
    // A blocking command whose keys live on several shards: its keys at one
    // instant, popped from (or not) as a whole, on copies that cannot block.
    case ShardRoute::blocking:
      return gather(origin, cmd, argv, db, single);
    case ShardRoute::scan: {
      std::uint64_t cursor = 0;
      if (!detail::parse_scan_cursor(argv[1], cursor)) return nullptr;
      return std::make_unique<ScanJob>(origin, db, origin.count(), cursor, argv);
    }
    case ShardRoute::every:
      return every_shard(origin, cmd, argv, db);
    case ShardRoute::subcommand:
      if ((cmd.name == "object" || cmd.name == "memory") && argv.size() >= 3) {  // OBJECT ENCODING key ...
        single = key_shard(argv[2], origin.count());
        return nullptr;
      }
      if (cmd.name == "client" && argv.size() >= 3 && equals_ci(argv[1], "unblock")) {  // the id's shard
        std::int64_t id = 0;                              // (ids are shard + 1 + k * N)
        if (detail::parse_i64(argv[2], id) && id >= 1) single = static_cast<std::size_t>(id - 1) % origin.count();
        return nullptr;
      }
      return by_subcommand(origin, cmd, argv, db);
  }
  return nullptr;
}

}  // namespace

std::unique_ptr<ShardJob> plan_job(KvShard& origin, const Command& cmd, std::span<const std::string_view> argv,
                                   const ClientInfo& client, std::size_t& single) {
  std::unique_ptr<ShardJob> job = plan(origin, cmd, argv, client, single);
  if (job == nullptr) return job;
  job->set_resp(client.resp);
  if ((cmd.flags & cmd_write) != 0) job->log_as(cmd, argv);
  if (reads_only(cmd)) job->share_gates();
  return job;
}

}  // namespace duet::kv
