// GEOSEARCH GEOSEARCHSTORE GEORADIUS GEORADIUSBYMEMBER and the _RO forms:
// Redis 7.0's georadiusGeneric (geo.c) — one argument parser for the six
// spellings, the nine-cell search, Redis's sorts, and the reply or the
// stored set.
//
// Order of checks, as Redis: the source key's type (WRONGTYPE first), the
// centre and radius of the GEORADIUS forms, each option left to right
// (its own errors as it comes), then the combinations (STORE with WITH*,
// FROM*, BY*, ANY without COUNT); a missing source then answers an empty
// array, or deletes the STORE key and answers 0.
// Keyspace events: "georadiusstore" / "geosearchstore" on the stored key
// ("new" first if it is created), "del" when an empty result deletes it.
#include <optional>
#include <string>
#include <vector>

#include "kv/commands_geo.hpp"
#include "kv/detail/command_util.hpp"
#include "kv/detail/redis_sorts.hpp"
#include "kv/types/geohash_search.hpp"
#include "kv/types/zset_family.hpp"

namespace duet::kv::geo_cmd {
namespace {

using detail::equals_ci;

// Which command is parsing (Redis's RADIUS_* / GEOSEARCH* flags).
enum Variant : unsigned {
  radius_coords = 1,   // GEORADIUS key lon lat radius unit
  radius_member = 2,   // GEORADIUSBYMEMBER key member radius unit
  no_store = 4,        // the _RO forms
  search = 8,          // GEOSEARCH key FROM... BY...
  search_store = 16,   // GEOSEARCHSTORE dst src ...
};

enum class Order { none, asc, desc };

struct SearchArgs {
  geo::Shape shape;
  bool with_dist = false;
  bool with_hash = false;
  bool with_coord = false;
  bool from_member = false;
  bool from_lonlat = false;
  bool by_radius = false;
  bool by_box = false;
  bool any = false;
  Order order = Order::none;
  std::int64_t count = 0;  // 0: all
  std::optional<std::string_view> store_key;
  bool store_dist = false;
};

struct Found {
  geo::Point xy;
  double dist;  // metres, then in the unit
  double score;
  std::string_view member;  // into the source set: nothing writes it before the reply or the store
};

// ---- arguments ----

bool parse_double(CommandContext& ctx, std::string_view text, double& value, std::string_view error) {
  if (zset_family::parse_score(text, value)) return true;
  ctx.reply.error(error);
  return false;
}

// extractDistanceOrReply: radius unit.
bool parse_radius(CommandContext& ctx, std::size_t at, geo::Shape& shape) {
  if (!parse_double(ctx, ctx.argv[at], shape.radius, "ERR need numeric radius")) return false;
  if (shape.radius < 0) return ctx.reply.error("ERR radius cannot be negative"), false;
  shape.kind = geo::Shape::Kind::circle;
  return parse_unit(ctx, ctx.argv[at + 1], shape.to_meters);
}

// extractBoxOrReply: width height unit.
bool parse_box(CommandContext& ctx, std::size_t at, geo::Shape& shape) {
  if (!parse_double(ctx, ctx.argv[at], shape.width, "ERR need numeric width") ||
      !parse_double(ctx, ctx.argv[at + 1], shape.height, "ERR need numeric height")) {
    return false;
  }
  if (shape.height < 0 || shape.width < 0) return ctx.reply.error("ERR height or width cannot be negative"), false;
  shape.kind = geo::Shape::Kind::box;
  return parse_unit(ctx, ctx.argv[at + 2], shape.to_meters);
}

// longLatFromMember; the error is the caller's.
bool member_point(const ZsetObject& zset, std::string_view member, geo::Point& p) {
  const std::optional<double> score = zset.score(member);
  return score && geo::decode_score(*score, p);
}

bool parse_from_member(CommandContext& ctx, const ZsetObject* zset, std::string_view member, geo::Point& p) {
  if (zset == nullptr || member_point(*zset, member, p)) return true;  // no source: the parse goes on
  ctx.reply.error("ERR could not decode requested zset member");
  return false;
}

// The arguments before the options of the GEORADIUS forms; `base` gets
// where the options start.
bool parse_fixed(CommandContext& ctx, unsigned variant, const ZsetObject* zset, SearchArgs& args, std::size_t& base) {
  if ((variant & radius_coords) != 0) {
    base = 6;
    return parse_lonlat(ctx, ctx.argv[2], ctx.argv[3], args.shape.center) && parse_radius(ctx, 4, args.shape);
  }
  if ((variant & radius_member) != 0) {
    base = 5;
    if (zset == nullptr) return true;  // nothing to find: parse the options for the reply's shape
    return parse_from_member(ctx, zset, ctx.argv[2], args.shape.center) && parse_radius(ctx, 3, args.shape);
  }
  base = (variant & search_store) != 0 ? 3 : 2;
  if ((variant & search_store) != 0) args.store_key = ctx.argv[1];
  return true;
}

// One option at argv[i] (advanced past its values); false after an error.
bool parse_option(CommandContext& ctx, unsigned variant, const ZsetObject* zset, SearchArgs& a, std::size_t& i) {
  const std::string_view arg = ctx.argv[i];
  const std::size_t left = ctx.argv.size() - i - 1;  // values after it
  const bool searching = (variant & search) != 0;
  const bool storing = (variant & no_store) == 0 && !searching;
  if (equals_ci(arg, "withdist")) {
    a.with_dist = true;
  } else if (equals_ci(arg, "withhash")) {
    a.with_hash = true;
  } else if (equals_ci(arg, "withcoord")) {
    a.with_coord = true;
  } else if (equals_ci(arg, "any")) {
    a.any = true;
  } else if (equals_ci(arg, "asc")) {
    a.order = Order::asc;
  } else if (equals_ci(arg, "desc")) {
    a.order = Order::desc;
  } else if (equals_ci(arg, "count") && left >= 1) {
    if (!detail::int_arg(ctx, ctx.argv[++i], a.count)) return false;
    if (a.count <= 0) return ctx.reply.error("ERR COUNT must be > 0"), false;
  } else if ((equals_ci(arg, "store") || equals_ci(arg, "storedist")) && left >= 1 && storing) {
    a.store_dist = equals_ci(arg, "storedist");
    a.store_key = ctx.argv[++i];
  } else if (equals_ci(arg, "storedist") && (variant & search_store) != 0) {
    a.store_dist = true;
  } else if (equals_ci(arg, "frommember") && left >= 1 && searching && !a.from_lonlat) {
    if (!parse_from_member(ctx, zset, ctx.argv[++i], a.shape.center)) return false;
    a.from_member = true;
  } else if (equals_ci(arg, "fromlonlat") && left >= 2 && searching && !a.from_member) {
    if (!parse_lonlat(ctx, ctx.argv[i + 1], ctx.argv[i + 2], a.shape.center)) return false;
    a.from_lonlat = true;
    i += 2;
  } else if (equals_ci(arg, "byradius") && left >= 2 && searching && !a.by_box) {
    if (!parse_radius(ctx, i + 1, a.shape)) return false;
    a.by_radius = true;
    i += 2;
  } else if (equals_ci(arg, "bybox") && left >= 3 && searching && !a.by_radius) {
    if (!parse_box(ctx, i + 1, a.shape)) return false;
    a.by_box = true;
    i += 3;
  } else {
    return ctx.reply.error(detail::err_syntax), false;
  }
  return true;
}

// The combinations Redis refuses once every option is read.
bool check_combination(CommandContext& ctx, unsigned variant, const SearchArgs& a) {
  std::string message;
  if (a.store_key && (a.with_dist || a.with_hash || a.with_coord)) {
    message.append("ERR ").append((variant & search_store) != 0 ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS");
    message.append(" is not compatible with WITHDIST, WITHHASH and WITHCOORD options");
  } else if ((variant & search) != 0 && !(a.from_member || a.from_lonlat)) {
    message.append("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for ").append(ctx.argv[0]);
  } else if ((variant & search) != 0 && !(a.by_radius || a.by_box)) {
    message.append("ERR exactly one of BYRADIUS and BYBOX can be specified for ").append(ctx.argv[0]);
  } else if (a.any && a.count == 0) {
    message = "ERR the ANY argument requires COUNT argument";
  } else {
    return true;
  }
  ctx.reply.error(message);
  return false;
}

// ---- the search ----

// geoGetPointsInRange over the scores [min, max) of one cell.
void points_in_cell(const ZsetObject& zset, geo::ScoreSpan span, const geo::Shape& shape, std::size_t limit,
                    std::vector<Found>& found) {
  const std::size_t from = zset.first_rank_with_score(static_cast<double>(span.min), false);
  const double max = static_cast<double>(span.max);
  zset.visit(from, zset.size() - from, false, [&](std::string_view member, double score) {
    if (score >= max) return false;
    Found f{{}, 0, score, member};
    if (geo::decode_score(score, f.xy) && geo::within(shape, f.xy, f.dist)) found.push_back(f);
    return !(limit != 0 && found.size() >= limit);
  });
}

// membersOfAllNeighbors: the cells in order, each once, until `limit` (ANY).
std::vector<Found> search_points(const ZsetObject& zset, const geo::Shape& query, std::size_t limit) {
  std::vector<Found> found;
  geo::Shape shape = query;
  geo::prepare_search(shape);
  const geo::Cells cells = geo::search_cells(shape);
  // Huge radii make neighbours coincide: a cell equal to the last one read
  // is skipped. As in Redis, "the last one" is never the centre (index 0
  // doubles as "none"); a neighbour never equals the centre anyway.
  std::size_t last = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (cells[i].is_zero()) continue;
    if (last != 0 && cells[i] == cells[last]) continue;
    if (limit != 0 && found.size() >= limit) break;
    points_in_cell(zset, geo::cell_scores(cells[i]), shape, limit, found);
    last = i;
  }
  return found;
}

// Redis sorts with qsort, or with its partial quicksort when COUNT keeps fewer.
void sort_found(std::vector<Found>& found, Order order, std::size_t returned) {
  if (order == Order::none) return;
  const int sign = order == Order::asc ? 1 : -1;
  auto cmp = [sign](const Found& a, const Found& b) {
    return sign * (a.dist > b.dist ? 1 : a.dist == b.dist ? 0 : -1);  // sort_gp_asc, negated for DESC
  };
  if (returned == found.size()) return detail::glibc_qsort(std::span<Found>(found), cmp);
  detail::partial_qsort(std::span<Found>(found), cmp, 0, returned - 1);
}

void reply_found(CommandContext& ctx, const SearchArgs& a, std::span<const Found> found) {
  const std::size_t extras = (a.with_dist ? 1 : 0) + (a.with_hash ? 1 : 0) + (a.with_coord ? 1 : 0);
  ctx.reply.array(found.size());
  for (const Found& f : found) {
    if (extras != 0) ctx.reply.array(extras + 1);
    ctx.reply.bulk(f.member);
    if (a.with_dist) ctx.reply.bulk(geo::format_distance(f.dist));
    if (a.with_hash) ctx.reply.integer(static_cast<std::int64_t>(f.score));
    if (a.with_coord) {
      ctx.reply.array(2);
      reply_coordinate(ctx, f.xy.longitude);
      reply_coordinate(ctx, f.xy.latitude);
    }
  }
}

void store_found(CommandContext& ctx, unsigned variant, const SearchArgs& a, std::span<const Found> found) {
  std::size_t longest = 0;
  for (const Found& f : found) longest = std::max(longest, f.member.size());
  const ZsetLimits limits = zset_family::limits(ctx);
  Value built;
  built.set_object(ZsetObject::create(found.size(), longest, limits));
  for (const Found& f : found) {
    double stored = 0;
    (void)zset_add(built, f.member, a.store_dist ? f.dist : f.score, 0, stored, limits);
  }
  const std::string_view event = (variant & search) != 0 ? "geosearchstore" : "georadiusstore";
  zset_family::store_zset(ctx, *a.store_key, std::move(built), event);
  ctx.reply.integer(static_cast<std::int64_t>(found.size()));
}

void search_generic(CommandContext& ctx, std::size_t src_at, unsigned variant) {
  Entry* entry = nullptr;
  if (!zset_family::lookup_zset(ctx, ctx.argv[src_at], entry, true)) return;
  const ZsetObject* zset = entry == nullptr ? nullptr : entry->value.as<ZsetObject>();
  SearchArgs args;
  std::size_t i = 0;
  if (!parse_fixed(ctx, variant, zset, args, i)) return;
  for (; i < ctx.argv.size(); ++i) {
    if (!parse_option(ctx, variant, zset, args, i)) return;
  }
  if (!check_combination(ctx, variant, args)) return;
  const bool storing = args.store_key.has_value();
  // GEORADIUS is a write for its STORE: without one it changes nothing and logs nothing.
  if (!storing && (variant & (radius_coords | radius_member)) != 0) {
    ctx.log_instead(std::span<const std::string_view>{});
  }
  if (zset == nullptr) {
    if (!storing) return ctx.reply.array(0);
    if (ctx.db().erase(*args.store_key, ctx.now)) notify_keyspace_event(ctx, notify_generic, "del", *args.store_key);
    return ctx.reply.integer(0);
  }
  // COUNT means the nearest ones, unless ANY asked for any.
  if (args.count != 0 && args.order == Order::none && !args.any) args.order = Order::asc;
  const auto count = static_cast<std::size_t>(args.count);
  std::vector<Found> found = search_points(*zset, args.shape, args.any ? count : 0);
  const std::size_t returned = count == 0 ? found.size() : std::min(found.size(), count);
  sort_found(found, args.order, returned);
  for (std::size_t j = 0; j < returned; ++j) found[j].dist /= args.shape.to_meters;
  const std::span<const Found> kept(found.data(), returned);
  if (storing) return store_found(ctx, variant, args, kept);
  reply_found(ctx, args, kept);
}

}  // namespace

void geosearch(CommandContext& ctx) { search_generic(ctx, 1, search); }
void geosearchstore(CommandContext& ctx) { search_generic(ctx, 2, search | search_store); }
void georadius(CommandContext& ctx) { search_generic(ctx, 1, radius_coords); }
void georadius_ro(CommandContext& ctx) { search_generic(ctx, 1, radius_coords | no_store); }
void georadiusbymember(CommandContext& ctx) { search_generic(ctx, 1, radius_member); }
void georadiusbymember_ro(CommandContext& ctx) { search_generic(ctx, 1, radius_member | no_store); }

}  // namespace duet::kv::geo_cmd
