// Small helpers for the comma lists of HTTP header values (RFC 9110 §5.6):
// trimming optional whitespace, case-insensitive tokens, splitting outside
// quoted strings. Internal to the WebSocket handshake and extension code.
#pragma once

#include <cstddef>
#include <string_view>

namespace duet::detail {

[[nodiscard]] inline std::string_view trim_ows(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

[[nodiscard]] inline bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    char y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// Cuts `list` at the first `sep` outside a quoted string: returns the trimmed
// item and leaves the rest (after the separator) in `list`.
[[nodiscard]] inline std::string_view next_item(std::string_view& list, char sep) noexcept {
  bool quoted = false;
  std::size_t i = 0;
  for (; i < list.size(); ++i) {
    const char c = list[i];
    if (quoted && c == '\\') {
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == sep && !quoted) {
      break;
    }
  }
  const std::string_view item = trim_ows(list.substr(0, i));
  list = i < list.size() ? list.substr(i + 1) : std::string_view{};
  return item;
}

// Calls f(item) for each non-empty item of a comma list (empty items are
// allowed and skipped, RFC 9110 §5.6.1); stops early when f returns false.
template <class F>
bool for_each_item(std::string_view list, F f) {
  while (!list.empty()) {
    const std::string_view item = next_item(list, ',');
    if (!item.empty() && !f(item)) return false;
  }
  return true;
}

}  // namespace duet::detail
