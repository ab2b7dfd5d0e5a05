// The bit algorithms of Redis's bitops.c, a word at a time where Redis goes a
// word at a time (counting, skipping runs in BITPOS), and a field at a time
// for BITFIELD: a field of up to 64 bits at any bit offset spans at most 9
// bytes, so it is read into one 128-bit window, shifted and masked, instead of
// Redis's loop over every bit.
#include "kv/types/bitmap.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace duet::kv::bitmap {
namespace {

__extension__ typedef unsigned __int128 u128;  // GCC and Clang: a 9-byte field window

std::uint64_t load_word(const char* p) noexcept {
  std::uint64_t w = 0;
  std::memcpy(&w, p, sizeof(w));
  return w;
}

unsigned byte_at(std::string_view bytes, std::uint64_t index) noexcept {
  return static_cast<unsigned char>(bytes[index]);
}

// The bits of byte `index` that lie inside [first, last]: a mask over the byte.
unsigned byte_mask(std::uint64_t index, BitRange range) noexcept {
  unsigned mask = 0xFF;
  if (index == range.first >> 3) mask &= 0xFFu >> (range.first & 7);
  if (index == range.last >> 3) mask &= (0xFF00u >> ((range.last & 7) + 1)) & 0xFF;
  return mask;
}

// The first bit equal to `bit` in byte `value` (bit 0 = the MSB), or 8.
unsigned first_in_byte(unsigned value, bool bit) noexcept {
  if (!bit) value = ~value & 0xFF;
  return value == 0 ? 8 : static_cast<unsigned>(__builtin_clz(value)) - 24;
}

std::uint64_t field_mask(unsigned bits) noexcept {
  return bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

// The 72 bits from byte `first` on, big-endian (bit 0 of the string is the
// MSB), bytes past `size` as zero.
u128 load_window(const char* bytes, std::uint64_t size, std::uint64_t first) noexcept {
  u128 window = 0;
  for (std::uint64_t i = 0; i < 9; ++i) {
    unsigned b = first + i < size ? static_cast<unsigned char>(bytes[first + i]) : 0;
    window = (window << 8) | b;
  }
  return window;
}

std::int64_t sign_extend(std::uint64_t v, unsigned bits) noexcept {
  if (bits < 64 && ((v >> (bits - 1)) & 1)) v |= ~std::uint64_t{0} << bits;
  return static_cast<std::int64_t>(v);
}

bool add_unsigned(std::uint64_t value, std::int64_t incr, unsigned bits, Overflow mode, std::int64_t& result) {
  const std::uint64_t max = field_mask(bits);
  const auto max_incr = static_cast<std::int64_t>(max - value);
  const auto min_incr = static_cast<std::int64_t>(std::uint64_t{0} - value);
  bool over = value > max || (incr > 0 && incr > max_incr);
  bool under = !over && incr < 0 && incr < min_incr;
  if (!over && !under) {
    result = static_cast<std::int64_t>(value + static_cast<std::uint64_t>(incr));
    return true;
  }
  if (mode == Overflow::wrap) result = static_cast<std::int64_t>((value + static_cast<std::uint64_t>(incr)) & max);
  if (mode == Overflow::sat) result = over ? static_cast<std::int64_t>(max) : 0;
  return false;
}

bool add_signed(std::int64_t value, std::int64_t incr, unsigned bits, Overflow mode, std::int64_t& result) {
  const std::int64_t max = static_cast<std::int64_t>(field_mask(bits - 1));
  const std::int64_t min = -max - 1;
  // Redis computes these with wrap-around and reads them only where they cannot have wrapped.
  const auto max_incr = static_cast<std::int64_t>(static_cast<std::uint64_t>(max) - static_cast<std::uint64_t>(value));
  const auto min_incr = static_cast<std::int64_t>(static_cast<std::uint64_t>(min) - static_cast<std::uint64_t>(value));
  bool over = value > max || (bits != 64 && incr > max_incr) || (value >= 0 && incr > 0 && incr > max_incr);
  bool under = !over && (value < min || (bits != 64 && incr < min_incr) || (value < 0 && incr < 0 && incr < min_incr));
  std::uint64_t sum = static_cast<std::uint64_t>(value) + static_cast<std::uint64_t>(incr);
  if (!over && !under) {
    result = static_cast<std::int64_t>(sum);
    return true;
  }
  if (mode == Overflow::wrap) result = sign_extend(sum & field_mask(bits), bits);
  if (mode == Overflow::sat) result = over ? max : min;
  return false;
}

}  // namespace

bool resolve_range(std::size_t size, std::int64_t start, std::int64_t end, Unit unit, BitRange& out) {
  std::int64_t total = static_cast<std::int64_t>(size) * (unit == Unit::bit ? 8 : 1);
  if (start < 0) start += total;
  if (end < 0) end += total;
  start = std::max<std::int64_t>(start, 0);
  end = std::max<std::int64_t>(end, 0);
  end = std::min(end, total - 1);
  if (start > end) return false;
  auto first = static_cast<std::uint64_t>(start);
  auto last = static_cast<std::uint64_t>(end);
  out = unit == Unit::bit ? BitRange{first, last} : BitRange{first * 8, last * 8 + 7};
  return true;
}

std::uint64_t count_bits(std::string_view bytes, BitRange range) noexcept {
  std::uint64_t first = range.first >> 3;
  std::uint64_t last = range.last >> 3;
  std::uint64_t count = __builtin_popcount(byte_at(bytes, first) & byte_mask(first, range));
  if (last == first) return count;
  count += __builtin_popcount(byte_at(bytes, last) & byte_mask(last, range));
  std::uint64_t i = first + 1;
  for (; i + 8 <= last; i += 8) count += __builtin_popcountll(load_word(bytes.data() + i));
  for (; i < last; ++i) count += __builtin_popcount(byte_at(bytes, i));
  return count;
}

std::int64_t find_bit(std::string_view bytes, bool bit, BitRange range) noexcept {
  const std::uint64_t skip_word = bit ? 0 : ~std::uint64_t{0};
  const unsigned skip_byte = bit ? 0 : 0xFF;
  const std::uint64_t last = range.last >> 3;
  for (std::uint64_t i = range.first >> 3; i <= last; ++i) {
    // Whole words of the byte that cannot hold the bit are skipped at once.
    while (i > range.first >> 3 && i + 8 <= last && load_word(bytes.data() + i) == skip_word) i += 8;
    unsigned mask = byte_mask(i, range);
    unsigned value = byte_at(bytes, i);
    // Bits outside the range read as the bit we are not looking for.
    value = bit ? (value & mask) : (value | (~mask & 0xFF));
    if (value == skip_byte) continue;
    return static_cast<std::int64_t>(i * 8 + first_in_byte(value, bit));
  }
  return -1;
}

std::string bit_op(BitOp op, std::span<const std::string_view> sources) {
  std::size_t size = 0;
  for (std::string_view s : sources) size = std::max(size, s.size());
  std::string out(size, '\0');
  if (size == 0) return out;
  std::memcpy(out.data(), sources[0].data(), sources[0].size());
  auto* o = reinterpret_cast<unsigned char*>(out.data());
  if (op == BitOp::bit_not) {
    for (std::size_t j = 0; j < size; ++j) o[j] = static_cast<unsigned char>(~o[j]);
    return out;
  }
  for (std::string_view s : sources.subspan(1)) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const std::size_t n = s.size();
    if (op == BitOp::bit_and) {
      for (std::size_t j = 0; j < n; ++j) o[j] &= p[j];
      std::memset(o + n, 0, size - n);  // a shorter source reads as zeros
    } else if (op == BitOp::bit_or) {
      for (std::size_t j = 0; j < n; ++j) o[j] |= p[j];
    } else {
      for (std::size_t j = 0; j < n; ++j) o[j] ^= p[j];
    }
  }
  return out;
}

