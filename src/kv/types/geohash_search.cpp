// The search geometry (kv/types/geohash_search.hpp), after Redis's
// geohash_helper.c: same constants, same expressions in the same order.
#include "kv/types/geohash_search.hpp"

#include <cmath>
#include <numbers>
#include <cstdio>

namespace duet::kv::geo {
namespace {

constexpr double deg_to_rad_factor = M_PI / 180.0;  // Redis's D_R
constexpr double mercator_max = 20037726.37;

double deg_rad(double degrees) noexcept { return degrees * deg_to_rad_factor; }
double rad_deg(double radians) noexcept { return radians / deg_to_rad_factor; }

// The cell of the centre at `step`, and the bounds of that cell.
struct CentreCell {
  Cells cells;
  Area area;
};
CentreCell centre_cell(Point center, int step) noexcept {
  HashBits hash;
  (void)encode(redis_longitudes, redis_latitudes, center, step, hash);
  CentreCell out{cell_and_neighbours(hash), {}};
  (void)decode(redis_longitudes, redis_latitudes, hash, out.area);
  return out;
}

Area area_of(HashBits cell) noexcept {
  Area a;
  (void)decode(redis_longitudes, redis_latitudes, cell, a);
  return a;
}

// The estimate is per radius; near the edge of its cell a neighbour may not
// reach the box's far side, and one coarser step (cells twice as large) does.
bool neighbours_fall_short(const Cells& cells, const Bounds& box) noexcept {
  return area_of(cells[north]).latitude.max < box.max_latitude ||
         area_of(cells[south]).latitude.min > box.min_latitude ||
         area_of(cells[east]).longitude.max < box.max_longitude ||
         area_of(cells[west]).longitude.min > box.min_longitude;
}

// Neighbours on a side the box does not reach hold nothing it wants.
void drop_useless(Cells& cells, const Area& area, const Bounds& box) noexcept {
  auto drop = [&](std::initializer_list<Cell> which) {
    for (Cell c : which) cells[c] = HashBits{};
  };
  if (area.latitude.min < box.min_latitude) drop({south, south_west, south_east});
  if (area.latitude.max > box.max_latitude) drop({north, north_east, north_west});
  if (area.longitude.min < box.min_longitude) drop({west, south_west, north_west});
  if (area.longitude.max > box.max_longitude) drop({east, south_east, north_east});
}

}  // namespace

double latitude_distance(double lat1, double lat2) noexcept {
  return earth_radius_meters * std::fabs(deg_rad(lat2) - deg_rad(lat1));
}

double distance(Point a, Point b) noexcept {
  const double lon1r = deg_rad(a.longitude);
  const double lon2r = deg_rad(b.longitude);
  const double v = std::sin((lon2r - lon1r) / 2);
  // Same longitude: the haversine reduces to the latitude difference.
  if (v == 0.0) return latitude_distance(a.latitude, b.latitude);
  const double lat1r = deg_rad(a.latitude);
  const double lat2r = deg_rad(b.latitude);
  const double u = std::sin((lat2r - lat1r) / 2);
  const double h = u * u + std::cos(lat1r) * std::cos(lat2r) * v * v;
  return 2.0 * earth_radius_meters * std::asin(std::sqrt(h));
}

Bounds bounding_box(const Shape& shape) noexcept {
  const bool circle = shape.kind == Shape::Kind::circle;
  const double longitude = shape.center.longitude;
  const double latitude = shape.center.latitude;
  const double height = shape.to_meters * (circle ? shape.radius : shape.height / 2);
  const double width = shape.to_meters * (circle ? shape.radius : shape.width / 2);
  const double lat_delta = rad_deg(height / earth_radius_meters);
  // A degree of longitude shrinks towards the poles: the edge nearer the
  // pole is the wider one in degrees, so the box takes that edge's width.
  const double long_delta_top = rad_deg(width / earth_radius_meters / std::cos(deg_rad(latitude + lat_delta)));
  const double long_delta_bottom = rad_deg(width / earth_radius_meters / std::cos(deg_rad(latitude - lat_delta)));
  const bool southern = latitude < 0;
  Bounds b;
  b.min_longitude = southern ? longitude - long_delta_bottom : longitude - long_delta_top;
  b.max_longitude = southern ? longitude + long_delta_bottom : longitude + long_delta_top;
  b.min_latitude = latitude - lat_delta;
  b.max_latitude = latitude + lat_delta;
  return b;
}

int estimate_steps(double range_meters, double latitude) noexcept {
  if (range_meters == 0) return step_max;
  int step = 1;
  while (range_meters < mercator_max) {
    range_meters *= 2;
    step++;
  }
  step -= 2;  // so that the range is inside the nine cells in most cases
  // Cells narrow towards the poles: coarser there.
  if (latitude > 66 || latitude < -66) {
    step--;
    if (latitude > 80 || latitude < -80) step--;
  }
  if (step < 1) step = 1;
  if (step > step_max) step = step_max;
  return step;
}

Cells search_cells(const Shape& shape) noexcept {
  const Bounds box = bounding_box(shape);
  // A box's reach is its half diagonal.
  const double half_width = shape.width / 2;
  const double half_height = shape.height / 2;
  double radius_meters = shape.kind == Shape::Kind::circle
                             ? shape.radius
                             : std::sqrt(half_width * half_width + half_height * half_height);
  radius_meters *= shape.to_meters;
  int steps = estimate_steps(radius_meters, shape.center.latitude);
  CentreCell at = centre_cell(shape.center, steps);
  if (steps > 1 && neighbours_fall_short(at.cells, box)) at = centre_cell(shape.center, --steps);
  if (steps >= 2) drop_useless(at.cells, at.area, box);
  return at.cells;
}

ScoreSpan cell_scores(HashBits cell) noexcept {
  // Every score whose top 2*step bits are the cell's: from the cell aligned
  // to 52 bits up to (not including) the next cell aligned.
  ScoreSpan span;
  span.min = align52(cell);
  ++cell.bits;
  span.max = align52(cell);
  return span;
}

void prepare_search(Shape& shape) noexcept {
  if (shape.kind != Shape::Kind::circle) return;
  const double angle = shape.radius * shape.to_meters / earth_radius_meters;  // r/R, radians
  if (!(angle < std::numbers::pi)) return;  // sin^2(r/2R) stops growing past half the globe
  const double lat = std::fabs(deg_rad(shape.center.latitude));
  const double far_lat = lat + angle;
  shape.longitude_factor = far_lat < std::numbers::pi / 2 ? std::cos(lat) * std::cos(far_lat) : 0;
  const double half_chord = std::sin(angle / 2);
  shape.half_chord2 = half_chord * half_chord;
}

bool within(const Shape& shape, Point p, double& meters) noexcept {
  if (shape.kind == Shape::Kind::circle) {
    const double radius = shape.radius * shape.to_meters;
    // Cheap rejections before the haversine's five calls (most points of a
    // search's nine cells lie outside the circle). A great-circle distance is
    // at least the latitude difference's arc, and its haversine term is at
    // least longitude_factor * sin^2(dlon/2) >= longitude_factor * L^2 with
    // L = x (1 - x^2 / 6) <= sin(x) for 0 <= x <= 1. The margins keep rounding
    // from ever refusing a point the haversine would accept.
    if (latitude_distance(p.latitude, shape.center.latitude) > radius * (1 + 1e-9)) return false;
    if (shape.half_chord2 >= 0) {
      const double x = std::fabs(deg_rad(p.longitude) - deg_rad(shape.center.longitude)) / 2;
      const double low = x * (1 - x * x / 6);
      if (x <= 1 && shape.longitude_factor * low * low > shape.half_chord2 * (1 + 1e-9)) return false;
    }
    meters = distance(shape.center, p);
    return meters <= radius;
  }
  // The latitude test is the cheaper one, so first; the longitude distance is
  // measured along the point's own parallel.
  const double width = shape.width * shape.to_meters;
  const double height = shape.height * shape.to_meters;
  if (latitude_distance(p.latitude, shape.center.latitude) > height / 2) return false;
  if (distance({p.longitude, p.latitude}, {shape.center.longitude, p.latitude}) > width / 2) return false;
  meters = distance(shape.center, p);
  return true;
}

std::string format_distance(double value) {
  if (value == 0) return "0.0000";
  const long long scaled = std::llrint(value * 10000.0);
  const bool negative = scaled < 0;
  const unsigned long long magnitude =
      negative ? 0ULL - static_cast<unsigned long long>(scaled) : static_cast<unsigned long long>(scaled);
  char text[48];
  const int n = std::snprintf(text, sizeof text, "%s%llu.%04llu", negative ? "-" : "", magnitude / 10000,
                              magnitude % 10000);
  return std::string(text, static_cast<std::size_t>(n));
}

}  // namespace duet::kv::geo
