// List commands that search or move (Redis 7.0's t_list.c): LPOS, LMOVE,
// RPOPLPUSH, LMPOP. The table is in commands_list.cpp.
#include <charconv>
#include <span>
#include <vector>

#include "kv/detail/command_util.hpp"
#include "kv/types/list_commands.hpp"

namespace duet::kv::list_cmd {
namespace {

using detail::equals_ci;

struct LposOptions {
  std::int64_t rank = 1;
  std::int64_t count = -1;  // -1: no COUNT, a single index (or nil) is the reply
  std::int64_t maxlen = 0;  // 0: the whole list
};

// getPositiveLongFromObjectOrReply with LPOS's message for any bad value.
bool non_negative(CommandContext& ctx, std::string_view text, std::int64_t& out, std::string_view message) {
  if (detail::parse_i64(text, out) && out >= 0) return true;
  ctx.reply.error(message);
  return false;
}

bool parse_lpos(CommandContext& ctx, LposOptions& opt) {
  for (std::size_t j = 3; j < ctx.argv.size(); ++j) {
    const bool more = j + 1 < ctx.argv.size();
    if (equals_ci(ctx.argv[j], "rank") && more) {
      if (!detail::int_arg(ctx, ctx.argv[++j], opt.rank)) return false;
      if (opt.rank == 0) {
        ctx.reply.error(
            "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative "
            "to start from the end of the list");
        return false;
      }
    } else if (equals_ci(ctx.argv[j], "count") && more) {
      if (!non_negative(ctx, ctx.argv[++j], opt.count, "ERR COUNT can't be negative")) return false;
    } else if (equals_ci(ctx.argv[j], "maxlen") && more) {
      if (!non_negative(ctx, ctx.argv[++j], opt.maxlen, "ERR MAXLEN can't be negative")) return false;
    } else {
      ctx.reply.error(detail::err_syntax);
      return false;
    }
  }
  return true;
}

}  // namespace

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]
void lpos(CommandContext& ctx) {
  LposOptions opt;
  if (!parse_lpos(ctx, opt)) return;
  Entry* e = read_key(ctx, ctx.argv[1]);
  if (e == nullptr) return opt.count != -1 ? ctx.reply.array(0) : ctx.reply.null();
  if (!detail::check_type(ctx, e, ValueType::list)) return;
  const ListObject& list = list_at(*e);
  // A negative rank searches from the tail; Redis negates LONG_MIN to itself,
  // which then matches from the first match on (the cast keeps that, defined).
  const bool reverse = opt.rank < 0;
  const std::int64_t rank = reverse ? static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(opt.rank)) : opt.rank;
  const std::size_t scan = opt.maxlen == 0 ? list.size() : static_cast<std::size_t>(opt.maxlen);
  std::vector<std::int64_t> found;
  std::int64_t matches = 0;
  list.visit(reverse ? list.size() - 1 : 0, scan, reverse, [&](std::size_t index, std::string_view element) {
    if (element != ctx.argv[2] || ++matches < rank) return true;
    found.push_back(static_cast<std::int64_t>(index));
    // Without COUNT the first qualifying match ends the search; COUNT 0 means all.
    return opt.count > 0 ? static_cast<std::int64_t>(found.size()) < opt.count : opt.count == 0;
  });
  if (opt.count == -1) return found.empty() ? ctx.reply.null() : ctx.reply.integer(found.front());
  ctx.reply.array(found.size());
  for (std::int64_t index : found) ctx.reply.integer(index);
}

namespace {

// lmoveGenericCommand: the source's type, then the destination's, then the move.
void move_generic(CommandContext& ctx, ListEnd from, ListEnd to) {
  Entry* src = ctx.db().find(ctx.argv[1], ctx.now);
  if (src == nullptr) return ctx.reply.null();
  if (!detail::check_type(ctx, src, ValueType::list)) return;
  Entry* dst = ctx.db().find(ctx.argv[2], ctx.now);
  if (!detail::check_type(ctx, dst, ValueType::list)) return;
  std::string element;
  list_at(*src).pop(from, element);
  // Entries never move, so `src` stays valid across creating the destination;
  // when both are one key the list is never empty here (pop, then push).
  ListObject& target = dst != nullptr ? list_at(*dst) : create_list(ctx, ctx.argv[2]);
  target.push(to, element, fill(ctx));
  // Redis's order: the push's event, then the pop's (and the emptied source's "del").
  notify_keyspace_event(ctx, notify_list, to == ListEnd::head ? "lpush" : "rpush", ctx.argv[2]);
  notify_pop(ctx, from, ctx.argv[1]);
  delete_if_empty(ctx, *src, ctx.argv[1]);
  ctx.reply.bulk(element);
}

}  // namespace

// LMOVE source destination LEFT|RIGHT LEFT|RIGHT
void lmove(CommandContext& ctx) {
  ListEnd from = ListEnd::head;
  ListEnd to = ListEnd::head;
  if (!position_arg(ctx, ctx.argv[3], from) || !position_arg(ctx, ctx.argv[4], to)) return;
  move_generic(ctx, from, to);
}

void rpoplpush(CommandContext& ctx) { move_generic(ctx, ListEnd::tail, ListEnd::head); }

// LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]: pops from the first
// non-empty list; logged as LPOP/RPOP key n, as Redis propagates it.
bool parse_mpop(CommandContext& ctx, std::size_t numkeys_at, MpopArgs& out) {
  detail::MpopArgs args;
  if (!detail::parse_mpop(ctx, numkeys_at, "left", "right", args)) return false;
  out.first_key = args.first_key;
  out.where_at = args.where_at;
  out.end = args.first_end ? ListEnd::head : ListEnd::tail;
  out.count = args.count;
  return true;
}

void lmpop(CommandContext& ctx) {
  MpopArgs args;
  if (!parse_mpop(ctx, 1, args)) return;
  const std::size_t where_at = args.where_at;
  const ListEnd end = args.end;
  const std::int64_t count = args.count;
  for (std::size_t k = 2; k < where_at; ++k) {
    Entry* e = ctx.db().find(ctx.argv[k], ctx.now);
    if (e == nullptr) continue;
    if (!detail::check_type(ctx, e, ValueType::list)) return;
    ListObject& list = list_at(*e);
    const std::size_t popped = std::min(list.size(), static_cast<std::size_t>(count));
    char digits[24];
    const char* digits_end = std::to_chars(digits, digits + sizeof(digits), popped).ptr;
    ctx.log_instead({end == ListEnd::head ? "LPOP" : "RPOP", ctx.argv[k],
                     std::string_view(digits, static_cast<std::size_t>(digits_end - digits))});
    ctx.reply.array(2);
    ctx.reply.bulk(ctx.argv[k]);
    pop_range(ctx, list, end, popped);
    notify_pop(ctx, end, ctx.argv[k]);
    delete_if_empty(ctx, *e, ctx.argv[k]);
    return;
  }
  ctx.log_instead(std::span<const std::string_view>{});  // nothing popped: nothing to log
  ctx.reply.null_array();
}

}  // namespace duet::kv::list_cmd