std::int64_t read_field(std::string_view bytes, std::uint64_t offset, FieldType type) noexcept {
  u128 window = load_window(bytes.data(), bytes.size(), offset >> 3);
  unsigned shift = 72 - static_cast<unsigned>(offset & 7) - type.bits;
  auto raw = static_cast<std::uint64_t>(window >> shift) & field_mask(type.bits);
  return type.is_signed ? sign_extend(raw, type.bits) : static_cast<std::int64_t>(raw);
}

void write_field(char* bytes, std::uint64_t offset, FieldType type, std::int64_t value) noexcept {
  const std::uint64_t first = offset >> 3;
  const std::uint64_t end = ((offset + type.bits - 1) >> 3) + 1;  // one past the field's last byte
  u128 window = load_window(bytes, end, first);
  unsigned shift = 72 - static_cast<unsigned>(offset & 7) - type.bits;
  u128 mask = static_cast<u128>(field_mask(type.bits)) << shift;
  u128 bits = static_cast<u128>(static_cast<std::uint64_t>(value) & field_mask(type.bits)) << shift;
  window = (window & ~mask) | bits;
  for (std::uint64_t i = end - first; i-- > 0;) {
    bytes[first + i] = static_cast<char>(static_cast<unsigned char>(window >> (8 * (8 - i))));
  }
}

bool add_with_overflow(std::int64_t value, std::int64_t incr, FieldType type, Overflow mode,
                       std::int64_t& result) noexcept {
  if (type.is_signed) return add_signed(value, incr, type.bits, mode, result);
  return add_unsigned(static_cast<std::uint64_t>(value), incr, type.bits, mode, result);
}

}  // namespace duet::kv::bitmap
