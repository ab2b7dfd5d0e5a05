// duet::kv::Command — the command table: name → arity, flags, handler.
//
// Contract
// - A handler is a plain function over a CommandContext: it reads ctx.argv
//   (argv[0] is the command name as sent), changes the store or the client, and
//   appends exactly one reply through ctx.reply. It never does I/O and never
//   throws for a bad request: RESP errors are replies.
// - find_command() is case-insensitive and allocation-free; the Session checks
//   arity (Redis's convention: n means exactly n arguments including the name,
//   -n means at least n) and authentication before calling the handler.
// - The table is immutable after static initialisation; any thread may read it.
//
//   if (const Command* cmd = find_command(argv[0])) cmd->handler(ctx);
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <span>
#include <string_view>

#include "kv/reply.hpp"
#include "kv/server_state.hpp"

namespace duet::kv {

enum CommandFlag : std::uint32_t {
  cmd_write = 1u << 0,
  cmd_readonly = 1u << 1,
  cmd_fast = 1u << 2,
  cmd_no_auth = 1u << 3,   // allowed before AUTH
  cmd_admin = 1u << 4,
  cmd_loading = 1u << 5,
  cmd_stale = 1u << 6,
  cmd_denyoom = 1u << 7,   // may grow memory: refused past maxmemory
  cmd_pubsub = 1u << 8,
  cmd_noscript = 1u << 9,
  cmd_allow_busy = 1u << 10,
  // Not reported by COMMAND: how the Session treats the command.
  cmd_subscribed_ok = 1u << 16,  // allowed in a RESP2 subscribed context
  cmd_container = 1u << 17,      // has subcommands: named "name|sub" in errors
  // May change how the commands after it parse (authentication, the bulk
  // limit): the Session parses nothing ahead of it (Session::parse_window).
  cmd_parse_barrier = 1u << 18,
  // Runs at once inside MULTI instead of being queued: EXEC DISCARD MULTI WATCH QUIT RESET.
  cmd_multi_control = 1u << 19,
  // Refused inside MULTI (Redis 7.0's CMD_NO_MULTI: SHUTDOWN ...); reported as "no_multi".
  cmd_no_multi = 1u << 20,
  cmd_blocking = 1u << 21,  // may block the client (BLPOP ...); reported as "blocking"
  cmd_skip_slowlog = 1u << 22,  // EXEC: reported as "skip_slowlog"
};

struct CommandContext {
  ServerState& server;
  ClientInfo& client;
  std::span<const std::string_view> argv;
  Reply reply;
  std::int64_t now;
  // A command whose keys live on several shards runs whole on a store of
  // copies (kv/shard/gather_job.hpp); handlers reach the keys through store().
  Store* scratch = nullptr;

  // A write that the command as sent would not replay to the same data
  // (SPOP's random members, HINCRBYFLOAT's float text) says what it did
  // instead: each log_instead() stages one command, RESP-encoded, and the AOF
  // writes these in place of the one sent (Redis's alsoPropagate). A handler
  // that calls log_instead(std::span<const std::string_view>{}) once logs nothing.
  // Null until then: the bytes live in the state's scratch buffer, so every
  // other command pays one pointer, not a string's construction and destruction.
  std::string* logged_instead = nullptr;
  // Inside EXEC: a blocking command answers as if its timeout had passed
  // (Redis's CLIENT_DENY_BLOCKING).
  bool deny_blocking = false;
  // Not a client's command but a step of the server's own — the AOF loader,
  // a value rebuilt from its records when it moves between shards
  // (ValueRecords::replay), a job's probe (MSETNX's existence check) — so it
  // fires no keyspace events (kv/notify.hpp).
  bool silent = false;

