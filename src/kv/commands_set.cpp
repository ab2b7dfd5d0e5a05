// Set commands over one key: SADD SREM SCARD SISMEMBER SMISMEMBER
// SRANDMEMBER SPOP SMOVE SSCAN, and the family's table (the algebra is in
// commands_set_algebra.cpp). Replies and errors as Redis 7.0's t_set.c, and
// its keyspace events: "new" when SADD or SMOVE creates the set, sadd, srem,
// spop, and "del" when a set is emptied.
#include <absl/container/flat_hash_set.h>

#include <string>
#include <vector>

#include "kv/detail/command_util.hpp"
#include "kv/glob.hpp"
#include "kv/types/set_family.hpp"

namespace duet::kv {
namespace {

using detail::equals_ci;
using set_family::lookup_set;

constexpr std::string_view err_range_positive = "ERR value is out of range, must be positive";

// The set at `key`, created empty (an intset, Redis's setTypeCreate) when absent.
SetObject& create_set(CommandContext& ctx, std::string_view key) {
  auto owned = make_object<SetObject>();
  SetObject& set = *owned;
  bool created = false;
  ctx.db().upsert(key, ctx.now, created).value.set_object(std::move(owned));
  notify_keyspace_event(ctx, notify_new, "new", key);
  return set;
}

void sadd(CommandContext& ctx) {
  SetObject* set = nullptr;
  if (!lookup_set(ctx, ctx.argv[1], set)) return;
  if (set == nullptr) set = &create_set(ctx, ctx.argv[1]);
  const std::int64_t max = set_family::max_intset_entries(ctx);
  std::int64_t added = 0;
  for (std::size_t j = 2; j < ctx.argv.size(); ++j) added += set->add(ctx.argv[j], max) ? 1 : 0;
  if (added != 0) notify_keyspace_event(ctx, notify_set, "sadd", ctx.argv[1]);
  ctx.reply.integer(added);
}

void srem(CommandContext& ctx) {
  SetObject* set = nullptr;
  if (!lookup_set(ctx, ctx.argv[1], set)) return;
  std::int64_t removed = 0;
  bool emptied = false;
  for (std::size_t j = 2; set != nullptr && j < ctx.argv.size(); ++j) {
    if (!set->remove(ctx.argv[j])) continue;
    ++removed;
    if (set->size() == 0) {
      ctx.db().erase(ctx.argv[1], ctx.now);
      emptied = true;
      break;
    }
  }
  if (removed != 0) notify_keyspace_event(ctx, notify_set, "srem", ctx.argv[1]);
  if (emptied) notify_keyspace_event(ctx, notify_generic, "del", ctx.argv[1]);
  ctx.reply.integer(removed);
}

void scard(CommandContext& ctx) {
  SetObject* set = nullptr;
  if (!lookup_set(ctx, ctx.argv[1], set, true)) return;
  ctx.reply.integer(set == nullptr ? 0 : static_cast<std::int64_t>(set->size()));
}

void sismember(CommandContext& ctx) {
  SetObject* set = nullptr;
  if (!lookup_set(ctx, ctx.argv[1], set, true)) return;
  ctx.reply.integer(set != nullptr && set->contains(ctx.argv[2]) ? 1 : 0);
}

void smismember(CommandContext& ctx) {
  SetObject* set = nullptr;
  if (!lookup_set(ctx, ctx.argv[1], set, true)) return;
  ctx.reply.array(ctx.argv.size() - 2);
  for (std::size_t j = 2; j < ctx.argv.size(); ++j) ctx.reply.integer(set != nullptr && set->contains(ctx.argv[j]) ? 1 : 0);
}

// SMOVE source destination member
void smove(CommandContext& ctx) {
  SetObject* src = nullptr;
  SetObject* dst = nullptr;
  Entry* src_entry = ctx.db().find(ctx.argv[1], ctx.now);
  if (src_entry == nullptr) return ctx.reply.integer(0);
  if (!lookup_set(ctx, ctx.argv[1], src) || !lookup_set(ctx, ctx.argv[2], dst)) return;
  const std::string_view member = ctx.argv[3];
  if (src == dst) return ctx.reply.integer(src->contains(member) ? 1 : 0);
  if (!src->remove(member)) return ctx.reply.integer(0);
  notify_keyspace_event(ctx, notify_set, "srem", ctx.argv[1]);
  if (src->size() == 0) {
    ctx.db().erase(*src_entry);
    notify_keyspace_event(ctx, notify_generic, "del", ctx.argv[1]);
  }
  if (dst == nullptr) dst = &create_set(ctx, ctx.argv[2]);
  if (dst->add(member, set_family::max_intset_entries(ctx))) {
    notify_keyspace_event(ctx, notify_set, "sadd", ctx.argv[2]);
  }
  ctx.reply.integer(1);
}

// Logs SREM key m1 m2 ... in batches (Redis 7.0 logs one SREM a member).
void log_srem(CommandContext& ctx, const std::vector<std::string>& members) {
  std::vector<std::string_view> argv;
  for (std::size_t at = 0; at < members.size(); at += Object::max_record_elements) {
    argv.assign({"SREM", ctx.argv[1]});
    const std::size_t end = std::min(members.size(), at + Object::max_record_elements);
    argv.insert(argv.end(), members.begin() + static_cast<std::ptrdiff_t>(at), members.begin() + static_cast<std::ptrdiff_t>(end));
    ctx.log_instead(argv);
  }
}

// SPOP key count with count < size. Few: pick and remove each (Redis's case
// 2). Most: pick the ones that stay into a new set, reply what is left of
// the old one (case 3) — the new set starts as an intset, as in Redis.
void spop_some(CommandContext& ctx, Entry& entry, SetObject& set, std::size_t count) {
  std::vector<std::string> popped;
  popped.reserve(count);
  std::size_t remaining = set.size() - count;
  SetObject::Scratch scratch;
  if (remaining * 5 > count) {
    while (popped.size() < count) {
      popped.emplace_back(set.random_member(ctx.store().next_random(), scratch));
      set.remove(popped.back());
    }
  } else {
    auto kept = make_object<SetObject>();
    const std::int64_t max = set_family::max_intset_entries(ctx);
    while (remaining-- != 0) {
      const std::string member(set.random_member(ctx.store().next_random(), scratch));
      kept->add(member, max);
      set.remove(member);
    }
    set.for_each([&](std::string_view m) { popped.emplace_back(m); });
    entry.value.set_object(std::move(kept));  // frees the old set
  }
  ctx.reply.set(popped.size());
  for (const std::string& m : popped) ctx.reply.bulk(m);
  log_srem(ctx, popped);
}

void spop_with_count(CommandContext& ctx) {
  std::int64_t count = 0;
  if (!detail::parse_i64(ctx.argv[2], count) || count < 0) return ctx.reply.error(err_range_positive);
  SetObject* set = nullptr;
  if (!lookup_set(ctx, ctx.argv[1], set)) return;
  if (set == nullptr || count == 0) {
    ctx.log_instead(std::span<const std::string_view>{});
    return ctx.reply.set(0);
  }
  notify_keyspace_event(ctx, notify_set, "spop", ctx.argv[1]);
  if (static_cast<std::uint64_t>(count) >= set->size()) {  // the whole set, and the key goes
    set_family::reply_members(ctx, *set);
    ctx.db().erase(ctx.argv[1], ctx.now);
    notify_keyspace_event(ctx, notify_generic, "del", ctx.argv[1]);
    return ctx.log_instead({"DEL", ctx.argv[1]});
  }
  spop_some(ctx, *ctx.db().find(ctx.argv[1], ctx.now), *set, static_cast<std::size_t>(count));
}

void spop(CommandContext& ctx) {
  if (ctx.argv.size() == 3) return spop_with_count(ctx);
  if (ctx.argv.size() > 3) return ctx.reply.error(detail::err_syntax);
  SetObject* set = nullptr;
  if (!lookup_set(ctx, ctx.argv[1], set)) return;
  if (set == nullptr) {
    ctx.log_instead(std::span<const std::string_view>{});
    return ctx.reply.null();
  }
  SetObject::Scratch scratch;
  const std::string member(set->random_member(ctx.store().next_random(), scratch));
  set->remove(member);
  notify_keyspace_event(ctx, notify_set, "spop", ctx.argv[1]);
  ctx.log_instead({"SREM", ctx.argv[1], member});
  ctx.reply.bulk(member);
  if (set->size() == 0) {
    ctx.db().erase(ctx.argv[1], ctx.now);
    notify_keyspace_event(ctx, notify_generic, "del", ctx.argv[1]);
  }
}

// SRANDMEMBER key count with 1 < count < size: distinct members. Many: drop
// random ones from a copy of all (Redis's case 3); few: pick until enough
// distinct ones (case 4). The order is the picking's, as random as Redis's.
void srandmember_distinct(CommandContext& ctx, const SetObject& set, std::size_t count) {
  SetObject::Scratch scratch;
  std::vector<std::string> picked;
  if (count * 3 > set.size()) {
    set.for_each([&](std::string_view m) { picked.emplace_back(m); });
    while (picked.size() > count) {
      std::swap(picked[ctx.store().next_random() % picked.size()], picked.back());
      picked.pop_back();
    }
  } else {
    absl::flat_hash_set<std::string> seen;
    while (picked.size() < count) {
      std::string_view m = set.random_member(ctx.store().next_random(), scratch);
      if (seen.emplace(m).second) picked.emplace_back(m);
    }
  }
  ctx.reply.array(picked.size());
  for (const std::string& m : picked) ctx.reply.bulk(m);
}

void srandmember_with_count(CommandContext& ctx) {
  std::int64_t n = 0;
  if (!detail::int_arg(ctx, ctx.argv[2], n)) return;
  if (n == INT64_MIN) {
    return ctx.reply.error("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");
  }
  SetObject* set = nullptr;
  if (!lookup_set(ctx, ctx.argv[1], set, true)) return;
  if (set == nullptr || n == 0) return ctx.reply.array(0);
  const auto count = static_cast<std::uint64_t>(n < 0 ? -n : n);
  SetObject::Scratch scratch;
  if (n < 0 || count == 1) {
    // Redis streams all `count` picks; one reply that big would be held
    // whole here, so a count past the output limit's worth is refused.
    if (count > ctx.server.config().client_output_limit / 4) return ctx.reply.error("ERR value is out of range");
    ctx.reply.array(count);
    for (std::uint64_t i = 0; i < count; ++i) ctx.reply.bulk(set->random_member(ctx.store().next_random(), scratch));
    return;
  }
  if (count >= set->size()) {
    ctx.reply.array(set->size());
    return set->for_each([&](std::string_view m) { ctx.reply.bulk(m); });
  }
  srandmember_distinct(ctx, *set, static_cast<std::size_t>(count));
}

void srandmember(CommandContext& ctx) {
  if (ctx.argv.size() == 3) return srandmember_with_count(ctx);
  if (ctx.argv.size() > 3) return ctx.reply.error(detail::err_syntax);
  SetObject* set = nullptr;
  if (!lookup_set(ctx, ctx.argv[1], set, true)) return;
  if (set == nullptr) return ctx.reply.null();
  SetObject::Scratch scratch;
  ctx.reply.bulk(set->random_member(ctx.store().next_random(), scratch));
}

// SSCAN key cursor [MATCH pattern] [COUNT count]: Redis looks the key up
// before it reads the options, so an absent key answers an empty scan even
// with bad options.
void sscan(CommandContext& ctx) {
  std::uint64_t cursor = 0;
  if (!detail::parse_scan_cursor(ctx.argv[2], cursor)) return ctx.reply.error("ERR invalid cursor");
  SetObject* set = nullptr;
  if (!lookup_set(ctx, ctx.argv[1], set, true)) return;
  detail::ScanArgs args;
  if (set != nullptr && !detail::parse_scan_args(ctx, args)) return;
  std::vector<std::string> found;
  if (set != nullptr) {
    cursor = set->scan(cursor, static_cast<std::size_t>(args.count), [&](std::string_view m) {
      if (!args.has_pattern || glob_match(args.pattern, m)) found.emplace_back(m);
    });
  }
  ctx.reply.array(2);
  ctx.reply.bulk(set != nullptr ? std::to_string(cursor) : "0");
  ctx.reply.array(found.size());
  for (const std::string& m : found) ctx.reply.bulk(m);
}

constexpr std::uint32_t w = cmd_write | cmd_denyoom | cmd_fast;
constexpr std::uint32_t r = cmd_readonly | cmd_fast;
constexpr ShardRoute g = ShardRoute::gather;

constexpr Command commands[] = {
    {"sadd", -3, w, sadd, 1, 1, 1, "set", "Add one or more members to a set"},
    {"srem", -3, cmd_write | cmd_fast, srem, 1, 1, 1, "set", "Remove one or more members from a set"},
    {"scard", 2, r, scard, 1, 1, 1, "set", "Get the number of members in a set"},
    {"sismember", 3, r, sismember, 1, 1, 1, "set", "Determine if a given value is a member of a set"},
    {"smismember", -3, r, smismember, 1, 1, 1, "set",
     "Returns the membership associated with the given elements for a set"},
    {"smembers", 2, cmd_readonly, set_family::sinter, 1, 1, 1, "set", "Get all the members in a set"},
    {"srandmember", -2, cmd_readonly, srandmember, 1, 1, 1, "set", "Get one or multiple random members from a set"},
    {"spop", -2, cmd_write | cmd_fast, spop, 1, 1, 1, "set", "Remove and return one or multiple random members from a set"},
    {"smove", 4, cmd_write | cmd_fast, smove, 1, 2, 1, "set", "Move a member from one set to another", g},
    {"sinter", -2, cmd_readonly, set_family::sinter, 1, -1, 1, "set", "Intersect multiple sets", g},
    {"sintercard", -3, cmd_readonly, set_family::sintercard, 0, 0, 0, "set",
     "Intersect multiple sets and return the cardinality of the result", g, 1},
    {"sinterstore", -3, cmd_write | cmd_denyoom, set_family::sinterstore, 1, -1, 1, "set",
     "Intersect multiple sets and store the resulting set in a key", g},
    {"sunion", -2, cmd_readonly, set_family::sunion, 1, -1, 1, "set", "Add multiple sets", g},
    {"sunionstore", -3, cmd_write | cmd_denyoom, set_family::sunionstore, 1, -1, 1, "set",
     "Add multiple sets and store the resulting set in a key", g},
    {"sdiff", -2, cmd_readonly, set_family::sdiff, 1, -1, 1, "set", "Subtract multiple sets", g},
    {"sdiffstore", -3, cmd_write | cmd_denyoom, set_family::sdiffstore, 1, -1, 1, "set",
     "Subtract multiple sets and store the resulting set in a key", g},
    {"sscan", -3, cmd_readonly, sscan, 1, 1, 1, "set", "Incrementally iterate Set elements"},
};

}  // namespace

std::span<const Command> set_commands() noexcept { return commands; }

}  // namespace duet::kv
