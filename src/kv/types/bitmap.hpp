// duet::kv::bitmap — the bit algorithms behind SETBIT GETBIT BITCOUNT BITPOS
// BITOP and BITFIELD, over a string's bytes (Redis's bitops.c).
//
// Contract
// - A bitmap is a string: bit 0 is the most significant bit of byte 0, bits
//   past the end read as 0. Nothing here owns memory but bit_op's result; the
//   commands (commands_bitmap.cpp) grow the value in place (Value::resize_raw)
//   before writing, so every write here stays inside `bytes`.
// - Ranges follow Redis: resolve_range() turns BITCOUNT/BITPOS's start/end
//   (negative from the end, BYTE or BIT units) into an inclusive bit range,
//   clamped to the string; count_bits/find_bit then scan it a word at a time.
// - BITFIELD's fields are 1..64 bits at any bit offset; add_with_overflow()
//   is Redis's checkSigned/UnsignedBitfieldOverflow (WRAP, SAT, FAIL).
// - Pure functions; any thread.
//
//   BitRange r;
//   if (resolve_range(s.size(), 0, -1, Unit::byte, r)) n = count_bits(s, r);
//   std::int64_t v = read_field(bytes, 13, {.bits = 5, .is_signed = true});
//   std::string out = bit_op(BitOp::bit_and, {a, b});
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace duet::kv::bitmap {

enum class Unit : std::uint8_t { byte, bit };

// An inclusive range of bit positions inside the string.
struct BitRange {
  std::uint64_t first = 0;
  std::uint64_t last = 0;
};

// BITCOUNT/BITPOS's start and end, as Redis converts them (negative from the
// end, clamped); false when the range is empty. `size` is in bytes.
[[nodiscard]] bool resolve_range(std::size_t size, std::int64_t start, std::int64_t end, Unit unit, BitRange& out);

[[nodiscard]] std::uint64_t count_bits(std::string_view bytes, BitRange range) noexcept;
// The first position in `range` holding `bit`, or -1.
[[nodiscard]] std::int64_t find_bit(std::string_view bytes, bool bit, BitRange range) noexcept;

[[nodiscard]] inline bool get_bit(std::string_view bytes, std::uint64_t offset) noexcept {
  std::uint64_t byte = offset >> 3;
  if (byte >= bytes.size()) return false;
  return (static_cast<unsigned char>(bytes[byte]) >> (7 - (offset & 7))) & 1;
}
// The old bit. `bytes` must hold the offset.
inline bool set_bit(char* bytes, std::uint64_t offset, bool on) noexcept {
  auto& byte = reinterpret_cast<unsigned char&>(bytes[offset >> 3]);
  unsigned mask = 1u << (7 - (offset & 7));
  bool old = (byte & mask) != 0;
  byte = static_cast<unsigned char>(on ? (byte | mask) : (byte & ~mask));
  return old;
}

enum class BitOp : std::uint8_t { bit_and, bit_or, bit_xor, bit_not };

// BITOP over the sources (an absent key is an empty string): as long as the
// longest, shorter ones read as zero-padded. NOT takes exactly one source.
[[nodiscard]] std::string bit_op(BitOp op, std::span<const std::string_view> sources);

struct FieldType {
  unsigned bits = 8;  // 1..64 signed, 1..63 unsigned
  bool is_signed = false;
};

// The field at `offset` (bits past the end read as 0): a signed field is
// sign-extended; an unsigned one is returned as its bit pattern.
[[nodiscard]] std::int64_t read_field(std::string_view bytes, std::uint64_t offset, FieldType type) noexcept;
// Writes the low `type.bits` bits of `value`; `bytes` must hold the field.
void write_field(char* bytes, std::uint64_t offset, FieldType type, std::int64_t value) noexcept;

enum class Overflow : std::uint8_t { wrap, sat, fail };

// value + incr as a field of `type`: true when it fits; otherwise false and
// `result` is what WRAP or SAT store (FAIL stores nothing). `value` is a field
// value as read_field returns it.
[[nodiscard]] bool add_with_overflow(std::int64_t value, std::int64_t incr, FieldType type, Overflow mode,
                                     std::int64_t& result) noexcept;

}  // namespace duet::kv::bitmap
