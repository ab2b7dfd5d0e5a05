// duet::kv::hll::sparse — the sparse HyperLogLog body: run-length opcodes
// over the 16,384 registers, as Redis 7.0's hyperloglog.c codes them.
//
// Contract
// - Opcodes: ZERO 00xxxxxx (1..64 zero registers), XZERO 01xxxxxx yyyyyyyy
//   (1..16,384 zero registers), VAL 1vvvvvxx (1..4 registers of value 1..32).
//   A valid body covers exactly 16,384 registers; the readers check that and
//   never read outside it (an XZERO cut at the last byte reads a zero second
//   byte, as Redis reads its sds terminator).
// - set() is hllSparseSet's edit of one register, in place, on a buffer
//   holding the whole HLL string (`len` bytes) with 4 writable zero bytes
//   after it (a split adds at most 3; Redis's room plus its terminator). It
//   yields the same bytes as Redis: the same opcode splits, the same merge
//   of equal neighbours, the same `promote` verdicts (a value above 32, or a
//   string that would pass `max_bytes`), and leaves the buffer untouched on
//   anything but `changed`.
// - Pure functions over bytes; any thread.
//
//   Registers max{};  if (!sparse::merge(body, max)) reply corrupted;
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "kv/types/hyperloglog.hpp"

namespace duet::kv::hll::sparse {

inline constexpr std::uint8_t val_max_value = 32;
inline constexpr std::uint32_t val_max_run = 4;
inline constexpr std::uint32_t zero_max_run = 64;
inline constexpr std::uint32_t xzero_max_run = 16384;

using Body = std::span<const std::uint8_t>;  // the bytes after the header

// The empty HLL's body: XZERO over all registers.
inline constexpr std::uint8_t empty_body[2] = {0x40 | ((xzero_max_run - 1) >> 8), (xzero_max_run - 1) & 0xff};

// Adds each register's value to `histogram`; false when the runs do not add
// up to 16,384 registers (the histogram is then meaningless).
[[nodiscard]] bool histogram(Body body, Histogram& histogram) noexcept;
// Raises `max` to the body's values; false as histogram(), or when a VAL run
// would pass the last register (hllMerge).
[[nodiscard]] bool merge(Body body, Registers& max) noexcept;

enum class SetResult { unchanged, changed, promote, corrupted };
SetResult set(std::uint8_t* hll, std::size_t& len, std::size_t index, std::uint8_t value,
              std::size_t max_bytes) noexcept;

}  // namespace duet::kv::hll::sparse
