// Commands over a key's value whatever its type: OBJECT MEMORY COPY MOVE.
#include <climits>
#include <string>

#include "kv/command_table.hpp"
#include "kv/detail/command_util.hpp"

namespace duet::kv {
namespace {

using detail::equals_ci;

constexpr std::string_view err_same = "ERR source and destination objects are the same";
constexpr std::string_view err_db_range = "ERR DB index is out of range";
// Redis shares the integer objects 0..9999 (OBJ_SHARED_INTEGERS) between keys
// while no maxmemory policy needs per-key LRU/LFU data, and reports their
// refcount as OBJ_SHARED_REFCOUNT. duet keeps every small integer inside its
// entry, which is the same saving; it answers as Redis does.
constexpr std::int64_t shared_integers = 10000;
constexpr std::int64_t shared_refcount = INT_MAX;

// addReplyHelp: the lines are status replies.
void reply_lines(CommandContext& ctx, std::span<const std::string_view> lines) {
  ctx.reply.array(lines.size());
  for (std::string_view line : lines) ctx.reply.simple(line);
}

constexpr std::string_view object_help[] = {
    "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "ENCODING <key>",
    "    Return the kind of internal representation used in order to store the value",
    "    associated with a <key>.",
    "FREQ <key>",
    "    Return the access frequency index of the <key>. The returned integer is",
    "    proportional to the logarithm of the recent access frequency of the key.",
    "IDLETIME <key>",
    "    Return the idle time of the <key>, that is the approximated number of",
    "    seconds elapsed since the last access to the key.",
    "REFCOUNT <key>",
    "    Return the number of references of the value associated with the specified",
    "    <key>.",
    "HELP",
    "    Prints this help.",
};

std::int64_t refcount(const Value& value) {
  std::int64_t n = 0;
  return value.int_value(n) && n >= 0 && n < shared_integers ? shared_refcount : 1;
}

// estimateObjectIdleTime in seconds, over a 24-bit seconds clock that wraps.
std::int64_t idle_seconds(const Entry& e, std::int64_t now) {
  const std::uint32_t clock = Entry::lru_clock(now);
  return clock >= e.lru ? clock - e.lru : clock + (Entry::lru_mask + 1) - e.lru;
}

// A known subcommand with the wrong count: "... for 'object|encoding' command".
void subcommand_arity(CommandContext& ctx, std::string_view container) {
  std::string name(container);
  name.push_back('|');
  detail::append_lower(name, ctx.argv[1]);
  detail::wrong_arity(ctx, name);
}

void object(CommandContext& ctx) {
  const std::string_view sub = ctx.argv[1];
  if (equals_ci(sub, "help")) return ctx.argv.size() == 2 ? reply_lines(ctx, object_help) : subcommand_arity(ctx, "object");
  const bool known = equals_ci(sub, "encoding") || equals_ci(sub, "refcount") || equals_ci(sub, "idletime") ||
                     equals_ci(sub, "freq");
  if (!known) return detail::unknown_subcommand(ctx, "OBJECT");
  if (ctx.argv.size() != 3) return subcommand_arity(ctx, "object");
  const Entry* e = ctx.db().peek(ctx.argv[2], ctx.now);  // LOOKUP_NOTOUCH: asking does not touch
  if (e == nullptr) return ctx.reply.null();
  if (equals_ci(sub, "encoding")) return ctx.reply.bulk(e->value.encoding());
  if (equals_ci(sub, "refcount")) return ctx.reply.integer(refcount(e->value));
  if (equals_ci(sub, "idletime")) return ctx.reply.integer(idle_seconds(*e, ctx.now));
  ctx.reply.error(
      "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when "
      "switching between policies at runtime LRU and LFU data will take some time to adjust.");
}

constexpr std::string_view memory_help[] = {
    "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "USAGE <key> [SAMPLES <count>]",
    "    Return memory in bytes used by <key> and its value. Nested values are",
    "    sampled up to <count> times (default: 5, 0 means sample all).",
    "HELP",
    "    Prints this help.",
};

// What the key costs here: its entry, its share of the index (a 4-byte slot
// number and a control byte), its expiry if any, and what key and value hold
// on the heap. Exact, not sampled: SAMPLES is accepted and ignored.
std::size_t key_memory(const Keyspace& db, const Entry& e) {
  std::size_t bytes = sizeof(Entry) + sizeof(std::uint32_t) + 1 + e.key.allocated() + e.value.allocated();
  if (db.expire_at(e) != Entry::no_expiry) bytes += sizeof(std::int64_t) + 2 * sizeof(std::uint32_t) + 1;
  return bytes;
}

void memory(CommandContext& ctx) {
  const std::string_view sub = ctx.argv[1];
  if (equals_ci(sub, "help")) return ctx.argv.size() == 2 ? reply_lines(ctx, memory_help) : subcommand_arity(ctx, "memory");
  if (!equals_ci(sub, "usage")) return detail::unknown_subcommand(ctx, "MEMORY");
  if (ctx.argv.size() < 3) return subcommand_arity(ctx, "memory");
  for (std::size_t j = 3; j < ctx.argv.size(); j += 2) {
    std::int64_t samples = 0;
    if (!equals_ci(ctx.argv[j], "samples") || j + 1 >= ctx.argv.size()) return ctx.reply.error(detail::err_syntax);
    if (!detail::int_arg(ctx, ctx.argv[j + 1], samples)) return;
  }
  const Entry* e = ctx.db().peek(ctx.argv[2], ctx.now);
  if (e == nullptr) return ctx.reply.null();
  ctx.reply.integer(static_cast<std::int64_t>(key_memory(ctx.db(), *e)));
}

// getIntFromObjectOrReply then selectDb.
bool db_arg(CommandContext& ctx, std::string_view text, int& db) {
  std::int64_t n = 0;
  if (!detail::int_arg(ctx, text, n)) return false;
  if (n < INT_MIN || n > INT_MAX) return ctx.reply.error(detail::err_not_integer), false;
  if (n < 0 || n >= Store::db_count) return ctx.reply.error(err_db_range), false;
  db = static_cast<int>(n);
  return true;
}

// COPY source destination [DB destination-db] [REPLACE]
void copy(CommandContext& ctx) {
  int dst_db = ctx.client.db;
  bool replace = false;
  for (std::size_t j = 3; j < ctx.argv.size(); ++j) {
    if (equals_ci(ctx.argv[j], "replace")) {
      replace = true;
    } else if (equals_ci(ctx.argv[j], "db") && j + 1 < ctx.argv.size()) {
      if (!db_arg(ctx, ctx.argv[++j], dst_db)) return;
    } else {
      return ctx.reply.error(detail::err_syntax);
    }
  }
  if (dst_db == ctx.client.db && ctx.argv[1] == ctx.argv[2]) return ctx.reply.error(err_same);
  Keyspace& src_keys = ctx.db();
  const Entry* src = detail::read_key(ctx, ctx.argv[1]);  // lookupKeyRead: stats, "keymiss"
  if (src == nullptr) return ctx.reply.integer(0);
  Keyspace& dst_keys = ctx.store().db(dst_db);
  if (dst_keys.find(ctx.argv[2], ctx.now) != nullptr && !replace) return ctx.reply.integer(0);
  Value copy = src->value.clone();
  const std::int64_t expire_at = src_keys.expire_at(*src);
  bool created = false;
  Entry& dst = dst_keys.upsert(ctx.argv[2], ctx.now, created);  // entries never move: src stays valid
  dst.value = std::move(copy);
  dst_keys.set_expire(dst, expire_at);
  notify_keyspace_event(ctx, notify_new, "new", ctx.argv[2], dst_db);  // a replaced target is deleted first
  notify_keyspace_event(ctx, notify_generic, "copy_to", ctx.argv[2], dst_db);
  ctx.reply.integer(1);
}

// MOVE key db
void move(CommandContext& ctx) {
  int dst_db = 0;
  if (!db_arg(ctx, ctx.argv[2], dst_db)) return;
  if (dst_db == ctx.client.db) return ctx.reply.error(err_same);
  Keyspace& src_keys = ctx.db();
  Entry* src = src_keys.find(ctx.argv[1], ctx.now);
  if (src == nullptr) return ctx.reply.integer(0);
  Keyspace& dst_keys = ctx.store().db(dst_db);
  if (dst_keys.find(ctx.argv[1], ctx.now) != nullptr) return ctx.reply.integer(0);
  bool created = false;
  Entry& dst = dst_keys.upsert(ctx.argv[1], ctx.now, created);
  dst.value.swap(src->value);
  dst_keys.set_expire(dst, src_keys.expire_at(*src));
  src_keys.erase(*src);
  notify_keyspace_event(ctx, notify_new, "new", ctx.argv[1], dst_db);
  notify_keyspace_event(ctx, notify_generic, "move_from", ctx.argv[1]);
  notify_keyspace_event(ctx, notify_generic, "move_to", ctx.argv[1], dst_db);
  ctx.reply.integer(1);
}

constexpr Command commands[] = {
    {"object", -2, cmd_readonly | cmd_container, object, 0, 0, 0, "generic",
     "A container for object introspection commands", ShardRoute::subcommand},
    {"memory", -2, cmd_readonly | cmd_container, memory, 0, 0, 0, "server",
     "A container for memory diagnostics commands", ShardRoute::subcommand},
    {"copy", -3, cmd_write | cmd_denyoom, copy, 1, 2, 1, "generic", "Copy a key", ShardRoute::gather},
    {"move", 3, cmd_write | cmd_fast, move, 1, 1, 1, "generic", "Move a key to another database"},
};

}  // namespace

std::span<const Command> object_commands() noexcept { return commands; }

}  // namespace duet::kv
