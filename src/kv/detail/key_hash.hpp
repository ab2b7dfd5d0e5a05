// duet::kv::detail::key_hash — the keyspace's hash of a key.
//
// Contract
// - key_hash(bytes) is a 64-bit hash with every bit well mixed (abseil's tables
//   use the low bits for the probe start and 7 high bits as a tag), seeded per
//   process from an address (as abseil's own hash is), so the order keys land in
//   differs between runs and is not something a client can aim at cheaply.
//   set_key_hash_seed(s) fixes the seed instead (duet-kv-sim: a simulation
//   must place and order keys the same way on every run); call it before the
//   first key is hashed.
// - Inline and short: a key is hashed on every lookup, and redis-benchmark's
//   16-byte keys take two 8-byte loads and two multiplications (wyhash's mix).
// - Pure; any thread.
//
// - key_equal(a, b) is a == b, inline for keys up to 16 bytes (overlapping
//   8- or 4-byte loads instead of a call to memcmp).
//
//   std::size_t h = key_hash("key:000000000042");
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace duet::kv::detail {

inline const char key_hash_anchor = 0;  // its address (ASLR) seeds the hash
inline std::uint64_t key_hash_seed = reinterpret_cast<std::uintptr_t>(&key_hash_anchor);

inline void set_key_hash_seed(std::uint64_t seed) noexcept { key_hash_seed = seed; }

__extension__ using KeyHashWide = unsigned __int128;

inline std::uint64_t key_hash_mix(std::uint64_t a, std::uint64_t b) noexcept {
  KeyHashWide r = static_cast<KeyHashWide>(a) * b;
  return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
}

inline std::uint64_t key_hash_load(const char* p, std::size_t n) noexcept {  // n is 4 or 8
  std::uint64_t v = 0;
  std::memcpy(&v, p, n);
  return v;
}

[[nodiscard]] inline std::size_t key_hash(std::string_view key) noexcept {
  constexpr std::uint64_t k0 = 0xa0761d6478bd642full;
  constexpr std::uint64_t k1 = 0xe7037ed1a0b428dbull;
  const char* p = key.data();
  std::size_t n = key.size();
  std::uint64_t seed = key_hash_seed ^ k0;
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  if (n > 16) {
    for (; n > 16; p += 16, n -= 16) seed = key_hash_mix(key_hash_load(p, 8) ^ k1, key_hash_load(p + 8, 8) ^ seed);
    a = key_hash_load(p + n - 16, 8);  // the last 16 bytes, overlapping the loop's
    b = key_hash_load(p + n - 8, 8);
  } else if (n >= 8) {
    a = key_hash_load(p, 8);
    b = key_hash_load(p + n - 8, 8);
  } else if (n >= 4) {
    a = key_hash_load(p, 4);
    b = key_hash_load(p + n - 4, 4);
  } else if (n > 0) {
    a = (std::uint64_t{static_cast<unsigned char>(p[0])} << 16) |
        (std::uint64_t{static_cast<unsigned char>(p[n / 2])} << 8) | static_cast<unsigned char>(p[n - 1]);
  }
  return static_cast<std::size_t>(key_hash_mix(k1 ^ key.size(), key_hash_mix(a ^ k1, b ^ seed)));
}

[[nodiscard]] inline bool key_equal(std::string_view a, std::string_view b) noexcept {
  std::size_t n = a.size();
  if (n != b.size()) return false;
  const char* p = a.data();
  const char* q = b.data();
  if (n > 16) return std::memcmp(p, q, n) == 0;
  if (n >= 8) {
    return key_hash_load(p, 8) == key_hash_load(q, 8) && key_hash_load(p + n - 8, 8) == key_hash_load(q + n - 8, 8);
  }
  if (n >= 4) {
    return key_hash_load(p, 4) == key_hash_load(q, 4) && key_hash_load(p + n - 4, 4) == key_hash_load(q + n - 4, 4);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (p[i] != q[i]) return false;
  }
  return true;
}

}  // namespace duet::kv::detail

namespace duet::kv {

// Transparent hashing for tables keyed by std::string (channels, watched and
// blocked-on keys): look names up by string_view, with no copy.
struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return detail::key_hash(s); }
};
struct NameEq {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const noexcept { return a == b; }
};

}  // namespace duet::kv
