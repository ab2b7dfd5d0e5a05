// Sorted-set algebra: ZUNION ZINTER ZDIFF, their STORE forms, and ZINTERCARD,
// as Redis 7.0's zunionInterDiffGenericCommand computes them.
//
// - Inputs may be sets as well as sorted sets: a set's members score 1.
// - Redis's order of work, which its replies show: numkeys, then every key
//   looked up (lookupKeyRead; WRONGTYPE at the first wrong one), then the
//   options (WEIGHTS and AGGREGATE not for ZDIFF, WITHSCORES not for the
//   STORE forms, LIMIT only for ZINTERCARD).
// - Scores: each is multiplied by its input's weight (a NaN product, 0 times
//   inf, counts 0); SUM of inf and -inf is 0. ZUNION and ZINTER take the
//   inputs from the smallest to the largest (a stable order, as glibc's
//   qsort), which fixes the order of the additions and so the last bits of a
//   sum. ZDIFF keeps the first input's scores.
// - A STORE form builds the result whole, in the encoding its size and
//   longest member call for (zsetConvertToListpackIfNeeded), replaces the
//   destination (its TTL goes) and fires zunionstore / zinterstore /
//   zdiffstore, or deletes it ("del") when the result is empty.
#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "kv/detail/command_util.hpp"
#include "kv/types/set.hpp"
#include "kv/types/zset_family.hpp"

namespace duet::kv {
namespace {

using detail::equals_ci;
using zset_family::OwnedElement;

// One input key: a sorted set, a set, or nothing (an absent key: empty).
struct Source {
  const ZsetObject* zset = nullptr;
  const SetObject* set = nullptr;
  double weight = 1;

