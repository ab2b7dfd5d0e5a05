// String commands that compute on the value: INCR DECR INCRBY DECRBY
// INCRBYFLOAT APPEND STRLEN GETRANGE SETRANGE. All keep the key's TTL.
// Keyspace events as t_string.c: "new" when the write adds the key, then
// "incrby" (INCR and DECR too), "incrbyfloat", "append" or "setrange".
#include <algorithm>
#include <climits>
#include <cstring>
#include <cmath>
#include <string>

#include "kv/command_table.hpp"
#include "kv/detail/command_util.hpp"

namespace duet::kv {
namespace {

constexpr std::string_view err_too_big = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";

// checkStringLength: offset + appended length must fit proto-max-bulk-len.
bool length_ok(CommandContext& ctx, std::uint64_t size, std::uint64_t append) {
  std::uint64_t total = size + append;
  if (total > ctx.server.config().proto_max_bulk_len || total < size) {
    ctx.reply.error(err_too_big);
    return false;
  }
  return true;
}

// The string at argv[1] (nullptr if absent); `ok` false after a WRONGTYPE
// reply. A read (STRLEN, GETRANGE) is Redis's lookupKeyRead: stats, keymiss.
Entry* find_string(CommandContext& ctx, bool& ok, bool read = false) {
  Entry* e = read ? detail::read_key(ctx, ctx.argv[1]) : ctx.db().find(ctx.argv[1], ctx.now);
  ok = detail::check_type(ctx, e, ValueType::string);
  return e;
}

// The key written: created (dbAdd's "new") or not, then the command's event.
void notify_written(CommandContext& ctx, bool created, std::string_view event) {
  if (created) notify_keyspace_event(ctx, notify_new, "new", ctx.argv[1]);
  notify_keyspace_event(ctx, notify_string, event, ctx.argv[1]);
}


void incr_by(CommandContext& ctx, std::int64_t incr) {
  bool ok = true;
  Entry* e = find_string(ctx, ok);
  if (!ok) return;
  std::int64_t value = 0;
  Value::Scratch scratch;
  if (e != nullptr && !e->value.int_value(value) && !detail::parse_i64(e->value.str(scratch), value)) {
    return ctx.reply.error(detail::err_not_integer);
  }
  if ((incr < 0 && value < 0 && incr < LLONG_MIN - value) || (incr > 0 && value > 0 && incr > LLONG_MAX - value)) {
    return ctx.reply.error(detail::err_overflow);
  }
  value += incr;
  bool created = false;
  if (e == nullptr) e = &ctx.db().upsert(ctx.argv[1], ctx.now, created);
  e->value.set_int(value);
  notify_written(ctx, created, "incrby");
  ctx.reply.integer(value);
}

void incr(CommandContext& ctx) { incr_by(ctx, 1); }
void decr(CommandContext& ctx) { incr_by(ctx, -1); }

void incrby(CommandContext& ctx) {
  std::int64_t n = 0;
  if (detail::int_arg(ctx, ctx.argv[2], n)) incr_by(ctx, n);
}

void decrby(CommandContext& ctx) {
  std::int64_t n = 0;
  if (!detail::int_arg(ctx, ctx.argv[2], n)) return;
  if (n == LLONG_MIN) return ctx.reply.error("ERR decrement would overflow");
  incr_by(ctx, -n);
}

void incrbyfloat(CommandContext& ctx) {
  bool ok = true;
  Entry* e = find_string(ctx, ok);
  if (!ok) return;
  long double value = 0;
  long double incr = 0;
  Value::Scratch scratch;
  if ((e != nullptr && !detail::parse_long_double(e->value.str(scratch), value)) ||
      !detail::parse_long_double(ctx.argv[2], incr)) {
    return ctx.reply.error(detail::err_not_float);
  }
  value += incr;
  std::string text;
  if (std::isnan(value) || std::isinf(value) || !detail::format_long_double(value, text)) {
    return ctx.reply.error("ERR increment would produce NaN or Infinity");
  }
  bool created = false;
  if (e == nullptr) e = &ctx.db().upsert(ctx.argv[1], ctx.now, created);
  e->value.set_string(text);
  notify_written(ctx, created, "incrbyfloat");
  ctx.reply.bulk(text);
}

void append(CommandContext& ctx) {
  bool ok = true;
  Entry* e = find_string(ctx, ok);
  if (!ok) return;
  std::string_view tail = ctx.argv[2];
  if (e == nullptr) {  // a new key's value is stored as given (Redis: an embstr or int, not raw)
    bool created = false;
    ctx.db().upsert(ctx.argv[1], ctx.now, created).value.set_string(tail);
    notify_written(ctx, created, "append");
    return ctx.reply.integer(static_cast<std::int64_t>(tail.size()));
  }
  const std::size_t size = e->value.string_size();
  if (!length_ok(ctx, size, tail.size())) return;
  char* bytes = e->value.resize_raw(size + tail.size());
  if (!tail.empty()) std::memcpy(bytes + size, tail.data(), tail.size());
  notify_written(ctx, false, "append");
  ctx.reply.integer(static_cast<std::int64_t>(size + tail.size()));
}

void strlen_(CommandContext& ctx) {
  bool ok = true;
  Entry* e = find_string(ctx, ok, true);
  if (ok) ctx.reply.integer(e != nullptr ? static_cast<std::int64_t>(e->value.string_size()) : 0);
}

void getrange(CommandContext& ctx) {
  std::int64_t start = 0;
  std::int64_t end = 0;
  if (!detail::int_arg(ctx, ctx.argv[2], start) || !detail::int_arg(ctx, ctx.argv[3], end)) return;
  bool ok = true;
  Entry* e = find_string(ctx, ok, true);
  if (!ok) return;
  if (e == nullptr) return ctx.reply.bulk("");
  Value::Scratch scratch;
  std::string_view text = e->value.str(scratch);
  auto len = static_cast<std::int64_t>(text.size());
  if (start < 0 && end < 0 && start > end) return ctx.reply.bulk("");
  if (start < 0) start = len + start;
  if (end < 0) end = len + end;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= len) end = len - 1;
  if (start > end || len == 0) return ctx.reply.bulk("");
  ctx.reply.bulk(text.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(end - start + 1)));
}

