// SORT and SORT_RO, as Redis 7.0's sort.c: the elements of a list, set or
// sorted set, sorted numerically or (ALPHA) as strings, by themselves or BY
// the keys a pattern names (kv/sort_vector.hpp), cut by LIMIT, each replaced
// by its GET patterns' values, then replied or stored as a list (STORE).
//
// Redis's rules, kept:
// - The options parse in order and the first bad one answers (a syntax
//   error, LIMIT's integers, SORT_RO's STORE is a syntax error); then the
//   key: WRONGTYPE unless a list, set or sorted set; absent, it is empty.
// - BY without a '*' (BY nosort) does not sort: a list and a sorted set keep
//   their order (DESC reverses it, and LIMIT reads only its range), a set its
//   iteration order — but with STORE a set is sorted ALPHA, so that the list
//   stored is the same on every replay. A later BY cannot undo it.
// - LIMIT clamps: a negative offset is 0, a negative count means all.
// - A sorted set is converted to its large encoding first, as Redis
//   converts it to a skiplist (OBJECT ENCODING answers "skiplist" after).
// - STORE replaces the destination with a list (its TTL dropped; "new" if
//   created, then "sortstore") or, for an empty result, deletes it ("del");
//   a missing GET value is stored as "". The reply is the count.
// - Sharded (--threads N > 1): BY with a '*' and every GET are refused with
//   Redis Cluster's errors, since the keys they name may live on any shard.
//   STORE's destination is the table's written_key (sort_store_key), so a
//   destination on another shard is brought over by a gather job.
// - The AOF: SORT without STORE, or a STORE that changed nothing, logs
//   nothing; a STORE whose patterns read other keys logs what it did (DEL,
//   then RPUSH), so a replay depends neither on those keys nor on the shard
//   count; any other STORE logs as sent (it is deterministic).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kv/detail/command_util.hpp"
#include "kv/sort_vector.hpp"
#include "kv/types/list.hpp"
#include "kv/types/list_commands.hpp"
#include "kv/types/set.hpp"
#include "kv/types/zset.hpp"

