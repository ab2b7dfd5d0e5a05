// Keyspace commands: DEL UNLINK EXISTS TYPE RENAME RENAMENX KEYS SCAN
// RANDOMKEY DBSIZE FLUSHDB FLUSHALL. Keyspace events as db.c: "del" per key
// deleted, RENAME's "new" (the target is deleted and added again),
// "rename_from" and "rename_to", "keymiss" from EXISTS and TYPE; FLUSHDB
// and FLUSHALL fire none (Redis 7.0).
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "kv/command_table.hpp"
#include "kv/detail/command_util.hpp"
#include "kv/glob.hpp"

namespace duet::kv {
namespace {

using detail::equals_ci;

void del(CommandContext& ctx) {
  std::int64_t removed = 0;
  for (std::size_t j = 1; j < ctx.argv.size(); ++j) {
    if (!ctx.db().erase(ctx.argv[j], ctx.now)) continue;
    ++removed;
    notify_keyspace_event(ctx, notify_generic, "del", ctx.argv[j]);
  }
  ctx.reply.integer(removed);
}

void exists(CommandContext& ctx) {
  std::int64_t found = 0;
  for (std::size_t j = 1; j < ctx.argv.size(); ++j) {
    if (ctx.db().find(ctx.argv[j], ctx.now) != nullptr) {
      ++found;
    } else {
      notify_keyspace_event(ctx, notify_key_miss, "keymiss", ctx.argv[j]);
    }
  }
  ctx.reply.integer(found);
}

void type(CommandContext& ctx) {
  const Entry* e = ctx.db().peek(ctx.argv[1], ctx.now);
  if (e == nullptr) notify_keyspace_event(ctx, notify_key_miss, "keymiss", ctx.argv[1]);
  ctx.reply.simple(e != nullptr ? type_name(e->value.type()) : "none");
}

void rename_common(CommandContext& ctx, bool nx) {
  Keyspace& db = ctx.db();
  Entry* src = db.find(ctx.argv[1], ctx.now);
  if (src == nullptr) return ctx.reply.error(detail::err_no_key);
  if (ctx.argv[1] == ctx.argv[2]) return nx ? ctx.reply.integer(0) : ctx.reply.ok();
  bool created = false;
  if (nx && db.find(ctx.argv[2], ctx.now) != nullptr) return ctx.reply.integer(0);
  Entry& dst = db.upsert(ctx.argv[2], ctx.now, created);  // entries never move: src stays valid
  dst.value.swap(src->value);
  db.set_expire(dst, db.expire_at(*src));
  db.erase(*src);
  notify_keyspace_event(ctx, notify_new, "new", ctx.argv[2]);  // Redis deletes a target first: always new
  notify_keyspace_event(ctx, notify_generic, "rename_from", ctx.argv[1]);
  notify_keyspace_event(ctx, notify_generic, "rename_to", ctx.argv[2]);
  nx ? ctx.reply.integer(1) : ctx.reply.ok();
}

void rename(CommandContext& ctx) { rename_common(ctx, false); }
void renamenx(CommandContext& ctx) { rename_common(ctx, true); }

void keys(CommandContext& ctx) {
  std::string_view pattern = ctx.argv[1];
  bool all = pattern == "*";
  std::vector<std::string_view> found;
  ctx.db().scan(0, SIZE_MAX, ctx.now, [&](const Entry& e) {
    if (all || glob_match(pattern, as_view(e.key))) found.push_back(as_view(e.key));
  });
  ctx.reply.array(found.size());
  for (std::string_view key : found) ctx.reply.bulk(key);
}

struct ScanOptions {
  std::int64_t count = 10;
  std::string_view pattern;
  std::string_view type;
  bool has_pattern = false;
  bool has_type = false;
};

bool parse_scan_options(CommandContext& ctx, ScanOptions& opt) {
  auto argv = ctx.argv;
  for (std::size_t i = 2; i < argv.size(); i += 2) {
    bool has_value = argv.size() - i >= 2;
    if (equals_ci(argv[i], "count") && has_value) {
      if (!detail::int_arg(ctx, argv[i + 1], opt.count)) return false;
      if (opt.count < 1) return ctx.reply.error(detail::err_syntax), false;
    } else if (equals_ci(argv[i], "match") && has_value) {
      opt.pattern = argv[i + 1];
      opt.has_pattern = opt.pattern != "*";
    } else if (equals_ci(argv[i], "type") && has_value) {
      opt.type = argv[i + 1];
      opt.has_type = true;
    } else {
      return ctx.reply.error(detail::err_syntax), false;
    }
  }
  return true;
}

void scan(CommandContext& ctx) {
  std::uint64_t cursor = 0;
  if (!detail::parse_scan_cursor(ctx.argv[1], cursor)) return ctx.reply.error("ERR invalid cursor");
  ScanOptions opt;
  if (!parse_scan_options(ctx, opt)) return;
  std::vector<std::string_view> found;
  cursor = ctx.db().scan(cursor, static_cast<std::size_t>(opt.count), ctx.now, [&](const Entry& e) {
    if (opt.has_pattern && !glob_match(opt.pattern, as_view(e.key))) return;
    if (opt.has_type && !equals_ci(opt.type, type_name(e.value.type()))) return;
    found.push_back(as_view(e.key));
  });
  ctx.reply.array(2);
  ctx.reply.bulk(std::to_string(cursor));
  ctx.reply.array(found.size());
  for (std::string_view key : found) ctx.reply.bulk(key);
}

void randomkey(CommandContext& ctx) {
  Entry* e = ctx.db().random(ctx.now, ctx.server.store().next_random());
  if (e == nullptr) return ctx.reply.null();
  ctx.reply.bulk(as_view(e->key));
}

void dbsize(CommandContext& ctx) { ctx.reply.integer(static_cast<std::int64_t>(ctx.db().size())); }

bool flush_mode_ok(CommandContext& ctx) {
  if (ctx.argv.size() > 2 || (ctx.argv.size() == 2 && !equals_ci(ctx.argv[1], "sync") &&
                              !equals_ci(ctx.argv[1], "async"))) {
    ctx.reply.error(detail::err_syntax);
    return false;
  }
  return true;
}

void flushdb(CommandContext& ctx) {
  if (!flush_mode_ok(ctx)) return;
  ctx.db().clear();
  ctx.reply.ok();
}

void flushall(CommandContext& ctx) {
  if (!flush_mode_ok(ctx)) return;
  ctx.server.store().flush_all();
  ctx.reply.ok();
}

constexpr std::uint32_t w = cmd_write;
constexpr std::uint32_t r = cmd_readonly;
constexpr Command commands[] = {
    {"del", -2, w, del, 1, -1, 1, "generic", "Delete a key"},
    {"unlink", -2, w | cmd_fast, del, 1, -1, 1, "generic", "Delete a key (the memory is freed at once here)"},
    {"exists", -2, r | cmd_fast, exists, 1, -1, 1, "generic", "Determine if a key exists"},
    {"type", 2, r | cmd_fast, type, 1, 1, 1, "generic", "Determine the type stored at key"},
    {"rename", 3, w, rename, 1, 2, 1, "generic", "Rename a key", ShardRoute::rename},
    {"renamenx", 3, w | cmd_fast, renamenx, 1, 2, 1, "generic", "Rename a key, only if the new key does not exist", ShardRoute::rename},
    {"keys", 2, r, keys, 0, 0, 0, "generic", "Find all keys matching the given pattern", ShardRoute::every},
    {"scan", -2, r, scan, 0, 0, 0, "generic", "Incrementally iterate the keys space", ShardRoute::scan},
    {"randomkey", 1, r, randomkey, 0, 0, 0, "generic", "Return a random key from the keyspace", ShardRoute::every},
    {"dbsize", 1, r | cmd_fast, dbsize, 0, 0, 0, "server", "Return the number of keys in the selected database", ShardRoute::every},
    {"flushdb", -1, w, flushdb, 0, 0, 0, "server", "Remove all keys from the current database", ShardRoute::every},
    {"flushall", -1, w, flushall, 0, 0, 0, "server", "Remove all keys from all databases", ShardRoute::every},
};

}  // namespace

std::span<const Command> keyspace_commands() noexcept { return commands; }

}  // namespace duet::kv
