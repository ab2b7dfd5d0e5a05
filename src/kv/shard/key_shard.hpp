// duet::kv::key_shard — which shard owns a key when the keyspace is split
// over N shards (--threads N).
//
// Contract
// - key_shard(key, n) is in [0, n), the same for the same key in one process
//   (key_hash is seeded per process, and every shard is in one process).
// - It reads the hash's top 32 bits, scaled to n (Lemire's multiply-shift):
//   abseil's tables probe from the low bits and tag with 7 of them, so a shard
//   picked from low bits would leave every key of one shard with a biased
//   tag, and more tag collisions in each shard's index.
// - Pure; any thread.
//
//   std::size_t owner = key_shard("user:42", 2);
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kv/detail/key_hash.hpp"

namespace duet::kv {

// The same from a key's detail::key_hash (for a caller that needs it anyway).
[[nodiscard]] inline std::size_t hash_shard(std::size_t hash, std::size_t shards) noexcept {
  const std::uint64_t top = static_cast<std::uint64_t>(hash) >> 32;
  return static_cast<std::size_t>((top * shards) >> 32);
}

[[nodiscard]] inline std::size_t key_shard(std::string_view key, std::size_t shards) noexcept {
  return hash_shard(detail::key_hash(key), shards);
}

}  // namespace duet::kv
