// Hash commands (Redis 7.0's t_hash.c): HSET HSETNX HMSET HGET HMGET HDEL
// HLEN HSTRLEN HEXISTS HKEYS HVALS HGETALL HINCRBY HINCRBYFLOAT, and HRANDFIELD
// HSCAN in commands_hash_random.cpp. The data structure is kv/types/hash.hpp.
// Keyspace events as t_hash.c: "new" when a write creates the hash, then
// hset (HSET, HMSET, HSETNX), hincrby, hincrbyfloat; hdel and "del".
#include <climits>
#include <cmath>
#include <string>

#include "kv/commands_hash.hpp"
#include "kv/detail/command_util.hpp"

namespace duet::kv {
namespace hash_cmd {

Entry* read_hash(CommandContext& ctx, std::string_view key, bool& ok) {
  Entry* e = detail::read_key(ctx, key);
  ok = detail::check_type(ctx, e, ValueType::hash);
  return e;
}

const HashObject* hash_of(const Entry* e) noexcept { return e == nullptr ? nullptr : e->value.as<HashObject>(); }

}  // namespace hash_cmd

namespace {

using hash_cmd::hash_of;
using hash_cmd::read_hash;

constexpr std::string_view err_hash_not_integer = "ERR hash value is not an integer";
constexpr std::string_view err_hash_not_float = "ERR hash value is not a float";

// hashTypeLookupWriteOrCreate: the hash at key, created empty if absent;
// nullptr (WRONGTYPE replied) if the key holds another type.
Entry* write_hash(CommandContext& ctx, std::string_view key) {
  bool created = false;
  Entry* e = ctx.db().find(key, ctx.now);
  if (e != nullptr) return detail::check_type(ctx, e, ValueType::hash) ? e : nullptr;
  e = &ctx.db().upsert(key, ctx.now, created);
  e->value.set_object(HashObject::create());
  notify_keyspace_event(ctx, notify_new, "new", key);
  return e;
}

HashLimits limits(CommandContext& ctx) { return HashLimits::from(ctx.server.config()); }

void hset_common(CommandContext& ctx, bool reply_ok) {
  if (ctx.argv.size() % 2 == 1) return detail::wrong_arity(ctx, reply_ok ? "hmset" : "hset");
  Entry* e = write_hash(ctx, ctx.argv[1]);
  if (e == nullptr) return;
  const std::size_t created = hash_set(e->value, ctx.argv.subspan(2), limits(ctx));
  notify_keyspace_event(ctx, notify_hash, "hset", ctx.argv[1]);
  if (reply_ok) return ctx.reply.ok();
  ctx.reply.integer(static_cast<std::int64_t>(created));
}

void hset(CommandContext& ctx) { hset_common(ctx, false); }
void hmset(CommandContext& ctx) { hset_common(ctx, true); }

void hsetnx(CommandContext& ctx) {
  Entry* e = write_hash(ctx, ctx.argv[1]);
  if (e == nullptr) return;
  if (hash_of(e)->find(ctx.argv[2])) return ctx.reply.integer(0);
  hash_set(e->value, ctx.argv[2], ctx.argv[3], limits(ctx));
  notify_keyspace_event(ctx, notify_hash, "hset", ctx.argv[1]);
  ctx.reply.integer(1);
}

void hget(CommandContext& ctx) {
  bool ok = true;
  const HashObject* h = hash_of(read_hash(ctx, ctx.argv[1], ok));
  if (!ok) return;
  auto value = h != nullptr ? h->find(ctx.argv[2]) : std::nullopt;
  if (!value) return ctx.reply.null();
  ctx.reply.bulk(*value);
}

void hmget(CommandContext& ctx) {
  bool ok = true;
  const HashObject* h = hash_of(read_hash(ctx, ctx.argv[1], ok));
  if (!ok) return;
  ctx.reply.array(ctx.argv.size() - 2);
  for (std::size_t j = 2; j < ctx.argv.size(); ++j) {
    auto value = h != nullptr ? h->find(ctx.argv[j]) : std::nullopt;
    value ? ctx.reply.bulk(*value) : ctx.reply.null();
  }
}

void hdel(CommandContext& ctx) {
  Entry* e = ctx.db().find(ctx.argv[1], ctx.now);
  if (!detail::check_type(ctx, e, ValueType::hash)) return;
  if (e == nullptr) return ctx.reply.integer(0);
  const std::size_t deleted = hash_erase(e->value, ctx.argv.subspan(2));
  if (deleted != 0) notify_keyspace_event(ctx, notify_hash, "hdel", ctx.argv[1]);
  if (hash_of(e)->size() == 0) {
    ctx.db().erase(*e);  // an emptied hash deletes its key
    notify_keyspace_event(ctx, notify_generic, "del", ctx.argv[1]);
  }
  ctx.reply.integer(static_cast<std::int64_t>(deleted));
}

void hlen(CommandContext& ctx) {
  bool ok = true;
  const HashObject* h = hash_of(read_hash(ctx, ctx.argv[1], ok));
  if (ok) ctx.reply.integer(h != nullptr ? static_cast<std::int64_t>(h->size()) : 0);
}

void hstrlen(CommandContext& ctx) {
  bool ok = true;
  const HashObject* h = hash_of(read_hash(ctx, ctx.argv[1], ok));
  if (!ok) return;
  auto value = h != nullptr ? h->find(ctx.argv[2]) : std::nullopt;
  ctx.reply.integer(value ? static_cast<std::int64_t>(value->size()) : 0);
}

void hexists(CommandContext& ctx) {
  bool ok = true;
  const HashObject* h = hash_of(read_hash(ctx, ctx.argv[1], ok));
  if (ok) ctx.reply.integer(h != nullptr && h->find(ctx.argv[2]) ? 1 : 0);
}

enum class Part : std::uint8_t { keys, values, both };

// genericHgetallCommand: HGETALL is a map, HKEYS and HVALS arrays.
void hgetall_common(CommandContext& ctx, Part part) {
  bool ok = true;
  const HashObject* h = hash_of(read_hash(ctx, ctx.argv[1], ok));
  if (!ok) return;
  const std::size_t n = h != nullptr ? h->size() : 0;
  part == Part::both ? ctx.reply.map(n) : ctx.reply.array(n);
  if (h == nullptr) return;
  h->for_each([&](HashObject::Record r) {
    if (part != Part::values) ctx.reply.bulk(r.key);
    if (part != Part::keys) ctx.reply.bulk(r.value);
  });
}

void hkeys(CommandContext& ctx) { hgetall_common(ctx, Part::keys); }
void hvals(CommandContext& ctx) { hgetall_common(ctx, Part::values); }
void hgetall(CommandContext& ctx) { hgetall_common(ctx, Part::both); }

void hincrby(CommandContext& ctx) {
  std::int64_t incr = 0;
  if (!detail::int_arg(ctx, ctx.argv[3], incr)) return;
  Entry* e = write_hash(ctx, ctx.argv[1]);
  if (e == nullptr) return;
  std::int64_t value = 0;
  if (auto old = hash_of(e)->find(ctx.argv[2])) {
    if (!detail::parse_i64(*old, value)) return ctx.reply.error(err_hash_not_integer);
  }
  if ((incr < 0 && value < 0 && incr < LLONG_MIN - value) || (incr > 0 && value > 0 && incr > LLONG_MAX - value)) {
    return ctx.reply.error(detail::err_overflow);
  }
  value += incr;
  hash_set(e->value, ctx.argv[2], std::to_string(value), limits(ctx));
  notify_keyspace_event(ctx, notify_hash, "hincrby", ctx.argv[1]);
  ctx.reply.integer(value);
}

// Logged as HSET key field <result>, as Redis propagates it: replaying the
// float addition elsewhere could round differently.
void hincrbyfloat(CommandContext& ctx) {
  long double incr = 0;
  if (!detail::parse_long_double(ctx.argv[3], incr)) return ctx.reply.error(detail::err_not_float);
  if (std::isinf(incr)) return ctx.reply.error("ERR value is NaN or Infinity");
  Entry* e = write_hash(ctx, ctx.argv[1]);
  if (e == nullptr) return;
  long double value = 0;
  if (auto old = hash_of(e)->find(ctx.argv[2])) {
    if (!detail::parse_long_double(*old, value)) return ctx.reply.error(err_hash_not_float);
  }
  value += incr;
  std::string text;
  if (std::isnan(value) || std::isinf(value) || !detail::format_long_double(value, text)) {
    return ctx.reply.error("ERR increment would produce NaN or Infinity");
  }
  hash_set(e->value, ctx.argv[2], text, limits(ctx));
  notify_keyspace_event(ctx, notify_hash, "hincrbyfloat", ctx.argv[1]);
  ctx.reply.bulk(text);
  ctx.log_instead({"HSET", ctx.argv[1], ctx.argv[2], text});
}

constexpr std::uint32_t r = cmd_readonly;
constexpr std::uint32_t rf = cmd_readonly | cmd_fast;
constexpr std::uint32_t wmf = cmd_write | cmd_denyoom | cmd_fast;
constexpr Command commands[] = {
    {"hset", -4, wmf, hset, 1, 1, 1, "hash", "Set the string value of a hash field"},
    {"hsetnx", 4, wmf, hsetnx, 1, 1, 1, "hash", "Set the value of a hash field, only if the field does not exist"},
    {"hmset", -4, wmf, hmset, 1, 1, 1, "hash", "Set multiple hash fields to multiple values"},
    {"hget", 3, rf, hget, 1, 1, 1, "hash", "Get the value of a hash field"},
    {"hmget", -3, rf, hmget, 1, 1, 1, "hash", "Get the values of all the given hash fields"},
    {"hdel", -3, cmd_write | cmd_fast, hdel, 1, 1, 1, "hash", "Delete one or more hash fields"},
    {"hlen", 2, rf, hlen, 1, 1, 1, "hash", "Get the number of fields in a hash"},
    {"hstrlen", 3, rf, hstrlen, 1, 1, 1, "hash", "Get the length of the value of a hash field"},
    {"hexists", 3, rf, hexists, 1, 1, 1, "hash", "Determine if a hash field exists"},
    {"hkeys", 2, r, hkeys, 1, 1, 1, "hash", "Get all the fields in a hash"},
    {"hvals", 2, r, hvals, 1, 1, 1, "hash", "Get all the values in a hash"},
    {"hgetall", 2, r, hgetall, 1, 1, 1, "hash", "Get all the fields and values in a hash"},
    {"hincrby", 4, wmf, hincrby, 1, 1, 1, "hash", "Increment the integer value of a hash field by the given number"},
    {"hincrbyfloat", 4, wmf, hincrbyfloat, 1, 1, 1, "hash",
     "Increment the float value of a hash field by the given amount"},
    {"hrandfield", -2, r, hash_cmd::hrandfield, 1, 1, 1, "hash", "Get one or multiple random fields from a hash"},
    {"hscan", -3, r, hash_cmd::hscan, 1, 1, 1, "hash", "Incrementally iterate hash fields and associated values"},
};

}  // namespace

std::span<const Command> hash_commands() noexcept { return commands; }

}  // namespace duet::kv
