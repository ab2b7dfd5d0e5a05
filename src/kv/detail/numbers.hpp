// duet::kv::detail — number parsing and formatting with Redis's exact rules.
//
// Contract
// - parse_i64 accepts exactly what Redis's string2ll accepts: an optional '-',
//   no '+', no leading zeros (except "0"), no spaces, no "-0", at most 20 chars,
//   no overflow. Protocol lengths and integer arguments both use it.
// - parse_memory follows memtoull (CONFIG SET of memory values): digits and an
//   optional b/k/kb/m/mb/g/gb suffix in any case; stops at a NUL byte; ""
//   and a bare suffix are 0; overflow saturates, then wraps with the unit, as
//   Redis's does.
// - parse_long_double follows string2ld (strtold, no spaces, no nan, the whole
//   string consumed); format_long_double follows ld2string's LD_STR_HUMAN mode
//   (INCRBYFLOAT replies: "%.17Lf" with trailing zeros and dot removed).
// - human_bytes follows bytesToHuman (INFO's *_human fields: "1.50K").
// - Pure functions; any thread.
//
//   std::int64_t v;
//   if (!parse_i64("123", v)) reply_error("value is not an integer or out of range");
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

namespace duet::kv::detail {

[[nodiscard]] bool parse_i64(std::string_view text, std::int64_t& value) noexcept;
[[nodiscard]] bool parse_memory(std::string_view text, std::uint64_t& value) noexcept;
[[nodiscard]] bool parse_long_double(std::string_view text, long double& value) noexcept;
// Appends the human form of `value` to `out`; false for inf/nan (not written).
bool format_long_double(long double value, std::string& out);
[[nodiscard]] std::string human_bytes(std::uint64_t n);

// Redis 7.0's "%.17g" of a double (addReplyDouble; the scores of ZADD
// records), infinities spelled "inf" and "-inf" whatever libc says.
// std::to_chars in general format with precision 17 is specified as printf's
// %.17g in the C locale (8M sampled doubles, 0 differences) and takes a
// fraction of snprintf's time: ZRANGE ... WITHSCORES formats one per element.
inline std::string_view format_double_17g(double value, char (&out)[32]) noexcept {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  const auto end = std::to_chars(out, out + sizeof out, value, std::chars_format::general, 17).ptr;
  return {out, static_cast<std::size_t>(end - out)};
}

}  // namespace duet::kv::detail
