// duet::kv::detail::run_command — a command's handler with what surrounds it
// wherever it runs: the write observer (the AOF) around a cmd_write command,
// the watched keys it changed (WATCH), the keyspace events it staged for
// other shards sent on (kv/notify.hpp), the commands_processed count of the
// state it ran on, and the blocked clients its push serves (BLPOP ...).
//
// Contract
// - The caller has already checked arity, authentication and maxmemory; ctx's
//   reply buffer is where the reply goes. The thread of ctx.server only.
//   Session::execute calls it for a command on its own shard, and the shard
//   layer (kv/shard/) on the shard that owns the keys.
//
//   CommandContext ctx{state, client, argv, Reply(out), now};
//   detail::run_command(*find_command(argv[0]), ctx);
#pragma once

#include <string_view>

#include "kv/blocking/blocking.hpp"
#include "kv/command_table.hpp"
#include "kv/multi/transaction.hpp"
#include "kv/notify.hpp"

namespace duet::kv::detail {

inline void run_command(const Command& cmd, CommandContext& ctx) {
  WriteObserver* observer = (cmd.flags & cmd_write) != 0 ? ctx.server.write_observer() : nullptr;
  const std::size_t reply_start = ctx.reply.buffer().size();
  if (observer != nullptr) observer->before_write(cmd, ctx);
  cmd.handler(ctx);
  if (observer != nullptr) observer->after_write(cmd, ctx, std::string_view(ctx.reply.buffer()).substr(reply_start));
  if ((cmd.flags & cmd_write) != 0 && ctx.store().observed()) [[unlikely]] {
    touch_written_keys(cmd, ctx, std::string_view(ctx.reply.buffer()).substr(reply_start));
  }
  flush_keyspace_events(ctx.server);  // before its reply can leave this shard
  ++ctx.server.stats().commands_processed;
  if (ctx.server.store().has_ready()) [[unlikely]] serve_blocked(ctx.server, ctx.now);  // a push for BLPOP ...
}

}  // namespace duet::kv::detail
