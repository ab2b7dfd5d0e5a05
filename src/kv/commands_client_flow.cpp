// CLIENT REPLY ON|OFF|SKIP, CLIENT NO-EVICT ON|OFF, CLIENT UNBLOCK id
// [TIMEOUT|ERROR], CLIENT PAUSE/UNPAUSE (Redis 7.0's networking.c), and WAIT, which answers 0 at
// once or, asked for replicas there are none of, when its timeout passes.
#include "kv/blocking/blocking.hpp"
#include "kv/client_registry.hpp"
#include "kv/command_table.hpp"
#include "kv/detail/command_util.hpp"
#include "kv/detail/numbers.hpp"

namespace duet::kv {
namespace {

using detail::equals_ci;

void client_reply(CommandContext& ctx) {
  const std::string_view mode = ctx.argv[2];
  if (equals_ci(mode, "on")) {
    ctx.client.reply_off = ctx.client.reply_skip = false;
    return ctx.reply.ok();
  }
  if (equals_ci(mode, "off")) {
    ctx.client.reply_off = true;  // Session drops this reply and the ones after it
    return;
  }
  if (equals_ci(mode, "skip")) {
    ctx.client.reply_skip = true;  // this reply and the next command's
    return;
  }
  ctx.reply.error(detail::err_syntax);
}

void client_no_evict(CommandContext& ctx) {
  const std::string_view mode = ctx.argv[2];
  if (!equals_ci(mode, "on") && !equals_ci(mode, "off")) return ctx.reply.error(detail::err_syntax);
  ctx.client.no_evict = equals_ci(mode, "on");  // noeviction is the only policy: nothing else to do
  ctx.reply.ok();
}

// With --threads N the shard layer sends it to the shard of the client's id.
void client_unblock(CommandContext& ctx) {
  std::int64_t id = 0;
  if (!detail::int_arg(ctx, ctx.argv[2], id)) return;
  Unblock how = Unblock::timeout;
  if (ctx.argv.size() == 4) {
    if (equals_ci(ctx.argv[3], "error")) {
      how = Unblock::error;
    } else if (!equals_ci(ctx.argv[3], "timeout")) {
      return ctx.reply.error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
    }
  }
  bool done = false;
  ctx.server.clients().for_each([&](ClientInfo& c) {
    if (static_cast<std::int64_t>(c.id) != id || c.block == nullptr || !c.block->blocked) return;
    if (c.block->remote != nullptr) {  // blocked on another shard: that shard answers
      c.block->cancel_remote(c.block->remote, how == Unblock::error);
      done = true;
      return;
    }
    done = unblock_client(ctx.server, c, how);
  });
  ctx.reply.integer(done ? 1 : 0);
}

// CLIENT PAUSE timeout [WRITE|ALL]: milliseconds; with --threads N on every shard.
void client_pause(CommandContext& ctx) {
  bool all = true;
  if (ctx.argv.size() == 4) {
    if (equals_ci(ctx.argv[3], "write")) {
      all = false;
    } else if (!equals_ci(ctx.argv[3], "all")) {
      return ctx.reply.error("ERR CLIENT PAUSE mode must be WRITE or ALL");
    }
  }
  std::int64_t ms = 0;
  if (!detail::parse_i64(ctx.argv[2], ms)) return ctx.reply.error("ERR timeout is not an integer or out of range");
  if (ms < 0) return ctx.reply.error("ERR timeout is negative");
  if (ms > 0) ctx.server.pause(ctx.now + ms, all);
  ctx.reply.ok();
}

void client_unpause(CommandContext& ctx) {
  ctx.server.unpause();
  resume_postponed(ctx.server);
  ctx.reply.ok();
}

// WAIT numreplicas timeout: no replicas. 0 asked for is answered at once;
// more blocks until the timeout (0: for ever), as Redis does without replicas.
void wait(CommandContext& ctx) {
  std::int64_t replicas = 0;
  std::int64_t timeout = 0;
  if (!detail::int_arg(ctx, ctx.argv[1], replicas)) return;
  if (!detail::parse_i64(ctx.argv[2], timeout)) return ctx.reply.error("ERR timeout is not an integer or out of range");
  if (timeout < 0) return ctx.reply.error("ERR timeout is negative");
  if (replicas <= 0 || !ctx.client.can_block || ctx.deny_blocking) return ctx.reply.integer(0);
  BlockRequest r;
  r.kind = BlockRequest::Kind::wait;
  block_client(ctx, std::move(r), timeout == 0 ? 0 : ctx.now + timeout);
}

constexpr Command commands[] = {
    {"wait", 3, cmd_noscript | cmd_blocking, wait, 0, 0, 0, "generic",
     "Wait for the synchronous replication of all the write commands sent in the context of the current connection"},
};

}  // namespace

bool client_flow_command(CommandContext& ctx, std::string_view sub) {
  const std::size_t argc = ctx.argv.size();
  if (equals_ci(sub, "reply")) {
    argc == 3 ? client_reply(ctx) : detail::wrong_arity(ctx, "client|reply");
  } else if (equals_ci(sub, "no-evict")) {
    argc == 3 ? client_no_evict(ctx) : detail::wrong_arity(ctx, "client|no-evict");
  } else if (equals_ci(sub, "pause")) {
    argc == 3 || argc == 4 ? client_pause(ctx) : detail::wrong_arity(ctx, "client|pause");
  } else if (equals_ci(sub, "unpause")) {
    argc == 2 ? client_unpause(ctx) : detail::wrong_arity(ctx, "client|unpause");
  } else if (equals_ci(sub, "unblock")) {
    argc == 3 || argc == 4 ? client_unblock(ctx) : detail::wrong_arity(ctx, "client|unblock");
  } else {
    return false;
  }
  return true;
}

std::span<const Command> wait_commands() noexcept { return commands; }

}  // namespace duet::kv
