// Connection commands: PING ECHO QUIT RESET HELLO AUTH SELECT CLIENT.
#include <cstdint>
#include <string>

#include "kv/command_table.hpp"
#include "kv/blocking/block_table.hpp"
#include "kv/multi/multi_state.hpp"
#include "kv/detail/command_util.hpp"
#include "kv/pubsub.hpp"

namespace duet::kv {
namespace {

using detail::equals_ci;

constexpr std::string_view err_wrongpass = "WRONGPASS invalid username-password pair or user is disabled.";
constexpr std::string_view err_bad_name = "ERR Client names cannot contain spaces, newlines or special characters.";

bool subscribed(const ClientInfo& c) noexcept { return c.subscriber != nullptr && c.subscriber->subscribed(); }

// In a RESP2 subscribed context PING answers like a push: [pong, arg or ""].
void ping(CommandContext& ctx) {
  if (ctx.argv.size() > 2) return detail::wrong_arity(ctx, "ping");
  if (subscribed(ctx.client) && ctx.client.resp == 2) {  // RESP3 needs no special form
    ctx.reply.array(2);
    ctx.reply.bulk("pong");
    return ctx.reply.bulk(ctx.argv.size() == 2 ? ctx.argv[1] : "");
  }
  if (ctx.argv.size() == 2) return ctx.reply.bulk(ctx.argv[1]);
  ctx.reply.simple("PONG");
}

void echo(CommandContext& ctx) { ctx.reply.bulk(ctx.argv[1]); }

void quit(CommandContext& ctx) {
  ctx.reply.ok();
  ctx.client.close_after_reply = true;
}

// Redis 6.2's RESET (clearClientConnectionState): db 0, RESP2, the default
// user's authentication (none while requirepass is set), no name, no
// subscriptions (silently). duet has no MULTI, tracking or READONLY to clear.
void reset(CommandContext& ctx) {
  ClientInfo& c = ctx.client;
  c.db = 0;
  c.resp = 2;
  c.authenticated = false;
  c.name.clear();
  if (c.multi != nullptr) c.multi->discard(ctx.server.store());  // MULTI and WATCH go
  if (c.subscriber != nullptr) c.subscriber->unsubscribe_all();
  ctx.reply.simple("RESET");
}

bool password_ok(CommandContext& ctx, std::string_view user, std::string_view pass) {
  const std::string& required = ctx.server.config().requirepass;
  return user == "default" && (required.empty() || pass == required);
}

bool valid_client_name(std::string_view name) noexcept {
  for (char c : name) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

void auth(CommandContext& ctx) {
  if (ctx.argv.size() > 3) return ctx.reply.error(detail::err_syntax);
  if (ctx.argv.size() == 2 && ctx.server.config().requirepass.empty()) {
    return ctx.reply.error(
        "ERR AUTH <password> called without any password configured for the default user. "
        "Are you sure your configuration is correct?");
  }
  std::string_view user = ctx.argv.size() == 3 ? ctx.argv[1] : "default";
  if (!password_ok(ctx, user, ctx.argv.back())) return ctx.reply.error(err_wrongpass);
  ctx.client.authenticated = true;
  ctx.reply.ok();
}

void hello_reply(CommandContext& ctx) {
  ctx.reply.map(7);
  ctx.reply.bulk("server");
  ctx.reply.bulk("redis");
  ctx.reply.bulk("version");
  ctx.reply.bulk("7.0.0");
  ctx.reply.bulk("proto");
  ctx.reply.integer(ctx.client.resp);
  ctx.reply.bulk("id");
  ctx.reply.integer(static_cast<std::int64_t>(ctx.client.id));
  ctx.reply.bulk("mode");
  ctx.reply.bulk("standalone");
  ctx.reply.bulk("role");
  ctx.reply.bulk("master");
  ctx.reply.bulk("modules");
  ctx.reply.array(0);
}

// HELLO [protover [AUTH username password] [SETNAME clientname]]: the
// protocol changes only once every option has been accepted, and the reply
// is already in the new one (Redis's helloCommand).
void hello(CommandContext& ctx) {
  auto argv = ctx.argv;
  std::int64_t version = 0;
  if (argv.size() >= 2) {
    if (!detail::parse_i64(argv[1], version)) {
      return ctx.reply.error("ERR Protocol version is not an integer or out of range");
    }
    if (version < 2 || version > 3) return ctx.reply.error("NOPROTO unsupported protocol version");
  }
  std::string_view user, pass, name;
  bool has_auth = false, has_name = false;
  for (std::size_t j = 2; j < argv.size(); ++j) {
    std::size_t more = argv.size() - 1 - j;
    if (equals_ci(argv[j], "auth") && more >= 2) {
      has_auth = true, user = argv[j + 1], pass = argv[j + 2], j += 2;
    } else if (equals_ci(argv[j], "setname") && more >= 1) {
      has_name = true, name = argv[++j];
    } else {
      return ctx.reply.error("ERR Syntax error in HELLO option '" + std::string(argv[j]) + "'");
    }
  }
  if (has_auth && !password_ok(ctx, user, pass)) return ctx.reply.error(err_wrongpass);
  if (has_auth) ctx.client.authenticated = true;
  if (ctx.server.requires_auth() && !ctx.client.authenticated) {
    return ctx.reply.error(
        "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH "
        "<user> <pass> option can be used to authenticate the client and select the RESP protocol "
        "version at the same time");
  }
  if (has_name && !valid_client_name(name)) return ctx.reply.error(err_bad_name);
  if (has_name) ctx.client.name.assign(name);
  if (version != 0) {
    ctx.client.resp = static_cast<int>(version);
    ctx.reply.set_protocol(ctx.client.resp);
  }
  hello_reply(ctx);
}

// getIntFromObjectOrReply: a long long first (its own error), then an int,
// with the bounds in the message; only then does the caller judge the value.
bool int32_arg(CommandContext& ctx, std::string_view text, std::int64_t& value) {
  if (!detail::int_arg(ctx, text, value)) return false;
  if (value >= INT32_MIN && value <= INT32_MAX) return true;
  ctx.reply.error("ERR value is out of range, value must between " + std::to_string(INT32_MIN) + " and " +
                  std::to_string(INT32_MAX));
  return false;
}

// selectCommand reads the index as an int, so 4294967296 is "out of range"
// as an int before it is a database that does not exist.
void select(CommandContext& ctx) {
  std::int64_t index = 0;
  if (!int32_arg(ctx, ctx.argv[1], index)) return;
  if (index < 0 || index >= Store::db_count) return ctx.reply.error("ERR DB index is out of range");
  ctx.client.db = static_cast<int>(index);
  ctx.reply.ok();
}

// CLIENT LIST's flags, in Redis 7.0's order (networking.c), N for none.
std::string client_flags(const ClientInfo& c) {
  std::string flags;
  if (subscribed(c)) flags += 'P';
  if (in_multi(c)) flags += 'x';
  if (c.block != nullptr && c.block->blocked) flags += 'b';
  if (c.multi != nullptr && c.multi->watch_dirty()) flags += 'd';
  if (c.no_evict) flags += 'e';
  return flags.empty() ? "N" : flags;
}

void append_client_line(std::string& out, const ServerState& server, const ClientInfo& c, std::int64_t now) {
  out += "id=" + std::to_string(c.id) + " addr=" + server.socket_name(c.fd, true) +
         " laddr=" + server.socket_name(c.fd, false) + " fd=" + std::to_string(c.fd) +
         " name=" + c.name + " age=" + std::to_string((now - c.created_ms) / 1000) +
         " idle=" + std::to_string((now - c.last_active_ms) / 1000) + " flags=" + client_flags(c) +
         " db=" + std::to_string(c.db) + " sub=" + std::to_string(c.subscriber ? c.subscriber->channel_count() : 0) +
         " psub=" + std::to_string(c.subscriber ? c.subscriber->pattern_count() : 0) +
         " ssub=" + std::to_string(c.subscriber ? c.subscriber->shard_channel_count() : 0) +
         " multi=" + std::to_string(in_multi(c) ? static_cast<std::int64_t>(c.multi->queued.size()) : -1) +
         " qbuf=" + std::to_string(c.query_buffer) +
         " qbuf-free=0 argv-mem=0 multi-mem=0 obl=" + std::to_string(c.output_buffer) +
         " oll=0 omem=0 tot-mem=0 events=r cmd=";
  detail::append_lower(out, c.last_command);
  out += " user=default redir=-1 resp=" + std::to_string(c.resp) + "\n";
}

bool known_client_type(std::string_view type) noexcept {
  for (std::string_view t : {"normal", "master", "replica", "slave", "pubsub"}) {
    if (equals_ci(type, t)) return true;
  }
  return false;
}

// CLIENT LIST [TYPE type | ID id [id ...]]: one filter, as Redis 7.0 parses it.
// A client is of type pubsub while it has subscriptions, else normal. Ids are looked up in the order given, once
// per mention; a well-formed id that names no client (0, -1) lists nothing.
void client_list(CommandContext& ctx) {
  auto argv = ctx.argv;
  std::string text;
  auto list = [&](const ClientInfo& c) { append_client_line(text, ctx.server, c, ctx.now); };
  if (argv.size() == 4 && equals_ci(argv[2], "type")) {
    if (!known_client_type(argv[3])) return ctx.reply.error("ERR Unknown client type '" + std::string(argv[3]) + "'");
    const bool normal = equals_ci(argv[3], "normal"), pubsub = equals_ci(argv[3], "pubsub");
    ctx.server.clients().for_each([&](const ClientInfo& c) {
      if (subscribed(c) ? pubsub : normal) list(c);
    });
  } else if (argv.size() > 3 && equals_ci(argv[2], "id")) {
    for (std::size_t j = 3; j < argv.size(); ++j) {
      std::int64_t id = 0;
      if (!detail::parse_i64(argv[j], id)) return ctx.reply.error("ERR Invalid client ID");
      ctx.server.clients().for_each([&](const ClientInfo& c) {
        if (static_cast<std::int64_t>(c.id) == id) list(c);
      });
    }
  } else if (argv.size() != 2) {
    return ctx.reply.error(detail::err_syntax);
  } else {
    ctx.server.clients().for_each(list);
  }
  ctx.reply.verbatim(text);
}

void client(CommandContext& ctx) {
  std::string_view sub = ctx.argv[1];
  std::size_t argc = ctx.argv.size();
  auto need = [&](std::size_t n, std::string_view full) {
    if (argc == n) return true;
    detail::wrong_arity(ctx, full);
    return false;
  };
  if (equals_ci(sub, "id")) {
    if (need(2, "client|id")) ctx.reply.integer(static_cast<std::int64_t>(ctx.client.id));
  } else if (equals_ci(sub, "getname")) {
    if (!need(2, "client|getname")) return;
    if (ctx.client.name.empty()) return ctx.reply.null();
    ctx.reply.bulk(ctx.client.name);
  } else if (equals_ci(sub, "setname")) {
    if (!need(3, "client|setname")) return;
    if (!valid_client_name(ctx.argv[2])) return ctx.reply.error(err_bad_name);
    ctx.client.name.assign(ctx.argv[2]);
    ctx.reply.ok();
  } else if (equals_ci(sub, "list")) {
    client_list(ctx);
  } else if (equals_ci(sub, "info")) {
    if (!need(2, "client|info")) return;
    std::string text;
    append_client_line(text, ctx.server, ctx.client, ctx.now);
    ctx.reply.verbatim(text);
  } else if (!client_flow_command(ctx, sub)) {  // REPLY, NO-EVICT, UNBLOCK: commands_client_flow.cpp
    detail::unknown_subcommand(ctx, "CLIENT");
  }
}

constexpr std::uint32_t conn_flags =
    cmd_noscript | cmd_loading | cmd_stale | cmd_fast | cmd_no_auth | cmd_allow_busy | cmd_subscribed_ok;

constexpr Command commands[] = {
    {"ping", -1, cmd_fast | cmd_subscribed_ok, ping, 0, 0, 0, "connection", "Ping the server"},
    {"echo", 2, cmd_fast, echo, 0, 0, 0, "connection", "Echo the given string"},
    {"quit", -1, conn_flags | cmd_multi_control, quit, 0, 0, 0, "connection", "Close the connection"},
    {"reset", 1, conn_flags | cmd_parse_barrier | cmd_multi_control, reset, 0, 0, 0, "connection", "Reset the connection"},
    {"hello", -1, cmd_fast | cmd_no_auth | cmd_stale | cmd_parse_barrier, hello, 0, 0, 0, "connection", "Handshake with Redis"},
    {"auth", -2, cmd_fast | cmd_no_auth | cmd_stale | cmd_parse_barrier, auth, 0, 0, 0, "connection", "Authenticate to the server"},
    {"select", 2, cmd_fast, select, 0, 0, 0, "connection", "Change the selected database for the current connection"},
    {"client", -2, cmd_container, client, 0, 0, 0, "connection", "A container for client connection commands", ShardRoute::subcommand},
};

}  // namespace

std::span<const Command> connection_commands() noexcept { return commands; }

}  // namespace duet::kv
