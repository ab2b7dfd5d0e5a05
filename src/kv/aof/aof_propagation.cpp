// translate_write: Redis 7 rewrites clock-dependent commands before propagating
// them (t_string.c setGenericCommand → SET ... PXAT, expire.c → PEXPIREAT,
// INCRBYFLOAT → SET ... KEEPTTL, GETEX → PEXPIREAT/PERSIST, GETDEL → DEL), so
// that replaying the log later, on another clock, gives the same data. Here
// the handlers are left untouched: the absolute form is read back from the
// key's state once the command has run, which is exactly what it produced.
#include "kv/aof/aof_propagation.hpp"

#include <absl/container/flat_hash_map.h>

#include "kv/detail/command_util.hpp"

namespace duet::kv {
namespace {

enum class Rule {
  verbatim,           // deterministic as sent
  unless_zero,        // as sent, unless the reply is :0 (nothing changed)
  key_state,          // SET key value [PXAT t] from the key's state
  expire_state,       // PEXPIREAT key t, or DEL key when the expiry deleted it
  getex_state,        // PEXPIREAT / PERSIST / DEL
  float_state,        // SET key value KEEPTTL
  del_unless_nil,     // DEL key, unless the reply is a nil bulk
  unless_nil,         // as sent, unless the reply is a nil (nothing was popped or moved)
};

const absl::flat_hash_map<std::string_view, Rule>& rules() {
  static const absl::flat_hash_map<std::string_view, Rule> table = {
      {"set", Rule::key_state},         {"setex", Rule::key_state},       {"psetex", Rule::key_state},
      {"mod", Rule::key_state},         {"getex", Rule::getex_state},     {"incrbyfloat", Rule::float_state},
      {"expire", Rule::expire_state},   {"pexpire", Rule::expire_state},  {"expireat", Rule::expire_state},
      {"pexpireat", Rule::expire_state}, {"getdel", Rule::del_unless_nil}, {"persist", Rule::unless_zero},
      {"setnx", Rule::unless_zero},     {"msetnx", Rule::unless_zero},    {"del", Rule::unless_zero},
      {"unlink", Rule::unless_zero},    {"renamenx", Rule::unless_zero},  {"hdel", Rule::unless_zero},
      {"hsetnx", Rule::unless_zero},    {"sadd", Rule::unless_zero},      {"srem", Rule::unless_zero},
      {"smove", Rule::unless_zero},     {"lpushx", Rule::unless_zero},    {"rpushx", Rule::unless_zero},
      {"pfadd", Rule::unless_zero},
      {"lpop", Rule::unless_nil},       {"rpop", Rule::unless_nil},       {"lmove", Rule::unless_nil},
      {"rpoplpush", Rule::unless_nil},
  };
  return table;
}

// A missing value or array, as the client's protocol wrote it (RESP2 or RESP3).
bool is_nil(std::string_view reply) noexcept { return reply == "$-1\r\n" || reply == "*-1\r\n" || reply == "_\r\n"; }

bool has_get_option(const CommandContext& ctx) {
  for (std::size_t j = 3; j < ctx.argv.size(); ++j) {
    if (detail::equals_ci(ctx.argv[j], "get")) return true;
  }
  return false;
}

void expire_record(CommandContext& ctx, AofBuffer& out, bool persist_if_none) {
  std::string_view key = ctx.argv[1];
  const Entry* e = ctx.db().find(key, ctx.now);
  if (e == nullptr) {
    out.append_command(std::initializer_list<std::string_view>{"DEL", key});
  } else if (e->has_expiry) {
    std::string at = AofBuffer::number(ctx.db().expire_at(*e));
    out.append_command(std::initializer_list<std::string_view>{"PEXPIREAT", key, at});
  } else if (persist_if_none) {
    out.append_command(std::initializer_list<std::string_view>{"PERSIST", key});
  }
}

void apply_rule(Rule rule, CommandContext& ctx, std::string_view reply, AofBuffer& out) {
  switch (rule) {
    case Rule::verbatim: return out.append_command(ctx.argv);
    case Rule::unless_zero:
      if (reply != ":0\r\n") out.append_command(ctx.argv);
      return;
    case Rule::key_state:
      if (is_nil(reply) && !has_get_option(ctx)) return;  // NX/XX/MOD: nothing was set
      if (const Entry* e = ctx.db().find(ctx.argv[1], ctx.now)) state_record(ctx.db(), *e, out);
      return;
    case Rule::expire_state:
      if (reply != ":0\r\n") expire_record(ctx, out, false);
      return;
    case Rule::getex_state:
      if (ctx.argv.size() > 2 && !is_nil(reply)) expire_record(ctx, out, true);
      return;
    case Rule::float_state:
      if (const Entry* e = ctx.db().find(ctx.argv[1], ctx.now)) {
        Value::Scratch scratch;
        out.append_command(std::initializer_list<std::string_view>{"SET", as_view(e->key), e->value.str(scratch), "KEEPTTL"});
      }
      return;
    case Rule::unless_nil:
      if (!is_nil(reply)) out.append_command(ctx.argv);
      return;
    case Rule::del_unless_nil:
      if (!is_nil(reply)) out.append_command(std::initializer_list<std::string_view>{"DEL", ctx.argv[1]});
      return;
  }
}

}  // namespace

bool write_took_effect(const Command& cmd, const CommandContext& ctx, std::string_view reply) {
  if (!reply.empty() && reply.front() == '-') return false;
  if (ctx.logged_instead != nullptr) return !ctx.logged_instead->empty();
  auto it = rules().find(cmd.name);
  switch (it == rules().end() ? Rule::verbatim : it->second) {
    case Rule::verbatim:
    case Rule::float_state:
      return true;
    case Rule::unless_zero:
    case Rule::expire_state:
      return reply != ":0\r\n";
    case Rule::key_state:
      return !is_nil(reply) || has_get_option(ctx);
    case Rule::getex_state:
      return ctx.argv.size() > 2 && !is_nil(reply);
    case Rule::unless_nil:
    case Rule::del_unless_nil:
      return !is_nil(reply);
  }
  return true;
}

void translate_write(const Command& cmd, CommandContext& ctx, std::string_view reply, AofBuffer& out) {
  if (!reply.empty() && reply.front() == '-') return;  // errors change nothing
  if (ctx.logged_instead != nullptr) return out.append_raw(*ctx.logged_instead);  // the handler said what it did
  auto it = rules().find(cmd.name);
  apply_rule(it == rules().end() ? Rule::verbatim : it->second, ctx, reply, out);
}

void expired_record(std::string_view key, AofBuffer& out) {
  out.append_command(std::initializer_list<std::string_view>{"DEL", key});
}

void state_record(const Keyspace& db, const Entry& entry, AofBuffer& out) {
  const std::int64_t expire_at = db.expire_at(entry);
  if (const Object* object = entry.value.object()) {
    // A type's own records (at most 64 elements each, as Redis's rewrite),
    // then its expiry: the key exists once the first record ran.
    object->write_records(as_view(entry.key), [&](std::span<const std::string_view> argv) { out.append_command(argv); });
    if (expire_at != Entry::no_expiry) {
      std::string at = AofBuffer::number(expire_at);
      out.append_command(std::initializer_list<std::string_view>{"PEXPIREAT", as_view(entry.key), at});
    }
    return;
  }
  Value::Scratch scratch;
  const std::string_view value = entry.value.str(scratch);
  if (expire_at == Entry::no_expiry) {
    out.append_command(std::initializer_list<std::string_view>{"SET", as_view(entry.key), value});
    return;
  }
  std::string at = AofBuffer::number(expire_at);
  out.append_command(std::initializer_list<std::string_view>{"SET", as_view(entry.key), value, "PXAT", at});
}

}  // namespace duet::kv
