// ZRANDMEMBER and ZSCAN: the sorted-set commands that answer a part of a
// set, picked at random or by cursor (Redis 7.0's zrandmemberCommand and
// scanGenericCommand).
//
// - ZRANDMEMBER's count is read before the key: a bad count or a count past
//   ±LONG_MAX/2 with WITHSCORES is an error even for an absent key. With
//   scores, RESP3 answers [member, score] pairs, RESP2 a flat array.
// - ZSCAN's scores are bulk strings ("%.17g", inf/-inf), never RESP3
//   doubles; a listpack answers whole with cursor 0, a large set by its
//   index's hash cursor (ZsetObject::scan), so its cursors are not Redis's.
#include <absl/container/flat_hash_set.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "kv/detail/command_util.hpp"
#include "kv/detail/numbers.hpp"
#include "kv/glob.hpp"
#include "kv/types/zset_family.hpp"

namespace duet::kv {
namespace {

using zset_family::lookup_zset;

// A negative count repeats picks, so its reply is not bounded by the set:
// Redis writes them all (ZRANDMEMBER k -2147483648 is gigabytes). duet
// answers up to this many and refuses more rather than build such a reply.
constexpr std::uint64_t max_repeated_picks = std::uint64_t{1} << 22;
constexpr std::int64_t long_max = INT64_MAX;

struct Picker {
  CommandContext& ctx;
  const ZsetObject& zset;
  bool with_scores;
  // A listpack finds a rank by walking its entries: its (at most a few
  // hundred) elements are listed once, so each pick costs O(1), not O(size).
  std::vector<ZsetObject::Element> listed;

  Picker(CommandContext& c, const ZsetObject& z, bool scores) : ctx(c), zset(z), with_scores(scores) {
    if (!zset.is_listpack()) return;
    listed.reserve(zset.size());
    zset.visit(0, zset.size(), false, [&](std::string_view m, double s) { return listed.push_back({m, s}), true; });
  }

