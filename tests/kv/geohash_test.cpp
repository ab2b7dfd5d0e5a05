// The geohash module against values read from redis-server 7.0.15 (GEOADD
// then ZSCORE for scores, GEOPOS, GEOHASH, GEODIST, GEORADIUS ... WITHDIST),
// and its bit operations against their definitions.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <random>

#include "kv/detail/numbers.hpp"
#include "kv/types/geohash.hpp"
#include "kv/types/geohash_search.hpp"

namespace geo = duet::kv::geo;

namespace {

constexpr geo::Point palermo{13.361389, 38.115556};
constexpr geo::Point catania{15.087269, 37.502669};

geo::Point decoded(double score) {
  geo::Point p;
  REQUIRE(geo::decode_score(score, p));
  return p;
}

// A coordinate as GEOPOS prints it (Redis's addReplyHumanLongDouble).
std::string human(double value) {
  std::string out;
  duet::kv::detail::format_long_double(value, out);
  return out;
}

// Whether a search over `shape` reads the cell range holding `score`.
bool searched(const geo::Shape& shape, std::uint64_t score) {
  for (geo::HashBits cell : geo::search_cells(shape)) {
    if (cell.is_zero()) continue;
    const geo::ScoreSpan span = geo::cell_scores(cell);
    if (score >= span.min && score < span.max) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a point's score is Redis's 52-bit geohash", "[geo]") {
  CHECK(geo::score_of(palermo) == 3479099956230698ULL);
  CHECK(geo::score_of(catania) == 3479447370796909ULL);
  CHECK(geo::score_of({0, 0}) == 3377699720527872ULL);
  CHECK(geo::score_of({-180, -85.05112878}) == 0);
  // The top of both ranges is one past the last cell, as in Redis.
  CHECK(geo::score_of({180, 85.05112878}) == 13510798882111488ULL);
}

TEST_CASE("a point outside Redis's latitude limits has no cell", "[geo]") {
  geo::HashBits hash;
  CHECK_FALSE(geo::encode(geo::redis_longitudes, geo::redis_latitudes, {0, 85.06}, geo::step_max, hash));
  CHECK_FALSE(geo::encode(geo::redis_longitudes, geo::redis_latitudes, {180.0001, 0}, geo::step_max, hash));
  CHECK(geo::encode(geo::redis_longitudes, geo::redis_latitudes, {-180, 85.05112878}, geo::step_max, hash));
}

TEST_CASE("a score decodes to its cell's centre as GEOPOS prints it", "[geo]") {
  const geo::Point p = decoded(3479099956230698.0);
  CHECK(p.longitude == 13.36138933897018433);
  CHECK(p.latitude == 38.11555639549629859);
  const geo::Point c = decoded(3479447370796909.0);
  CHECK(c.longitude == 15.08726745843887329);
  CHECK(c.latitude == 37.50266842333162032);
  // Near zero the printed 17 decimals keep few digits: compare the text.
  const geo::Point zero = decoded(3377699720527872.0);
  CHECK(human(zero.longitude) == "0.00000268220901489");
  CHECK(human(zero.latitude) == "0.00000126736058093");
}

TEST_CASE("any score decodes as Redis's C cast reads it", "[geo]") {
  // ZADD'd scores that are no geohash: -1 is all ones, 1e300 and inf are
  // 0, -inf is 2^63, 2^52 is one past the latitudes; values past the range clamp.
  const geo::Point corner_ne{180, 85.0511287799999991};
  const geo::Point corner_sw{-179.99999731779098511, -85.05112751263942528};
  auto same = [](geo::Point a, geo::Point b) { return a.longitude == b.longitude && a.latitude == b.latitude; };
  CHECK(same(decoded(-1), corner_ne));
  CHECK(same(decoded(-0.5), corner_sw));
  CHECK(same(decoded(1e300), corner_sw));
  CHECK(same(decoded(HUGE_VAL), corner_sw));
  CHECK(same(decoded(-HUGE_VAL), {180, -85.05112751263942528}));
  CHECK(same(decoded(9223372036854775808.0), {180, -85.05112751263942528}));
  CHECK(same(decoded(18446744073709551616.0), corner_sw));
  CHECK(same(decoded(4503599627370496.0), {-179.99999731779098511, 85.0511287799999991}));
  CHECK(same(decoded(12345.678), {-179.99962180852890015, -85.05095261687941388}));
}

TEST_CASE("GEOHASH strings are standard geohashes of the decoded point", "[geo]") {
  CHECK(geo::geohash_string(decoded(3479099956230698.0)) == "sqc8b49rny0");
  CHECK(geo::geohash_string(decoded(3479447370796909.0)) == "sqdtr74hyu0");
  CHECK(geo::geohash_string(decoded(13510798882111488.0)) == "bp05b5048p0");
  CHECK(geo::geohash_string(decoded(0)) == "00bh0hbj200");
  CHECK(geo::geohash_string(decoded(3377699720527872.0)) == "s0000000000");
  CHECK(geo::geohash_string(decoded(12345.678)) == "00bh0hbq2c0");
}

TEST_CASE("GEODIST's distance and its 4-decimal text", "[geo]") {
  const double meters = geo::distance(decoded(3479099956230698.0), decoded(3479447370796909.0));
  CHECK(geo::format_distance(meters) == "166274.1516");
  CHECK(geo::format_distance(meters / 1000) == "166.2742");
  CHECK(geo::format_distance(meters / 1609.34) == "103.3182");
  CHECK(geo::format_distance(meters / 0.3048) == "545518.8700");
}

TEST_CASE("distances round half to even on x * 10^4, not as %.4f", "[geo]") {
  CHECK(geo::format_distance(0) == "0.0000");
  CHECK(geo::format_distance(0.00005) == "0.0000");   // %.4f: 0.0001
  CHECK(geo::format_distance(0.00025) == "0.0002");   // %.4f: 0.0003
  CHECK(geo::format_distance(1.23445) == "1.2344");   // %.4f: 1.2345
  CHECK(geo::format_distance(12.5) == "12.5000");
  CHECK(geo::format_distance(-3.25) == "-3.2500");
}

TEST_CASE("interleave puts x in the even bits and deinterleave undoes it", "[geo]") {
  CHECK(geo::interleave(1, 0) == 1);
  CHECK(geo::interleave(0, 1) == 2);
  CHECK(geo::interleave(0xffffffffu, 0) == 0x5555555555555555ULL);
  std::mt19937_64 rng(28);
  for (int i = 0; i < 1000; ++i) {
    const auto x = static_cast<std::uint32_t>(rng());
    const auto y = static_cast<std::uint32_t>(rng());
    const std::uint64_t both = geo::deinterleave(geo::interleave(x, y));
    REQUIRE(static_cast<std::uint32_t>(both) == x);
    REQUIRE(static_cast<std::uint32_t>(both >> 32) == y);
  }
}

TEST_CASE("neighbours are the adjacent cells and wrap at the antimeridian", "[geo]") {
  geo::HashBits hash;
  REQUIRE(geo::encode(geo::redis_longitudes, geo::redis_latitudes, {179.9, 10}, 4, hash));
  const geo::Cells cells = geo::cell_and_neighbours(hash);
  geo::Area self, east, north, south_west;
  REQUIRE(geo::decode(geo::redis_longitudes, geo::redis_latitudes, cells[geo::self], self));
  REQUIRE(geo::decode(geo::redis_longitudes, geo::redis_latitudes, cells[geo::east], east));
  REQUIRE(geo::decode(geo::redis_longitudes, geo::redis_latitudes, cells[geo::north], north));
  REQUIRE(geo::decode(geo::redis_longitudes, geo::redis_latitudes, cells[geo::south_west], south_west));
  CHECK(self.longitude.max == 180);
  CHECK(east.longitude.min == -180);  // past the antimeridian
  CHECK(east.latitude.min == self.latitude.min);
  CHECK(north.latitude.min == self.latitude.max);
  CHECK(north.longitude.min == self.longitude.min);
  CHECK(south_west.latitude.max == self.latitude.min);
  CHECK(south_west.longitude.max == self.longitude.min);
}

TEST_CASE("the step estimate doubles the radius up to the Mercator width", "[geo]") {
  CHECK(geo::estimate_steps(0, 0) == 26);
  CHECK(geo::estimate_steps(200000, 37) == 6);
  CHECK(geo::estimate_steps(200000, 70) == 5);
  CHECK(geo::estimate_steps(200000, -85) == 4);
  CHECK(geo::estimate_steps(1e9, 0) == 1);
  CHECK(geo::estimate_steps(0.001, 0) == 26);
}

TEST_CASE("a radius search reads the cells of its points, with Redis's distances", "[geo]") {
  // GEORADIUS Sicily 15 37 200 km WITHDIST: Catania 56.4413, Palermo 190.4424.
  geo::Shape circle{.center = {15, 37}, .to_meters = 1000, .radius = 200};
  double meters = 0;
  REQUIRE(geo::within(circle, decoded(3479447370796909.0), meters));
  CHECK(geo::format_distance(meters / 1000) == "56.4413");
  REQUIRE(geo::within(circle, decoded(3479099956230698.0), meters));
  CHECK(geo::format_distance(meters / 1000) == "190.4424");
  CHECK(searched(circle, 3479447370796909ULL));
  CHECK(searched(circle, 3479099956230698ULL));
  circle.radius = 100;
  CHECK_FALSE(geo::within(circle, decoded(3479099956230698.0), meters));
}

TEST_CASE("a box search tests latitude and longitude distances apart", "[geo]") {
  // GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km: both; 200 200 km: Catania.
  geo::Shape box{.kind = geo::Shape::Kind::box, .center = {15, 37}, .to_meters = 1000, .width = 400, .height = 400};
  double meters = 0;
  CHECK(geo::within(box, decoded(3479099956230698.0), meters));
  CHECK(geo::format_distance(meters / 1000) == "190.4424");
  CHECK(searched(box, 3479099956230698ULL));
  box.width = box.height = 200;
  CHECK(geo::within(box, decoded(3479447370796909.0), meters));
  CHECK_FALSE(geo::within(box, decoded(3479099956230698.0), meters));
}

TEST_CASE("every point inside a random circle lies in a searched cell", "[geo]") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> lon(-180, 180), lat(-85, 85), km(0.1, 3000);
  for (int i = 0; i < 300; ++i) {
    const geo::Shape circle{.center = {lon(rng), lat(rng)}, .to_meters = 1000, .radius = km(rng)};
    for (int j = 0; j < 50; ++j) {
      const geo::Point p{lon(rng), lat(rng)};
      const std::uint64_t score = geo::score_of(p);
      double meters = 0;
      if (geo::within(circle, decoded(static_cast<double>(score)), meters)) REQUIRE(searched(circle, score));
    }
  }
}

TEST_CASE("a prepared circle answers exactly as the bare haversine, near its edge too", "[geo]") {
  std::mt19937_64 rng(28);
  std::uniform_real_distribution<double> lon(-180, 180);
  std::uniform_real_distribution<double> lat(-85, 85);
  std::uniform_real_distribution<double> unit(0, 1);
  int inside = 0;
  for (int i = 0; i < 20000; ++i) {
    geo::Shape plain;
    plain.center = {lon(rng), lat(rng)};
    plain.radius = i % 4 == 0 ? 5e6 * unit(rng) : 2000 * unit(rng);  // some past a quarter of the globe
    geo::Shape prepared = plain;
    geo::prepare_search(prepared);
    for (int j = 0; j < 20; ++j) {
      // Points near the circle: a random bearing at 0.9..1.1 of the radius (a small angle's offsets).
      const double scale = plain.radius * (0.9 + 0.2 * unit(rng)) / 111195.0;
      const double bearing = 2 * 3.141592653589793 * unit(rng);
      geo::Point p{plain.center.longitude + scale * std::sin(bearing) / std::max(0.05, std::cos(plain.center.latitude * 0.0174532925)),
                   plain.center.latitude + scale * std::cos(bearing)};
      if (j % 5 == 0) p = {lon(rng), lat(rng)};  // anywhere
      if (std::fabs(p.latitude) > 85.05 || std::fabs(p.longitude) > 180) continue;  // no stored point is there
      const double d1 = geo::distance(plain.center, p);  // the bare haversine, no rejection first
      double d2 = -1;
      const bool a = d1 <= plain.radius;
      const bool b = geo::within(prepared, p, d2);
      INFO(std::setprecision(17) << "centre " << plain.center.longitude << "," << plain.center.latitude << " radius "
                                 << plain.radius << " point " << p.longitude << "," << p.latitude << " d " << d1);
      REQUIRE(a == b);
      if (a) {
        REQUIRE(d1 == d2);
        ++inside;
      }
    }
  }
  CHECK(inside > 10000);  // both sides of the edge were tried
}
