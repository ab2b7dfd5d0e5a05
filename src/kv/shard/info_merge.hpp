// duet::kv::merge_info — one INFO reply for a server whose keyspace is split
// over shards, from every shard's own INFO text.
//
// Contract
// - texts[i] is shard i's INFO text (the bulk's content); origin is the
//   connection's shard. The result has origin's sections and lines in its
//   order, with every counter (clients, commands, bytes, hits, misses,
//   expired keys, memory, pub/sub counts) the sum over shards,
//   used_memory_human recomputed, and the Keyspace section's dbN lines summed
//   per database over every shard that has keys there. The Persistence
//   section is shard 0's (the append-only file lives there). texts[0] is
//   shard 0's text.
// - Pub/sub counts (pubsub_channels, pubsub_patterns, pubsubshard_channels)
//   are Redis's: distinct names, so a channel with subscribers on two shards
//   counts once. A shard's INFO text cannot say which names it counted, so
//   each shard's names are copied on its own thread (PubSubNames::of) and
//   counted here (distinct_counts).
// - merge_info and distinct_counts are pure, any thread; PubSubNames::of on
//   the registry's thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace duet::kv {

class PubSub;

// One shard's pub/sub names, copied so that another thread may count them.
struct PubSubNames {
  std::vector<std::string> channels;
  std::vector<std::string> patterns;
  std::vector<std::string> shard_channels;
  // Everything, or the patterns alone (PUBSUB NUMPAT).
  [[nodiscard]] static PubSubNames of(const PubSub& registry, bool patterns_only = false);
};

struct PubSubCounts {
  std::uint64_t channels = 0;
  std::uint64_t patterns = 0;
  std::uint64_t shard_channels = 0;
};

// Names counted once however many shards have them.
[[nodiscard]] PubSubCounts distinct_counts(std::span<const PubSubNames> shards);

[[nodiscard]] std::string merge_info(std::span<const std::string_view> texts, std::size_t origin,
                                     const PubSubCounts& pubsub);

}  // namespace duet::kv
