// duet::kv::run_queued, duet::kv::touch_written_keys, duet::kv::exec_here —
// what EXEC does with the queued commands, written once for one shard and
// for many (Redis's execCommand, multi.c).
//
// Contract
// - run_queued(cmd, ctx, log) runs one queued command on the store that owns
//   its keys, as detail::run_command does (the observer's before_write, the
//   watched keys it changed, the stats), except that its AOF records go into
//   `log` — the transaction's one block (LoggedBlock) — instead of the log
//   stream. The caller checked arity and the rest when it was queued.
// - touch_written_keys(cmd, ctx, reply): after a write command, the keys it
//   changed count as modified for WATCH (signalModifiedKey), when it took
//   effect (by the AOF's rules: kv/aof/aof_propagation.hpp). The keys are
//   the command's key arguments; a *STORE/BITOP/COPY changes its destination
//   only. Costs one branch when nobody watches.
// - exec_here(ctx): EXEC on a client whose transaction runs whole on
//   ctx.server (one shard, or every key on the client's own shard: the
//   planner decides, kv/shard/): the checks (watch, aborted queue), then each
//   command in order, the replies as one array, the block logged, the
//   transaction cleared. Thread: the server state's.
//
//   CommandContext ctx{state, client, argv, Reply(out, client.resp), now};
//   exec_here(ctx);  // "*2\r\n+OK\r\n:1\r\n"
#pragma once

#include <string_view>

#include "kv/aof/write_observer.hpp"
#include "kv/command_table.hpp"

namespace duet::kv {

void run_queued(const Command& cmd, CommandContext& ctx, LoggedBlock* log);
void touch_written_keys(const Command& cmd, CommandContext& ctx, std::string_view reply);
void exec_here(CommandContext& ctx);

// EXEC's errors and replies, for the paths that answer it elsewhere (kv/shard/).
inline constexpr std::string_view exec_without_multi = "ERR EXEC without MULTI";
inline constexpr std::string_view exec_aborted = "EXECABORT Transaction discarded because of previous errors.";

}  // namespace duet::kv
