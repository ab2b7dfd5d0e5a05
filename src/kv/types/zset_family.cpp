// The sorted-set commands' shared helpers (kv/types/zset_family.hpp).
#include "kv/types/zset_family.hpp"

#include <cctype>
#include <cmath>
#include <cerrno>
#include <cstdlib>

#include "kv/detail/command_util.hpp"
#include "kv/notify.hpp"

namespace duet::kv::zset_family {
namespace {

// strtod over a NUL-terminated copy, as Redis's over an sds: the parse ends
// at the first NUL byte. `whole`: it stopped at a NUL (zslParseRange's test,
// which a NUL inside passes); `used`: how many bytes it read (string2d
// compares that with the length, which a NUL inside fails).
double c_strtod(std::string_view text, bool& whole, int& error, std::size_t* used = nullptr) {
  thread_local std::string copy;
  copy.assign(text);
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(copy.c_str(), &end);
  error = errno;
  whole = *end == '\0';
  if (used != nullptr) *used = static_cast<std::size_t>(end - copy.c_str());
  return value;
}

// One bound of zslParseRange: "(" exclusive, then strtod and nothing else.
bool parse_bound(std::string_view text, double& value, bool& exclusive) {
  exclusive = !text.empty() && text[0] == '(';
  if (exclusive) text.remove_prefix(1);
  bool whole = false;
  int error = 0;
  value = c_strtod(text, whole, error);
  return whole && !std::isnan(value);
}

// One bound of zslParseLexItem.
bool parse_lex_bound(std::string_view text, LexRange::Bound& kind, std::string_view& bytes) {
  if (text.empty()) return false;
  switch (text[0]) {
    case '+':
      if (text.size() != 1) return false;
      kind = LexRange::Bound::plus_inf;
      return true;
    case '-':
      if (text.size() != 1) return false;
      kind = LexRange::Bound::minus_inf;
      return true;
    case '(':
    case '[':
      kind = text[0] == '(' ? LexRange::Bound::exclusive : LexRange::Bound::inclusive;
      bytes = text.substr(1);
      return true;
    default: return false;
  }
}

}  // namespace

bool lookup_zset(CommandContext& ctx, std::string_view key, Entry*& entry, bool read) {
  entry = read ? detail::read_key(ctx, key) : ctx.db().find(key, ctx.now);
  return detail::check_type(ctx, entry, ValueType::zset);
}

Value& create_zset(CommandContext& ctx, std::string_view key, std::size_t size_hint, std::size_t value_len_hint) {
  bool created = false;
  Entry& e = ctx.db().upsert(key, ctx.now, created);
  e.value.set_object(ZsetObject::create(size_hint, value_len_hint, limits(ctx)));
  notify_keyspace_event(ctx, notify_new, "new", key);
  return e.value;
}

void store_zset(CommandContext& ctx, std::string_view key, ObjectPtrOf<ZsetObject> zset, std::string_view event) {
  Value v;
  v.set_object(std::move(zset));
  store_zset(ctx, key, std::move(v), event);
}

void store_zset(CommandContext& ctx, std::string_view key, Value&& zset, std::string_view event) {
  if (zset.as<ZsetObject>()->size() == 0) {
    if (ctx.db().erase(key, ctx.now)) notify_keyspace_event(ctx, notify_generic, "del", key);
    return;
  }
  bool created = false;
  Entry& e = ctx.db().upsert(key, ctx.now, created);
  e.value = std::move(zset);
  zset_fit_encoding(e.value, limits(ctx));
  if (e.has_expiry) ctx.db().set_expire(e, Entry::no_expiry);
  if (created) notify_keyspace_event(ctx, notify_new, "new", key);
  notify_keyspace_event(ctx, notify_zset, event, key);
}

bool parse_score(std::string_view text, double& score) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])) != 0) return false;
  bool whole = false;
  int error = 0;
  std::size_t used = 0;
  score = c_strtod(text, whole, error, &used);
  if (used != text.size() || std::isnan(score)) return false;
  // Overflow (±HUGE_VAL) and underflow to zero are errors; a denormal is not.
  return !(error == ERANGE && (std::isinf(score) || score == 0));
}

