// Expiry commands: EXPIRE PEXPIRE EXPIREAT PEXPIREAT (NX XX GT LT), TTL PTTL
// EXPIRETIME PEXPIRETIME PERSIST. Keyspace events as expire.c: "expire", or
// "del" for a time already past; "persist"; the TTL family's "keymiss".
#include <climits>
#include <string>

#include "kv/command_table.hpp"
#include "kv/detail/command_util.hpp"

namespace duet::kv {
namespace {

using detail::equals_ci;

struct ExpireFlags {
  bool nx = false, xx = false, gt = false, lt = false;
};

bool parse_expire_flags(CommandContext& ctx, ExpireFlags& f) {
  for (std::size_t j = 3; j < ctx.argv.size(); ++j) {
    std::string_view o = ctx.argv[j];
    if (equals_ci(o, "nx")) {
      f.nx = true;
    } else if (equals_ci(o, "xx")) {
      f.xx = true;
    } else if (equals_ci(o, "gt")) {
      f.gt = true;
    } else if (equals_ci(o, "lt")) {
      f.lt = true;
    } else {
      ctx.reply.error("ERR Unsupported option " + std::string(o));
      return false;
    }
  }
  if (f.nx && (f.xx || f.gt || f.lt)) {
    ctx.reply.error("ERR NX and XX, GT or LT options at the same time are not compatible");
    return false;
  }
  if (f.gt && f.lt) {
    ctx.reply.error("ERR GT and LT options at the same time are not compatible");
    return false;
  }
  return true;
}

bool flags_allow(const ExpireFlags& f, std::int64_t current, std::int64_t when) {
  if (f.nx && current != Entry::no_expiry) return false;
  if (f.xx && current == Entry::no_expiry) return false;
  if (f.gt && (current == Entry::no_expiry || when <= current)) return false;
  if (f.lt && current != Entry::no_expiry && when >= current) return false;
  return true;
}

// expireGenericCommand: `base` is now for relative forms, 0 for the *AT forms.
void expire_generic(CommandContext& ctx, std::int64_t base, bool seconds, std::string_view name) {
  ExpireFlags flags;
  if (!parse_expire_flags(ctx, flags)) return;
  std::int64_t when = 0;
  if (!detail::int_arg(ctx, ctx.argv[2], when)) return;
  bool bad = seconds && (when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000);
  if (!bad && seconds) when *= 1000;
  bad = bad || when > LLONG_MAX - base;
  if (bad) return ctx.reply.error("ERR invalid expire time in '" + std::string(name) + "' command");
  when += base;
  Entry* e = ctx.db().find(ctx.argv[1], ctx.now);
  if (e == nullptr || !flags_allow(flags, ctx.db().expire_at(*e), when)) return ctx.reply.integer(0);
  if (when <= ctx.now) {
    ctx.db().erase(*e);  // already expired: delete now, as Redis does
    notify_keyspace_event(ctx, notify_generic, "del", ctx.argv[1]);
  } else {
    ctx.db().set_expire(*e, when);
    notify_keyspace_event(ctx, notify_generic, "expire", ctx.argv[1]);
  }
  ctx.reply.integer(1);
}

void expire(CommandContext& ctx) { expire_generic(ctx, ctx.now, true, "expire"); }
void pexpire(CommandContext& ctx) { expire_generic(ctx, ctx.now, false, "pexpire"); }
void expireat(CommandContext& ctx) { expire_generic(ctx, 0, true, "expireat"); }
void pexpireat(CommandContext& ctx) { expire_generic(ctx, 0, false, "pexpireat"); }

// ttlGenericCommand: the time left, or with `absolute` the expiry's unix
// time (EXPIRETIME, PEXPIRETIME); seconds are rounded as Redis rounds them.
void ttl_generic(CommandContext& ctx, bool seconds, bool absolute = false) {
  Entry* e = ctx.db().find(ctx.argv[1], ctx.now);
  if (e == nullptr) {
    notify_keyspace_event(ctx, notify_key_miss, "keymiss", ctx.argv[1]);
    return ctx.reply.integer(-2);
  }
  if (!e->has_expiry) return ctx.reply.integer(-1);
  std::int64_t ttl = ctx.db().expire_at(*e) - (absolute ? 0 : ctx.now);
  if (ttl < 0) ttl = 0;
  ctx.reply.integer(seconds ? (ttl + 500) / 1000 : ttl);
}

void ttl(CommandContext& ctx) { ttl_generic(ctx, true); }
void pttl(CommandContext& ctx) { ttl_generic(ctx, false); }
void expiretime(CommandContext& ctx) { ttl_generic(ctx, true, true); }
void pexpiretime(CommandContext& ctx) { ttl_generic(ctx, false, true); }

void persist(CommandContext& ctx) {
  Entry* e = ctx.db().find(ctx.argv[1], ctx.now);
  if (e == nullptr || !e->has_expiry) return ctx.reply.integer(0);
  ctx.db().set_expire(*e, Entry::no_expiry);
  notify_keyspace_event(ctx, notify_generic, "persist", ctx.argv[1]);
  ctx.reply.integer(1);
}

constexpr std::uint32_t w = cmd_write | cmd_fast;
constexpr std::uint32_t r = cmd_readonly | cmd_fast;
constexpr Command commands[] = {
    {"expire", -3, w, expire, 1, 1, 1, "generic", "Set a key's time to live in seconds"},
    {"pexpire", -3, w, pexpire, 1, 1, 1, "generic", "Set a key's time to live in milliseconds"},
    {"expireat", -3, w, expireat, 1, 1, 1, "generic", "Set the expiration for a key as a UNIX timestamp"},
    {"pexpireat", -3, w, pexpireat, 1, 1, 1, "generic", "Set the expiration for a key as a UNIX timestamp in milliseconds"},
    {"ttl", 2, r, ttl, 1, 1, 1, "generic", "Get the time to live for a key in seconds"},
    {"pttl", 2, r, pttl, 1, 1, 1, "generic", "Get the time to live for a key in milliseconds"},
    {"expiretime", 2, r, expiretime, 1, 1, 1, "generic", "Get the expiration Unix timestamp for a key"},
    {"pexpiretime", 2, r, pexpiretime, 1, 1, 1, "generic", "Get the expiration Unix timestamp for a key in milliseconds"},
    {"persist", 2, w, persist, 1, 1, 1, "generic", "Remove the expiration from a key"},
};

}  // namespace

std::span<const Command> expire_commands() noexcept { return commands; }

}  // namespace duet::kv