  void header(std::size_t picks) {
    ctx.reply.array(with_scores && ctx.reply.protocol() != 3 ? picks * 2 : picks);
  }
  void put(std::string_view member, double score) {
    if (with_scores && ctx.reply.protocol() == 3) ctx.reply.array(2);
    ctx.reply.bulk(member);
    if (with_scores) ctx.reply.double_value(score);
  }
  void put_rank(std::size_t rank) {
    const ZsetObject::Element e = listed.empty() ? zset.at(rank) : listed[rank];
    put(e.member, e.score);
  }
  std::size_t random_rank() { return static_cast<std::size_t>(ctx.store().next_random() % zset.size()); }
};

// `count` distinct members, count < size: a partial shuffle of all ranks
// when count is close to size (Redis's CASE 3), else random picks with
// rejection of repeats (CASE 4). The order is the picking's.
void pick_distinct(Picker& pick, std::size_t count) {
  const std::size_t size = pick.zset.size();
  if (count * 3 > size) {
    std::vector<std::size_t> ranks(size);
    std::iota(ranks.begin(), ranks.end(), std::size_t{0});
    for (std::size_t i = 0; i < count; ++i) {
      std::swap(ranks[i], ranks[i + pick.ctx.store().next_random() % (size - i)]);
      pick.put_rank(ranks[i]);
    }
    return;
  }
  absl::flat_hash_set<std::size_t> seen;
  while (seen.size() < count) {
    const std::size_t rank = pick.random_rank();
    if (seen.insert(rank).second) pick.put_rank(rank);
  }
}

void zrandmember_count(CommandContext& ctx, std::int64_t n, bool with_scores) {
  Entry* e = nullptr;
  if (!lookup_zset(ctx, ctx.argv[1], e, true)) return;
  if (e == nullptr || n == 0) return ctx.reply.array(0);
  Picker pick{ctx, *e->value.as<ZsetObject>(), with_scores};
  const std::size_t size = pick.zset.size();
  if (n < 0 || n == 1) {  // repeats allowed (or one pick): each one independent
    const auto count = static_cast<std::uint64_t>(n < 0 ? -n : n);
    if (count > max_repeated_picks) return ctx.reply.error("ERR value is out of range");
    pick.header(count);
    for (std::uint64_t i = 0; i < count; ++i) pick.put_rank(pick.random_rank());
    return;
  }
  const auto count = static_cast<std::uint64_t>(n);
  if (count >= size) {  // the whole set, from the highest rank down (zuiNext's order)
    pick.header(size);
    return pick.zset.visit(size - 1, size, true, [&](std::string_view m, double s) { return pick.put(m, s), true; });
  }
  pick.header(count);
  pick_distinct(pick, static_cast<std::size_t>(count));
}

// ZRANDMEMBER key [count [WITHSCORES]]
void zrandmember(CommandContext& ctx) {
  if (ctx.argv.size() == 2) {
    Entry* e = nullptr;
    if (!lookup_zset(ctx, ctx.argv[1], e, true)) return;
    if (e == nullptr) return ctx.reply.null();
    const auto* zset = e->value.as<ZsetObject>();
    return ctx.reply.bulk(zset->at(ctx.store().next_random() % zset->size()).member);
  }
  std::int64_t n = 0;
  if (!detail::int_arg(ctx, ctx.argv[2], n)) return;
  if (n < -long_max) {
    return ctx.reply.error("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");
  }
  const bool with_scores = ctx.argv.size() == 4 && detail::equals_ci(ctx.argv[3], "withscores");
  if (ctx.argv.size() > 4 || (ctx.argv.size() == 4 && !with_scores)) return ctx.reply.error(detail::err_syntax);
  if (with_scores && (n < -long_max / 2 || n > long_max / 2)) return ctx.reply.error("ERR value is out of range");
  zrandmember_count(ctx, n, with_scores);
}

// A score as ZSCAN writes it (createStringObjectFromLongDouble, or the
// listpack's own text, which prints the same).
std::string score_text(double score) {
  char text[32];
  return std::string(detail::format_double_17g(score, text));
}

// ZSCAN key cursor [MATCH pattern] [COUNT count]: Redis reads the cursor,
// then the key, then the options, so an absent key answers an empty scan
// whatever the options say.
void zscan(CommandContext& ctx) {
  std::uint64_t cursor = 0;
  if (!detail::parse_scan_cursor(ctx.argv[2], cursor)) return ctx.reply.error("ERR invalid cursor");
  Entry* e = nullptr;
  if (!lookup_zset(ctx, ctx.argv[1], e, true)) return;
  const ZsetObject* zset = e == nullptr ? nullptr : e->value.as<ZsetObject>();
  detail::ScanArgs args;
  if (zset != nullptr && !detail::parse_scan_args(ctx, args)) return;
  std::vector<std::string> found;  // member, score, member, score ...
  if (zset != nullptr) {
    cursor = zset->scan(cursor, static_cast<std::size_t>(args.count), [&](std::string_view m, double s) {
      if (args.has_pattern && !glob_match(args.pattern, m)) return true;
      found.emplace_back(m);
      found.push_back(score_text(s));
      return true;
    });
  }
  ctx.reply.array(2);
  ctx.reply.bulk(zset != nullptr ? std::to_string(cursor) : "0");
  ctx.reply.array(found.size());
  for (const std::string& text : found) ctx.reply.bulk(text);
}

constexpr Command commands[] = {
    {"zrandmember", -2, cmd_readonly, zrandmember, 1, 1, 1, "sorted-set",
     "Get one or multiple random elements from a sorted set"},
    {"zscan", -3, cmd_readonly, zscan, 1, 1, 1, "sorted-set",
     "Incrementally iterate sorted sets elements and associated scores"},
};

}  // namespace

std::span<const Command> zset_random_commands() noexcept { return commands; }

}  // namespace duet::kv
