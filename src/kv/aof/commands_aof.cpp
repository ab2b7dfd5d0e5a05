// BGREWRITEAOF: part of the command table (sans-I/O like every handler); the
// rewrite itself belongs to whatever WriteObserver the server installed.
#include "kv/command_table.hpp"

namespace duet::kv {
namespace {

void bgrewriteaof(CommandContext& ctx) {
  WriteObserver* observer = ctx.server.write_observer();
  if (observer == nullptr) {
    return ctx.reply.error("ERR Background append only file rewriting needs appendonly yes");
  }
  std::string message;
  if (!observer->request_rewrite(message)) return ctx.reply.error(message);
  ctx.reply.simple(message);
}

constexpr Command commands[] = {
    {"bgrewriteaof", 1, cmd_admin, bgrewriteaof, 0, 0, 0, "server", "Asynchronously rewrite the append-only file", ShardRoute::every},
};

}  // namespace

std::span<const Command> aof_commands() noexcept { return commands; }

}  // namespace duet::kv
