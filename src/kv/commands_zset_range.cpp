// Sorted-set ranges (Redis 7.0's t_zset.c, zrangeGenericCommand and
// zremrangeGenericCommand): ZRANGE (BYSCORE BYLEX REV LIMIT WITHSCORES)
// ZRANGESTORE ZREVRANGE ZRANGEBYSCORE ZREVRANGEBYSCORE ZRANGEBYLEX
// ZREVRANGEBYLEX, and ZREMRANGEBYRANK ZREMRANGEBYSCORE ZREMRANGEBYLEX.
//
// Every range becomes a run of ranks — a start rank, a count and a direction
// — found in O(log n) on the tree (zset_family::ranks_in), then walked or
// removed whole: O(log n + m), where Redis walks a LIMIT's offset one node at
// a time. The results are Redis's, including its corner cases: a negative
// LIMIT offset walks off the end (nothing), a negative count means all,
// a count of -1 is "no LIMIT" (so ZRANGE by rank takes LIMIT n -1, and
// ignores it). Events:
// zrangestore (or "del" of an emptied destination), zremrangeby*, and
// "del" when a removal empties the set.
#include <algorithm>

#include "kv/detail/command_util.hpp"
#include "kv/types/zset_family.hpp"

namespace duet::kv {
namespace {

using detail::equals_ci;
using zset_family::LexRange;
using zset_family::RankSpan;
using zset_family::ScoreRange;

enum class RangeBy { rank, score, lex };

// What zrangeGenericCommand reads from argv, for one of the commands.
struct RangeArgs {
  std::size_t src = 1;  // the source key's index; min and max follow it
  RangeBy by = RangeBy::rank;
  bool by_fixed = false;  // a command named for its range type takes no BYSCORE/BYLEX
  bool reverse = false;
  bool reverse_fixed = false;  // ZREV*, Z*BY*: no REV either
  bool store = false;          // ZRANGESTORE: no WITHSCORES
  bool with_scores = false;
  std::int64_t offset = 0;
  std::int64_t limit = -1;  // -1: no LIMIT (as Redis's opt_limit)
};

// The options after <src> <min> <max>, in Redis's order of checks.
bool parse_range_options(CommandContext& ctx, RangeArgs& args) {
  const std::size_t argc = ctx.argv.size();
  for (std::size_t j = args.src + 3; j < argc; ++j) {
    const std::string_view opt = ctx.argv[j];
    if (!args.store && equals_ci(opt, "withscores")) {
      args.with_scores = true;
    } else if (equals_ci(opt, "limit") && argc - j - 1 >= 2) {
      if (!detail::int_arg(ctx, ctx.argv[j + 1], args.offset) || !detail::int_arg(ctx, ctx.argv[j + 2], args.limit)) {
        return false;
      }
      j += 2;
    } else if (!args.reverse_fixed && equals_ci(opt, "rev")) {
      args.reverse = true;
      args.reverse_fixed = true;
    } else if (!args.by_fixed && equals_ci(opt, "bylex")) {
      args.by = RangeBy::lex;
      args.by_fixed = true;
    } else if (!args.by_fixed && equals_ci(opt, "byscore")) {
      args.by = RangeBy::score;
      args.by_fixed = true;
    } else {
      ctx.reply.error(detail::err_syntax);
      return false;
    }
  }
  if (args.limit != -1 && args.by == RangeBy::rank) {
    ctx.reply.error("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
    return false;
  }
  if (args.with_scores && args.by == RangeBy::lex) {
    ctx.reply.error("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
    return false;
  }
  return true;
}

// The parsed bounds of one of the three kinds.
struct Bounds {
  std::int64_t start = 0;
  std::int64_t stop = 0;
  ScoreRange score;
  LexRange lex;
};

// A reverse score or lex range is given max first.
bool parse_bounds(CommandContext& ctx, RangeBy by, bool reverse, std::size_t at, Bounds& b) {
  std::string_view min = ctx.argv[at];
  std::string_view max = ctx.argv[at + 1];
  if (reverse && by != RangeBy::rank) std::swap(min, max);
  switch (by) {
    case RangeBy::rank: return detail::int_arg(ctx, min, b.start) && detail::int_arg(ctx, max, b.stop);
    case RangeBy::score:
      if (zset_family::parse_score_range(min, max, b.score)) return true;
      ctx.reply.error(zset_family::err_range_not_float);
      return false;
    case RangeBy::lex:
      if (zset_family::parse_lex_range(min, max, b.lex)) return true;
      ctx.reply.error(zset_family::err_lex_range);
      return false;
  }
  return false;
}

// Redis's rank sanitising: negatives count from the end, the start is
// clamped to 0 and the stop to the last rank.
RankSpan rank_span(std::int64_t start, std::int64_t stop, std::size_t size) {
  const auto n = static_cast<std::int64_t>(size);
  if (start < 0) start += n;
  if (stop < 0) stop += n;
  start = std::max<std::int64_t>(start, 0);
  RankSpan span;
  if (start > stop || start >= n) return span;
  span.first = static_cast<std::size_t>(start);
  span.last = static_cast<std::size_t>(std::min(stop, n - 1));
  span.empty = false;
  return span;
}

// The ranks a range covers in ascending order (a rank range counts from
// the top when reversed).
RankSpan span_of(const ZsetObject& zset, RangeBy by, bool reverse, const Bounds& b) {
  switch (by) {
    case RangeBy::rank: {
      RankSpan span = rank_span(b.start, b.stop, zset.size());
      if (reverse && !span.empty) {
        const std::size_t top = zset.size() - 1;
        span = {top - span.last, top - span.first, false};
      }
      return span;
    }
    case RangeBy::score: return zset_family::ranks_in(zset, b.score);
    case RangeBy::lex: return zset_family::ranks_in(zset, b.lex);
  }
  return {};
}

// What a range reads: `count` ranks from `from`, walking down when reversed.
struct Walk {
  std::size_t from = 0;
  std::size_t count = 0;
  bool reverse = false;
};

// LIMIT over a span: Redis skips `offset` elements then takes `limit` (all
// when negative); a negative offset never stops skipping, so takes nothing.
// A rank range ignores a LIMIT it let through (count -1: any offset).
Walk walk_of(RankSpan span, const RangeArgs& args) {
  const std::size_t n = span.count();
  if (args.by == RangeBy::rank) return {args.reverse ? span.last : span.first, n, args.reverse};
  if (n == 0 || args.offset < 0 || static_cast<std::uint64_t>(args.offset) >= n) return {};
  const auto offset = static_cast<std::size_t>(args.offset);
  std::size_t count = n - offset;
  if (args.limit >= 0) count = std::min<std::uint64_t>(count, static_cast<std::uint64_t>(args.limit));
  return {args.reverse ? span.last - offset : span.first + offset, count, args.reverse};
}

// zrangeResultFinalizeStore: the walked elements become the destination, in
// the encoding Redis's would have; an empty result deletes it (and when
// there was nothing to delete, nothing changed: nothing is logged).
void store_walk(CommandContext& ctx, const ZsetObject* src, Walk walk) {
  if (walk.count == 0 && ctx.db().find(ctx.argv[1], ctx.now) == nullptr) {
    ctx.log_instead(std::span<const std::string_view>{});
    return ctx.reply.integer(0);
  }
  const ZsetLimits limits = zset_family::limits(ctx);
  Value built;
  built.set_object(ZsetObject::create(walk.count, 0, limits));
  if (walk.count != 0) {
    double unused = 0;  // the elements come distinct: each one is added
    src->visit(walk.from, walk.count, walk.reverse, [&](std::string_view m, double s) {
      zset_add(built, m, s, 0, unused, limits);
      return true;
    });
  }
  zset_family::store_zset(ctx, ctx.argv[1], std::move(built), "zrangestore");
  ctx.reply.integer(static_cast<std::int64_t>(walk.count));
}

// ZRANGE and its forms; `args` says which command it is.
void zrange_generic(CommandContext& ctx, RangeArgs args) {
  if (!parse_range_options(ctx, args)) return;
  Bounds bounds;
  if (!parse_bounds(ctx, args.by, args.reverse, args.src + 1, bounds)) return;
  Entry* entry = nullptr;
  if (!zset_family::lookup_zset(ctx, ctx.argv[args.src], entry, true)) return;
  const ZsetObject* zset = entry == nullptr ? nullptr : entry->value.as<ZsetObject>();
  Walk walk;
  if (zset != nullptr) walk = walk_of(span_of(*zset, args.by, args.reverse, bounds), args);
  if (args.store) return store_walk(ctx, zset, walk);
  if (zset == nullptr) return ctx.reply.array(0);
  zset_family::reply_ranks(ctx, *zset, walk.from, walk.count, walk.reverse, args.with_scores);
}

void zrange(CommandContext& ctx) { zrange_generic(ctx, {}); }

void zrangestore(CommandContext& ctx) {
  RangeArgs args;
  args.src = 2;
  args.store = true;
  zrange_generic(ctx, args);
}

// The older commands fix the range type and the direction.
RangeArgs fixed(RangeBy by, bool reverse) {
  RangeArgs args;
  args.by = by;
  args.by_fixed = true;
  args.reverse = reverse;
  args.reverse_fixed = true;
  return args;
}

void zrevrange(CommandContext& ctx) { zrange_generic(ctx, fixed(RangeBy::rank, true)); }
void zrangebyscore(CommandContext& ctx) { zrange_generic(ctx, fixed(RangeBy::score, false)); }
void zrevrangebyscore(CommandContext& ctx) { zrange_generic(ctx, fixed(RangeBy::score, true)); }
void zrangebylex(CommandContext& ctx) { zrange_generic(ctx, fixed(RangeBy::lex, false)); }
void zrevrangebylex(CommandContext& ctx) { zrange_generic(ctx, fixed(RangeBy::lex, true)); }

// ZREMRANGEBY*: the range is parsed before the key is looked up.
void zremrange_generic(CommandContext& ctx, RangeBy by, std::string_view event) {
  Bounds bounds;
  if (!parse_bounds(ctx, by, false, 2, bounds)) return;
  Entry* entry = nullptr;
  if (!zset_family::lookup_zset(ctx, ctx.argv[1], entry)) return;
  const RankSpan span = entry == nullptr ? RankSpan{} : span_of(*entry->value.as<ZsetObject>(), by, false, bounds);
  if (span.empty) {
    ctx.log_instead(std::span<const std::string_view>{});
    return ctx.reply.integer(0);
  }
  const std::size_t deleted = zset_remove_ranks(entry->value, span.first, span.last);
  notify_keyspace_event(ctx, notify_zset, event, ctx.argv[1]);
  if (entry->value.as<ZsetObject>()->size() == 0) {
    ctx.db().erase(*entry);
    notify_keyspace_event(ctx, notify_generic, "del", ctx.argv[1]);
  }
  ctx.reply.integer(static_cast<std::int64_t>(deleted));
}

void zremrangebyrank(CommandContext& ctx) { zremrange_generic(ctx, RangeBy::rank, "zremrangebyrank"); }
void zremrangebyscore(CommandContext& ctx) { zremrange_generic(ctx, RangeBy::score, "zremrangebyscore"); }
void zremrangebylex(CommandContext& ctx) { zremrange_generic(ctx, RangeBy::lex, "zremrangebylex"); }

constexpr std::uint32_t ro = cmd_readonly;
constexpr std::string_view group = "sorted-set";

constexpr Command commands[] = {
    {"zrange", -4, ro, zrange, 1, 1, 1, group, "Return a range of members in a sorted set"},
    {"zrangestore", -5, cmd_write | cmd_denyoom, zrangestore, 1, 2, 1, group,
     "Store a range of members from sorted set into another key", ShardRoute::gather},
    {"zrevrange", -4, ro, zrevrange, 1, 1, 1, group,
     "Return a range of members in a sorted set, by index, with scores ordered from high to low"},
    {"zrangebyscore", -4, ro, zrangebyscore, 1, 1, 1, group, "Return a range of members in a sorted set, by score"},
    {"zrevrangebyscore", -4, ro, zrevrangebyscore, 1, 1, 1, group,
     "Return a range of members in a sorted set, by score, with scores ordered from high to low"},
    {"zrangebylex", -4, ro, zrangebylex, 1, 1, 1, group,
     "Return a range of members in a sorted set, by lexicographical range"},
    {"zrevrangebylex", -4, ro, zrevrangebylex, 1, 1, 1, group,
     "Return a range of members in a sorted set, by lexicographical range, ordered from higher to lower strings."},
    {"zremrangebyrank", 4, cmd_write, zremrangebyrank, 1, 1, 1, group,
     "Remove all members in a sorted set within the given indexes"},
    {"zremrangebyscore", 4, cmd_write, zremrangebyscore, 1, 1, 1, group,
     "Remove all members in a sorted set within the given scores"},
    {"zremrangebylex", 4, cmd_write, zremrangebylex, 1, 1, 1, group,
     "Remove all members in a sorted set between the given lexicographical range"},
};

}  // namespace

std::span<const Command> zset_range_commands() noexcept { return commands; }

}  // namespace duet::kv
