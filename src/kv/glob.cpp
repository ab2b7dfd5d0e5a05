#include "kv/glob.hpp"

#include <cstddef>

namespace duet::kv {
namespace {

char fold(char c, bool nocase) noexcept {
  return (nocase && c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
}

// Matches the class starting just after '[' at `p` against `c`; sets `next` to
// the position after the class.
bool match_class(std::string_view pat, std::size_t p, char c, bool nocase, std::size_t& next) noexcept {
  const std::size_t m = pat.size();
  bool negate = p < m && pat[p] == '^';
  if (negate) ++p;
  bool match = false;
  c = fold(c, nocase);
  while (true) {
    if (p < m && pat[p] == '\\' && m - p >= 2) {
      ++p;
      if (fold(pat[p], nocase) == c) match = true;
    } else if (p < m && pat[p] == ']') {
      break;
    } else if (p >= m) {
      --p;  // unterminated: the class ends with the pattern
      break;
    } else if (m - p >= 3 && pat[p + 1] == '-') {
      auto lo = static_cast<signed char>(fold(pat[p], nocase));
      auto hi = static_cast<signed char>(fold(pat[p + 2], nocase));
      if (lo > hi) std::swap(lo, hi);
      auto sc = static_cast<signed char>(c);
      if (sc >= lo && sc <= hi) match = true;
      p += 2;
    } else if (fold(pat[p], nocase) == c) {
      match = true;
    }
    ++p;
  }
  next = p + 1;
  return negate ? !match : match;
}

// One non-'*' token at `p` against byte `c`.
bool match_token(std::string_view pat, std::size_t p, char c, bool nocase, std::size_t& next) noexcept {
  switch (pat[p]) {
    case '?':
      next = p + 1;
      return true;
    case '[':
      return match_class(pat, p + 1, c, nocase, next);
    case '\\':
      if (pat.size() - p >= 2) ++p;
      [[fallthrough]];
    default:
      next = p + 1;
      return fold(pat[p], nocase) == fold(c, nocase);
  }
}

}  // namespace

bool glob_match(std::string_view pat, std::string_view str, bool nocase) noexcept {
  if (str.empty()) return pat.empty();
  const std::size_t m = pat.size();
  std::size_t p = 0;
  std::size_t s = 0;
  std::size_t star_p = std::string_view::npos;  // pattern position after the last '*'
  std::size_t star_s = 0;                       // subject position that star resumes from
  while (s < str.size()) {
    if (p < m && pat[p] == '*') {
      while (p < m && pat[p] == '*') ++p;
      if (p == m) return true;
      star_p = p;
      star_s = s;
      continue;
    }
    std::size_t next = 0;
    if (p < m && match_token(pat, p, str[s], nocase, next)) {
      p = next;
      ++s;
      continue;
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p;
    s = ++star_s;
  }
  while (p < m && pat[p] == '*') ++p;
  return p == m;
}

}  // namespace duet::kv
