// Session's refusals and holds before a command runs (Redis's
// processCommand and rejectCommand): transaction checks, CLIENT PAUSE, and
// the error replies whose exact text Redis clients match.
#include <string>

#include "kv/command_table.hpp"
#include "kv/detail/command_util.hpp"
#include "kv/multi/multi_state.hpp"
#include "kv/reply.hpp"
#include "kv/session.hpp"

namespace duet::kv {
namespace {

// printf's "%.*s" stops at a NUL byte; Redis's messages inherit that.
std::string_view c_string_prefix(std::string_view text, std::size_t max) noexcept {
  std::size_t n = 0;
  while (n < text.size() && n < max && text[n] != '\0') ++n;
  return text.substr(0, n);
}

}  // namespace

// processCommand's checks for a client with MULTI or WATCH state: inside
// MULTI a refused command aborts the transaction; past maxmemory an EXEC
// whose queue may grow memory is refused whole (-EXECABORT, rejectCommand).
bool Session::multi_checks(const Command& cmd, CommandContext& ctx) {
  const bool queuing = client_.multi->active;
  if (queuing && (cmd.flags & cmd_no_multi) != 0) {
    reject(cmd, ctx, "ERR Command not allowed inside a transaction");
    return false;
  }
  const bool is_exec = cmd.route == ShardRoute::exec;
  const bool may_grow = (cmd.flags & cmd_denyoom) != 0 || (is_exec && queuing && client_.multi->denyoom);
  if (may_grow && server_.over_maxmemory()) {
    reject(cmd, ctx, oom_error);
    return false;
  }
  return true;
}

// processCommand's pause check: every command (ALL), or those that may
// write or replicate (WRITE): a write, PUBLISH, an EXEC that queued either.
bool Session::postpones(const Command& cmd, std::int64_t now) {
  if (now >= server_.pause_end_ms()) {
    server_.unpause();
    return false;
  }
  if (server_.pause_all()) return true;
  const auto writes = [](const Command& c) {
    return (c.flags & cmd_write) != 0 || c.name == "publish" || c.name == "spublish";
  };
  if (writes(cmd)) return true;
  if (cmd.route != ShardRoute::exec || !in_multi(client_)) return false;
  for (const QueuedCommand& q : client_.multi->queued) {
    if (writes(*q.command)) return true;
  }
  return false;
}

bool Session::queues_in_multi(const Command* cmd) const noexcept {
  return client_.multi != nullptr && client_.multi->active && (cmd == nullptr || (cmd->flags & cmd_multi_control) == 0);
}

void Session::flag_transaction() noexcept {
  if (client_.multi != nullptr && client_.multi->active) client_.multi->flag();
}

// networking.c rejectCommand: a refused command marks an open transaction
// to abort; a refused EXEC itself (wrong arity, NOAUTH, OOM …) discards the
// transaction — and the watches, MULTI or not — answering -EXECABORT with
// the reason, its "ERR " dropped as rejectCommandFormat has none.
void Session::reject(const Command& cmd, CommandContext& ctx, std::string_view error) {
  if (cmd.route != ShardRoute::exec) {
    flag_transaction();
    ctx.reply.error(error);
    return;
  }
  if (client_.multi != nullptr) client_.multi->discard(server_.store());
  if (error.starts_with("ERR ")) error.remove_prefix(4);
  std::string message = "EXECABORT Transaction discarded because of: ";
  message.append(error);
  ctx.reply.error(message);
}

// Redis's processCommand in a RESP2 subscribed context; the command is named
// by its full name ("config|get"), lower case, as Redis 7.0 names it.
std::string Session::subscribed_context_error(std::span<const std::string_view> argv) {
  const Command* cmd = find_command(argv[0]);
  std::string name;
  detail::append_lower(name, cmd->name);
  if (argv.size() >= 2 && (cmd->flags & cmd_container) != 0) {
    name.push_back('|');
    detail::append_lower(name, argv[1]);
  }
  return "ERR Can't execute '" + name +
         "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context";
}

void Session::reject_unknown(std::span<const std::string_view> argv) {
  // networking.c: "unknown command '%.128s', with args beginning with: %s", where
  // each argument adds "'%.*s' " while the list is shorter than 128 bytes.
  std::string message = "ERR unknown command '";
  message.append(c_string_prefix(argv[0], 128));
  message.append("', with args beginning with: ");
  std::string args;
  for (std::size_t i = 1; i < argv.size() && args.size() < 128; ++i) {
    args.push_back('\'');
    args.append(c_string_prefix(argv[i], 128 - args.size() + 1));
    args.append("' ");
  }
  message.append(args);
  Reply(sink()).error(message);
}

}  // namespace duet::kv
