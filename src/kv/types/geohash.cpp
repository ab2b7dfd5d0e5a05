// The geohash cells (kv/types/geohash.hpp). Redis's geohash.c is the
// reference: the same bit tricks, and the same double arithmetic in the same
// order, because the commands' replies print these doubles to 17 digits.
#include "kv/types/geohash.hpp"

#include <cmath>

namespace duet::kv::geo {
namespace {

constexpr std::uint64_t even_bits = 0x5555555555555555ULL;  // latitude's positions
constexpr std::uint64_t odd_bits = 0xaaaaaaaaaaaaaaaaULL;   // longitude's positions

// Moves a cell one step along one axis (the bits of `axis` in `bits`),
// wrapping modulo 2^step: adding 1 to bits spread over every other position
// works by filling the gaps with ones first, so the carry jumps them.
std::uint64_t moved(std::uint64_t bits, int step, std::uint64_t axis, int direction) noexcept {
  if (direction == 0) return bits;
  const std::uint64_t other_axis = ~axis;
  std::uint64_t mine = bits & axis;
  const std::uint64_t theirs = bits & other_axis;
  const unsigned shift = static_cast<unsigned>(64 - step * 2);
  const std::uint64_t gaps = other_axis >> shift;  // the other axis' positions within the cell
  if (direction > 0) {
    mine = mine + (gaps + 1);
  } else {
    mine = mine | gaps;
    mine = mine - (gaps + 1);
  }
  mine &= axis >> shift;
  return mine | theirs;
}

HashBits moved(HashBits hash, int dx, int dy) noexcept {
  hash.bits = moved(hash.bits, hash.step, odd_bits, dx);   // longitude: east +1
  hash.bits = moved(hash.bits, hash.step, even_bits, dy);  // latitude: north +1
  return hash;
}

}  // namespace

std::uint64_t interleave(std::uint32_t xlo, std::uint32_t ylo) noexcept {
  // Spread each word's bits apart, halving the stride each time
  // (Bit Twiddling Hacks, "Interleave bits by Binary Magic Numbers").
  static constexpr std::uint64_t masks[] = {0x5555555555555555ULL, 0x3333333333333333ULL, 0x0F0F0F0F0F0F0F0FULL,
                                            0x00FF00FF00FF00FFULL, 0x0000FFFF0000FFFFULL};
  static constexpr unsigned shifts[] = {1, 2, 4, 8, 16};
  std::uint64_t x = xlo;
  std::uint64_t y = ylo;
  for (int i = 4; i >= 0; --i) {
    x = (x | (x << shifts[i])) & masks[i];
    y = (y | (y << shifts[i])) & masks[i];
  }
  return x | (y << 1);
}

std::uint64_t deinterleave(std::uint64_t interleaved) noexcept {
  static constexpr std::uint64_t masks[] = {0x5555555555555555ULL, 0x3333333333333333ULL, 0x0F0F0F0F0F0F0F0FULL,
                                            0x00FF00FF00FF00FFULL, 0x0000FFFF0000FFFFULL, 0x00000000FFFFFFFFULL};
  static constexpr unsigned shifts[] = {0, 1, 2, 4, 8, 16};
  std::uint64_t x = interleaved;
  std::uint64_t y = interleaved >> 1;
  for (int i = 0; i <= 5; ++i) {
    x = (x | (x >> shifts[i])) & masks[i];
    y = (y | (y >> shifts[i])) & masks[i];
  }
  return x | (y << 32);
}

bool encode(Range longitudes, Range latitudes, Point p, int step, HashBits& out) noexcept {
  auto is_zero = [](Range r) { return r.min == 0 && r.max == 0; };
  if (step > 32 || step == 0 || is_zero(longitudes) || is_zero(latitudes)) return false;
  if (p.longitude > long_max || p.longitude < long_min || p.latitude > lat_max || p.latitude < lat_min) return false;
  out = {0, static_cast<std::uint8_t>(step)};
  if (p.latitude < latitudes.min || p.latitude > latitudes.max || p.longitude < longitudes.min ||
      p.longitude > longitudes.max) {
    return false;
  }
  double lat_offset = (p.latitude - latitudes.min) / (latitudes.max - latitudes.min);
  double long_offset = (p.longitude - longitudes.min) / (longitudes.max - longitudes.min);
  // Fixed point at `step` bits; the top of a range gives 2^step, one bit
  // past the cell, as in Redis (the score of latitude 85.05112878 is >= 2^52).
  lat_offset *= static_cast<double>(1ULL << step);
  long_offset *= static_cast<double>(1ULL << step);
  out.bits = interleave(static_cast<std::uint32_t>(lat_offset), static_cast<std::uint32_t>(long_offset));
  return true;
}

bool decode(Range longitudes, Range latitudes, HashBits hash, Area& out) noexcept {
  auto is_zero = [](Range r) { return r.min == 0 && r.max == 0; };
  if (hash.is_zero() || is_zero(longitudes) || is_zero(latitudes)) return false;
  out.hash = hash;
  const std::uint64_t separated = deinterleave(hash.bits);  // [longitude][latitude]
  const double lat_scale = latitudes.max - latitudes.min;
  const double long_scale = longitudes.max - longitudes.min;
  const auto lat_cell = static_cast<std::uint32_t>(separated);
  const auto long_cell = static_cast<std::uint32_t>(separated >> 32);
  // (n * 1.0 / 2^step) * scale + min, as Redis writes it; lat_cell + 1 is
  // computed in 32 bits there too (it wraps for a cell of all ones). Dividing
  // by a power of two is exact, so multiplying by its exact inverse gives the
  // same bits without four divisions a point (a search decodes hundreds).
  const double per_cell = 1.0 / static_cast<double>(1ULL << hash.step);
  out.latitude.min = latitudes.min + (lat_cell * per_cell) * lat_scale;
  out.latitude.max = latitudes.min + (static_cast<std::uint32_t>(lat_cell + 1) * per_cell) * lat_scale;
  out.longitude.min = longitudes.min + (long_cell * per_cell) * long_scale;
  out.longitude.max = longitudes.min + (static_cast<std::uint32_t>(long_cell + 1) * per_cell) * long_scale;
  return true;
}

Point center_of(const Area& area) noexcept {
  Point p;
  p.longitude = (area.longitude.min + area.longitude.max) / 2;
  if (p.longitude > long_max) p.longitude = long_max;
  if (p.longitude < long_min) p.longitude = long_min;
  p.latitude = (area.latitude.min + area.latitude.max) / 2;
  if (p.latitude > lat_max) p.latitude = lat_max;
  if (p.latitude < lat_min) p.latitude = lat_min;
  return p;
}

std::uint64_t align52(HashBits hash) noexcept { return hash.bits << (52 - hash.step * 2); }

std::uint64_t score_of(Point p) noexcept {
  HashBits hash;
  (void)encode(redis_longitudes, redis_latitudes, p, step_max, hash);
  return align52(hash);
}

std::uint64_t score_bits(double score) noexcept {
  // gcc on x86-64 converts with cvttsd2si, which answers 2^63 for NaN and
  // for anything out of int64's range; at 2^63 and above it converts
  // score - 2^63 and flips the top bit back.
  constexpr double two_63 = 9223372036854775808.0;
  constexpr std::uint64_t indefinite = 1ULL << 63;
  auto cvttsd2si = [](double d) -> std::uint64_t {
    if (std::isnan(d) || d < -two_63 || d >= two_63) return indefinite;
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(d));
  };
  if (!(score >= two_63)) return cvttsd2si(score);
  return cvttsd2si(score - two_63) ^ indefinite;
}

bool decode_score(double score, Point& out) noexcept {
  Area area;
  if (!decode(redis_longitudes, redis_latitudes, {score_bits(score), step_max}, area)) return false;
  out = center_of(area);
  return true;
}

Cells cell_and_neighbours(HashBits hash) noexcept {
  return {hash,
          moved(hash, 0, 1),  moved(hash, 0, -1),  moved(hash, 1, 0),  moved(hash, -1, 0),
          moved(hash, 1, 1),  moved(hash, -1, 1),  moved(hash, 1, -1), moved(hash, -1, -1)};
}

std::string geohash_string(Point p) {
  static constexpr char alphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
  HashBits hash;
  (void)encode({-180, 180}, {-90, 90}, p, step_max, hash);
  std::string out(11, '0');  // 52 bits make 10 characters; the 11th is '0' (bits assumed zero)
  for (int i = 0; i < 10; ++i) out[static_cast<std::size_t>(i)] = alphabet[(hash.bits >> (52 - (i + 1) * 5)) & 0x1f];
  return out;
}

}  // namespace duet::kv::geo
