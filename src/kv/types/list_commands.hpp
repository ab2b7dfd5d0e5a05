// duet::kv::list_cmd — what the two list command files share: helpers over a
// CommandContext and the handlers commands_list_move.cpp defines for the
// table in commands_list.cpp.
//
// Contract
// - Helpers reply nothing unless they say so; position_arg() replies
//   "ERR syntax error" and returns false on anything but LEFT/RIGHT.
// - The session's thread only, over ctx.db() (a gather job's copies included).
//
//   ListEnd end;
//   if (!list_cmd::position_arg(ctx, ctx.argv[3], end)) return;
#pragma once

#include <cstddef>
#include <string_view>

#include "kv/command_table.hpp"
#include "kv/detail/command_util.hpp"
#include "kv/types/list.hpp"

namespace duet::kv::list_cmd {

// list-max-listpack-size, read at the write.
[[nodiscard]] int fill(CommandContext& ctx) noexcept;
using detail::read_key;  // lookupKeyRead: counts a hit or a miss for INFO stats
// The list an entry known to hold one.
[[nodiscard]] ListObject& list_at(Entry& e) noexcept;
// A new empty list under `key` (absent before).
ListObject& create_list(CommandContext& ctx, std::string_view key);
// Redis's rule: a list left empty deletes its key, with the "del" event
// (after the caller's own event, as listElementsRemoved orders them).
void delete_if_empty(CommandContext& ctx, Entry& e, std::string_view key);
// The event of a pop from `end` ("lpop" or "rpop").
void notify_pop(CommandContext& ctx, ListEnd end, std::string_view key);
// An array of `count` elements from `from`, towards the head when `reverse`.
void reply_range(CommandContext& ctx, const ListObject& list, std::size_t from, std::size_t count, bool reverse);
// Pops up to `count` elements at `end` and replies them, in pop order.
void pop_range(CommandContext& ctx, ListObject& list, ListEnd end, std::size_t count);
bool position_arg(CommandContext& ctx, std::string_view text, ListEnd& end);
// [B]LMPOP's numkeys (at numkeys_at), keys, LEFT|RIGHT and COUNT, checked
// as Redis checks them (an error answered: false).
struct MpopArgs {
  std::size_t first_key = 0;
  std::size_t where_at = 0;
  ListEnd end = ListEnd::head;
  std::int64_t count = 1;
};
bool parse_mpop(CommandContext& ctx, std::size_t numkeys_at, MpopArgs& out);

void lpos(CommandContext& ctx);
void lmove(CommandContext& ctx);
void rpoplpush(CommandContext& ctx);
void lmpop(CommandContext& ctx);

}  // namespace duet::kv::list_cmd