bool parse_score_range(std::string_view min, std::string_view max, ScoreRange& range) {
  return parse_bound(min, range.min, range.min_exclusive) && parse_bound(max, range.max, range.max_exclusive);
}

bool parse_lex_range(std::string_view min, std::string_view max, LexRange& range) {
  return parse_lex_bound(min, range.min_kind, range.min) && parse_lex_bound(max, range.max_kind, range.max);
}

bool LexRange::above_min(std::string_view m) const noexcept {
  switch (min_kind) {
    case Bound::minus_inf: return true;
    case Bound::plus_inf: return false;
    case Bound::inclusive: return m >= min;
    case Bound::exclusive: return m > min;
  }
  return false;
}

bool LexRange::below_max(std::string_view m) const noexcept {
  switch (max_kind) {
    case Bound::minus_inf: return false;
    case Bound::plus_inf: return true;
    case Bound::inclusive: return m <= max;
    case Bound::exclusive: return m < max;
  }
  return false;
}

RankSpan ranks_in(const ZsetObject& zset, const ScoreRange& range) {
  RankSpan span;
  // Redis's zslIsInRange: an empty interval finds nothing.
  if (range.min > range.max || (range.min == range.max && (range.min_exclusive || range.max_exclusive))) return span;
  span.first = zset.first_rank_with_score(range.min, range.min_exclusive);
  const auto last = zset.last_rank_with_score(range.max, range.max_exclusive);
  span.empty = !last || span.first >= zset.size() || *last < span.first;
  if (!span.empty) span.last = *last;
  return span;
}

RankSpan ranks_in(const ZsetObject& zset, const LexRange& range) {
  RankSpan span;
  using Bound = LexRange::Bound;
  const std::size_t n = zset.size();
  switch (range.min_kind) {
    case Bound::plus_inf: return span;
    case Bound::minus_inf: span.first = 0; break;
    default: span.first = zset.first_rank_with_member(range.min, range.min_kind == Bound::exclusive);
  }
  std::optional<std::size_t> last;
  switch (range.max_kind) {
    case Bound::minus_inf: return span;
    case Bound::plus_inf: last = n == 0 ? std::nullopt : std::optional<std::size_t>(n - 1); break;
    default: last = zset.last_rank_with_member(range.max, range.max_kind == Bound::exclusive);
  }
  span.empty = !last || span.first >= n || *last < span.first;
  if (!span.empty) span.last = *last;
  return span;
}

namespace {

void reply_one(CommandContext& ctx, std::string_view member, double score, bool with_scores) {
  if (with_scores && (ctx.reply.protocol() == 3)) ctx.reply.array(2);
  ctx.reply.bulk(member);
  if (with_scores) ctx.reply.double_value(score);
}

void reply_header(CommandContext& ctx, std::size_t count, bool with_scores) {
  ctx.reply.array(with_scores && !(ctx.reply.protocol() == 3) ? 2 * count : count);
}

}  // namespace

void reply_elements(CommandContext& ctx, const std::vector<OwnedElement>& elements, bool with_scores) {
  reply_header(ctx, elements.size(), with_scores);
  for (const OwnedElement& e : elements) reply_one(ctx, e.member, e.score, with_scores);
}

void reply_ranks(CommandContext& ctx, const ZsetObject& zset, std::size_t from_rank, std::size_t count, bool reverse,
                 bool with_scores) {
  reply_header(ctx, count, with_scores);
  zset.visit(from_rank, count, reverse, [&](std::string_view m, double s) {
    reply_one(ctx, m, s, with_scores);
    return true;
  });
}

}  // namespace duet::kv::zset_family
