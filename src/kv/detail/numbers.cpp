#include "kv/detail/numbers.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <strings.h>

namespace duet::kv::detail {

bool parse_i64(std::string_view text, std::int64_t& value) noexcept {
  // A port of Redis's string2ll: strict so "01", "+1", " 1" and "-0" fail.
  const char* p = text.data();
  std::size_t len = text.size();
  if (len == 0 || len > 20) return false;
  if (len == 1 && p[0] == '0') {
    value = 0;
    return true;
  }
  bool negative = false;
  std::size_t i = 0;
  if (p[0] == '-') {
    negative = true;
    if (++i == len) return false;
  }
  if (p[i] < '1' || p[i] > '9') return false;
  std::uint64_t v = 0;
  for (; i < len; ++i) {
    if (p[i] < '0' || p[i] > '9') return false;
    std::uint64_t digit = static_cast<std::uint64_t>(p[i] - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return false;
    v = v * 10 + digit;
  }
  if (negative) {
    constexpr std::uint64_t limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1;
    if (v > limit) return false;
    value = v == limit ? std::numeric_limits<std::int64_t>::min() : -static_cast<std::int64_t>(v);
  } else {
    if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
    value = static_cast<std::int64_t>(v);
  }
  return true;
}

bool parse_memory(std::string_view text, std::uint64_t& value) noexcept {
  struct Unit {
    std::string_view suffix;
    std::uint64_t mul;
  };
  constexpr Unit units[] = {{"", 1},        {"b", 1},        {"k", 1000},       {"kb", 1024},
                            {"m", 1000000}, {"mb", 1 << 20}, {"g", 1000000000}, {"gb", 1 << 30}};
  text = text.substr(0, text.find('\0'));  // memtoull reads a C string
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  const std::string_view suffix = text.substr(digits);
  const Unit* unit = nullptr;
  for (const Unit& u : units) {
    if (suffix.size() == u.suffix.size() && strncasecmp(suffix.data(), u.suffix.data(), suffix.size()) == 0) unit = &u;
  }
  if (unit == nullptr || digits >= 128) return false;
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < digits; ++i) {
    std::uint64_t digit = static_cast<std::uint64_t>(text[i] - '0');
    v = v > (UINT64_MAX - digit) / 10 ? UINT64_MAX : v * 10 + digit;  // strtoull saturates
  }
  value = v * unit->mul;  // and Redis multiplies without a check
  return true;
}

bool parse_long_double(std::string_view text, long double& value) noexcept {
  // string2ld: at most 5k chars (MAX_LONG_DOUBLE_CHARS), no leading space, no nan.
  char buf[5 * 1024 + 1];
  if (text.empty() || text.size() >= sizeof(buf)) return false;
  std::memcpy(buf, text.data(), text.size());
  buf[text.size()] = '\0';
  char* end = nullptr;
  errno = 0;
  long double v = std::strtold(buf, &end);
  if (std::isspace(static_cast<unsigned char>(buf[0])) || static_cast<std::size_t>(end - buf) != text.size() ||
      (errno == ERANGE && (v == HUGE_VALL || v == -HUGE_VALL || std::fpclassify(v) == FP_ZERO)) ||
      std::isnan(v)) {
    return false;
  }
  value = v;
  return true;
}

bool format_long_double(long double value, std::string& out) {
  if (std::isinf(value) || std::isnan(value)) return false;
  char buf[5 * 1024 + 64];
  int len = std::snprintf(buf, sizeof(buf), "%.17Lf", value);
  if (len <= 0 || static_cast<std::size_t>(len) >= sizeof(buf)) return false;
  // Remove trailing zeros after the dot, then the dot itself.
  if (std::memchr(buf, '.', static_cast<std::size_t>(len)) != nullptr) {
    char* p = buf + len - 1;
    while (*p == '0') {
      --p;
      --len;
    }
    if (*p == '.') --len;
  }
  if (len == 2 && buf[0] == '-' && buf[1] == '0') {  // "-0" → "0", as Redis does
    buf[0] = '0';
    len = 1;
  }
  out.append(buf, static_cast<std::size_t>(len));
  return true;
}

std::string human_bytes(std::uint64_t n) {
  char buf[32];
  auto d = static_cast<double>(n);
  if (n < 1024) {
    std::snprintf(buf, sizeof(buf), "%lluB", static_cast<unsigned long long>(n));
  } else if (n < 1024 * 1024) {
    std::snprintf(buf, sizeof(buf), "%.2fK", d / 1024);
  } else if (n < 1024ull * 1024 * 1024) {
    std::snprintf(buf, sizeof(buf), "%.2fM", d / (1024 * 1024));
  } else {
    std::snprintf(buf, sizeof(buf), "%.2fG", d / (1024.0 * 1024 * 1024));
  }
  return buf;
}

}  // namespace duet::kv::detail
