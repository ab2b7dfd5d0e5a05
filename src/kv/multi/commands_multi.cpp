// MULTI EXEC DISCARD WATCH UNWATCH (Redis 7.0's multi.c). Session queues the
// commands between MULTI and EXEC; kv/multi/transaction.cpp runs them. With
// --threads N the shard layer plans WATCH and EXEC first (ShardRoute::watch,
// ::exec): these handlers then see only what lives on the client's own shard.
#include "kv/command_table.hpp"
#include "kv/multi/multi_state.hpp"
#include "kv/multi/transaction.hpp"

namespace duet::kv {
namespace {

void multi(CommandContext& ctx) {
  if (in_multi(ctx.client)) return ctx.reply.error("ERR MULTI calls can not be nested");
  ensure_multi(ctx.client).active = true;
  ctx.reply.ok();
}

void discard(CommandContext& ctx) {
  if (!in_multi(ctx.client)) return ctx.reply.error("ERR DISCARD without MULTI");
  ctx.client.multi->discard(ctx.server.store());
  ctx.reply.ok();
}

void exec(CommandContext& ctx) { exec_here(ctx); }

void watch(CommandContext& ctx) {
  if (in_multi(ctx.client)) return ctx.reply.error("ERR WATCH inside MULTI is not allowed");
  MultiState& m = ensure_multi(ctx.client);
  if (m.watch_dirty()) return ctx.reply.ok();  // no point: EXEC fails anyway
  for (std::size_t i = 1; i < ctx.argv.size(); ++i) {
    const std::string_view key = ctx.argv[i];
    bool known = false;
    for (const WatchedKey& w : m.watched) known = known || (w.db == ctx.client.db && w.key == key);
    if (known) continue;
    ctx.server.store().watch(ctx.client.db, key, &m.ticket(), ctx.now);
    m.watched.push_back({ctx.client.db, std::string(key), true});
  }
  ctx.reply.ok();
}

void unwatch(CommandContext& ctx) {
  if (ctx.client.multi != nullptr) ctx.client.multi->unwatch_all(ctx.server.store());
  ctx.reply.ok();
}

constexpr std::uint32_t flags = cmd_noscript | cmd_loading | cmd_stale | cmd_multi_control;

constexpr Command commands[] = {
    {"multi", 1, flags | cmd_fast | cmd_allow_busy, multi, 0, 0, 0, "transactions", "Mark the start of a transaction block"},
    {"exec", 1, flags | cmd_skip_slowlog, exec, 0, 0, 0, "transactions", "Execute all commands issued after MULTI", ShardRoute::exec},
    {"discard", 1, flags | cmd_fast | cmd_allow_busy, discard, 0, 0, 0, "transactions",
     "Discard all commands issued after MULTI"},
    {"watch", -2, flags | cmd_fast | cmd_allow_busy, watch, 1, -1, 1, "transactions",
     "Watch the given keys to determine execution of the MULTI/EXEC block", ShardRoute::watch},
    {"unwatch", 1, (flags & ~cmd_multi_control) | cmd_fast | cmd_allow_busy, unwatch, 0, 0, 0, "transactions",
     "Forget about all watched keys"},
};

}  // namespace

std::span<const Command> multi_commands() noexcept { return commands; }

}  // namespace duet::kv