  [[nodiscard]] std::size_t size() const noexcept {
    return zset != nullptr ? zset->size() : set != nullptr ? set->size() : 0;
  }
  // The same key named twice (Redis compares the objects).
  [[nodiscard]] bool same_as(const Source& o) const noexcept { return zset == o.zset && set == o.set; }
  // visit(member, score) -> bool: false stops. A view is valid in the call only.
  template <class Visit>
  void each(Visit&& visit) const {
    if (zset != nullptr) return zset->visit(0, zset->size(), false, visit);
    if (set != nullptr) set->for_each([&](std::string_view m) { return visit(m, 1.0); });
  }
  [[nodiscard]] std::optional<double> find(std::string_view member) const {
    if (zset != nullptr) return zset->score(member);
    if (set != nullptr && set->contains(member)) return 1.0;
    return std::nullopt;
  }
};

enum class Op { union_of, inter, diff };
enum class Aggregate { sum, min, max };

struct Request {
  Op op;
  std::string_view name;                  // lower case, for the numkeys error
  std::size_t numkeys_at;
  const std::string_view* dst = nullptr;  // the STORE forms' destination
  bool cardinality_only = false;          // ZINTERCARD
  std::vector<Source> sources{};
  Aggregate aggregate = Aggregate::sum;
  bool with_scores = false;
  std::uint64_t limit = 0;  // ZINTERCARD's LIMIT, 0: none
};

// zunionInterAggregate.
void aggregate_into(double& target, double value, Aggregate how) {
  switch (how) {
    case Aggregate::sum:
      target += value;
      if (std::isnan(target)) target = 0;  // inf + -inf: Redis's convention is 0
      break;
    case Aggregate::min: target = value < target ? value : target; break;
    case Aggregate::max: target = value > target ? value : target; break;
  }
}

// numkeys and the keys; false after the error reply.
bool parse_keys(CommandContext& ctx, Request& req) {
  std::int64_t numkeys = 0;
  if (!detail::int_arg(ctx, ctx.argv[req.numkeys_at], numkeys)) return false;
  if (numkeys < 1) {
    std::string message = "ERR at least 1 input key is needed for '";
    message.append(req.name).append("' command");
    return ctx.reply.error(message), false;
  }
  if (numkeys > static_cast<std::int64_t>(ctx.argv.size() - req.numkeys_at - 1)) {
    return ctx.reply.error(detail::err_syntax), false;
  }
  req.sources.resize(static_cast<std::size_t>(numkeys));
  for (std::size_t i = 0; i < req.sources.size(); ++i) {
    const Entry* e = detail::read_key(ctx, ctx.argv[req.numkeys_at + 1 + i]);
    if (e == nullptr) continue;
    req.sources[i].zset = e->value.as<ZsetObject>();
    req.sources[i].set = e->value.as<SetObject>();
    if (req.sources[i].zset == nullptr && req.sources[i].set == nullptr) {
      return ctx.reply.error(detail::err_wrongtype), false;
    }
  }
  return true;
}

bool parse_aggregate(std::string_view text, Aggregate& how) {
  if (equals_ci(text, "sum")) return how = Aggregate::sum, true;
  if (equals_ci(text, "min")) return how = Aggregate::min, true;
  if (equals_ci(text, "max")) return how = Aggregate::max, true;
  return false;
}

// The options after the keys, each accepted only where Redis accepts it (else
// a syntax error); false after the error reply.
bool parse_options(CommandContext& ctx, Request& req) {
  const std::size_t n = req.sources.size();
  const bool weighs = req.op != Op::diff && !req.cardinality_only;
  for (std::size_t j = req.numkeys_at + 1 + n; j < ctx.argv.size();) {
    const std::size_t remaining = ctx.argv.size() - j;
    const std::string_view word = ctx.argv[j];
    if (weighs && remaining >= n + 1 && equals_ci(word, "weights")) {
      for (std::size_t i = 0; i < n; ++i) {
        if (!zset_family::parse_score(ctx.argv[j + 1 + i], req.sources[i].weight)) {
          return ctx.reply.error("ERR weight value is not a float"), false;
        }
      }
      j += n + 1;
    } else if (weighs && remaining >= 2 && equals_ci(word, "aggregate")) {
      if (!parse_aggregate(ctx.argv[j + 1], req.aggregate)) return ctx.reply.error(detail::err_syntax), false;
      j += 2;
    } else if (req.dst == nullptr && !req.cardinality_only && equals_ci(word, "withscores")) {
      req.with_scores = true;
      j += 1;
    } else if (req.cardinality_only && remaining >= 2 && equals_ci(word, "limit")) {
      std::int64_t limit = 0;
      if (!detail::parse_i64(ctx.argv[j + 1], limit) || limit < 0) {
        return ctx.reply.error("ERR LIMIT can't be negative"), false;
      }
      req.limit = static_cast<std::uint64_t>(limit);
      j += 2;
    } else {
      return ctx.reply.error(detail::err_syntax), false;
    }
  }
  return true;
}

// The result's elements (`out` is reserved for all of them first: the union
// indexes its members by views into it).
struct Result {
  std::vector<OwnedElement> elements;
  std::uint64_t cardinality = 0;  // ZINTERCARD
};

void union_of(const Request& req, Result& out) {
  std::size_t bound = 0;
  for (const Source& s : req.sources) bound += s.size();
  out.elements.reserve(bound);
  absl::flat_hash_map<std::string_view, std::size_t> index;
  index.reserve(req.sources.empty() ? 0 : req.sources.back().size());  // at least the largest input
  for (const Source& s : req.sources) {
    s.each([&](std::string_view m, double score) {
      score *= s.weight;
      if (std::isnan(score)) score = 0;
      auto it = index.find(m);
      if (it == index.end()) {
        out.elements.push_back({std::string(m), score});
        index.emplace(out.elements.back().member, out.elements.size() - 1);
      } else {
        aggregate_into(out.elements[it->second].score, score, req.aggregate);
      }
      return true;
    });
  }
}

void inter(const Request& req, Result& out) {
  const std::vector<Source>& src = req.sources;
  if (src[0].size() == 0) return;  // the smallest: an absent key or an empty set
  src[0].each([&](std::string_view m, double s) {
    double score = s * src[0].weight;
    if (std::isnan(score)) score = 0;
    for (std::size_t j = 1; j < src.size(); ++j) {
      const std::optional<double> found = src[j].same_as(src[0]) ? std::optional<double>(s) : src[j].find(m);
      if (!found) return true;
      aggregate_into(score, *found * src[j].weight, req.aggregate);
    }
    if (!req.cardinality_only) return out.elements.push_back({std::string(m), score}), true;
    return ++out.cardinality != req.limit;  // (limit 0 is never reached)
  });
}

void diff(const Request& req, Result& out) {
  const std::vector<Source>& src = req.sources;
  if (src[0].size() == 0) return;
  for (std::size_t j = 1; j < src.size(); ++j) {
    if (src[j].same_as(src[0])) return;  // the first set minus itself
  }
  src[0].each([&](std::string_view m, double s) {
    for (std::size_t j = 1; j < src.size(); ++j) {
      if (src[j].find(m)) return true;
    }
    out.elements.push_back({std::string(m), s});
    return true;
  });
}

void store(CommandContext& ctx, const Request& req, const Result& result) {
  if (result.elements.empty() && ctx.db().find(*req.dst, ctx.now) == nullptr) {
    // Nothing changed (Redis: no dirty++): nothing logged, no WATCH touched.
    ctx.log_instead(std::span<const std::string_view>{});
    return ctx.reply.integer(0);
  }
  std::size_t longest = 0;
  for (const OwnedElement& e : result.elements) longest = std::max(longest, e.member.size());
  const ZsetLimits limits = zset_family::limits(ctx);
  Value built;
  built.set_object(ZsetObject::create(result.elements.size(), longest, limits));
  double ignored = 0;
  for (const OwnedElement& e : result.elements) zset_add(built, e.member, e.score, 0, ignored, limits);
  const std::string_view event =
      req.op == Op::union_of ? "zunionstore" : req.op == Op::inter ? "zinterstore" : "zdiffstore";
  zset_family::store_zset(ctx, *req.dst, std::move(built), event);
  ctx.reply.integer(static_cast<std::int64_t>(result.elements.size()));
}

void run(CommandContext& ctx, Request req) {
  if (!parse_keys(ctx, req) || !parse_options(ctx, req)) return;
  if (req.op != Op::diff) {
    std::stable_sort(req.sources.begin(), req.sources.end(),
                     [](const Source& a, const Source& b) { return a.size() < b.size(); });
  }
  Result result;
  switch (req.op) {
    case Op::union_of: union_of(req, result); break;
    case Op::inter: inter(req, result); break;
    case Op::diff: diff(req, result); break;
  }
  if (req.dst != nullptr) return store(ctx, req, result);
  if (req.cardinality_only) return ctx.reply.integer(static_cast<std::int64_t>(result.cardinality));
  std::sort(result.elements.begin(), result.elements.end(), [](const OwnedElement& a, const OwnedElement& b) {
    return a.score < b.score || (a.score == b.score && a.member < b.member);
  });
  zset_family::reply_elements(ctx, result.elements, req.with_scores);
}

void reply_form(CommandContext& ctx, Op op, std::string_view name) {
  run(ctx, {.op = op, .name = name, .numkeys_at = 1});
}
void store_form(CommandContext& ctx, Op op, std::string_view name) {
  run(ctx, {.op = op, .name = name, .numkeys_at = 2, .dst = &ctx.argv[1]});
}

// ZUNION numkeys key [key ...] [WEIGHTS w ...] [AGGREGATE SUM|MIN|MAX] [WITHSCORES]
void zunion(CommandContext& ctx) { reply_form(ctx, Op::union_of, "zunion"); }
void zinter(CommandContext& ctx) { reply_form(ctx, Op::inter, "zinter"); }
// ZDIFF numkeys key [key ...] [WITHSCORES]
void zdiff(CommandContext& ctx) { reply_form(ctx, Op::diff, "zdiff"); }
// ZUNIONSTORE destination numkeys key [key ...] [WEIGHTS w ...] [AGGREGATE SUM|MIN|MAX]
void zunionstore(CommandContext& ctx) { store_form(ctx, Op::union_of, "zunionstore"); }
void zinterstore(CommandContext& ctx) { store_form(ctx, Op::inter, "zinterstore"); }
void zdiffstore(CommandContext& ctx) { store_form(ctx, Op::diff, "zdiffstore"); }
// ZINTERCARD numkeys key [key ...] [LIMIT limit]
void zintercard(CommandContext& ctx) {
  run(ctx, {.op = Op::inter, .name = "zintercard", .numkeys_at = 1, .cardinality_only = true});
}

constexpr std::uint32_t r = cmd_readonly;
constexpr std::uint32_t w = cmd_write | cmd_denyoom;
constexpr ShardRoute g = ShardRoute::gather;

// The keys: numkeys at 1 (2 for the STORE forms, whose destination is the table's key 1).
constexpr Command commands[] = {
    {"zunion", -3, r, zunion, 0, 0, 0, "sorted-set", "Add multiple sorted sets", g, 1},
    {"zinter", -3, r, zinter, 0, 0, 0, "sorted-set", "Intersect multiple sorted sets", g, 1},
    {"zdiff", -3, r, zdiff, 0, 0, 0, "sorted-set", "Subtract multiple sorted sets", g, 1},
    {"zunionstore", -4, w, zunionstore, 1, 1, 1, "sorted-set",
     "Add multiple sorted sets and store the resulting sorted set in a new key", g, 2},
    {"zinterstore", -4, w, zinterstore, 1, 1, 1, "sorted-set",
     "Intersect multiple sorted sets and store the resulting sorted set in a new key", g, 2},
    {"zdiffstore", -4, w, zdiffstore, 1, 1, 1, "sorted-set",
     "Subtract multiple sorted sets and store the resulting sorted set in a new key", g, 2},
    {"zintercard", -3, r, zintercard, 0, 0, 0, "sorted-set",
     "Intersect multiple sorted sets and return the cardinality of the result", g, 1},
};

}  // namespace

std::span<const Command> zset_algebra_commands() noexcept { return commands; }

}  // namespace duet::kv
