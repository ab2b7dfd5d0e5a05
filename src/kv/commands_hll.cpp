// HyperLogLog commands: PFADD PFCOUNT PFMERGE, as Redis 7.0's hyperloglog.c
// runs them over string values (kv/types/hyperloglog.hpp).
//
// - Every key is checked as isHLLObjectOrReply does: WRONGTYPE for a
//   non-string, "-WRONGTYPE Key is not a valid HyperLogLog string value." for
//   a string without the header, "-INVALIDOBJ ..." for a corrupted body met
//   while working.
// - A touched HLL becomes a raw string, as Redis's dbUnshareStringValue makes
//   it (OBJECT ENCODING answers "raw" after PFADD, PFMERGE's target and even a
//   one-key PFCOUNT).
// - Keyspace events: "new" when PFADD or PFMERGE creates the key, then
//   "pfadd" when PFADD changed a register (or created the key) and after
//   every PFMERGE. Sources are read with lookupKeyRead ("keymiss").
// - A one-key PFCOUNT that recomputes the cached cardinality writes it into
//   the string and touches the key (WATCH sees it, as Redis's
//   signalModifiedKey); PFCOUNT stays a read command, so unlike Redis it is
//   not logged to the AOF: a replay leaves that cache stale, which changes
//   no count.
#include <memory>

#include "kv/detail/command_util.hpp"
#include "kv/types/hyperloglog.hpp"

namespace duet::kv {
namespace {

std::size_t sparse_max(CommandContext& ctx) noexcept {
  return static_cast<std::size_t>(ctx.server.config().hll_sparse_max_bytes);
}

// isHLLObjectOrReply: true when `e` holds an HLL, else replies the error.
bool check_hll(CommandContext& ctx, const Entry& e) {
  if (!e.value.is_string()) {
    ctx.reply.error(detail::err_wrongtype);
    return false;
  }
  Value::Scratch scratch;
  if (hll::is_hll(e.value.str(scratch))) return true;
  ctx.reply.error(hll::err_not_hll);
  return false;
}

void make_raw(Value& v) { v.resize_raw(v.string_size()); }

Entry& create_hll(CommandContext& ctx, std::string_view key) {
  bool created = false;
  Entry& e = ctx.db().upsert(key, ctx.now, created);
  hll::create(e.value);
  notify_keyspace_event(ctx, notify_new, "new", key);
  return e;
}

// Raises `max` to every named HLL (absent keys are empty ones); false after
// an error reply. `any_dense` says whether one of them was dense.
bool merge_all(CommandContext& ctx, std::span<const std::string_view> keys, hll::Registers& max, bool& any_dense) {
  for (std::string_view key : keys) {
    const Entry* e = detail::read_key(ctx, key);
    if (e == nullptr) continue;
    if (!check_hll(ctx, *e)) return false;
    Value::Scratch scratch;
    const std::string_view hll = e->value.str(scratch);
    any_dense = any_dense || hll::encoding_of(hll) == hll::encoding_dense;
    if (!hll::merge(max, hll)) {
      ctx.reply.error(hll::err_corrupted);
      return false;
    }
  }
  return true;
}

// PFADD key [element ...]: 1 when a register changed or the key was created.
void pfadd(CommandContext& ctx) {
  const std::string_view key = ctx.argv[1];
  Entry* e = ctx.db().find(key, ctx.now);
  bool updated = false;
  if (e == nullptr) {
    e = &create_hll(ctx, key);
    updated = true;
  } else {
    if (!check_hll(ctx, *e)) return;
    make_raw(e->value);
  }
  const std::size_t max = sparse_max(ctx);
  for (std::size_t j = 2; j < ctx.argv.size(); ++j) {
    const hll::Change change = hll::add(e->value, ctx.argv[j], max);
    if (change == hll::Change::corrupted) return ctx.reply.error(hll::err_corrupted);
    updated = updated || change == hll::Change::changed;
  }
  if (updated) {
    notify_keyspace_event(ctx, notify_string, "pfadd", key);
    hll::invalidate_cache(e->value);
  }
  ctx.reply.integer(updated ? 1 : 0);
}

// PFCOUNT key [key ...]: one key answers (and refreshes) its cached
// cardinality; several answer their union's, computed on the side.
void pfcount(CommandContext& ctx) {
  if (ctx.argv.size() > 2) {
    auto max = std::make_unique<hll::Registers>();  // 16 KiB: off a fiber's stack
    bool any_dense = false;
    if (!merge_all(ctx, ctx.argv.subspan(1), *max, any_dense)) return;
    return ctx.reply.integer(static_cast<std::int64_t>(hll::count(*max)));
  }
  const std::string_view key = ctx.argv[1];
  Entry* e = detail::read_key(ctx, key);
  if (e == nullptr) return ctx.reply.integer(0);
  if (!check_hll(ctx, *e)) return;
  make_raw(e->value);
  Value::Scratch scratch;
  const std::string_view hll = e->value.str(scratch);
  if (const std::optional<std::uint64_t> cached = hll::cached_count(hll)) {
    return ctx.reply.integer(static_cast<std::int64_t>(*cached));
  }
  const std::optional<std::uint64_t> n = hll::count(hll);
  if (!n) return ctx.reply.error(hll::err_corrupted);
  hll::store_cache(e->value, *n);
  ctx.store().touch(ctx.client.db, key);
  ctx.reply.integer(static_cast<std::int64_t>(*n));
}

// PFMERGE destkey [sourcekey ...]: the union into destkey (itself one of the
// sources), dense if any source was; the target keeps its TTL.
void pfmerge(CommandContext& ctx) {
  auto max = std::make_unique<hll::Registers>();
  bool any_dense = false;
  if (!merge_all(ctx, ctx.argv.subspan(1), *max, any_dense)) return;
  const std::string_view key = ctx.argv[1];
  Entry* e = ctx.db().find(key, ctx.now);
  if (e == nullptr) {
    e = &create_hll(ctx, key);
  } else {
    make_raw(e->value);
  }
  if (any_dense && !hll::make_dense(e->value)) return ctx.reply.error(hll::err_corrupted);
  const std::size_t limit = sparse_max(ctx);
  for (std::size_t i = 0; i < hll::register_count; ++i) {
    // A corrupted target cannot get here: it was merged above as a source.
    if ((*max)[i] != 0) (void)hll::set_register(e->value, i, (*max)[i], limit);
  }
  hll::invalidate_cache(e->value);
  notify_keyspace_event(ctx, notify_string, "pfadd", key);
  ctx.reply.ok();
}

constexpr ShardRoute g = ShardRoute::gather;

constexpr Command commands[] = {
    {"pfadd", -2, cmd_write | cmd_denyoom | cmd_fast, pfadd, 1, 1, 1, "hyperloglog",
     "Adds the specified elements to the specified HyperLogLog."},
    {"pfcount", -2, cmd_readonly, pfcount, 1, -1, 1, "hyperloglog",
     "Return the approximated cardinality of the set(s) observed by the HyperLogLog at key(s).", g},
    {"pfmerge", -2, cmd_write | cmd_denyoom, pfmerge, 1, -1, 1, "hyperloglog",
     "Merge N different HyperLogLogs into a single one.", g},
};

}  // namespace

std::span<const Command> hll_commands() noexcept { return commands; }

}  // namespace duet::kv