namespace duet::kv {
namespace {

using detail::equals_ci;

constexpr std::string_view err_score = "ERR One or more scores can't be converted into double";
constexpr std::string_view err_by_sharded = "ERR BY option of SORT denied in Cluster mode.";
constexpr std::string_view err_get_sharded = "ERR GET option of SORT denied in Cluster mode.";

struct SortArgs {
  bool desc = false;
  bool alpha = false;
  bool dontsort = false;
  std::int64_t limit_start = 0;
  std::int64_t limit_count = -1;
  const std::string_view* by = nullptr;
  std::size_t store_at = 0;  // STORE's destination in argv, 0: none
  bool reads_keys = false;   // a pattern names other keys
  std::vector<std::string_view>* gets = nullptr;  // GET's patterns, when wanted
};

bool has_star(std::string_view pattern) noexcept {
  return pattern.substr(0, pattern.find('\0')).find('*') != std::string_view::npos;  // strchr
}

// sortCommandGeneric's option loop: "" or the error it answers.
std::string_view parse_sort(std::span<const std::string_view> argv, bool readonly, bool sharded, SortArgs& out) {
  for (std::size_t j = 2; j < argv.size(); ++j) {
    const std::size_t left = argv.size() - j - 1;
    const std::string_view option = argv[j];
    if (equals_ci(option, "asc")) {
      out.desc = false;
    } else if (equals_ci(option, "desc")) {
      out.desc = true;
    } else if (equals_ci(option, "alpha")) {
      out.alpha = true;
    } else if (equals_ci(option, "limit") && left >= 2) {
      if (!detail::parse_i64(argv[j + 1], out.limit_start) || !detail::parse_i64(argv[j + 2], out.limit_count)) {
        return detail::err_not_integer;
      }
      j += 2;
    } else if (!readonly && equals_ci(option, "store") && left >= 1) {
      out.store_at = ++j;
    } else if (equals_ci(option, "by") && left >= 1) {
      out.by = &argv[++j];
      if (!has_star(*out.by)) {
        out.dontsort = true;
      } else if (sharded) {
        return err_by_sharded;
      } else {
        out.reads_keys = true;
      }
    } else if (equals_ci(option, "get") && left >= 1) {
      if (sharded) return err_get_sharded;
      const std::string_view pattern = argv[++j];
      out.reads_keys = out.reads_keys || pattern != "#";
      if (out.gets != nullptr) out.gets->push_back(pattern);
    } else {
      return detail::err_syntax;
    }
  }
  return {};
}

// The table's written_key: the last STORE's destination (sortGetKeys).
std::size_t sort_store_key(std::span<const std::string_view> argv) noexcept {
  SortArgs args;
  (void)parse_sort(argv, false, false, args);
  return args.store_at;
}
// SORT_RO writes nothing, but its keys are movable for COMMAND all the same
// (Redis's sortROGetKeys).
std::size_t sort_ro_store_key(std::span<const std::string_view>) noexcept { return 0; }

// The output's window over the vector, inclusive (end < start: none).
struct Window {
  std::int64_t start;
  std::int64_t end;
  [[nodiscard]] std::size_t size() const noexcept {
    return end < start ? 0 : static_cast<std::size_t>(end - start + 1);
  }
};

// LIMIT's sanity checks, over a value of `len` elements.
Window limit_window(const SortArgs& args, std::int64_t len) {
  Window w{std::min(std::max(args.limit_start, std::int64_t{0}), len), 0};
  const std::int64_t count = std::min(std::max(args.limit_count, std::int64_t{-1}), len);
  w.end = count < 0 ? len - 1 : w.start + count - 1;
  if (w.start >= len) w = {len - 1, len - 2};
  if (w.end >= len) w.end = len - 1;
  return w;
}

// A sorted set sorts from its large encoding, as Redis's zsetConvert.
void convert_to_tree(CommandContext& ctx, Value& value) {
  const ZsetObject& zset = *value.as<ZsetObject>();
  if (!zset.is_listpack()) return;
  const ZsetLimits limits = ZsetLimits::from(ctx.server.config());
  Value tree;
  tree.set_object(ZsetObject::create(std::numeric_limits<std::size_t>::max(), 0, limits));
  zset.visit(0, zset.size(), false, [&](std::string_view member, double score) {
    double unused = 0;
    (void)zset_add(tree, member, score, 0, unused, limits);
    return true;
  });
  value.swap(tree);
}

// Loads the vector with the value's elements (none when absent) and returns
// the window to output.
Window load(const Value* value, const SortArgs& args, SortVector& out) {
  const auto* list = value != nullptr ? value->as<ListObject>() : nullptr;
  const auto* set = value != nullptr ? value->as<SetObject>() : nullptr;
  const auto* zset = value != nullptr ? value->as<ZsetObject>() : nullptr;
  const std::size_t size = list != nullptr  ? list->size()
                           : set != nullptr ? set->size()
                           : zset != nullptr ? zset->size()
                                             : 0;
  const auto len = static_cast<std::int64_t>(size);
  const Window w = limit_window(args, len);
  auto add_element = [&](std::size_t, std::string_view e) {
    out.add(e);
    return true;
  };
  auto add_member = [&](std::string_view m, double) {
    out.add(m);
    return true;
  };
  // Each element once, in the value's own order.
  std::size_t from = 0;
  std::size_t count = size;
  bool reverse = false;
  Window loaded = w;
  if (set != nullptr) {
    out.reserve(size);
    set->for_each([&](std::string_view m) { out.add(m); });
    return w;
  }
  if (args.dontsort) {  // only the window, from the end DESC names; it then covers the vector
    count = w.size();
    reverse = args.desc;
    from = count == 0 ? 0 : static_cast<std::size_t>(reverse ? len - w.start - 1 : w.start);
    loaded = {0, w.end - w.start};
  }
  out.reserve(count);
  if (list != nullptr && count > 0) list->visit(from, count, reverse, add_element);
  if (zset != nullptr && count > 0) zset->visit(from, count, reverse, add_member);
  return loaded;
}

void reply_sorted(CommandContext& ctx, const SortVector& vec, Window w, std::span<const std::string_view> gets) {
  ctx.reply.array(w.size() * std::max<std::size_t>(gets.size(), 1));
  SortLookup lookup;
  for (std::int64_t j = w.start; j <= w.end; ++j) {
    const std::string_view element = vec.element(static_cast<std::size_t>(j));
    if (gets.empty()) ctx.reply.bulk(element);
    for (std::string_view pattern : gets) {
      std::optional<std::string_view> value = lookup.find(ctx, pattern, element);
      value ? ctx.reply.bulk(*value) : ctx.reply.null();
    }
  }
}

// The STORE: the list is built whole before it replaces the destination
// (which may be the key sorted, or a key a GET reads).
void store_sorted(CommandContext& ctx, const SortVector& vec, Window w, std::span<const std::string_view> gets,
                  std::string_view dst, bool reads_keys) {
  auto list = make_object<ListObject>();
  const int fill = list_cmd::fill(ctx);
  SortLookup lookup;
  for (std::int64_t j = w.start; j <= w.end; ++j) {
    const std::string_view element = vec.element(static_cast<std::size_t>(j));
    if (gets.empty()) list->push(ListEnd::tail, element, fill);
    for (std::string_view pattern : gets) {
      list->push(ListEnd::tail, lookup.find(ctx, pattern, element).value_or(std::string_view()), fill);
    }
  }
  const auto stored = static_cast<std::int64_t>(list->size());
  if (stored == 0) {
    const bool deleted = ctx.db().erase(dst, ctx.now);
    if (deleted) notify_keyspace_event(ctx, notify_generic, "del", dst);
    if (!deleted) {
      ctx.log_instead(std::span<const std::string_view>{});  // nothing changed
    } else if (reads_keys) {
      ctx.log_instead({"DEL", dst});
    }
    return ctx.reply.integer(0);
  }
  if (reads_keys) {
    ctx.log_instead({"DEL", dst});
    list->write_records(dst, [&](std::span<const std::string_view> record) { ctx.log_instead(record); });
  }
  bool created = false;
  Entry& e = ctx.db().upsert(dst, ctx.now, created);
  e.value.set_object(std::move(list));
  if (e.has_expiry) ctx.db().set_expire(e, Entry::no_expiry);
  if (created) notify_keyspace_event(ctx, notify_new, "new", dst);
  notify_keyspace_event(ctx, notify_list, "sortstore", dst);
  ctx.reply.integer(stored);
}

void sort_generic(CommandContext& ctx, bool readonly) {
  std::vector<std::string_view> gets;
  SortArgs args;
  args.gets = &gets;
  const std::string_view error = parse_sort(ctx.argv, readonly, ctx.server.shard_count() > 1, args);
  if (!error.empty()) return ctx.reply.error(error);
  Entry* e = detail::read_key(ctx, ctx.argv[1]);
  const ValueType type = e != nullptr ? e->value.type() : ValueType::list;
  if (type != ValueType::list && type != ValueType::set && type != ValueType::zset) {
    return ctx.reply.error(detail::err_wrongtype);
  }
  const bool store = args.store_at != 0;
  if (args.dontsort && type == ValueType::set && store) {  // a set's order is its table's: sort it
    args.dontsort = false;
    args.alpha = true;
    args.by = nullptr;
  }
  if (type == ValueType::zset) convert_to_tree(ctx, e->value);
  SortVector vec;
  const Window w = load(e != nullptr ? &e->value : nullptr, args, vec);
  if (!args.dontsort) {
    if (!vec.weigh(ctx, args.by, args.alpha)) return ctx.reply.error(err_score);
    vec.sort({.desc = args.desc, .alpha = args.alpha, .binary = store});
  }
  if (!store) {
    ctx.log_instead(std::span<const std::string_view>{});  // a read: nothing to log
    return reply_sorted(ctx, vec, w, gets);
  }
  store_sorted(ctx, vec, w, gets, ctx.argv[args.store_at], args.reads_keys);
}

void sort_command(CommandContext& ctx) { sort_generic(ctx, false); }
void sort_ro_command(CommandContext& ctx) { sort_generic(ctx, true); }

constexpr Command commands[] = {
    {"sort", -2, cmd_write | cmd_denyoom, sort_command, 1, 1, 1, "generic",
     "Sort the elements in a list, set or sorted set", ShardRoute::gather, 0, sort_store_key},
    {"sort_ro", -2, cmd_readonly, sort_ro_command, 1, 1, 1, "generic",
     "Sort the elements in a list, set or sorted set. Read-only variant of SORT.", ShardRoute::derived, 0,
     sort_ro_store_key},
};

}  // namespace

std::span<const Command> sort_commands() noexcept { return commands; }

}  // namespace duet::kv
