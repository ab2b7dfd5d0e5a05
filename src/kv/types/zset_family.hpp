// duet::kv::zset_family — what the sorted-set command files share (and the
// geo commands, which are sorted sets underneath): lookup and store, Redis's
// exact score and range parsing, and the replies of elements.
//
// Contract
// - lookup_zset() is Redis's lookup + checkType: true with `entry` (nullptr
//   when the key is absent) or false after replying WRONGTYPE; `read` makes
//   it lookupKeyRead (hit/miss stats). Writes go through zset_add & co. on
//   entry->value (kv/types/zset.hpp).
// - create_zset() adds an empty set at `key` (absent), in the encoding the
//   hints call for (zsetTypeCreate), and fires "new"; the caller adds.
// - store_zset() is setKey for a computed set: an empty one deletes `key`
//   (event "del" if it was there), any other replaces its value, drops its
//   TTL, fires "new" if it adds the key, then `event`, and shrinks to a
//   listpack if it fits (zsetConvertToListpackIfNeeded). It replies nothing.
// - parse_score() is getDoubleFromObject (ZADD, ZINCRBY: "ERR value is not a
//   valid float"); parse_score_range() is zslParseRange ("(" exclusive, no
//   other checks than strtod's: "" reads as 0, as in Redis);
//   parse_lex_range() is zslParseLexRange ("-", "+", "[x", "(x").
// - reply_elements() writes elements as ZRANGE does: members, or with
//   scores a flat array (RESP2) / an array of [member, score] pairs (RESP3).
//
//   Entry* e = nullptr;
//   if (!zset_family::lookup_zset(ctx, ctx.argv[1], e, true)) return;
//   if (e == nullptr) return ctx.reply.null();
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "kv/command_table.hpp"
#include "kv/types/zset.hpp"

namespace duet::kv::zset_family {

inline constexpr std::string_view err_not_float = "ERR value is not a valid float";
inline constexpr std::string_view err_range_not_float = "ERR min or max is not a float";
inline constexpr std::string_view err_lex_range = "ERR min or max not valid string range item";

[[nodiscard]] bool lookup_zset(CommandContext& ctx, std::string_view key, Entry*& entry, bool read = false);
[[nodiscard]] inline ZsetLimits limits(CommandContext& ctx) noexcept { return ZsetLimits::from(ctx.server.config()); }
Value& create_zset(CommandContext& ctx, std::string_view key, std::size_t size_hint, std::size_t value_len_hint);
void store_zset(CommandContext& ctx, std::string_view key, ObjectPtrOf<ZsetObject> zset, std::string_view event);
// The same for a set built in a Value (through zset_add & co.).
void store_zset(CommandContext& ctx, std::string_view key, Value&& zset, std::string_view event);

[[nodiscard]] bool parse_score(std::string_view text, double& score);

struct ScoreRange {
  double min = 0;
  double max = 0;
  bool min_exclusive = false;
  bool max_exclusive = false;
  [[nodiscard]] bool above_min(double s) const noexcept { return min_exclusive ? s > min : s >= min; }
  [[nodiscard]] bool below_max(double s) const noexcept { return max_exclusive ? s < max : s <= max; }
};
[[nodiscard]] bool parse_score_range(std::string_view min, std::string_view max, ScoreRange& range);

struct LexRange {
  enum class Bound { inclusive, exclusive, minus_inf, plus_inf };
  Bound min_kind = Bound::minus_inf;
  Bound max_kind = Bound::plus_inf;
  std::string_view min;  // the bytes after '[' or '(' (views into argv)
  std::string_view max;
  [[nodiscard]] bool above_min(std::string_view m) const noexcept;
  [[nodiscard]] bool below_max(std::string_view m) const noexcept;
};
[[nodiscard]] bool parse_lex_range(std::string_view min, std::string_view max, LexRange& range);

// The ranks [first, last] a range covers (first > last: none) in ascending order.
struct RankSpan {
  std::size_t first = 0;
  std::size_t last = 0;
  bool empty = true;
  [[nodiscard]] std::size_t count() const noexcept { return empty ? 0 : last - first + 1; }
};
[[nodiscard]] RankSpan ranks_in(const ZsetObject& zset, const ScoreRange& range);
[[nodiscard]] RankSpan ranks_in(const ZsetObject& zset, const LexRange& range);

// An element copied out of a set (what a write must keep past the change).
struct OwnedElement {
  std::string member;
  double score;
};
void reply_elements(CommandContext& ctx, const std::vector<OwnedElement>& elements, bool with_scores);
// The same straight from the set: `count` ranks from `from_rank`, up or down.
void reply_ranks(CommandContext& ctx, const ZsetObject& zset, std::size_t from_rank, std::size_t count, bool reverse,
                 bool with_scores);

}  // namespace duet::kv::zset_family
