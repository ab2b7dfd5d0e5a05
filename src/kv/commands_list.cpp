// List commands (Redis 7.0's t_list.c): LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP
// LLEN LRANGE LINDEX LSET LINSERT LREM LTRIM here; LPOS LMOVE RPOPLPUSH LMPOP
// in commands_list_move.cpp. Each parses and looks up in Redis's order, so a
// request with several faults gets Redis's error. Keyspace events as
// t_list.c: "new" when a push creates the list, then lpush/rpush, lpop/rpop,
// lset, linsert, lrem, ltrim, and "del" when a list is emptied.
#include <algorithm>
#include <string>

#include "kv/detail/command_util.hpp"
#include "kv/types/list_commands.hpp"

namespace duet::kv {

namespace list_cmd {

int fill(CommandContext& ctx) noexcept { return ctx.server.config().list_max_listpack_size; }


ListObject& list_at(Entry& e) noexcept { return *e.value.as<ListObject>(); }

ListObject& create_list(CommandContext& ctx, std::string_view key) {
  bool created = false;
  Entry& e = ctx.db().upsert(key, ctx.now, created);
  e.value.set_object(make_object<ListObject>());
  notify_keyspace_event(ctx, notify_new, "new", key);  // only ever called for an absent key
  return list_at(e);
}

void delete_if_empty(CommandContext& ctx, Entry& e, std::string_view key) {
  if (list_at(e).size() != 0) return;
  ctx.db().erase(e);
  notify_keyspace_event(ctx, notify_generic, "del", key);
}

void notify_pop(CommandContext& ctx, ListEnd end, std::string_view key) {
  notify_keyspace_event(ctx, notify_list, end == ListEnd::head ? "lpop" : "rpop", key);
}

void reply_range(CommandContext& ctx, const ListObject& list, std::size_t from, std::size_t count, bool reverse) {
  ctx.reply.array(count);
  list.visit(from, count, reverse, [&](std::size_t, std::string_view element) {
    ctx.reply.bulk(element);
    return true;
  });
}

void pop_range(CommandContext& ctx, ListObject& list, ListEnd end, std::size_t count) {
  count = std::min(count, list.size());
  const bool head = end == ListEnd::head;
  reply_range(ctx, list, head ? 0 : list.size() - 1, count, !head);
  list.erase(head ? 0 : list.size() - count, count);
}

bool position_arg(CommandContext& ctx, std::string_view text, ListEnd& end) {
  if (detail::equals_ci(text, "left")) {
    end = ListEnd::head;
  } else if (detail::equals_ci(text, "right")) {
    end = ListEnd::tail;
  } else {
    ctx.reply.error(detail::err_syntax);
    return false;
  }
  return true;
}

}  // namespace list_cmd

namespace {

using namespace list_cmd;  // NOLINT: this file's own helpers

// Redis's conversion of a start/end pair over a list of `size`: false when the
// range is empty, else [start, start + count).
bool clamp_range(std::int64_t start, std::int64_t end, std::size_t size, std::size_t& from, std::size_t& count) {
  const auto n = static_cast<std::int64_t>(size);
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (start < 0) start = 0;
  if (start > end || start >= n) return false;
  if (end >= n) end = n - 1;
  from = static_cast<std::size_t>(start);
  count = static_cast<std::size_t>(end - start + 1);
  return true;
}

// An index as LINDEX/LSET read it; false when out of range.
bool resolve_index(std::int64_t index, std::size_t size, std::size_t& out) {
  const auto n = static_cast<std::int64_t>(size);
  if (index < 0) index += n;
  if (index < 0 || index >= n) return false;
  out = static_cast<std::size_t>(index);
  return true;
}

void push_generic(CommandContext& ctx, ListEnd end, bool existing_only) {
  Entry* e = ctx.db().find(ctx.argv[1], ctx.now);
  if (!detail::check_type(ctx, e, ValueType::list)) return;
  if (e == nullptr && existing_only) return ctx.reply.integer(0);
  ListObject& list = e != nullptr ? list_at(*e) : create_list(ctx, ctx.argv[1]);
  const int node_fill = fill(ctx);
  for (std::size_t j = 2; j < ctx.argv.size(); ++j) list.push(end, ctx.argv[j], node_fill);
  notify_keyspace_event(ctx, notify_list, end == ListEnd::head ? "lpush" : "rpush", ctx.argv[1]);
  ctx.reply.integer(static_cast<std::int64_t>(list.size()));
}

void lpush(CommandContext& ctx) { push_generic(ctx, ListEnd::head, false); }
void rpush(CommandContext& ctx) { push_generic(ctx, ListEnd::tail, false); }
void lpushx(CommandContext& ctx) { push_generic(ctx, ListEnd::head, true); }
void rpushx(CommandContext& ctx) { push_generic(ctx, ListEnd::tail, true); }

// popGenericCommand: the count is parsed before the key is looked up.
void pop_generic(CommandContext& ctx, ListEnd end) {
  if (ctx.argv.size() > 3) return detail::wrong_arity(ctx, end == ListEnd::head ? "lpop" : "rpop");
  const bool has_count = ctx.argv.size() == 3;
  std::int64_t count = 0;
  if (has_count) {
    // getPositiveLongFromObjectOrReply: one message for a bad or negative count.
    if (!detail::parse_i64(ctx.argv[2], count) || count < 0) {
      return ctx.reply.error("ERR value is out of range, must be positive");
    }
  }
  Entry* e = ctx.db().find(ctx.argv[1], ctx.now);
  if (e == nullptr) return has_count ? ctx.reply.null_array() : ctx.reply.null();
  if (!detail::check_type(ctx, e, ValueType::list)) return;
  if (has_count && count == 0) return ctx.reply.array(0);
  ListObject& list = list_at(*e);
  if (has_count) {
    pop_range(ctx, list, end, static_cast<std::size_t>(count));
  } else {
    std::string element;
    list.pop(end, element);
    ctx.reply.bulk(element);
  }
  notify_pop(ctx, end, ctx.argv[1]);
  delete_if_empty(ctx, *e, ctx.argv[1]);
}

void lpop(CommandContext& ctx) { pop_generic(ctx, ListEnd::head); }
void rpop(CommandContext& ctx) { pop_generic(ctx, ListEnd::tail); }

void llen(CommandContext& ctx) {
  Entry* e = read_key(ctx, ctx.argv[1]);
  if (!detail::check_type(ctx, e, ValueType::list)) return;
  ctx.reply.integer(e == nullptr ? 0 : static_cast<std::int64_t>(list_at(*e).size()));
}

void lrange(CommandContext& ctx) {
  std::int64_t start = 0;
  std::int64_t end = 0;
  if (!detail::int_arg(ctx, ctx.argv[2], start) || !detail::int_arg(ctx, ctx.argv[3], end)) return;
  Entry* e = read_key(ctx, ctx.argv[1]);
  if (e == nullptr) return ctx.reply.array(0);
  if (!detail::check_type(ctx, e, ValueType::list)) return;
  const ListObject& list = list_at(*e);
  std::size_t from = 0;
  std::size_t count = 0;
  if (!clamp_range(start, end, list.size(), from, count)) return ctx.reply.array(0);
  reply_range(ctx, list, from, count, false);
}

void lindex(CommandContext& ctx) {
  Entry* e = read_key(ctx, ctx.argv[1]);
  if (e == nullptr) return ctx.reply.null();
  if (!detail::check_type(ctx, e, ValueType::list)) return;
  std::int64_t index = 0;
  if (!detail::int_arg(ctx, ctx.argv[2], index)) return;
  const ListObject& list = list_at(*e);
  std::size_t at = 0;
  if (!resolve_index(index, list.size(), at)) return ctx.reply.null();
  ctx.reply.bulk(list.at(at));
}

void lset(CommandContext& ctx) {
  Entry* e = ctx.db().find(ctx.argv[1], ctx.now);
  if (e == nullptr) return ctx.reply.error(detail::err_no_key);
  if (!detail::check_type(ctx, e, ValueType::list)) return;
  std::int64_t index = 0;
  if (!detail::int_arg(ctx, ctx.argv[2], index)) return;
  ListObject& list = list_at(*e);
  std::size_t at = 0;
  if (!resolve_index(index, list.size(), at)) return ctx.reply.error("ERR index out of range");
  list.replace(at, ctx.argv[3], fill(ctx));
  notify_keyspace_event(ctx, notify_list, "lset", ctx.argv[1]);
  ctx.reply.ok();
}

// LINSERT key BEFORE|AFTER pivot element: -1 when the pivot is absent.
void linsert(CommandContext& ctx) {
  bool after = false;
  if (detail::equals_ci(ctx.argv[2], "after")) {
    after = true;
  } else if (!detail::equals_ci(ctx.argv[2], "before")) {
    return ctx.reply.error(detail::err_syntax);
  }
  Entry* e = ctx.db().find(ctx.argv[1], ctx.now);
  if (e == nullptr) return ctx.reply.integer(0);
  if (!detail::check_type(ctx, e, ValueType::list)) return;
  ListObject& list = list_at(*e);
  std::size_t pivot = list.size();
  list.visit(0, list.size(), false, [&](std::size_t index, std::string_view element) {
    if (element != ctx.argv[3]) return true;
    pivot = index;
    return false;
  });
  if (pivot == list.size()) return ctx.reply.integer(-1);
  list.insert(after ? pivot + 1 : pivot, ctx.argv[4], fill(ctx));
  notify_keyspace_event(ctx, notify_list, "linsert", ctx.argv[1]);
  ctx.reply.integer(static_cast<std::int64_t>(list.size()));
}

// LREM key count element: count > 0 from the head, < 0 from the tail, 0 all.
void lrem(CommandContext& ctx) {
  std::int64_t count = 0;
  if (!detail::int_arg(ctx, ctx.argv[2], count)) return;
  Entry* e = ctx.db().find(ctx.argv[1], ctx.now);
  if (e == nullptr) return ctx.reply.integer(0);
  if (!detail::check_type(ctx, e, ValueType::list)) return;
  ListObject& list = list_at(*e);
  const std::string_view element = ctx.argv[3];
  std::size_t removed = 0;
  if (count >= 0) {
    removed = list.remove(element, 0, static_cast<std::size_t>(count));
  } else {
    // The last |count| matches: skip the ones before them, from the head.
    const std::uint64_t wanted = 0 - static_cast<std::uint64_t>(count);
    const std::size_t matches = list.count_equal(element);
    removed = list.remove(element, matches > wanted ? matches - wanted : 0, 0);
  }
  if (removed != 0) notify_keyspace_event(ctx, notify_list, "lrem", ctx.argv[1]);
  delete_if_empty(ctx, *e, ctx.argv[1]);
  ctx.reply.integer(static_cast<std::int64_t>(removed));
}

void ltrim(CommandContext& ctx) {
  std::int64_t start = 0;
  std::int64_t end = 0;
  if (!detail::int_arg(ctx, ctx.argv[2], start) || !detail::int_arg(ctx, ctx.argv[3], end)) return;
  Entry* e = ctx.db().find(ctx.argv[1], ctx.now);
  if (e == nullptr) return ctx.reply.ok();
  if (!detail::check_type(ctx, e, ValueType::list)) return;
  ListObject& list = list_at(*e);
  std::size_t from = 0;
  std::size_t count = 0;
  if (clamp_range(start, end, list.size(), from, count)) {
    list.erase(from + count, list.size());
    list.erase(0, from);
  } else {
    list.erase(0, list.size());
  }
  notify_keyspace_event(ctx, notify_list, "ltrim", ctx.argv[1]);  // trimmed or not, as Redis
  delete_if_empty(ctx, *e, ctx.argv[1]);
  ctx.reply.ok();
}

constexpr std::uint32_t write_fast = cmd_write | cmd_denyoom | cmd_fast;

constexpr Command commands[] = {
    {"lpush", -3, write_fast, lpush, 1, 1, 1, "list", "Prepend one or multiple elements to a list"},
    {"rpush", -3, write_fast, rpush, 1, 1, 1, "list", "Append one or multiple elements to a list"},
    {"lpushx", -3, write_fast, lpushx, 1, 1, 1, "list", "Prepend an element to a list, only if the list exists"},
    {"rpushx", -3, write_fast, rpushx, 1, 1, 1, "list", "Append an element to a list, only if the list exists"},
    {"lpop", -2, cmd_write | cmd_fast, lpop, 1, 1, 1, "list", "Remove and get the first elements in a list"},
    {"rpop", -2, cmd_write | cmd_fast, rpop, 1, 1, 1, "list", "Remove and get the last elements in a list"},
    {"llen", 2, cmd_readonly | cmd_fast, llen, 1, 1, 1, "list", "Get the length of a list"},
    {"lrange", 4, cmd_readonly, lrange, 1, 1, 1, "list", "Get a range of elements from a list"},
    {"lindex", 3, cmd_readonly, lindex, 1, 1, 1, "list", "Get an element from a list by its index"},
    {"lset", 4, cmd_write | cmd_denyoom, lset, 1, 1, 1, "list", "Set the value of an element in a list by its index"},
    {"linsert", 5, cmd_write | cmd_denyoom, linsert, 1, 1, 1, "list",
     "Insert an element before or after another element in a list"},
    {"lrem", 4, cmd_write, lrem, 1, 1, 1, "list", "Remove elements from a list"},
    {"ltrim", 4, cmd_write, ltrim, 1, 1, 1, "list", "Trim a list to the specified range"},
    {"lpos", -3, cmd_readonly, list_cmd::lpos, 1, 1, 1, "list", "Return the index of matching elements on a list"},
    {"lmove", 5, cmd_write | cmd_denyoom, list_cmd::lmove, 1, 2, 1, "list",
     "Pop an element from a list, push it to another list and return it", ShardRoute::gather},
    {"rpoplpush", 3, cmd_write | cmd_denyoom, list_cmd::rpoplpush, 1, 2, 1, "list",
     "Remove the last element in a list, prepend it to another list and return it", ShardRoute::gather},
    {"lmpop", -4, cmd_write, list_cmd::lmpop, 0, 0, 0, "list",
     "Pop elements from a list", ShardRoute::gather, 1},
};

}  // namespace

std::span<const Command> list_commands() noexcept { return commands; }

}  // namespace duet::kv
