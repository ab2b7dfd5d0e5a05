// duet::http::detail — the character classes of RFC 9110 §5.6 and RFC 9112,
// shared by the request parser and the response writer.
//
// Contract
// - Pure functions over bytes, constexpr tables, no state: any thread.
// - tchar: the token characters of a method, a field name, a coding;
//   field-vchar: what a field value may hold besides SP and HTAB
//   (VCHAR and obs-text, 0x80-0xFF); everything else below 0x20, and DEL,
//   is a control character that a value may not carry (bare CR among them).
//
//   if (!detail::is_token(name)) reject();
//   if (detail::iequals(name, "content-length")) ...
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace duet::http::detail {

constexpr std::array<bool, 256> make_tchar_table() noexcept {
  std::array<bool, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (int c = 'a'; c <= 'z'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (int c = 'A'; c <= 'Z'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (char c : std::string_view("!#$%&'*+-.^_`|~")) t[static_cast<unsigned char>(c)] = true;
  return t;
}

inline constexpr std::array<bool, 256> tchar_table = make_tchar_table();

constexpr bool is_tchar(char c) noexcept { return tchar_table[static_cast<unsigned char>(c)]; }

constexpr bool is_token(std::string_view s) noexcept {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_tchar(c)) return false;
  return true;
}

// SP, HTAB, VCHAR or obs-text: what may appear inside a field value.
constexpr bool is_field_char(char c) noexcept {
  auto u = static_cast<unsigned char>(c);
  return u == '\t' || (u >= 0x20 && u != 0x7f);
}

constexpr bool is_ows(char c) noexcept { return c == ' ' || c == '\t'; }

constexpr std::string_view trim_ows(std::string_view s) noexcept {
  while (!s.empty() && is_ows(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_ows(s.back())) s.remove_suffix(1);
  return s;
}

constexpr char ascii_lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }

// Case-insensitive ASCII comparison (field names, codings, connection options).
constexpr bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  return true;
}

// Value of a hexadecimal digit, or -1.
constexpr int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Calls f(element) for each non-empty, OWS-trimmed element of a
// comma-separated list (RFC 9110 §5.6.1: empty elements are ignored).
template <typename F>
constexpr void for_each_list_element(std::string_view list, F&& f) {
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    std::string_view element = trim_ows(list.substr(0, comma));
    if (!element.empty()) f(element);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
}

}  // namespace duet::http::detail
