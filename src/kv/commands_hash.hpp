// What the two hash command files share (commands_hash.cpp holds the table and
// the field commands, commands_hash_random.cpp HRANDFIELD and HSCAN).
//
// Contract
// - read_hash looks the key up as Redis's lookupKeyRead (hit/miss counted) and
//   replies WRONGTYPE (ok = false) if it holds another type.
// - The session's thread only, as every handler.
//
//   bool ok = true;
//   const HashObject* h = hash_of(read_hash(ctx, ctx.argv[1], ok));
//   if (!ok) return;
#pragma once

#include <string_view>

#include "kv/command_table.hpp"
#include "kv/types/hash.hpp"

namespace duet::kv::hash_cmd {

Entry* read_hash(CommandContext& ctx, std::string_view key, bool& ok);
[[nodiscard]] const HashObject* hash_of(const Entry* e) noexcept;

void hrandfield(CommandContext& ctx);  // HRANDFIELD key [count [WITHVALUES]]
void hscan(CommandContext& ctx);       // HSCAN key cursor [MATCH pattern] [COUNT count]

}  // namespace duet::kv::hash_cmd
