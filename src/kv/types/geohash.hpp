// duet::kv::geo — the geohash of Redis's geo commands: a point's 52-bit
// sorted-set score, its decoding, the neighbouring cells and the standard
// 11-character geohash string, bit for bit as Redis 7.0's geohash.c.
//
// Contract
// - A cell is `step` bits of latitude interleaved with `step` bits of
//   longitude (latitude in the even bits, longitude in the odd ones); a
//   point's score is its cell at step 26, as an integer held in a double.
// - Redis's own ranges: longitude -180..180, latitude -85.05112878..
//   85.05112878 (EPSG:900913's limits, where Web Mercator is square); a point
//   outside them has no cell. GEOHASH re-encodes the decoded point over the
//   standard -90..90 so that its string is an ordinary geohash.
// - Floating point is evaluated in Redis's order of operations, so every
//   decoded coordinate (and what is computed from it) is the same double.
// - Pure functions, any thread.
//
//   const std::uint64_t score = geo::score_of({13.361389, 38.115556});
//   geo::Point p;  geo::decode_score(static_cast<double>(score), p);
//   geo::geohash_string(p) == "sqc8b49rny0";
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace duet::kv::geo {

inline constexpr int step_max = 26;  // 26 * 2 = the score's 52 bits
inline constexpr double lat_min = -85.05112878;
inline constexpr double lat_max = 85.05112878;
inline constexpr double long_min = -180;
inline constexpr double long_max = 180;

struct Point {
  double longitude = 0;
  double latitude = 0;
};

struct Range {
  double min = 0;
  double max = 0;
};
inline constexpr Range redis_longitudes{long_min, long_max};
inline constexpr Range redis_latitudes{lat_min, lat_max};

// A cell: its interleaved bits and how many bits per axis (0 with bits 0:
// "no cell", Redis's HASHISZERO, as a search area left out).
struct HashBits {
  std::uint64_t bits = 0;
  std::uint8_t step = 0;
  [[nodiscard]] bool is_zero() const noexcept { return bits == 0 && step == 0; }
  friend bool operator==(const HashBits&, const HashBits&) = default;
};

struct Area {
  HashBits hash;
  Range longitude;
  Range latitude;
};

// The low 32 bits of x in the even bit positions, of y in the odd ones.
[[nodiscard]] std::uint64_t interleave(std::uint32_t x, std::uint32_t y) noexcept;
// The inverse: the even bits in the low word, the odd bits in the high one.
[[nodiscard]] std::uint64_t deinterleave(std::uint64_t interleaved) noexcept;

// geohashEncode: false when the point is outside Redis's limits or the
// ranges given (step is 1..32).
[[nodiscard]] bool encode(Range longitudes, Range latitudes, Point p, int step, HashBits& out) noexcept;
// geohashDecode: the cell's bounds (false for a zero cell).
[[nodiscard]] bool decode(Range longitudes, Range latitudes, HashBits hash, Area& out) noexcept;
// The cell's centre, clamped to Redis's limits (geohashDecodeAreaToLongLat).
[[nodiscard]] Point center_of(const Area& area) noexcept;

// A point's score: its step-26 cell aligned to 52 bits (GEOADD's score).
// The point must be within Redis's limits.
[[nodiscard]] std::uint64_t score_of(Point p) noexcept;
// `hash` shifted left to fill 52 bits (geohashAlign52Bits).
[[nodiscard]] std::uint64_t align52(HashBits hash) noexcept;
// A score as the cell bits Redis reads from it: C's (uint64_t) conversion
// as x86-64 performs it, so any double (a ZADD'd -1, 1e300) decodes as there.
[[nodiscard]] std::uint64_t score_bits(double score) noexcept;
// decodeGeohash: the point a sorted-set score stands for.
[[nodiscard]] bool decode_score(double score, Point& out) noexcept;

// The cell itself, then its eight neighbours in the order Redis searches
// them: north, south, east, west, north-east, north-west, south-east,
// south-west. Neighbours wrap around at the edges (the antimeridian).
using Cells = std::array<HashBits, 9>;
[[nodiscard]] Cells cell_and_neighbours(HashBits hash) noexcept;
enum Cell : std::size_t { self = 0, north, south, east, west, north_east, north_west, south_east, south_west };

// GEOHASH's string: the point re-encoded over -180..180 / -90..90 at step
// 26, 10 base-32 characters of its 52 bits, then '0' for the 11th.
[[nodiscard]] std::string geohash_string(Point p);

}  // namespace duet::kv::geo
