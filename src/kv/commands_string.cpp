// String commands, SET/GET family: SET GET GETSET GETDEL GETEX SETNX SETEX
// PSETEX MGET MSET MSETNX, and the seed's MOD and EXIST. Keyspace events as
// t_string.c fires them: "new" when setKey adds the key, then "set", then
// "expire" for a SET with a TTL.
#include <cstring>

#include "kv/command_table.hpp"
#include "kv/detail/command_util.hpp"
#include "kv/detail/expire_arg.hpp"

namespace duet::kv {
namespace {

using detail::SetOptions;

using detail::read_key;  // lookupKeyRead: counts a hit or a miss

void reply_value(CommandContext& ctx, const Entry* e) {
  if (e == nullptr) return ctx.reply.null();
  Value::Scratch scratch;
  ctx.reply.bulk(e->value.str(scratch));
}

// setKey: stores the value and drops any TTL unless keep_ttl; then the
// "set" event (every caller fires it right after setKey, as Redis's do).
Entry& store_value(CommandContext& ctx, std::string_view key, std::string_view value, bool keep_ttl) {
  bool created = false;
  Entry& e = ctx.db().upsert(key, ctx.now, created);
  e.value.set_string(value);  // reuses a heap block of a similar size (a benchmark's overwrite)
  if (!keep_ttl && e.has_expiry) ctx.db().set_expire(e, Entry::no_expiry);
  if (created) notify_keyspace_event(ctx, notify_new, "new", key);
  notify_keyspace_event(ctx, notify_string, "set", key);
  return e;
}

// GET's reply, or WRONGTYPE; false when the key holds another type.
bool reply_string(CommandContext& ctx, const Entry* e) {
  if (!detail::check_type(ctx, e, ValueType::string)) return false;
  reply_value(ctx, e);
  return true;
}

void get(CommandContext& ctx) { reply_string(ctx, read_key(ctx, ctx.argv[1])); }

void set(CommandContext& ctx) {
  if (ctx.argv.size() == 3) {  // plain SET key value: no options to parse
    store_value(ctx, ctx.argv[1], ctx.argv[2], false);
    return ctx.reply.ok();
  }
  SetOptions opt;
  if (!detail::parse_set_options(ctx, 3, true, opt) || !detail::resolve_expire(ctx, opt, "set")) return;
  std::string_view key = ctx.argv[1];
  if (opt.get || opt.nx || opt.xx) {  // plain SET skips this lookup: upsert finds the key anyway
    Entry* old = opt.get ? read_key(ctx, key) : ctx.db().find(key, ctx.now);  // GET: getGenericCommand's lookup
    if (opt.get && !reply_string(ctx, old)) return;
    if ((opt.nx && old != nullptr) || (opt.xx && old == nullptr)) {
      if (!opt.get) ctx.reply.null();
      return;
    }
  }
  Entry& e = store_value(ctx, key, ctx.argv[2], opt.keepttl);
  if (opt.expire_at >= 0) {
    ctx.db().set_expire(e, opt.expire_at);
    notify_keyspace_event(ctx, notify_generic, "expire", key);
  }
  if (!opt.get) ctx.reply.ok();
}

void setex_common(CommandContext& ctx, detail::ExpireUnit unit, std::string_view name) {
  SetOptions opt;
  opt.unit = unit;
  opt.expire_arg = ctx.argv[2];
  if (!detail::resolve_expire(ctx, opt, name)) return;
  Entry& e = store_value(ctx, ctx.argv[1], ctx.argv[3], false);
  ctx.db().set_expire(e, opt.expire_at);
  notify_keyspace_event(ctx, notify_generic, "expire", ctx.argv[1]);
  ctx.reply.ok();
}

void setex(CommandContext& ctx) { setex_common(ctx, detail::ExpireUnit::ex, "setex"); }
void psetex(CommandContext& ctx) { setex_common(ctx, detail::ExpireUnit::px, "psetex"); }

void setnx(CommandContext& ctx) {
  if (ctx.db().find(ctx.argv[1], ctx.now) != nullptr) return ctx.reply.integer(0);
  store_value(ctx, ctx.argv[1], ctx.argv[2], false);
  ctx.reply.integer(1);
}

void getset(CommandContext& ctx) {
  if (!reply_string(ctx, read_key(ctx, ctx.argv[1]))) return;
  store_value(ctx, ctx.argv[1], ctx.argv[2], false);
}

void getdel(CommandContext& ctx) {
  Entry* e = read_key(ctx, ctx.argv[1]);
  if (!reply_string(ctx, e)) return;
  if (e == nullptr) return;
  ctx.db().erase(*e);
  notify_keyspace_event(ctx, notify_generic, "del", ctx.argv[1]);
}

void getex(CommandContext& ctx) {
  SetOptions opt;
  if (!detail::parse_set_options(ctx, 2, false, opt)) return;
  Entry* e = read_key(ctx, ctx.argv[1]);
  if (e == nullptr) return ctx.reply.null();  // Redis looks the key up before validating the time
  if (!detail::check_type(ctx, e, ValueType::string) || !detail::resolve_expire(ctx, opt, "getex")) return;
  reply_value(ctx, e);
  std::string_view key = ctx.argv[1];
  if (opt.persist) {
    if (!e->has_expiry) return;
    ctx.db().set_expire(*e, Entry::no_expiry);
    notify_keyspace_event(ctx, notify_generic, "persist", key);
  } else if (opt.expire_at >= 0 && opt.expire_at <= ctx.now) {
    ctx.db().erase(*e);  // an expiry already in the past deletes the key
    notify_keyspace_event(ctx, notify_generic, "del", key);
  } else if (opt.expire_at >= 0) {
    ctx.db().set_expire(*e, opt.expire_at);
    notify_keyspace_event(ctx, notify_generic, "expire", key);
  }
}

void mget(CommandContext& ctx) {
  ctx.reply.array(ctx.argv.size() - 1);
  for (std::size_t j = 1; j < ctx.argv.size(); ++j) {
    const Entry* e = read_key(ctx, ctx.argv[j]);
    reply_value(ctx, e != nullptr && e->value.is_string() ? e : nullptr);  // another type reads as nil
  }
}

void mset(CommandContext& ctx) {
  if (ctx.argv.size() % 2 == 0) return detail::wrong_arity(ctx, "mset");
  for (std::size_t j = 1; j < ctx.argv.size(); j += 2) store_value(ctx, ctx.argv[j], ctx.argv[j + 1], false);
  ctx.reply.ok();
}

void msetnx(CommandContext& ctx) {
  if (ctx.argv.size() % 2 == 0) return detail::wrong_arity(ctx, "msetnx");
  for (std::size_t j = 1; j < ctx.argv.size(); j += 2) {
    if (ctx.db().find(ctx.argv[j], ctx.now) != nullptr) return ctx.reply.integer(0);
  }
  for (std::size_t j = 1; j < ctx.argv.size(); j += 2) store_value(ctx, ctx.argv[j], ctx.argv[j + 1], false);
  ctx.reply.integer(1);
}

// MOD key value: SET key value XX under the seed's name.
void mod(CommandContext& ctx) {
  if (ctx.db().find(ctx.argv[1], ctx.now) == nullptr) return ctx.reply.null();
  store_value(ctx, ctx.argv[1], ctx.argv[2], false);
  ctx.reply.ok();
}

// EXIST key: EXISTS for exactly one key, answering 0 or 1.
void exist(CommandContext& ctx) { ctx.reply.integer(ctx.db().find(ctx.argv[1], ctx.now) != nullptr ? 1 : 0); }

constexpr std::uint32_t w = cmd_write;
constexpr std::uint32_t wm = cmd_write | cmd_denyoom;  // writes that may grow memory
constexpr std::uint32_t r = cmd_readonly;
constexpr Command commands[] = {
    {"get", 2, r | cmd_fast, get, 1, 1, 1, "string", "Get the value of a key"},
    {"set", -3, wm, set, 1, 1, 1, "string", "Set the string value of a key"},
    {"setnx", 3, wm | cmd_fast, setnx, 1, 1, 1, "string", "Set the value of a key, only if the key does not exist"},
    {"setex", 4, wm, setex, 1, 1, 1, "string", "Set the value and expiration of a key"},
    {"psetex", 4, wm, psetex, 1, 1, 1, "string", "Set the value and expiration in milliseconds of a key"},
    {"getset", 3, wm | cmd_fast, getset, 1, 1, 1, "string", "Set the string value of a key and return its old value"},
    {"getdel", 2, w | cmd_fast, getdel, 1, 1, 1, "string", "Get the value of a key and delete the key"},
    {"getex", -2, w | cmd_fast, getex, 1, 1, 1, "string", "Get the value of a key and optionally set its expiration"},
    {"mget", -2, r | cmd_fast, mget, 1, -1, 1, "string", "Get the values of all the given keys"},
    {"mset", -3, wm, mset, 1, -1, 2, "string", "Set multiple keys to multiple values"},
    {"msetnx", -3, wm, msetnx, 1, -1, 2, "string", "Set multiple keys to multiple values, only if none of the keys exist", ShardRoute::msetnx},
    {"mod", 3, wm | cmd_fast, mod, 1, 1, 1, "string", "Update the value of an existing key only (duet)"},
    {"exist", 2, r | cmd_fast, exist, 1, 1, 1, "keyspace", "Determine if one key exists: 1 or 0 (duet)"},
};

}  // namespace

std::span<const Command> string_commands() noexcept { return commands; }

}  // namespace duet::kv
