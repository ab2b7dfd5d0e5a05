// duet::kv::set_family — what the two set command files share
// (commands_set.cpp: members and picks; commands_set_algebra.cpp: SINTER,
// SUNION, SDIFF and their STORE forms).
//
// Contract
// - lookup_set() is Redis's lookup + checkType: true with `set` (nullptr
//   when the key is absent) or false after replying WRONGTYPE; `read` makes
//   it lookupKeyRead (hit/miss stats, the "keymiss" event).
// - store_set() is setKey for a computed set: an empty set deletes `key`
//   (event "del"), any other replaces its value and drops its TTL ("new" if
//   it adds the key, then `event`); it replies the new size.
// - Handlers run on the key's shard or, over several shards, on a store of
//   copies (CommandContext::store()).
//
//   SetObject* set = nullptr;
//   if (!set_family::lookup_set(ctx, ctx.argv[1], set)) return;
#pragma once

#include <memory>
#include <string_view>

#include "kv/command_table.hpp"
#include "kv/types/set.hpp"

namespace duet::kv::set_family {

[[nodiscard]] bool lookup_set(CommandContext& ctx, std::string_view key, SetObject*& set, bool read = false);
[[nodiscard]] inline std::int64_t max_intset_entries(CommandContext& ctx) noexcept {
  return ctx.server.config().set_max_intset_entries;
}
void store_set(CommandContext& ctx, std::string_view key, ObjectPtrOf<SetObject> set, std::string_view event);
// A set reply (RESP3 '~') of every member.
void reply_members(CommandContext& ctx, const SetObject& set);

void sinter(CommandContext& ctx);  // also SMEMBERS (Redis 7.0's smembersCommand is sinterCommand)
void sintercard(CommandContext& ctx);
void sinterstore(CommandContext& ctx);
void sunion(CommandContext& ctx);
void sunionstore(CommandContext& ctx);
void sdiff(CommandContext& ctx);
void sdiffstore(CommandContext& ctx);

}  // namespace duet::kv::set_family
