// duet::kv::hll — Redis's HyperLogLog, byte for byte: an HLL is a plain
// string value (so GET, SET, DUMP-less copies and the AOF carry it as bytes)
// that Redis 7.0 and duet read and write identically.
//
// Contract
// - The string is a 16-byte header — "HYLL", the encoding byte (0 dense,
//   1 sparse), 3 unused bytes, the cached cardinality as 8 little-endian bytes
//   whose top bit says "stale" — then 16,384 6-bit registers, either packed
//   (dense: 12,288 bytes, least significant bits first) or run-length coded
//   (sparse: ZERO/XZERO/VAL opcodes, kv/types/hll_sparse.hpp).
// - An element picks its register and value from MurmurHash64A (seed
//   0xadc83b19): the low 14 bits are the register, the value is 1 + the
//   number of zero bits above them (Redis's hllPatLen).
// - The cardinality is Redis ≥ 5's estimator (Ertl's, over the registers'
//   histogram), so counts are Redis's exactly.
// - is_hll() is Redis's isHLLObjectOrReply test of the header; a sparse body
//   is checked as it is walked: functions that meet a corrupted one return
//   `corrupted` / false / nullopt and never read or write outside the string.
// - add() and set_register() change a Value in place, as Redis does its sds:
//   they make it a raw string (dbUnshareStringValue), and a sparse HLL turns
//   dense when a register would pass 32 or the string `sparse_max` bytes.
// - Plain functions over bytes; one thread, the caller's.
//
//   Value v;  hll::create(v);
//   if (hll::add(v, "element", 3000) == hll::Change::changed) hll::invalidate_cache(v);
//   Value::Scratch s;  std::optional<std::uint64_t> n = hll::count(v.str(s));
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "kv/value/value.hpp"

namespace duet::kv::hll {

inline constexpr int precision = 14;
inline constexpr std::size_t register_count = std::size_t{1} << precision;  // 16,384
inline constexpr int register_bits = 6;
inline constexpr std::uint8_t register_max = (1u << register_bits) - 1;
inline constexpr std::size_t header_size = 16;
inline constexpr std::size_t dense_size = header_size + register_count * register_bits / 8;  // 12,304
inline constexpr std::uint8_t encoding_dense = 0;
inline constexpr std::uint8_t encoding_sparse = 1;
inline constexpr std::size_t encoding_at = 4;  // the header's encoding byte
inline constexpr std::size_t cache_at = 8;     // the cached cardinality's first byte
inline constexpr std::uint64_t hash_seed = 0xadc83b19ull;

inline constexpr std::string_view err_not_hll = "WRONGTYPE Key is not a valid HyperLogLog string value.";
inline constexpr std::string_view err_corrupted = "INVALIDOBJ Corrupted HLL object detected";

// One byte per register (PFCOUNT's and PFMERGE's union of several HLLs).
using Registers = std::array<std::uint8_t, register_count>;
// How many registers hold each value (the estimator's input).
using Histogram = std::array<int, 64>;

enum class Change { unchanged, changed, corrupted };

[[nodiscard]] std::uint64_t murmur_hash64a(std::string_view bytes, std::uint64_t seed) noexcept;

struct Pattern {
  std::size_t index;   // the register
  std::uint8_t value;  // 1 + the run of zero bits above the index bits (1..51)
};
[[nodiscard]] Pattern pattern_of(std::string_view element) noexcept;

// Whether a string is an HLL by its header (isHLLObjectOrReply): long enough,
// "HYLL", a known encoding, and a dense one exactly dense_size bytes.
[[nodiscard]] bool is_hll(std::string_view s) noexcept;
[[nodiscard]] inline std::uint8_t encoding_of(std::string_view hll) noexcept {
  return static_cast<std::uint8_t>(hll[encoding_at]);
}

// Makes `v` an empty HLL: sparse, one XZERO opcode over every register (createHLLObject).
void create(Value& v);

// The cached cardinality, when it is not stale.
[[nodiscard]] std::optional<std::uint64_t> cached_count(std::string_view hll) noexcept;
void store_cache(Value& v, std::uint64_t count);
void invalidate_cache(Value& v);  // sets the cache's top bit (HLL_INVALIDATE_CACHE)

// PFADD's step for one element (hllAdd) and the register write under it
// (hllDenseSet / hllSparseSet): `changed` when the register grew.
Change add(Value& v, std::string_view element, std::size_t sparse_max);
Change set_register(Value& v, std::size_t index, std::uint8_t value, std::size_t sparse_max);
// Turns a sparse HLL dense (a dense one is left as it is); false: the sparse
// body was corrupted, and `v` is unchanged.
bool make_dense(Value& v);

// The estimate of a valid HLL's cardinality; nullopt when a sparse body does
// not cover exactly the 16,384 registers.
[[nodiscard]] std::optional<std::uint64_t> count(std::string_view hll) noexcept;
// Raises `max` to the HLL's registers (hllMerge); false: corrupted sparse body.
[[nodiscard]] bool merge(Registers& max, std::string_view hll) noexcept;
[[nodiscard]] std::uint64_t count(const Registers& registers) noexcept;
// Redis's hllCount over a histogram: exposed for the tests.
[[nodiscard]] std::uint64_t estimate(const Histogram& histogram) noexcept;

}  // namespace duet::kv::hll