void setrange(CommandContext& ctx) {
  std::int64_t offset = 0;
  if (!detail::int_arg(ctx, ctx.argv[2], offset)) return;
  if (offset < 0) return ctx.reply.error("ERR offset is out of range");
  std::string_view value = ctx.argv[3];
  bool ok = true;
  Entry* e = find_string(ctx, ok);
  if (!ok) return;
  const std::size_t size = e != nullptr ? e->value.string_size() : 0;
  if (value.empty()) return ctx.reply.integer(static_cast<std::int64_t>(size));
  if (!length_ok(ctx, static_cast<std::uint64_t>(offset), value.size())) return;
  bool created = false;
  if (e == nullptr) e = &ctx.db().upsert(ctx.argv[1], ctx.now, created);
  auto off = static_cast<std::size_t>(offset);
  const std::size_t new_size = std::max(size, off + value.size());
  std::memcpy(e->value.resize_raw(new_size) + off, value.data(), value.size());
  notify_written(ctx, created, "setrange");
  ctx.reply.integer(static_cast<std::int64_t>(new_size));
}

constexpr std::uint32_t wm = cmd_write | cmd_denyoom;  // writes that may grow memory
constexpr Command commands[] = {
    {"incr", 2, wm | cmd_fast, incr, 1, 1, 1, "string", "Increment the integer value of a key by one"},
    {"decr", 2, wm | cmd_fast, decr, 1, 1, 1, "string", "Decrement the integer value of a key by one"},
    {"incrby", 3, wm | cmd_fast, incrby, 1, 1, 1, "string", "Increment the integer value of a key by the given amount"},
    {"decrby", 3, wm | cmd_fast, decrby, 1, 1, 1, "string", "Decrement the integer value of a key by the given number"},
    {"incrbyfloat", 3, wm | cmd_fast, incrbyfloat, 1, 1, 1, "string", "Increment the float value of a key by the given amount"},
    {"append", 3, wm, append, 1, 1, 1, "string", "Append a value to a key"},
    {"strlen", 2, cmd_readonly | cmd_fast, strlen_, 1, 1, 1, "string", "Get the length of the value stored in a key"},
    {"getrange", 4, cmd_readonly, getrange, 1, 1, 1, "string", "Get a substring of the string stored at a key"},
    {"setrange", 4, wm, setrange, 1, 1, 1, "string", "Overwrite part of a string at key starting at the specified offset"},
};

}  // namespace

std::span<const Command> counter_commands() noexcept { return commands; }

}  // namespace duet::kv
