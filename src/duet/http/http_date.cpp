#include "duet/http/http_date.hpp"

namespace duet::http {

namespace {

void two_digits(char* p, int v) noexcept {
  p[0] = static_cast<char>('0' + v / 10);
  p[1] = static_cast<char>('0' + v % 10);
}

}  // namespace

std::string_view format_http_date(std::time_t t, std::array<char, http_date_size>& out) noexcept {
  static constexpr std::string_view days = "SunMonTueWedThuFriSat";
  static constexpr std::string_view months = "JanFebMarAprMayJunJulAugSepOctNovDec";
  std::tm tm{};
  gmtime_r(&t, &tm);
  char* p = out.data();
  days.copy(p, 3, static_cast<std::size_t>(tm.tm_wday) * 3);
  p[3] = ',';
  p[4] = ' ';
  two_digits(p + 5, tm.tm_mday);
  p[7] = ' ';
  months.copy(p + 8, 3, static_cast<std::size_t>(tm.tm_mon) * 3);
  p[11] = ' ';
  int year = (tm.tm_year + 1900) % 10000;  // IMF-fixdate has four digits
  two_digits(p + 12, year / 100);
  two_digits(p + 14, year % 100);
  p[16] = ' ';
  two_digits(p + 17, tm.tm_hour);
  p[19] = ':';
  two_digits(p + 20, tm.tm_min);
  p[22] = ':';
  two_digits(p + 23, tm.tm_sec);
  std::string_view(" GMT").copy(p + 25, 4);
  return {out.data(), out.size()};
}

}  // namespace duet::http
