// BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP (Redis 7.0's t_list.c) and BZPOPMIN
// BZPOPMAX BZMPOP (t_zset.c): a key that holds a list (a sorted set) is
// served at once by the non-blocking command's own handler (and logged as
// it: LPOP, LMOVE, LPOP key n, ZPOPMIN key n); else the client blocks
// (kv/blocking/blocking.hpp) until a push serves it, its timeout passes or
// it goes. Inside MULTI (and on a copy of a client) nothing blocks: the
// command answers as if its timeout had passed.
#include <string>
#include <vector>

#include "kv/blocking/block_claim.hpp"
#include "kv/blocking/blocking.hpp"
#include "kv/client_registry.hpp"
#include "kv/command_table.hpp"
#include "kv/detail/command_util.hpp"
#include "kv/types/list_commands.hpp"

namespace duet::kv {
namespace {

bool may_block(const CommandContext& ctx) noexcept { return ctx.client.can_block && !ctx.deny_blocking; }

// A stand-in for a client blocked on keys of several shards answers (pops,
// or reports WRONGTYPE) only if it wins the client; else it answers nothing
// and the other shard's answer is the client's (kv/shard/multi_block.hpp).
bool wins_client(const CommandContext& ctx) noexcept {
  const BlockState* b = ctx.client.block.get();
  return b == nullptr || b->claim == nullptr || b->claim->take(b->claim_by);
}

// Runs the non-blocking command `argv` as this one, into `out`, and logs it in
// this command's place.
void run_instead(CommandContext& ctx, std::span<const std::string_view> argv, std::string& out) {
  CommandContext inner{ctx.server, ctx.client, argv, Reply(out, ctx.client.resp), ctx.now, ctx.scratch};
  inner.silent = ctx.silent;  // on a gathered job's copies, or replayed: as the command itself
  find_command(argv[0])->handler(inner);
  if (inner.logged_instead != nullptr) {
    ctx.logged_instead = inner.logged_instead;  // LMPOP said what it did
  } else if (out.front() != '-' && out != "$-1\r\n" && out != "_\r\n") {
    ctx.log_instead(argv);
  } else {
    ctx.log_instead(std::span<const std::string_view>{});
  }
}

// BLPOP/BRPOP and BZPOPMIN/BZPOPMAX key [key ...] timeout: the first key
// that exists is served by the plain pop's handler (LPOP, ZPOPMIN) and
// logged as it (WRONGTYPE if it holds another type); the reply puts the key
// in front: [key, element] or [key, member, score] (blockingGenericZpopCommand's
// flat shape).
void blocking_pop(CommandContext& ctx, bool first_end, bool zset) {
  std::int64_t deadline = 0;
  if (!parse_timeout(ctx, ctx.argv.back(), deadline)) return;
  const std::size_t last = ctx.argv.size() - 1;
  for (std::size_t k = 1; k < last; ++k) {
    Entry* e = ctx.db().find(ctx.argv[k], ctx.now);
    if (e == nullptr) continue;
    if (!wins_client(ctx)) return;
    if (!detail::check_type(ctx, e, zset ? ValueType::zset : ValueType::list)) return;
    const std::string_view pop[] = {zset ? (first_end ? "zpopmin" : "zpopmax") : (first_end ? "lpop" : "rpop"),
                                    ctx.argv[k]};
    std::string out;  // an element, or ZPOPMIN's flat [member, score]
    run_instead(ctx, pop, out);
    ctx.reply.array(zset ? 3 : 2);
    ctx.reply.bulk(ctx.argv[k]);
    ctx.reply.buffer().append(zset ? std::string_view(out).substr(out.find('\n') + 1) : std::string_view(out));
    return;
  }
  if (!may_block(ctx)) return ctx.reply.null_array();
  BlockRequest r;
  r.kind = zset ? BlockRequest::Kind::zpop : BlockRequest::Kind::pop;
  r.left = first_end;
  for (std::size_t k = 1; k < last; ++k) r.keys.emplace_back(ctx.argv[k]);
  block_client(ctx, std::move(r), deadline);
}

void blpop(CommandContext& ctx) { blocking_pop(ctx, true, false); }
void brpop(CommandContext& ctx) { blocking_pop(ctx, false, false); }

// BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout, and BRPOPLPUSH.
void blocking_move(CommandContext& ctx, ListEnd from, ListEnd to, std::string_view timeout) {
  std::int64_t deadline = 0;
  if (!parse_timeout(ctx, timeout, deadline)) return;
  Entry* src = ctx.db().find(ctx.argv[1], ctx.now);
  if (!detail::check_type(ctx, src, ValueType::list)) return;
  if (src != nullptr) {
    if (ctx.client.block != nullptr && ctx.client.block->ready_only) [[unlikely]] return ctx.reply.simple("READY");
    const std::string_view move[] = {"lmove", ctx.argv[1], ctx.argv[2], from == ListEnd::head ? "left" : "right",
                                     to == ListEnd::head ? "left" : "right"};
    std::string out;
    run_instead(ctx, move, out);
    ctx.reply.buffer().append(out);
    return;
  }
  // Inside MULTI Redis answers a null bulk (CLIENT_DENY_BLOCKING); a client
  // that cannot wait here (a cross-shard copy) answers as a timeout does.
  if (!may_block(ctx)) return ctx.deny_blocking ? ctx.reply.null() : ctx.reply.null_array();
  BlockRequest r;
  r.kind = BlockRequest::Kind::move;
  r.left = from == ListEnd::head;
  r.to_left = to == ListEnd::head;
  r.dest = std::string(ctx.argv[2]);
  r.keys.emplace_back(ctx.argv[1]);
  block_client(ctx, std::move(r), deadline);
}

void blmove(CommandContext& ctx) {
  ListEnd from = ListEnd::head;
  ListEnd to = ListEnd::head;
  if (!list_cmd::position_arg(ctx, ctx.argv[3], from) || !list_cmd::position_arg(ctx, ctx.argv[4], to)) return;
  blocking_move(ctx, from, to, ctx.argv[5]);
}

void brpoplpush(CommandContext& ctx) { blocking_move(ctx, ListEnd::tail, ListEnd::head, ctx.argv[3]); }

// BLMPOP / BZMPOP timeout numkeys key [key ...] LEFT|RIGHT / MIN|MAX [COUNT count]:
// served by LMPOP's / ZMPOP's handler over the same arguments.
struct MpopKind {
  ValueType type;
  std::string_view command;  // the plain form
  std::string_view first_end, second_end;
  BlockRequest::Kind kind;
};

void blocking_mpop(CommandContext& ctx, const MpopKind& m) {
  detail::MpopArgs args;
  if (!detail::parse_mpop(ctx, 2, m.first_end, m.second_end, args)) return;
  std::int64_t deadline = 0;
  if (!parse_timeout(ctx, ctx.argv[1], deadline)) return;
  for (std::size_t k = args.first_key; k < args.where_at; ++k) {
    Entry* e = ctx.db().find(ctx.argv[k], ctx.now);
    if (e == nullptr) continue;
    if (!wins_client(ctx)) return;
    if (!detail::check_type(ctx, e, m.type)) return;
    std::vector<std::string_view> plain{m.command};
    plain.insert(plain.end(), ctx.argv.begin() + 2, ctx.argv.end());
    std::string out;
    run_instead(ctx, plain, out);
    ctx.reply.buffer().append(out);
    return;
  }
  if (!may_block(ctx)) return ctx.reply.null_array();
  BlockRequest r;
  r.kind = m.kind;
  r.left = args.first_end;
  r.count = args.count;
  for (std::size_t k = args.first_key; k < args.where_at; ++k) r.keys.emplace_back(ctx.argv[k]);
  block_client(ctx, std::move(r), deadline);
}

void blmpop(CommandContext& ctx) {
  blocking_mpop(ctx, {ValueType::list, "lmpop", "left", "right", BlockRequest::Kind::mpop});
}

void bzpopmin(CommandContext& ctx) { blocking_pop(ctx, true, true); }
void bzpopmax(CommandContext& ctx) { blocking_pop(ctx, false, true); }

void bzmpop(CommandContext& ctx) {
  blocking_mpop(ctx, {ValueType::zset, "zmpop", "min", "max", BlockRequest::Kind::zmpop});
}

constexpr std::uint32_t wb = cmd_write | cmd_noscript | cmd_blocking;

constexpr Command commands[] = {
    {"blpop", -3, wb, blpop, 1, -2, 1, "list",
     "Remove and get the first element in a list, or block until one is available", ShardRoute::blocking},
    {"brpop", -3, wb, brpop, 1, -2, 1, "list",
     "Remove and get the last element in a list, or block until one is available", ShardRoute::blocking},
    {"blmove", 6, wb | cmd_denyoom, blmove, 1, 2, 1, "list",
     "Pop an element from a list, push it to another list and return it; or block until one is available",
     ShardRoute::blocking},
    {"brpoplpush", 4, wb | cmd_denyoom, brpoplpush, 1, 2, 1, "list",
     "Pop an element from a list, push it to another list and return it; or block until one is available",
     ShardRoute::blocking},
    {"blmpop", -5, cmd_write | cmd_blocking, blmpop, 0, 0, 0, "list",
     "Pop elements from a list, or block until one is available", ShardRoute::blocking, 2},
    {"bzpopmin", -3, wb | cmd_fast, bzpopmin, 1, -2, 1, "sorted-set",
     "Remove and return the member with the lowest score from one or more sorted sets, or block until one is "
     "available",
     ShardRoute::blocking},
    {"bzpopmax", -3, wb | cmd_fast, bzpopmax, 1, -2, 1, "sorted-set",
     "Remove and return the member with the highest score from one or more sorted sets, or block until one is "
     "available",
     ShardRoute::blocking},
    {"bzmpop", -5, cmd_write | cmd_blocking, bzmpop, 0, 0, 0, "sorted-set",
     "Remove and return members with scores in a sorted set or block until one is available", ShardRoute::blocking,
     2},
};

}  // namespace

std::span<const Command> blocking_commands() noexcept { return commands; }

}  // namespace duet::kv
