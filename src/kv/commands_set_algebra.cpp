// Set algebra: SINTER (and SMEMBERS) SINTERCARD SINTERSTORE SUNION
// SUNIONSTORE SDIFF SDIFFSTORE, as Redis 7.0's t_set.c computes them —
// including which encoding a stored result gets (it is built from an empty
// intset, member by member, so the thresholds apply as they do in Redis).
// Keyspace events: the STORE forms' sinterstore, sunionstore, sdiffstore (or
// "del" for an empty result that deletes the target); sources are read with
// lookupKeyRead ("keymiss").
#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "kv/detail/command_util.hpp"
#include "kv/types/set_family.hpp"

namespace duet::kv::set_family {

bool lookup_set(CommandContext& ctx, std::string_view key, SetObject*& set, bool read) {
  Entry* e = read ? detail::read_key(ctx, key) : ctx.db().find(key, ctx.now);
  if (!detail::check_type(ctx, e, ValueType::set)) return false;
  set = e == nullptr ? nullptr : e->value.as<SetObject>();
  return true;
}

void store_set(CommandContext& ctx, std::string_view key, ObjectPtrOf<SetObject> set, std::string_view event) {
  const std::size_t size = set->size();
  if (size == 0) {
    if (ctx.db().erase(key, ctx.now)) notify_keyspace_event(ctx, notify_generic, "del", key);
    return ctx.reply.integer(0);
  }
  bool created = false;
  Entry& e = ctx.db().upsert(key, ctx.now, created);
  e.value.set_object(std::move(set));
  if (e.has_expiry) ctx.db().set_expire(e, Entry::no_expiry);
  if (created) notify_keyspace_event(ctx, notify_new, "new", key);
  notify_keyspace_event(ctx, notify_set, event, key);
  ctx.reply.integer(static_cast<std::int64_t>(size));
}

void reply_members(CommandContext& ctx, const SetObject& set) {
  ctx.reply.set(set.size());
  set.for_each([&](std::string_view m) { ctx.reply.bulk(m); });
}

namespace {

using Keys = std::span<const std::string_view>;

// Every key's set (nullptr when absent); false after a WRONGTYPE reply. All
// keys are checked even after an absent one, as Redis does.
bool lookup_all(CommandContext& ctx, Keys keys, std::vector<SetObject*>& sets) {
  sets.resize(keys.size());
  for (std::size_t j = 0; j < keys.size(); ++j) {
    if (!lookup_set(ctx, keys[j], sets[j], true)) return false;
  }
  return true;
}

struct InterOptions {
  const std::string_view* dst = nullptr;  // SINTERSTORE's destination
  bool cardinality_only = false;          // SINTERCARD
  std::uint64_t limit = 0;                // SINTERCARD's LIMIT, 0: none
};

// The members of sets[0] (the smallest) that every other set holds.
template <class Visit>
void intersect(std::vector<SetObject*>& sets, Visit&& visit) {
  std::stable_sort(sets.begin(), sets.end(), [](const SetObject* a, const SetObject* b) { return a->size() < b->size(); });
  sets[0]->for_each([&](std::string_view m) {
    for (std::size_t j = 1; j < sets.size(); ++j) {
      if (sets[j] != sets[0] && !sets[j]->contains(m)) return true;
    }
    return visit(m);  // false: SINTERCARD reached its LIMIT
  });
}

void sinter_generic(CommandContext& ctx, Keys keys, const InterOptions& opt) {
  std::vector<SetObject*> sets;
  if (!lookup_all(ctx, keys, sets)) return;
  const bool empty = std::find(sets.begin(), sets.end(), nullptr) != sets.end();
  if (opt.dst != nullptr) {
    auto result = make_object<SetObject>();
    const std::int64_t max = max_intset_entries(ctx);
    if (!empty) intersect(sets, [&](std::string_view m) { return result->add(m, max), true; });
    return store_set(ctx, *opt.dst, std::move(result), "sinterstore");
  }
  if (opt.cardinality_only) {
    std::uint64_t n = 0;
    if (!empty) intersect(sets, [&](std::string_view) { return ++n != opt.limit; });
    return ctx.reply.integer(static_cast<std::int64_t>(n));
  }
  if (sets.size() == 1 && !empty) return reply_members(ctx, *sets[0]);  // SMEMBERS: no copy
  std::vector<std::string> found;
  if (!empty) intersect(sets, [&](std::string_view m) { return found.emplace_back(m), true; });
  ctx.reply.set(found.size());
  for (const std::string& m : found) ctx.reply.bulk(m);
}

enum class Op { union_of, diff };

// SDIFF's two algorithms, chosen by Redis's estimate of their work: they
// give the same members but not always the same encoding (the second adds
// all of the first set, so it may pass the intset limit on the way).
void diff_into(std::vector<SetObject*>& sets, SetObject& out, std::int64_t max) {
  std::int64_t one = 0;
  std::int64_t two = 0;
  for (const SetObject* s : sets) {
    if (s == nullptr) continue;
    one += static_cast<std::int64_t>(sets[0]->size());
    two += static_cast<std::int64_t>(s->size());
  }
  if (one / 2 <= two) {
    std::stable_sort(sets.begin() + 1, sets.end(), [](const SetObject* a, const SetObject* b) {
      return (a == nullptr ? 0 : a->size()) > (b == nullptr ? 0 : b->size());
    });
    sets[0]->for_each([&](std::string_view m) {
      for (std::size_t j = 1; j < sets.size(); ++j) {
        if (sets[j] != nullptr && sets[j]->contains(m)) return;
      }
      out.add(m, max);
    });
    return;
  }
  for (std::size_t j = 0; j < sets.size() && (j == 0 || out.size() != 0); ++j) {
    if (sets[j] == nullptr) continue;
    sets[j]->for_each([&](std::string_view m) { j == 0 ? out.add(m, max) : out.remove(m); });
  }
}

void union_diff(CommandContext& ctx, Keys keys, const std::string_view* dst, Op op) {
  std::vector<SetObject*> sets;
  if (!lookup_all(ctx, keys, sets)) return;
  auto result = make_object<SetObject>();
  const std::int64_t max = max_intset_entries(ctx);
  if (op == Op::union_of) {
    for (const SetObject* s : sets) {
      if (s != nullptr) s->for_each([&](std::string_view m) { result->add(m, max); });
    }
  } else if (sets[0] != nullptr && std::find(sets.begin() + 1, sets.end(), sets[0]) == sets.end()) {
    diff_into(sets, *result, max);  // (a key named twice makes the difference empty)
  }
  if (dst != nullptr) return store_set(ctx, *dst, std::move(result), op == Op::union_of ? "sunionstore" : "sdiffstore");
  reply_members(ctx, *result);
}

Keys keys_from(CommandContext& ctx, std::size_t first) { return ctx.argv.subspan(first); }

}  // namespace

void sinter(CommandContext& ctx) { sinter_generic(ctx, keys_from(ctx, 1), {}); }
void sinterstore(CommandContext& ctx) { sinter_generic(ctx, keys_from(ctx, 2), {.dst = &ctx.argv[1]}); }
void sunion(CommandContext& ctx) { union_diff(ctx, keys_from(ctx, 1), nullptr, Op::union_of); }
void sunionstore(CommandContext& ctx) { union_diff(ctx, keys_from(ctx, 2), &ctx.argv[1], Op::union_of); }
void sdiff(CommandContext& ctx) { union_diff(ctx, keys_from(ctx, 1), nullptr, Op::diff); }
void sdiffstore(CommandContext& ctx) { union_diff(ctx, keys_from(ctx, 2), &ctx.argv[1], Op::diff); }

// SINTERCARD numkeys key [key ...] [LIMIT limit]
void sintercard(CommandContext& ctx) {
  std::int64_t numkeys = 0;
  if (!detail::parse_i64(ctx.argv[1], numkeys) || numkeys < 1) return ctx.reply.error("ERR numkeys should be greater than 0");
  if (numkeys > static_cast<std::int64_t>(ctx.argv.size()) - 2) {
    return ctx.reply.error("ERR Number of keys can't be greater than number of args");
  }
  InterOptions opt{.cardinality_only = true};
  for (std::size_t j = 2 + static_cast<std::size_t>(numkeys); j < ctx.argv.size(); ++j) {
    std::int64_t limit = 0;
    if (!detail::equals_ci(ctx.argv[j], "limit") || j + 1 == ctx.argv.size()) return ctx.reply.error(detail::err_syntax);
    if (!detail::parse_i64(ctx.argv[++j], limit) || limit < 0) return ctx.reply.error("ERR LIMIT can't be negative");
    opt.limit = static_cast<std::uint64_t>(limit);
  }
  sinter_generic(ctx, ctx.argv.subspan(2, static_cast<std::size_t>(numkeys)), opt);
}

}  // namespace duet::kv::set_family
