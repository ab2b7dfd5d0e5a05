// duet::kv::detail — small helpers shared by the command families.
//
// Contract
// - Argument parsers reply the Redis error themselves and return false, so a
//   handler reads:  if (!int_arg(ctx, ctx.argv[2], n)) return;
// - Pure helpers over a CommandContext; the session's thread only.
//
//   if (equals_ci(ctx.argv[3], "nx")) nx = true;
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "kv/command_table.hpp"
#include "kv/detail/numbers.hpp"
#include "kv/notify.hpp"

namespace duet::kv::detail {

inline constexpr std::string_view err_syntax = "ERR syntax error";
inline constexpr std::string_view err_not_integer = "ERR value is not an integer or out of range";
inline constexpr std::string_view err_not_float = "ERR value is not a valid float";
inline constexpr std::string_view err_no_key = "ERR no such key";
inline constexpr std::string_view err_overflow = "ERR increment or decrement would overflow";
inline constexpr std::string_view err_wrongtype = "WRONGTYPE Operation against a key holding the wrong kind of value";

[[nodiscard]] inline bool equals_ci(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    char y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x + 32);
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y + 32);
    if (x != y) return false;
  }
  return true;
}

[[nodiscard]] inline bool int_arg(CommandContext& ctx, std::string_view text, std::int64_t& value) {
  if (parse_i64(text, value)) return true;
  ctx.reply.error(err_not_integer);
  return false;
}

// Redis's lookupKeyRead: the key's entry, counting a hit or a miss for INFO
// stats; a miss is the keyspace event "keymiss".
[[nodiscard]] inline Entry* read_key(CommandContext& ctx, std::string_view key) {
  Entry* e = ctx.db().find(key, ctx.now);
  if (e != nullptr) {
    ++ctx.server.stats().keyspace_hits;
  } else {
    ++ctx.server.stats().keyspace_misses;
    notify_keyspace_event(ctx, notify_key_miss, "keymiss", key);
  }
  return e;
}

// Redis's checkType: true when `e` is absent or holds `type`; otherwise
// replies WRONGTYPE and returns false.
[[nodiscard]] inline bool check_type(CommandContext& ctx, const Entry* e, ValueType type) {
  if (e == nullptr || e->value.type() == type) return true;
  ctx.reply.error(err_wrongtype);
  return false;
}

inline void wrong_arity(CommandContext& ctx, std::string_view full_name) {
  std::string message = "ERR wrong number of arguments for '";
  message.append(full_name).append("' command");
  ctx.reply.error(message);
}

// "ERR unknown subcommand 'x'. Try CONFIG HELP." (subcommand cut at 128 bytes)
void unknown_subcommand(CommandContext& ctx, std::string_view command_upper);

// CONFIG GET/SET (commands_config.cpp); COMMAND (commands_introspection.cpp).
void config_command(CommandContext& ctx);

// Appends the lower-case form of `text` to `out`.
void append_lower(std::string& out, std::string_view text);

// parseScanCursorOrReply (SCAN, HSCAN, SSCAN): strtoul over the argument as a
// C string, so leading zeros, "+1" and "" (0) are accepted, "-1" wraps, a NUL
// byte ends the cursor, and only a leading space, trailing junk or overflow
// are refused (false).
[[nodiscard]] bool parse_scan_cursor(std::string_view text, std::uint64_t& cursor);

// HSCAN/SSCAN's options from argv[3] on (scanGenericCommand): COUNT n (>= 1)
// and MATCH pattern ("*" matches all without a pattern); false after replying
// the error.
struct ScanArgs {
  std::int64_t count = 10;
  std::string_view pattern;
  bool has_pattern = false;
};
[[nodiscard]] bool parse_scan_args(CommandContext& ctx, ScanArgs& args);

// [B]LMPOP's and [B]ZMPOP's arguments from argv[numkeys_at]: numkeys (>= 1),
// the keys, `first_end` or `second_end` (LEFT|RIGHT, MIN|MAX) and an optional
// COUNT (>= 1), checked in Redis's order with its errors (false after one).
struct MpopArgs {
  std::size_t first_key = 0;
  std::size_t where_at = 0;  // the end word's index: the keys are [first_key, where_at)
  bool first_end = true;
  std::int64_t count = 1;
};
[[nodiscard]] bool parse_mpop(CommandContext& ctx, std::size_t numkeys_at, std::string_view first_end,
                              std::string_view second_end, MpopArgs& out);

}  // namespace duet::kv::detail
