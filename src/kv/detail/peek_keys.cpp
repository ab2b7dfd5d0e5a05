// peek_keys: the multibulk grammar's happy path only ("*N\r\n" then N times
// "$L\r\n<L bytes>\r\n"), with plain decimal numbers of at most 18 digits.
#include "kv/detail/peek_keys.hpp"

#include <cstdint>

namespace duet::kv::detail {
namespace {

// Digits then "\r\n" from p; on success sets value, moves p past the CRLF.
bool read_number_line(const char*& p, const char* end, std::int64_t& value) noexcept {
  const char* q = p;
  std::int64_t v = 0;
  while (q != end && *q >= '0' && *q <= '9' && q - p < 18) v = v * 10 + (*q++ - '0');
  if (q == p || end - q < 2 || q[0] != '\r' || q[1] != '\n') return false;
  value = v;
  p = q + 2;
  return true;
}

}  // namespace

std::size_t peek_keys(std::string_view input, std::span<std::string_view> keys, std::size_t& covered) noexcept {
  const char* const begin = input.data();
  const char* const end = begin + input.size();
  const char* p = begin;
  std::size_t found = 0;
  covered = 0;
  for (std::size_t commands = 0; commands < keys.size() && p != end && *p == '*'; ++commands) {
    ++p;
    std::int64_t argc = 0;
    if (!read_number_line(p, end, argc)) break;
    std::string_view key;
    bool whole = true;
    for (std::int64_t i = 0; i < argc && whole; ++i) {
      std::int64_t len = 0;
      whole = p != end && *p++ == '$' && read_number_line(p, end, len) && end - p >= len + 2;
      if (!whole) break;
      if (i == 1) key = std::string_view(p, static_cast<std::size_t>(len));
      p += len + 2;
    }
    if (!whole) break;
    if (argc >= 2) keys[found++] = key;
    covered = static_cast<std::size_t>(p - begin);
  }
  return found;
}

}  // namespace duet::kv::detail
