// The geo commands over single members (Redis 7.0's geo.c): GEOADD GEOPOS
// GEODIST GEOHASH, what the search file shares, and the family's table (the
// searches are in commands_geo_search.cpp).
//
// GEOADD is ZADD underneath, as in Redis (which rewrites it into a ZADD
// call): the same NX XX CH, the same encoding of a new set, the keyspace
// events "new" and "zadd". A GEOADD that changed nothing is not logged.
#include <absl/container/inlined_vector.h>

#include <cstdio>
#include <string>

#include "kv/commands_geo.hpp"
#include "kv/detail/command_util.hpp"
#include "kv/types/geohash_search.hpp"
#include "kv/types/zset_family.hpp"

namespace duet::kv {
namespace geo_cmd {

using detail::equals_ci;

bool parse_lonlat(CommandContext& ctx, std::string_view lon, std::string_view lat, geo::Point& p) {
  if (!zset_family::parse_score(lon, p.longitude) || !zset_family::parse_score(lat, p.latitude)) {
    ctx.reply.error(detail::err_not_float);
    return false;
  }
  if (p.longitude < geo::long_min || p.longitude > geo::long_max || p.latitude < geo::lat_min ||
      p.latitude > geo::lat_max) {
    char text[1024];  // %f of a huge double is long: snprintf cuts, as a bound
    std::snprintf(text, sizeof text, "ERR invalid longitude,latitude pair %f,%f", p.longitude, p.latitude);
    ctx.reply.error(text);
    return false;
  }
  return true;
}

bool parse_unit(CommandContext& ctx, std::string_view text, double& to_meters) {
  if (equals_ci(text, "m")) {
    to_meters = 1;
  } else if (equals_ci(text, "km")) {
    to_meters = 1000;
  } else if (equals_ci(text, "ft")) {
    to_meters = 0.3048;
  } else if (equals_ci(text, "mi")) {
    to_meters = 1609.34;
  } else {
    ctx.reply.error("ERR unsupported unit provided. please use M, KM, FT, MI");
    return false;
  }
  return true;
}

void reply_coordinate(CommandContext& ctx, double value) {
  std::string text;
  detail::format_long_double(value, text);
  if (ctx.reply.protocol() == 2) return ctx.reply.bulk(text);
  std::string& out = ctx.reply.buffer();  // RESP3: a double, in the human text
  out.push_back(',');
  out.append(text);
  out.append("\r\n");
}

namespace {

// The last STORE or STOREDIST key among the options from `first` (as the
// parser takes them: COUNT's value is not a keyword).
std::size_t store_key_after(std::span<const std::string_view> argv, std::size_t first) noexcept {
  std::size_t at = 0;
  for (std::size_t i = first; i + 1 < argv.size(); ++i) {
    if (equals_ci(argv[i], "store") || equals_ci(argv[i], "storedist")) {
      at = ++i;
    } else if (equals_ci(argv[i], "count")) {
      ++i;
    }
  }
  return at;
}

}  // namespace

std::size_t georadius_store_key_at(std::span<const std::string_view> argv) noexcept {
  return store_key_after(argv, 6);
}
std::size_t georadiusbymember_store_key_at(std::span<const std::string_view> argv) noexcept {
  return store_key_after(argv, 5);
}

}  // namespace geo_cmd

namespace {

using detail::equals_ci;
using zset_family::lookup_zset;

// GEOADD key [NX|XX] [CH] longitude latitude member [...]
void geoadd(CommandContext& ctx) {
  unsigned flags = 0;
  bool ch = false;
  std::size_t first = 2;
  for (; first < ctx.argv.size(); ++first) {
    const std::string_view opt = ctx.argv[first];
    if (equals_ci(opt, "nx")) {
      flags |= zadd_nx;
    } else if (equals_ci(opt, "xx")) {
      flags |= zadd_xx;
    } else if (equals_ci(opt, "ch")) {
      ch = true;
    } else {
      break;
    }
  }
  const std::size_t left = ctx.argv.size() - first;
  // (No triple at all passes geo.c's check, then fails ZADD's the same way.)
  if (left % 3 != 0 || left == 0 || flags == (zadd_nx | zadd_xx)) return ctx.reply.error(detail::err_syntax);
  absl::InlinedVector<double, 8> scores;
  for (std::size_t j = first; j < ctx.argv.size(); j += 3) {
    geo::Point p;
    if (!geo_cmd::parse_lonlat(ctx, ctx.argv[j], ctx.argv[j + 1], p)) return;
    scores.push_back(static_cast<double>(geo::score_of(p)));
  }
  Entry* e = nullptr;
  if (!lookup_zset(ctx, ctx.argv[1], e)) return;
  Value* v = e == nullptr ? nullptr : &e->value;
  if (v == nullptr && (flags & zadd_xx) != 0) return ctx.reply.integer(0);
  if (v == nullptr) v = &zset_family::create_zset(ctx, ctx.argv[1], 1, ctx.argv[first + 2].size());
  const ZsetLimits limits = zset_family::limits(ctx);
  std::int64_t added = 0;
  std::int64_t updated = 0;
  for (std::size_t k = 0; k < scores.size(); ++k) {
    double now_score = 0;
    const ZaddResult r = zset_add(*v, ctx.argv[first + 3 * k + 2], scores[k], flags, now_score, limits);
    added += r == ZaddResult::added ? 1 : 0;
    updated += r == ZaddResult::updated ? 1 : 0;
  }
  ctx.reply.integer(ch ? added + updated : added);
  if (added + updated == 0) return ctx.log_instead(std::span<const std::string_view>{});
  notify_keyspace_event(ctx, notify_zset, "zadd", ctx.argv[1]);
}

// The member's point, if the set holds it.
std::optional<geo::Point> point_of(const ZsetObject* zset, std::string_view member) {
  if (zset == nullptr) return std::nullopt;
  const std::optional<double> score = zset->score(member);
  geo::Point p;
  if (!score || !geo::decode_score(*score, p)) return std::nullopt;
  return p;
}

const ZsetObject* zset_of(const Entry* e) { return e == nullptr ? nullptr : e->value.as<ZsetObject>(); }

// GEOPOS key [member ...]
void geopos(CommandContext& ctx) {
  Entry* e = nullptr;
  if (!lookup_zset(ctx, ctx.argv[1], e, true)) return;
  ctx.reply.array(ctx.argv.size() - 2);
  for (std::size_t j = 2; j < ctx.argv.size(); ++j) {
    const std::optional<geo::Point> p = point_of(zset_of(e), ctx.argv[j]);
    if (!p) {
      ctx.reply.null_array();
      continue;
    }
    ctx.reply.array(2);
    geo_cmd::reply_coordinate(ctx, p->longitude);
    geo_cmd::reply_coordinate(ctx, p->latitude);
  }
}

// GEOHASH key [member ...]
void geohash(CommandContext& ctx) {
  Entry* e = nullptr;
  if (!lookup_zset(ctx, ctx.argv[1], e, true)) return;
  ctx.reply.array(ctx.argv.size() - 2);
  for (std::size_t j = 2; j < ctx.argv.size(); ++j) {
    const std::optional<geo::Point> p = point_of(zset_of(e), ctx.argv[j]);
    p ? ctx.reply.bulk(geo::geohash_string(*p)) : ctx.reply.null();
  }
}

// GEODIST key member1 member2 [M|KM|FT|MI]
void geodist(CommandContext& ctx) {
  double to_meters = 1;
  if (ctx.argv.size() == 5 && !geo_cmd::parse_unit(ctx, ctx.argv[4], to_meters)) return;
  if (ctx.argv.size() > 5) return ctx.reply.error(detail::err_syntax);
  Entry* e = nullptr;
  if (!lookup_zset(ctx, ctx.argv[1], e, true)) return;
  const std::optional<geo::Point> a = point_of(zset_of(e), ctx.argv[2]);
  const std::optional<geo::Point> b = a ? point_of(zset_of(e), ctx.argv[3]) : std::nullopt;
  if (!b) return ctx.reply.null();
  ctx.reply.bulk(geo::format_distance(geo::distance(*a, *b) / to_meters));
}

constexpr ShardRoute g = ShardRoute::gather;

constexpr Command commands[] = {
    {"geoadd", -5, cmd_write | cmd_denyoom, geoadd, 1, 1, 1, "geo",
     "Add one or more geospatial items in the geospatial index represented using a sorted set"},
    {"geopos", -2, cmd_readonly, geopos, 1, 1, 1, "geo",
     "Returns longitude and latitude of members of a geospatial index"},
    {"geodist", -4, cmd_readonly, geodist, 1, 1, 1, "geo",
     "Returns the distance between two members of a geospatial index"},
    {"geohash", -2, cmd_readonly, geohash, 1, 1, 1, "geo",
     "Returns members of a geospatial index as standard geohash strings"},
    {"geosearch", -7, cmd_readonly, geo_cmd::geosearch, 1, 1, 1, "geo",
     "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle."},
    {"geosearchstore", -8, cmd_write | cmd_denyoom, geo_cmd::geosearchstore, 1, 2, 1, "geo",
     "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle, "
     "and store the result in another key.",
     g},
    {"georadius", -6, cmd_write | cmd_denyoom, geo_cmd::georadius, 1, 1, 1, "geo",
     "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from "
     "a point",
     g, 0, geo_cmd::georadius_store_key_at},
    {"georadius_ro", -6, cmd_readonly, geo_cmd::georadius_ro, 1, 1, 1, "geo", "A read-only variant for GEORADIUS"},
    {"georadiusbymember", -5, cmd_write | cmd_denyoom, geo_cmd::georadiusbymember, 1, 1, 1, "geo",
     "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from "
     "a member",
     g, 0, geo_cmd::georadiusbymember_store_key_at},
    {"georadiusbymember_ro", -5, cmd_readonly, geo_cmd::georadiusbymember_ro, 1, 1, 1, "geo",
     "A read-only variant for GEORADIUSBYMEMBER"},
};

}  // namespace

std::span<const Command> geo_commands() noexcept { return commands; }

}  // namespace duet::kv
