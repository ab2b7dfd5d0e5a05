// duet::kv::detail — SET/GETEX expiry options, parsed as t_string.c does.
//
// Contract
// - parse_set_options() reads argv[first..] for SET (is_set) or GETEX and
//   replies "ERR syntax error" itself on a bad combination, returning false.
// - resolve_expire() turns the EX/PX/EXAT/PXAT argument into an absolute unix
//   time in ms, replying "ERR value is not an integer or out of range" or
//   "ERR invalid expire time in '<command>' command" and returning false.
//
//   SetOptions opt;
//   if (!parse_set_options(ctx, 3, true, opt) || !resolve_expire(ctx, opt, "set")) return;
#pragma once

#include <cstdint>
#include <string_view>

#include "kv/command_table.hpp"

namespace duet::kv::detail {

enum class ExpireUnit : std::uint8_t { none, ex, px, exat, pxat };

struct SetOptions {
  bool nx = false;
  bool xx = false;
  bool get = false;
  bool keepttl = false;
  bool persist = false;
  ExpireUnit unit = ExpireUnit::none;
  std::string_view expire_arg;
  std::int64_t expire_at = -1;  // absolute ms once resolved
};

[[nodiscard]] bool parse_set_options(CommandContext& ctx, std::size_t first, bool is_set, SetOptions& opt);
[[nodiscard]] bool resolve_expire(CommandContext& ctx, SetOptions& opt, std::string_view command);

}  // namespace duet::kv::detail
