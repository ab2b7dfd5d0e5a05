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
// - Pub/sub counts add each shard's own: a channel with subscribers on two
//   shards counts twice (docs/KV.md, "Many shards").
// - Pure; any thread.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace duet::kv {

[[nodiscard]] std::string merge_info(std::span<const std::string_view> texts, std::size_t origin);

}  // namespace duet::kv
