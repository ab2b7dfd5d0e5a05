// duet::kv keyspace notifications — Redis 7.0's notify.c: with
// notify-keyspace-events on for an event's class, each event is published as
// `__keyspace@<db>__:<key>` → event and `__keyevent@<db>__:<event>` → key
// through the server's pub/sub, so subscribers get ordinary message and
// pmessage pushes.
//
// Contract
// - notify_keyspace_event(ctx, class, event, key) is what a handler calls,
//   at the point Redis calls notifyKeyspaceEvent (t_string.c, t_list.c,
//   db.c ...). Off (the class's bit clear in the config) it is one load and
//   one well-predicted branch: nothing is built. A silent step (ctx.silent: the
//   AOF loader, a value moved between shards) fires nothing.
// - notify_event(state, db, ...) is the same without a command (expiry: the
//   server state installs it as each database's event hook).
// - When nobody subscribes to anything, on this shard or (with --threads N)
//   on any other, an enabled event builds nothing either.
// - Across shards: an event reaches this shard's subscribers at once and is
//   staged for the others (state.staged_events()); flush_keyspace_events
//   hands the staged pairs to the relay (kv/event_relay.hpp). Whoever runs a
//   handler calls it after the handler, before the reply can leave the shard
//   (detail::run_command, the shard jobs, the cron), so an event reaches
//   every subscriber before anything its reply causes.
// - parse_notify_flags / format_notify_flags: Redis's
//   keyspaceEventsStringToFlags and keyspaceEventsFlagsToString, for CONFIG
//   and --notify-keyspace-events.
// - The thread of ctx.server / state only.
//
//   notify_keyspace_event(ctx, notify_string, "set", key);
//   if (created) notify_keyspace_event(ctx, notify_new, "new", key);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "kv/command_table.hpp"
#include "kv/event_relay.hpp"

namespace duet::kv {

// Redis 7.0's NOTIFY_* bits (server.h), so a flags word means the same.
enum NotifyClass : std::uint32_t {
  notify_keyspace = 1u << 0,   // K
  notify_keyevent = 1u << 1,   // E
  notify_generic = 1u << 2,    // g
  notify_string = 1u << 3,     // $
  notify_list = 1u << 4,       // l
  notify_set = 1u << 5,        // s
  notify_hash = 1u << 6,       // h
  notify_zset = 1u << 7,       // z
  notify_expired = 1u << 8,    // x
  notify_evicted = 1u << 9,    // e (never fires: the only policy is noeviction)
  notify_stream = 1u << 10,    // t
  notify_key_miss = 1u << 11,  // m (not in A, on purpose)
  notify_module = 1u << 13,    // d
  notify_new = 1u << 14,       // n (not in A either)
  notify_all = notify_generic | notify_string | notify_list | notify_set | notify_hash | notify_zset |
               notify_expired | notify_evicted | notify_stream | notify_module,  // A
};

// "KEA" → the flags; nullopt for a character that names no class.
[[nodiscard]] std::optional<std::uint32_t> parse_notify_flags(std::string_view classes) noexcept;
// The flags as Redis prints them: "A" for every class of A, else each class
// in Redis's order (so "An" prints "A": Redis's own quirk), then K, E, m.
[[nodiscard]] std::string format_notify_flags(std::uint32_t flags);

namespace detail {
// The slow path: the class is enabled.
void publish_event(ServerState& state, std::uint32_t flags, int db, std::string_view event, std::string_view key);
}  // namespace detail

inline void notify_event(ServerState& state, int db, NotifyClass type, std::string_view event, std::string_view key) {
  const std::uint32_t flags = state.config().notify_keyspace_events;
  if ((flags & type) != 0) [[unlikely]] detail::publish_event(state, flags, db, event, key);
}

// `db`: the key's database when it is not the client's (COPY ... DB n, MOVE).
inline void notify_keyspace_event(CommandContext& ctx, NotifyClass type, std::string_view event, std::string_view key,
                                  int db) {
  const std::uint32_t flags = ctx.server.config().notify_keyspace_events;
  if ((flags & type) != 0 && !ctx.silent) [[unlikely]] detail::publish_event(ctx.server, flags, db, event, key);
}

inline void notify_keyspace_event(CommandContext& ctx, NotifyClass type, std::string_view event,
                                  std::string_view key) {
  notify_keyspace_event(ctx, type, event, key, ctx.client.db);
}

// After a handler: the events staged for other shards leave now.
inline void flush_keyspace_events(ServerState& state) {
  if (!state.staged_events().empty()) [[unlikely]] state.event_relay()->send(state.staged_events());
}

// The staged format: per pair, the channel's and the message's length (4
// bytes each, host order: it never leaves the process) and bytes.
void stage_event(std::string& staged, std::string_view channel, std::string_view message);
namespace detail {
std::string_view take_staged(std::string_view& staged) noexcept;
}  // namespace detail

// Calls publish(channel, message) for each staged pair, in order.
template <class Publish>
void for_each_staged(std::string_view staged, Publish&& publish) {
  while (!staged.empty()) {
    const std::string_view channel = detail::take_staged(staged);
    const std::string_view message = detail::take_staged(staged);
    publish(channel, message);
  }
}

}  // namespace duet::kv
