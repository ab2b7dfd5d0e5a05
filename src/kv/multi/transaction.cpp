#include "kv/multi/transaction.hpp"

#include <vector>

#include "kv/aof/aof_propagation.hpp"
#include "kv/blocking/blocking.hpp"
#include "kv/detail/command_util.hpp"
#include "kv/multi/multi_state.hpp"

namespace duet::kv {
namespace {

// Commands whose first key is written and the rest only read.
bool writes_first_key_only(std::string_view name) noexcept {
  return name == "sinterstore" || name == "sunionstore" || name == "sdiffstore" || name == "bitop" ||
         name == "geosearchstore" || name == "zrangestore" || name == "pfmerge";
}

// COPY src dst [DB n]: dst, in database n when given.
void touch_copy_target(CommandContext& ctx) {
  int db = ctx.client.db;
  for (std::size_t j = 3; j + 1 < ctx.argv.size(); ++j) {
    std::int64_t n = 0;
    if (detail::equals_ci(ctx.argv[j], "db") && detail::parse_i64(ctx.argv[j + 1], n) && n >= 0 && n < Store::db_count) {
      db = static_cast<int>(n);
    }
  }
  ctx.store().touch(db, ctx.argv[2]);
}

}  // namespace

void touch_written_keys(const Command& cmd, CommandContext& ctx, std::string_view reply) {
  if (!write_took_effect(cmd, ctx, reply)) return;
  Store& store = ctx.store();
  const int db = ctx.client.db;
  const std::size_t argc = ctx.argv.size();
  if (cmd.name == "copy") return touch_copy_target(ctx);
  if (cmd.name == "move") {
    std::int64_t to = 0;
    store.touch(db, ctx.argv[1]);
    if (detail::parse_i64(ctx.argv[2], to) && to >= 0 && to < Store::db_count) store.touch(static_cast<int>(to), ctx.argv[1]);
    return;
  }
  if (cmd.written_key != nullptr) {  // SORT, GEORADIUS: STORE's destination alone
    if (const std::size_t at = cmd.written_key(ctx.argv); at != 0) store.touch(db, ctx.argv[at]);
    return;
  }
  std::size_t first = static_cast<std::size_t>(cmd.first_key);
  std::size_t end = cmd.last_key < 0 ? argc + 1 + static_cast<std::size_t>(cmd.last_key) : static_cast<std::size_t>(cmd.last_key) + 1;
  std::size_t step = cmd.key_step > 0 ? static_cast<std::size_t>(cmd.key_step) : 1;
  if (cmd.numkeys_at > 0 && first == 0) {  // (ZUNIONSTORE writes only its table key, the destination)
    std::int64_t n = 0;
    const auto at = static_cast<std::size_t>(cmd.numkeys_at);
    if (argc <= at || !detail::parse_i64(ctx.argv[at], n) || n < 1) return;
    first = at + 1;
    end = first + static_cast<std::size_t>(n);
    step = 1;
  }
  if (first == 0) return;
  if (writes_first_key_only(cmd.name)) end = first + 1;
  for (std::size_t i = first; i < end && i < argc; i += step) store.touch(db, ctx.argv[i]);
}

void run_queued(const Command& cmd, CommandContext& ctx, LoggedBlock* log) {
  const bool write = (cmd.flags & cmd_write) != 0;
  WriteObserver* observer = write ? ctx.server.write_observer() : nullptr;
  const std::size_t reply_start = ctx.reply.buffer().size();
  if (observer != nullptr) observer->before_write(cmd, ctx);
  cmd.handler(ctx);
  const std::string_view reply = std::string_view(ctx.reply.buffer()).substr(reply_start);
  if (observer != nullptr && log != nullptr) {
    AofBuffer records;
    translate_write(cmd, ctx, reply, records);
    log->add(ctx.client.db, records.bytes());
  }
  if (write && ctx.store().observed()) [[unlikely]] touch_written_keys(cmd, ctx, reply);
  ++ctx.server.stats().commands_processed;
}

// multi.c execCommand: an aborted queue answers -EXECABORT, a changed watch a
// null array; either way, and after running, the transaction is gone.
void exec_here(CommandContext& ctx) {
  ClientInfo& client = ctx.client;
  MultiState* multi = client.multi.get();
  if (multi == nullptr || !multi->active) return ctx.reply.error(exec_without_multi);
  Store& store = ctx.server.store();
  bool changed = multi->watch_dirty();
  for (const WatchedKey& w : multi->watched) {
    changed = changed || (w.local && store.watched_key_expired(w.db, w.key, multi->ticket_ptr(), ctx.now));
  }
  if (multi->dirty_exec || changed) {
    multi->dirty_exec ? ctx.reply.error(exec_aborted) : ctx.reply.null_array();
    return multi->discard(store);
  }
  std::vector<QueuedCommand> queued = std::move(multi->queued);
  multi->discard(store);  // unwatch before running (Redis: "Unwatch ASAP")
  ctx.reply.array(queued.size());
  LoggedBlock log;
  std::vector<std::string_view> argv;
  for (const QueuedCommand& q : queued) {
    q.argv.views(argv);
    client.last_command = q.command->name;
    CommandContext each{ctx.server, client, argv, Reply(ctx.reply.buffer(), client.resp), ctx.now};
    each.deny_blocking = true;
    run_queued(*q.command, each, &log);
  }
  client.last_command = "exec";
  if (WriteObserver* observer = ctx.server.write_observer()) observer->log_block(log);
  if (store.has_ready()) serve_blocked(ctx.server, ctx.now);  // pushes wake blockers once EXEC is whole
}

}  // namespace duet::kv
