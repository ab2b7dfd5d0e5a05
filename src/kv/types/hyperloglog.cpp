// Redis's HyperLogLog (hyperloglog.c, 7.0): the hash, the dense registers,
// the estimator, and the changes of a Value in place. The sparse opcodes are
// in hll_sparse.cpp.
//
// Dense registers are 6 bits packed little-endian: register i starts at bit
// 6i, so it lies in one byte when 6i mod 8 is 0 or 2 and spans two otherwise.
// The last register starts at bit 2 of the last byte, so no access reads
// past the string (Redis's macros read one byte further, its terminator).
#include "kv/types/hyperloglog.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "kv/types/hll_sparse.hpp"

namespace duet::kv::hll {
namespace {

constexpr double alpha_inf = 0.721347520444481703680;  // 0.5 / ln 2
constexpr int q = 64 - precision;                      // hash bits left for the zero run

const std::uint8_t* bytes_of(std::string_view s) noexcept { return reinterpret_cast<const std::uint8_t*>(s.data()); }

std::uint8_t dense_get(const std::uint8_t* registers, std::size_t i) noexcept {
  const std::size_t bit = i * register_bits;
  const std::size_t byte = bit / 8;
  const unsigned shift = bit & 7;
  unsigned v = registers[byte] >> shift;
  if (shift > 8 - register_bits) v |= static_cast<unsigned>(registers[byte + 1]) << (8 - shift);
  return static_cast<std::uint8_t>(v & register_max);
}

void dense_put(std::uint8_t* registers, std::size_t i, std::uint8_t value) noexcept {
  const std::size_t bit = i * register_bits;
  const std::size_t byte = bit / 8;
  const unsigned shift = bit & 7;
  registers[byte] = static_cast<std::uint8_t>((registers[byte] & ~(register_max << shift)) | value << shift);
  if (shift > 8 - register_bits) {
    const unsigned high = 8 - shift;
    registers[byte + 1] = static_cast<std::uint8_t>((registers[byte + 1] & ~(register_max >> high)) | value >> high);
  }
}

Change dense_set(std::uint8_t* registers, std::size_t i, std::uint8_t value) noexcept {
  if (value <= dense_get(registers, i)) return Change::unchanged;
  dense_put(registers, i, value);
  return Change::changed;
}

// Four registers per three bytes: the whole array in 4,096 steps.
void dense_histogram(const std::uint8_t* r, Histogram& h) noexcept {
  for (std::size_t j = 0; j < register_count / 4; ++j, r += 3) {
    ++h[r[0] & 63];
    ++h[(r[0] >> 6 | r[1] << 2) & 63];
    ++h[(r[1] >> 4 | r[2] << 4) & 63];
    ++h[r[2] >> 2];
  }
}

// Ertl's sigma and tau ("New cardinality estimation algorithms for
// HyperLogLog sketches", arXiv:1702.01284), as Redis computes them: the
// series are summed until they stop changing.
double sigma(double x) noexcept {
  if (x == 1.0) return std::numeric_limits<double>::infinity();
  double y = 1;
  double z = x;
  double previous = 0;
  do {
    x *= x;
    previous = z;
    z += x * y;
    y += y;
  } while (previous != z);
  return z;
}

double tau(double x) noexcept {
  if (x == 0.0 || x == 1.0) return 0.0;
  double y = 1.0;
  double z = 1 - x;
  double previous = 0;
  do {
    x = std::sqrt(x);
    previous = z;
    y *= 0.5;
    z -= std::pow(1 - x, 2) * y;
  } while (previous != z);
  return z / 3;
}

// The string's bytes, writable, as a raw string (Redis's dbUnshareStringValue).
std::uint8_t* writable(Value& v) { return reinterpret_cast<std::uint8_t*>(v.resize_raw(v.string_size())); }

}  // namespace

std::uint64_t murmur_hash64a(std::string_view bytes, std::uint64_t seed) noexcept {
  constexpr std::uint64_t m = 0xc6a4a7935bd1e995ull;
  constexpr int r = 47;
  const std::size_t len = bytes.size();
  std::uint64_t h = seed ^ (static_cast<std::uint64_t>(len) * m);
  const std::uint8_t* data = bytes_of(bytes);
  const std::uint8_t* end = data + (len - (len & 7));
  for (; data != end; data += 8) {
    std::uint64_t k = 0;
    for (int i = 7; i >= 0; --i) k = k << 8 | data[i];  // little-endian, any alignment
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  const std::size_t tail = len & 7;
  if (tail != 0) {
    for (std::size_t i = tail; i-- > 0;) h ^= static_cast<std::uint64_t>(data[i]) << (8 * i);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

Pattern pattern_of(std::string_view element) noexcept {
  std::uint64_t hash = murmur_hash64a(element, hash_seed);
  const std::size_t index = hash & (register_count - 1);
  hash >>= precision;
  hash |= std::uint64_t{1} << q;  // the run ends by bit q at the latest: value <= q + 1
  std::uint8_t value = 1;
  for (std::uint64_t bit = 1; (hash & bit) == 0; bit <<= 1) ++value;
  return {index, value};
}

bool is_hll(std::string_view s) noexcept {
  if (s.size() < header_size || s.substr(0, 4) != "HYLL") return false;
  const std::uint8_t encoding = encoding_of(s);
  if (encoding > encoding_sparse) return false;
  return encoding != encoding_dense || s.size() == dense_size;
}

void create(Value& v) {
  char* p = v.resize_raw(header_size + sizeof(sparse::empty_body));
  std::memset(p, 0, header_size);
  std::memcpy(p, "HYLL", 4);
  p[encoding_at] = static_cast<char>(encoding_sparse);
  std::memcpy(p + header_size, sparse::empty_body, sizeof(sparse::empty_body));
}

std::optional<std::uint64_t> cached_count(std::string_view hll) noexcept {
  const std::uint8_t* card = bytes_of(hll) + cache_at;
  if ((card[7] & 0x80) != 0) return std::nullopt;
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = n << 8 | card[i];
  return n;
}

void store_cache(Value& v, std::uint64_t count) {
  std::uint8_t* card = writable(v) + cache_at;
  for (int i = 0; i < 8; ++i) card[i] = static_cast<std::uint8_t>(count >> (8 * i));
}

void invalidate_cache(Value& v) { writable(v)[cache_at + 7] |= 0x80; }

bool make_dense(Value& v) {
  Value::Scratch scratch;
  const std::string_view hll = v.str(scratch);
  if (encoding_of(hll) == encoding_dense) return true;
  Registers registers{};
  if (!sparse::merge(sparse::Body(bytes_of(hll) + header_size, hll.size() - header_size), registers)) return false;
  // A new block of exactly the dense size (growing the old one would keep
  // half as much again as slack); the header (magic, unused bytes, cached
  // cardinality) is copied as it was, only the encoding changes.
  Value dense;
  auto* p = reinterpret_cast<std::uint8_t*>(dense.resize_raw(dense_size));  // zero-filled
  std::memcpy(p, hll.data(), header_size);
  p[encoding_at] = encoding_dense;
  for (std::size_t i = 0; i < register_count; ++i) {
    if (registers[i] != 0) dense_put(p + header_size, i, registers[i]);
  }
  v = std::move(dense);
  return true;
}

Change set_register(Value& v, std::size_t index, std::uint8_t value, std::size_t sparse_max) {
  const std::size_t len = v.string_size();
  std::uint8_t* p = writable(v);
  if (p[encoding_at] == encoding_dense) return dense_set(p + header_size, index, value);
  if (p[encoding_at] != encoding_sparse) return Change::corrupted;
  // Room for a split and a zero byte after it; trimmed back below.
  p = reinterpret_cast<std::uint8_t*>(v.resize_raw(len + 4));
  std::size_t new_len = len;
  const sparse::SetResult result = sparse::set(p, new_len, index, value, sparse_max);
  v.resize_raw(new_len);
  switch (result) {
    case sparse::SetResult::unchanged: return Change::unchanged;
    case sparse::SetResult::changed: return Change::changed;
    case sparse::SetResult::corrupted: return Change::corrupted;
    case sparse::SetResult::promote: break;
  }
  if (!make_dense(v)) return Change::corrupted;
  return dense_set(writable(v) + header_size, index, value);
}

Change add(Value& v, std::string_view element, std::size_t sparse_max) {
  const Pattern pattern = pattern_of(element);
  return set_register(v, pattern.index, pattern.value, sparse_max);
}

std::uint64_t estimate(const Histogram& h) noexcept {
  const double m = register_count;
  double z = m * tau((m - h[q + 1]) / m);
  for (int j = q; j >= 1; --j) {
    z += h[j];
    z *= 0.5;
  }
  z += m * sigma(h[0] / m);
  // Redis rounds with llroundl into a double and casts that to uint64_t; when
  // z is 0 (every register above the hash's range) llroundl answers LLONG_MIN,
  // which that cast turns into 2^63 on x86-64 — kept, as PFCOUNT's reply.
  const long long rounded = std::llroundl(alpha_inf * m * m / z);
  if (rounded < 0) return static_cast<std::uint64_t>(rounded);
  return static_cast<std::uint64_t>(static_cast<double>(rounded));
}

std::optional<std::uint64_t> count(std::string_view hll) noexcept {
  Histogram h{};
  const std::uint8_t* body = bytes_of(hll) + header_size;
  if (encoding_of(hll) == encoding_dense) {
    dense_histogram(body, h);
  } else if (!sparse::histogram(sparse::Body(body, hll.size() - header_size), h)) {
    return std::nullopt;
  }
  return estimate(h);
}

bool merge(Registers& max, std::string_view hll) noexcept {
  const std::uint8_t* body = bytes_of(hll) + header_size;
  if (encoding_of(hll) != encoding_dense) return sparse::merge(sparse::Body(body, hll.size() - header_size), max);
  for (std::size_t i = 0; i < register_count; ++i) {
    const std::uint8_t value = dense_get(body, i);
    if (value > max[i]) max[i] = value;
  }
  return true;
}

std::uint64_t count(const Registers& registers) noexcept {
  Histogram h{};
  for (std::uint8_t r : registers) ++h[r];
  return estimate(h);
}

}  // namespace duet::kv::hll
