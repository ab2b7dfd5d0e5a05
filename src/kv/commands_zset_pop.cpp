// Sorted-set pops: ZPOPMIN ZPOPMAX ZMPOP (Redis 7.0's genericZpopCommand),
// and the pop the blocking forms (commands_blocking.cpp) run when a key can
// serve them. Replies as Redis's, RESP2 and RESP3: a plain pop is a flat
// [member, score]; with COUNT in RESP3, [member, score] pairs; ZMPOP
// [key, [[member, score] ...]] or a null array. Events "zpopmin"/"zpopmax",
// then "del" if the set empties. Logged as ZPOPMIN/ZPOPMAX key [n] (what
// Redis propagates), or not at all when nothing was popped.
#include <charconv>
#include <string>
#include <vector>

#include "kv/detail/command_util.hpp"
#include "kv/notify.hpp"
#include "kv/types/zset_family.hpp"

namespace duet::kv {
namespace {

using zset_family::lookup_zset;
using zset_family::OwnedElement;

enum class Shape { flat, pairs, keyed_pairs };  // ZPOPMIN; ZPOPMIN n in RESP3; ZMPOP

// Pops up to `count` elements (-1: one, a plain pop) from the first key of
// `keys` that exists, as genericZpopCommand does (BZPOP's flat shape with
// the key in front is built by the blocking command from the flat one).
void zpop_generic(CommandContext& ctx, std::span<const std::string_view> keys, bool max, std::int64_t count, Shape shape,
                  bool nil_when_empty) {
  Entry* entry = nullptr;
  std::string_view key;
  for (std::string_view k : keys) {
    if (!lookup_zset(ctx, k, entry)) return;
    key = k;
    if (entry != nullptr) break;
  }
  if (entry == nullptr || count == 0) {
    ctx.log_instead(std::span<const std::string_view>{});
    return entry == nullptr && nil_when_empty ? ctx.reply.null_array() : ctx.reply.array(0);
  }
  const std::size_t size = entry->value.as<ZsetObject>()->size();
  const std::size_t n = count < 0 ? 1 : std::min(size, static_cast<std::size_t>(count));
  std::vector<OwnedElement> popped;
  popped.reserve(n);
  const ZsetObject& zset = *entry->value.as<ZsetObject>();
  zset.visit(max ? size - 1 : 0, n, max, [&](std::string_view m, double s) {
    popped.push_back({std::string(m), s});
    return true;
  });
  const std::size_t first = max ? size - n : 0;
  zset_remove_ranks(entry->value, first, first + n - 1);
  notify_keyspace_event(ctx, notify_zset, max ? "zpopmax" : "zpopmin", key);
  if (n == size) {
    ctx.db().erase(*entry);
    notify_keyspace_event(ctx, notify_generic, "del", key);
  }
  if (shape == Shape::keyed_pairs) {
    ctx.reply.array(2);
    ctx.reply.bulk(key);
  }
  ctx.reply.array(shape == Shape::flat ? 2 * n : n);
  for (const OwnedElement& e : popped) {
    if (shape != Shape::flat) ctx.reply.array(2);
    ctx.reply.bulk(e.member);
    ctx.reply.double_value(e.score);
  }
  // Redis propagates ZPOPMIN key, or ZPOPMIN key n with COUNT and ZMPOP.
  char digits[24];
  const std::string_view n_text(digits, static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, n).ptr - digits));
  const std::string_view name = max ? "ZPOPMAX" : "ZPOPMIN";
  if (count < 0) {
    ctx.log_instead({name, key});
  } else {
    ctx.log_instead({name, key, n_text});
  }
}

// ZPOPMIN/ZPOPMAX key [count]
void zpop_min_max(CommandContext& ctx, bool max) {
  if (ctx.argv.size() > 3) return ctx.reply.error(detail::err_syntax);
  std::int64_t count = -1;
  if (ctx.argv.size() == 3 && (!detail::parse_i64(ctx.argv[2], count) || count < 0)) {
    return ctx.reply.error("ERR value is out of range, must be positive");
  }
  const Shape shape = ctx.reply.protocol() == 3 && count != -1 ? Shape::pairs : Shape::flat;
  zpop_generic(ctx, ctx.argv.subspan(1, 1), max, count, shape, false);
}

void zpopmin(CommandContext& ctx) { zpop_min_max(ctx, false); }
void zpopmax(CommandContext& ctx) { zpop_min_max(ctx, true); }

// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]
void zmpop(CommandContext& ctx) {
  detail::MpopArgs args;
  if (!detail::parse_mpop(ctx, 1, "min", "max", args)) return;
  const auto keys = ctx.argv.subspan(args.first_key, args.where_at - args.first_key);
  zpop_generic(ctx, keys, !args.first_end, args.count, Shape::keyed_pairs, true);
}

constexpr Command commands[] = {
    {"zpopmin", -2, cmd_write | cmd_fast, zpopmin, 1, 1, 1, "sorted-set",
     "Remove and return members with the lowest scores in a sorted set"},
    {"zpopmax", -2, cmd_write | cmd_fast, zpopmax, 1, 1, 1, "sorted-set",
     "Remove and return members with the highest scores in a sorted set"},
    {"zmpop", -4, cmd_write, zmpop, 0, 0, 0, "sorted-set",
     "Remove and return members with scores in a sorted set", ShardRoute::gather, 1},
};

}  // namespace

std::span<const Command> zset_pop_commands() noexcept { return commands; }

}  // namespace duet::kv
