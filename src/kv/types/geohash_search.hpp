// duet::kv::geo — the geometry of Redis's geo searches (geohash_helper.c):
// distances on Redis's sphere, a search shape's bounding box, the nine cells
// that cover it, and whether a point is inside.
//
// Contract
// - Distances are haversine great-circle distances in metres on a sphere of
//   radius 6372797.560856 m (Redis's EARTH_RADIUS_IN_METERS), computed in
//   Redis's order of operations: GEODIST and WITHDIST print them to 4
//   decimals, so the last bits matter.
// - A Shape is a circle (radius) or an axis-aligned box (width x height)
//   around `center`, its sizes in `unit`s; `to_meters` converts (m 1, km
//   1000, ft 0.3048, mi 1609.34).
// - search_cells() is geohashCalculateAreasByShapeWGS84: the step estimated
//   for the radius, one step coarser when a neighbour does not reach the
//   bounding box, then the neighbours the box cannot touch zeroed. A search
//   reads the score range of each non-zero cell in Cells order, skipping a
//   cell equal to the last one read (huge radii make neighbours coincide).
// - Pure functions, any thread.
//
//   geo::Shape circle{.center = {15, 37}, .to_meters = 1000, .radius = 200};
//   for (geo::HashBits cell : geo::search_cells(circle)) { /* cell_scores(cell) ... */ }
//   double d;
//   if (geo::within(circle, p, d)) { /* d in metres */ }
#pragma once

#include <cstdint>
#include <string>

#include "kv/types/geohash.hpp"

namespace duet::kv::geo {

inline constexpr double earth_radius_meters = 6372797.560856;

// Haversine distance in metres (geohashGetDistance).
[[nodiscard]] double distance(Point a, Point b) noexcept;
// Along a meridian only (geohashGetLatDistance).
[[nodiscard]] double latitude_distance(double lat1, double lat2) noexcept;

struct Shape {
  enum class Kind { circle, box };
  Kind kind = Kind::circle;
  Point center;
  double to_meters = 1;
  double radius = 0;  // circle
  double width = 0;   // box
  double height = 0;
  // Filled by prepare_search() for a circle searched over many points: a
  // lower bound of the distance from the longitude difference alone
  // (haversine's a >= cos(lat1) cos(lat2) sin^2(dlon/2), cos(lat2) bounded
  // over the circle's latitude band); half_chord2 < 0: not prepared.
  double longitude_factor = 0;  // cos(lat_c) * cos(|lat_c| + r/R), 0 past a pole
  double half_chord2 = -1;      // sin^2(r / 2R)
};
// Precomputes a circle's cheap rejections (within() then skips most of the
// haversines of a search's nine cells; its answers do not change).
void prepare_search(Shape& shape) noexcept;

// Min/max longitude and latitude the shape can reach (geohashBoundingBox).
struct Bounds {
  double min_longitude = 0;
  double min_latitude = 0;
  double max_longitude = 0;
  double max_latitude = 0;
};
[[nodiscard]] Bounds bounding_box(const Shape& shape) noexcept;

// The step at which nine cells cover `range_meters` around `latitude`
// (geohashEstimateStepsByRadius), 1..26.
[[nodiscard]] int estimate_steps(double range_meters, double latitude) noexcept;

// The cell around the centre and its neighbours (zero: not searched).
[[nodiscard]] Cells search_cells(const Shape& shape) noexcept;

// The scores [min, max) of the points inside a cell.
struct ScoreSpan {
  std::uint64_t min = 0;
  std::uint64_t max = 0;
};
[[nodiscard]] ScoreSpan cell_scores(HashBits cell) noexcept;

// Whether `p` is inside the shape; `meters` gets its distance from the
// centre (geoWithinShape, after the score is decoded).
[[nodiscard]] bool within(const Shape& shape, Point p, double& meters) noexcept;

// A distance as GEODIST and WITHDIST print it: fixed point with 4 decimals,
// rounded as Redis's fixedpoint_d2string does (llrint of x * 10^4).
[[nodiscard]] std::string format_distance(double value);

}  // namespace duet::kv::geo