  [[nodiscard]] Store& store() noexcept { return scratch != nullptr ? *scratch : server.store(); }
  [[nodiscard]] Keyspace& db() noexcept { return store().db(client.db); }
  void log_instead(std::span<const std::string_view> command);
  void log_instead(std::initializer_list<std::string_view> command) {
    log_instead(std::span<const std::string_view>(command.begin(), command.size()));
  }
};

using CommandHandler = void (*)(CommandContext&);

// A key that first_key..last_key cannot name, found by parsing the
// arguments (Redis's getkeys_proc): SORT's STORE destination. Returns its
// position in argv, 0 when the command names none.
using KeyFinder = std::size_t (*)(std::span<const std::string_view> argv) noexcept;

// Where a command runs when the keyspace is split over shards (--threads N,
// kv/shard/). `derived` reads the key positions: no keys → the client's own
// shard, one key → the key's shard, several → split by key and gathered.
enum class ShardRoute : std::uint8_t {
  derived,
  here,        // keys that are not keyspace keys (SSUBSCRIBE's shard channels)
  every,       // runs on every shard, replies merged (DBSIZE, KEYS, PUBLISH, ...)
  subcommand,  // CONFIG, CLIENT, PUBSUB: decided by the subcommand
  scan,        // one shard, named by the cursor
  rename,      // two keys that may live on two shards
  msetnx,      // all or nothing over every shard of its keys
  gather,      // keys read and written together (SMOVE, LMOVE, SINTERSTORE, COPY ...): their
               // values are brought to one shard, the command runs there whole, changes go back
  watch,       // WATCH: each key registered on its own shard
  exec,        // EXEC: the queued commands' shards, atomically (kv/multi/, kv/shard/tx_job.hpp)
  blocking,    // BLPOP ...: blocks where the client lives (kv/blocking/)
};

struct Command {
  std::string_view name;      // lower case, as COMMAND reports it
  int arity;
  std::uint32_t flags;
  CommandHandler handler;
  int first_key;              // key positions for COMMAND (0 = no keys)
  int last_key;
  int key_step;
  std::string_view group;     // COMMAND DOCS
  std::string_view summary;
  ShardRoute route = ShardRoute::derived;
  // > 0: the argument that holds the number of keys, which follow it
  // (SINTERCARD, LMPOP: 1); first_key..last_key, if any, are keys besides
  // them (ZUNIONSTORE's destination: numkeys_at 2, first_key = last_key = 1).
  int numkeys_at = 0;
  // Non-null: the command's keys are "movable" (COMMAND says so) and the key
  // it finds is the one it writes (routing, WATCH, blocked clients and the
  // AOF rewrite take it beside first_key..last_key, which it only reads).
  KeyFinder written_key = nullptr;
};

[[nodiscard]] const Command* find_command(std::string_view name) noexcept;
[[nodiscard]] std::span<const Command* const> all_commands() noexcept;

// Each family file defines its part of the table.
std::span<const Command> connection_commands() noexcept;
// CLIENT REPLY | NO-EVICT | UNBLOCK | PAUSE | UNPAUSE (commands_client_flow.cpp); false: not one of them.
bool client_flow_command(CommandContext& ctx, std::string_view sub);
std::span<const Command> string_commands() noexcept;
std::span<const Command> counter_commands() noexcept;
std::span<const Command> keyspace_commands() noexcept;
std::span<const Command> expire_commands() noexcept;
std::span<const Command> server_commands() noexcept;
std::span<const Command> introspection_commands() noexcept;
std::span<const Command> aof_commands() noexcept;  // kv/aof/commands_aof.cpp
std::span<const Command> pubsub_commands() noexcept;
// The type modules' commands (kv/types/): each in its own file.
std::span<const Command> list_commands() noexcept;    // commands_list.cpp
std::span<const Command> hash_commands() noexcept;    // commands_hash.cpp
std::span<const Command> set_commands() noexcept;     // commands_set.cpp
std::span<const Command> zset_commands() noexcept;          // commands_zset.cpp: ZADD ZSCORE ZRANK ...
std::span<const Command> zset_range_commands() noexcept;    // commands_zset_range.cpp: ZRANGE ZREMRANGEBY* ...
std::span<const Command> zset_pop_commands() noexcept;      // commands_zset_pop.cpp: ZPOPMIN ZPOPMAX ZMPOP
std::span<const Command> zset_algebra_commands() noexcept;  // commands_zset_algebra.cpp: ZUNION ZINTER ZDIFF ...
std::span<const Command> zset_random_commands() noexcept;   // commands_zset_random.cpp: ZRANDMEMBER ZSCAN
std::span<const Command> geo_commands() noexcept;     // commands_geo.cpp (searches: commands_geo_search.cpp)
std::span<const Command> bitmap_commands() noexcept;  // commands_bitmap.cpp
std::span<const Command> hll_commands() noexcept;     // commands_hll.cpp: PFADD PFCOUNT PFMERGE
std::span<const Command> object_commands() noexcept;  // commands_object.cpp: OBJECT MEMORY COPY MOVE
std::span<const Command> sort_commands() noexcept;    // commands_sort.cpp: SORT SORT_RO
std::span<const Command> multi_commands() noexcept;     // kv/multi/commands_multi.cpp: MULTI EXEC DISCARD WATCH UNWATCH
std::span<const Command> blocking_commands() noexcept;  // commands_blocking.cpp: BLPOP ... BZPOPMIN BZPOPMAX BZMPOP
std::span<const Command> wait_commands() noexcept;      // commands_client_flow.cpp: WAIT

}  // namespace duet::kv
