// duet::kv::glob_match — Redis's glob (stringmatchlen) without its exponential case.
//
// Contract
// - Same language and quirks as Redis's stringmatchlen: '*' any run, '?' one
//   byte, [abc] [^a-z] classes (reversed ranges swap, '\' escapes, an
//   unterminated '[' runs to the end of the pattern), '\x' a literal byte; an
//   empty subject matches only an empty pattern (KEYS treats a lone "*"
//   specially, as Redis does).
// - Runs in O(pattern × subject) at worst: only the last '*' is ever
//   backtracked to, which is enough because every other token consumes exactly
//   one byte. Redis's recursive matcher takes exponential time on "*?*?*?...x".
// - Pure function; any thread.
//
//   glob_match("user:*", "user:42")          // true
//   glob_match("h[ae]llo", "hillo")         // false
#pragma once

#include <string_view>

namespace duet::kv {

[[nodiscard]] bool glob_match(std::string_view pattern, std::string_view subject, bool nocase = false) noexcept;

}  // namespace duet::kv
