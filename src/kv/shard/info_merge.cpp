#include "kv/shard/info_merge.hpp"

#include <absl/container/flat_hash_set.h>

#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "kv/detail/numbers.hpp"
#include "kv/pubsub.hpp"

namespace duet::kv {
namespace {

constexpr std::string_view summed[] = {
    "connected_clients", "blocked_clients", "total_connections_received", "total_commands_processed", "total_net_input_bytes",
    "total_net_output_bytes", "rejected_connections", "expired_keys", "keyspace_hits", "keyspace_misses",
    "used_memory",
};

// The counts of names, which shards share: never summed.
std::optional<std::uint64_t> distinct_line(std::string_view key, const PubSubCounts& pubsub) {
  if (key == "pubsub_channels") return pubsub.channels;
  if (key == "pubsub_patterns") return pubsub.patterns;
  if (key == "pubsubshard_channels") return pubsub.shard_channels;
  return std::nullopt;
}

std::vector<std::string> copied(const std::vector<std::string_view>& names) { return {names.begin(), names.end()}; }

template <typename Member>
std::uint64_t distinct(std::span<const PubSubNames> shards, Member member) {
  absl::flat_hash_set<std::string_view> seen;
  for (const PubSubNames& names : shards) seen.insert((names.*member).begin(), (names.*member).end());
  return seen.size();
}

bool is_summed(std::string_view key) {
  for (std::string_view s : summed) {
    if (s == key) return true;
  }
  return false;
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    std::size_t eol = text.find("\r\n");
    lines.push_back(text.substr(0, eol));
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 2);
  }
  return lines;
}

std::uint64_t number(std::string_view text) {
  std::uint64_t n = 0;
  std::from_chars(text.data(), text.data() + text.size(), n);
  return n;
}

struct DbCounts {
  std::uint64_t keys = 0;
  std::uint64_t expires = 0;
};

// "db3:keys=10,expires=2,avg_ttl=0" → counts[3] += {10, 2}.
void add_db_line(std::string_view line, std::map<int, DbCounts>& counts) {
  const std::size_t colon = line.find(':');
  const int db = static_cast<int>(number(line.substr(2, colon - 2)));
  const std::size_t keys = line.find("keys=");
  const std::size_t expires = line.find("expires=");
  if (keys == std::string_view::npos || expires == std::string_view::npos) return;
  counts[db].keys += number(line.substr(keys + 5));
  counts[db].expires += number(line.substr(expires + 8));
}

}  // namespace

PubSubNames PubSubNames::of(const PubSub& registry, bool patterns_only) {
  PubSubNames names;
  names.patterns = copied(registry.active_patterns());
  if (patterns_only) return names;
  names.channels = copied(registry.active_channels("", true));
  names.shard_channels = copied(registry.active_channels("", true, true));
  return names;
}

PubSubCounts distinct_counts(std::span<const PubSubNames> shards) {
  return {distinct(shards, &PubSubNames::channels), distinct(shards, &PubSubNames::patterns),
          distinct(shards, &PubSubNames::shard_channels)};
}

std::string merge_info(std::span<const std::string_view> texts, std::size_t origin, const PubSubCounts& pubsub) {
  std::map<std::string_view, std::uint64_t> sums;
  std::map<int, DbCounts> dbs;
  for (std::string_view text : texts) {
    for (std::string_view line : lines_of(text)) {
      if (line.size() > 2 && line.substr(0, 2) == "db" && line.find(":keys=") != std::string_view::npos) {
        add_db_line(line, dbs);
        continue;
      }
      const std::size_t colon = line.find(':');
      if (colon == std::string_view::npos || !is_summed(line.substr(0, colon))) continue;
      sums[line.substr(0, colon)] += number(line.substr(colon + 1));
    }
  }
  // The append-only file lives on shard 0: its Persistence section is the one.
  std::vector<std::string_view> persistence;
  bool in_persistence = false;
  for (std::string_view line : lines_of(texts[0])) {
    if (line.starts_with("#")) in_persistence = line == "# Persistence";
    if (in_persistence && !line.empty() && !line.starts_with("#")) persistence.push_back(line);
  }
  std::string out;
  in_persistence = false;
  for (std::string_view line : lines_of(texts[origin])) {
    if (line.starts_with("#")) in_persistence = line == "# Persistence";
    if (in_persistence && !line.empty() && !line.starts_with("#")) continue;
    if (line.size() > 2 && line.substr(0, 2) == "db" && line.find(":keys=") != std::string_view::npos) continue;
    const std::size_t colon = line.find(':');
    const std::string_view key = colon == std::string_view::npos ? line : line.substr(0, colon);
    if (auto n = colon == std::string_view::npos ? std::nullopt : distinct_line(key, pubsub)) {
      out.append(key).append(":").append(std::to_string(*n)).append("\r\n");
    } else if (colon != std::string_view::npos && is_summed(key)) {
      out.append(key).append(":").append(std::to_string(sums[key])).append("\r\n");
    } else if (key == "used_memory_human") {
      out.append(key).append(":").append(detail::human_bytes(sums["used_memory"])).append("\r\n");
    } else {
      out.append(line).append("\r\n");
    }
    if (line == "# Persistence") {
      for (std::string_view p : persistence) out.append(p).append("\r\n");
    }
    if (line == "# Keyspace") {
      for (const auto& [db, c] : dbs) {
        out += "db" + std::to_string(db) + ":keys=" + std::to_string(c.keys) + ",expires=" + std::to_string(c.expires) +
               ",avg_ttl=0\r\n";
      }
    }
  }
  return out;
}

}  // namespace duet::kv
