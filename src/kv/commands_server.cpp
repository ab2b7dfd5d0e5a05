// Server commands: INFO CONFIG TIME SHUTDOWN.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "kv/command_table.hpp"
#include "kv/detail/command_util.hpp"
#include "kv/glob.hpp"

namespace duet::kv {
namespace {

using detail::equals_ci;
using detail::human_bytes;

void line(std::string& out, std::string_view key, std::string_view value) {
  out.append(key).append(":").append(value).append("\r\n");
}
void line(std::string& out, std::string_view key, std::uint64_t value) { line(out, key, std::to_string(value)); }

void info_server(CommandContext& ctx, std::string& out) {
  const ServerConfig& c = ctx.server.config();
  auto uptime = static_cast<std::uint64_t>((ctx.now - ctx.server.start_ms()) / 1000);
  out += "# Server\r\n";
  line(out, "redis_version", "7.0.0");
  line(out, "redis_mode", "standalone");
  line(out, "duet_voice", c.voice);
  line(out, "duet_backend", c.backend);
  line(out, "multiplexing_api", c.backend);
  line(out, "arch_bits", sizeof(void*) * 8);
  line(out, "process_id", static_cast<std::uint64_t>(::getpid()));
  line(out, "tcp_port", static_cast<std::uint64_t>(c.port));
  line(out, "uptime_in_seconds", uptime);
  line(out, "uptime_in_days", uptime / 86400);
  line(out, "hz", static_cast<std::uint64_t>(c.hz));
}

void info_clients(CommandContext& ctx, std::string& out) {
  out += "# Clients\r\n";
  line(out, "connected_clients", ctx.server.clients().size());
  line(out, "maxclients", ctx.server.config().maxclients);
  line(out, "blocked_clients", ctx.server.store().has_blocked() ? ctx.server.store().blocks().blocked() : 0);
}

void info_memory(CommandContext& ctx, std::string& out) {
  std::size_t used = ctx.server.store().used_memory();
  out += "# Memory\r\n";
  line(out, "used_memory", used);
  line(out, "used_memory_human", human_bytes(used));
  std::uint64_t max = ctx.server.config().maxmemory;
  line(out, "maxmemory", max);
  line(out, "maxmemory_human", human_bytes(max));
  line(out, "maxmemory_policy", "noeviction");
  line(out, "mem_allocator", "libc");
}

void info_persistence(CommandContext& ctx, std::string& out) {
  out += "# Persistence\r\n";
  line(out, "loading", 0);
  if (const WriteObserver* aof = ctx.server.write_observer()) return aof->info(out);  // kv/aof
  line(out, "aof_enabled", 0);
}

void info_stats(CommandContext& ctx, std::string& out) {
  const ServerStats& s = ctx.server.stats();
  out += "# Stats\r\n";
  line(out, "total_connections_received", s.connections_received);
  line(out, "total_commands_processed", s.commands_processed);
  line(out, "total_net_input_bytes", s.net_input_bytes);
  line(out, "total_net_output_bytes", s.net_output_bytes);
  line(out, "rejected_connections", s.rejected_connections);
  line(out, "expired_keys", ctx.server.store().expired_keys());
  line(out, "keyspace_hits", s.keyspace_hits);
  line(out, "keyspace_misses", s.keyspace_misses);
  line(out, "pubsub_channels", ctx.server.pubsub().channel_count());
  line(out, "pubsub_patterns", ctx.server.pubsub().pattern_count());
  line(out, "pubsubshard_channels", ctx.server.pubsub().shard_channel_count());
}

void info_keyspace(CommandContext& ctx, std::string& out) {
  out += "# Keyspace\r\n";
  for (int i = 0; i < Store::db_count; ++i) {
    const Keyspace& db = ctx.server.store().db(i);
    if (db.size() == 0) continue;
    out += "db" + std::to_string(i) + ":keys=" + std::to_string(db.size()) +
           ",expires=" + std::to_string(db.volatile_count()) + ",avg_ttl=0\r\n";
  }
}

void info(CommandContext& ctx) {
  using Section = void (*)(CommandContext&, std::string&);
  struct Named {
    std::string_view name;
    Section fn;
  };
  constexpr Named sections[] = {{"server", info_server}, {"clients", info_clients}, {"memory", info_memory},
                                {"persistence", info_persistence}, {"stats", info_stats}, {"keyspace", info_keyspace}};
  bool all = ctx.argv.size() == 1;
  for (std::size_t j = 1; j < ctx.argv.size(); ++j) {
    std::string_view s = ctx.argv[j];
    all = all || equals_ci(s, "all") || equals_ci(s, "default") || equals_ci(s, "everything");
  }
  std::string out;
  for (const Named& section : sections) {
    bool wanted = all;
    for (std::size_t j = 1; j < ctx.argv.size() && !wanted; ++j) wanted = equals_ci(ctx.argv[j], section.name);
    if (!wanted) continue;
    if (!out.empty()) out += "\r\n";
    section.fn(ctx, out);
  }
  ctx.reply.verbatim(out);
}

// TIME: unix seconds and microseconds. Read from the server's clock as the
// command sees it (ctx.now, milliseconds), not a fresh syscall as Redis's
// gettimeofday: the clock is the one seam tests and a simulator replace.
void time_(CommandContext& ctx) {
  ctx.reply.array(2);
  ctx.reply.bulk(std::to_string(ctx.now / 1000));
  ctx.reply.bulk(std::to_string(ctx.now % 1000 * 1000));
}

void shutdown(CommandContext& ctx) {
  // No reply on success: the server goes away, and the client sees the close.
  ctx.client.close_after_reply = true;
  ctx.server.request_shutdown();
}

constexpr Command commands[] = {
    {"info", -1, cmd_loading | cmd_stale, info, 0, 0, 0, "server", "Get information and statistics about the server", ShardRoute::every},
    {"config", -2, cmd_admin | cmd_container | cmd_parse_barrier, detail::config_command, 0, 0, 0, "server", "A container for server configuration commands", ShardRoute::subcommand},
    {"time", 1, cmd_loading | cmd_stale | cmd_fast, time_, 0, 0, 0, "server", "Return the current server time"},
    {"shutdown", -1, cmd_admin | cmd_loading | cmd_stale | cmd_no_multi, shutdown, 0, 0, 0, "server", "Stop the server", ShardRoute::every},
};

}  // namespace

std::span<const Command> server_commands() noexcept { return commands; }

}  // namespace duet::kv
