// Sorted-set commands over members and scores (Redis 7.0's t_zset.c): ZADD
// ZINCRBY ZREM ZCARD ZSCORE ZMSCORE ZRANK ZREVRANK ZCOUNT ZLEXCOUNT, and the
// family's table (the ranges are in commands_zset_range.cpp). Keyspace
// events as t_zset.c: "new" when ZADD creates the set, zadd or zincr when a
// member was added or its score changed, zrem, and "del" when a set empties.
// A write that changed nothing is not propagated (Redis's dirty counter
// stays): it logs nothing, so it touches no watched key either.
#include <absl/container/inlined_vector.h>

#include "kv/detail/command_util.hpp"
#include "kv/types/zset_family.hpp"

namespace duet::kv {
namespace {

using detail::equals_ci;
using zset_family::lookup_zset;

constexpr std::string_view err_nan = "ERR resulting score is not a number (NaN)";

// ZADD's options (zaddGenericCommand): any order, before the first score.
struct ZaddArgs {
  unsigned flags = 0;
  bool ch = false;
  std::size_t first = 2;  // argv index of the first score
};

ZaddArgs parse_zadd_options(CommandContext& ctx, unsigned flags) {
  ZaddArgs args{flags};
  for (; args.first < ctx.argv.size(); ++args.first) {
    const std::string_view opt = ctx.argv[args.first];
    if (equals_ci(opt, "nx")) {
      args.flags |= zadd_nx;
    } else if (equals_ci(opt, "xx")) {
      args.flags |= zadd_xx;
    } else if (equals_ci(opt, "ch")) {
      args.ch = true;
    } else if (equals_ci(opt, "incr")) {
      args.flags |= zadd_incr;
    } else if (equals_ci(opt, "gt")) {
      args.flags |= zadd_gt;
    } else if (equals_ci(opt, "lt")) {
      args.flags |= zadd_lt;
    } else {
      break;
    }
  }
  return args;
}

// The checks in Redis's order; false after replying the error.
bool check_zadd_args(CommandContext& ctx, const ZaddArgs& args) {
  const std::size_t left = ctx.argv.size() - args.first;
  const auto has = [&](unsigned f) { return (args.flags & f) != 0; };
  if (left == 0 || left % 2 != 0) {
    ctx.reply.error(detail::err_syntax);
  } else if (has(zadd_nx) && has(zadd_xx)) {
    ctx.reply.error("ERR XX and NX options at the same time are not compatible");
  } else if ((has(zadd_gt) && has(zadd_nx)) || (has(zadd_lt) && has(zadd_nx)) || (has(zadd_gt) && has(zadd_lt))) {
    ctx.reply.error("ERR GT, LT, and/or NX options at the same time are not compatible");
  } else if (has(zadd_incr) && left > 2) {
    ctx.reply.error("ERR INCR option supports a single increment-element pair");
  } else {
    return true;
  }
  return false;
}

// What one ZADD did, for its reply and its event.
struct ZaddCounts {
  std::int64_t added = 0;
  std::int64_t updated = 0;
  std::int64_t processed = 0;  // not skipped by NX, XX, GT or LT
  double last_score = 0;       // INCR's reply
  bool nan = false;
};

ZaddCounts apply_zadd(CommandContext& ctx, Value& v, const ZaddArgs& args, std::span<const double> scores) {
  ZaddCounts counts;
  const ZsetLimits limits = zset_family::limits(ctx);
  for (std::size_t i = 0; i < scores.size(); ++i) {
    const std::string_view member = ctx.argv[args.first + 2 * i + 1];
    const ZaddResult r = zset_add(v, member, scores[i], args.flags, counts.last_score, limits);
    if (r == ZaddResult::nan) {
      counts.nan = true;
      break;
    }
    counts.added += r == ZaddResult::added ? 1 : 0;
    counts.updated += r == ZaddResult::updated ? 1 : 0;
    counts.processed += r != ZaddResult::unchanged ? 1 : 0;
  }
  return counts;
}

// ZADD and ZINCRBY (zaddGenericCommand): every score is parsed before the
// set changes, so a bad one changes nothing.
void zadd_generic(CommandContext& ctx, unsigned flags) {
  const ZaddArgs args = parse_zadd_options(ctx, flags);
  if (!check_zadd_args(ctx, args)) return;
  absl::InlinedVector<double, 4> scores;
  for (std::size_t j = args.first; j < ctx.argv.size(); j += 2) {
    scores.push_back(0);
    if (!zset_family::parse_score(ctx.argv[j], scores.back())) return ctx.reply.error(zset_family::err_not_float);
  }
  Entry* entry = nullptr;
  if (!lookup_zset(ctx, ctx.argv[1], entry)) return;
  ZaddCounts counts;
  if (entry != nullptr || (args.flags & zadd_xx) == 0) {
    // A new key is a listpack unless the first member is too long already.
    Value& v = entry != nullptr ? entry->value
                                : zset_family::create_zset(ctx, ctx.argv[1], 1, ctx.argv[args.first + 1].size());
    counts = apply_zadd(ctx, v, args, scores);
  }
  const bool incr = (args.flags & zadd_incr) != 0;
  if (counts.added + counts.updated != 0) {
    notify_keyspace_event(ctx, notify_zset, incr ? "zincr" : "zadd", ctx.argv[1]);
  } else {
    ctx.log_instead(std::span<const std::string_view>{});
  }
  if (counts.nan) return ctx.reply.error(err_nan);
  if (!incr) return ctx.reply.integer(args.ch ? counts.added + counts.updated : counts.added);
  if (counts.processed == 0) return ctx.reply.null();
  ctx.reply.double_value(counts.last_score);
}

void zadd(CommandContext& ctx) { zadd_generic(ctx, 0); }
void zincrby(CommandContext& ctx) { zadd_generic(ctx, zadd_incr); }

void zrem(CommandContext& ctx) {
  Entry* entry = nullptr;
  if (!lookup_zset(ctx, ctx.argv[1], entry)) return;
  std::int64_t deleted = 0;
  bool emptied = false;
  for (std::size_t j = 2; entry != nullptr && j < ctx.argv.size(); ++j) {
    if (zset_remove(entry->value, ctx.argv[j])) ++deleted;
    if (entry->value.as<ZsetObject>()->size() == 0) {
      ctx.db().erase(*entry);
      emptied = true;
      break;
    }
  }
  if (deleted != 0) {
    notify_keyspace_event(ctx, notify_zset, "zrem", ctx.argv[1]);
    if (emptied) notify_keyspace_event(ctx, notify_generic, "del", ctx.argv[1]);
  } else {
    ctx.log_instead(std::span<const std::string_view>{});
  }
  ctx.reply.integer(deleted);
}

const ZsetObject* read_zset(CommandContext& ctx, std::string_view key, bool& ok) {
  Entry* entry = nullptr;
  ok = lookup_zset(ctx, key, entry, true);
  return ok && entry != nullptr ? entry->value.as<ZsetObject>() : nullptr;
}

void zcard(CommandContext& ctx) {
  bool ok = false;
  const ZsetObject* zset = read_zset(ctx, ctx.argv[1], ok);
  if (ok) ctx.reply.integer(zset == nullptr ? 0 : static_cast<std::int64_t>(zset->size()));
}

void zscore(CommandContext& ctx) {
  bool ok = false;
  const ZsetObject* zset = read_zset(ctx, ctx.argv[1], ok);
  if (!ok) return;
  const std::optional<double> score = zset == nullptr ? std::nullopt : zset->score(ctx.argv[2]);
  if (!score) return ctx.reply.null();
  ctx.reply.double_value(*score);
}

// ZMSCORE: a missing key answers like an empty set.
void zmscore(CommandContext& ctx) {
  bool ok = false;
  const ZsetObject* zset = read_zset(ctx, ctx.argv[1], ok);
  if (!ok) return;
  ctx.reply.array(ctx.argv.size() - 2);
  for (std::size_t j = 2; j < ctx.argv.size(); ++j) {
    const std::optional<double> score = zset == nullptr ? std::nullopt : zset->score(ctx.argv[j]);
    score ? ctx.reply.double_value(*score) : ctx.reply.null();
  }
}

void zrank_generic(CommandContext& ctx, bool reverse) {
  bool ok = false;
  const ZsetObject* zset = read_zset(ctx, ctx.argv[1], ok);
  if (!ok) return;
  const std::optional<std::size_t> rank = zset == nullptr ? std::nullopt : zset->rank(ctx.argv[2]);
  if (!rank) return ctx.reply.null();
  ctx.reply.integer(static_cast<std::int64_t>(reverse ? zset->size() - 1 - *rank : *rank));
}

void zrank(CommandContext& ctx) { zrank_generic(ctx, false); }
void zrevrank(CommandContext& ctx) { zrank_generic(ctx, true); }

// ZCOUNT and ZLEXCOUNT: the range is parsed before the key is looked up;
// the count is the difference of two ranks.
template <class Range, auto parse>
void count_in_range(CommandContext& ctx, std::string_view error) {
  Range range;
  if (!parse(ctx.argv[2], ctx.argv[3], range)) return ctx.reply.error(error);
  bool ok = false;
  const ZsetObject* zset = read_zset(ctx, ctx.argv[1], ok);
  if (!ok) return;
  const std::size_t n = zset == nullptr ? 0 : zset_family::ranks_in(*zset, range).count();
  ctx.reply.integer(static_cast<std::int64_t>(n));
}

void zcount(CommandContext& ctx) {
  count_in_range<zset_family::ScoreRange, zset_family::parse_score_range>(ctx, zset_family::err_range_not_float);
}

void zlexcount(CommandContext& ctx) {
  count_in_range<zset_family::LexRange, zset_family::parse_lex_range>(ctx, zset_family::err_lex_range);
}

constexpr std::uint32_t w = cmd_write | cmd_denyoom | cmd_fast;
constexpr std::uint32_t r = cmd_readonly | cmd_fast;

constexpr Command commands[] = {
    {"zadd", -4, w, zadd, 1, 1, 1, "sorted-set",
     "Add one or more members to a sorted set, or update its score if it already exists"},
    {"zincrby", 4, w, zincrby, 1, 1, 1, "sorted-set", "Increment the score of a member in a sorted set"},
    {"zrem", -3, cmd_write | cmd_fast, zrem, 1, 1, 1, "sorted-set", "Remove one or more members from a sorted set"},
    {"zcard", 2, r, zcard, 1, 1, 1, "sorted-set", "Get the number of members in a sorted set"},
    {"zscore", 3, r, zscore, 1, 1, 1, "sorted-set", "Get the score associated with the given member in a sorted set"},
    {"zmscore", -3, r, zmscore, 1, 1, 1, "sorted-set", "Get the score associated with the given members in a sorted set"},
    {"zrank", 3, r, zrank, 1, 1, 1, "sorted-set", "Determine the index of a member in a sorted set"},
    {"zrevrank", 3, r, zrevrank, 1, 1, 1, "sorted-set",
     "Determine the index of a member in a sorted set, with scores ordered from high to low"},
    {"zcount", 4, r, zcount, 1, 1, 1, "sorted-set", "Count the members in a sorted set with scores within the given values"},
    {"zlexcount", 4, r, zlexcount, 1, 1, 1, "sorted-set",
     "Count the number of members in a sorted set between a given lexicographical range"},
};

}  // namespace

std::span<const Command> zset_commands() noexcept { return commands; }

}  // namespace duet::kv
