// duet::http::format_http_date — a time as an HTTP-date (RFC 9110 §5.6.7,
// IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT", always 29 bytes).
//
// Contract
// - Writes exactly http_date_size bytes into `out` and returns a view of
//   them. No allocation, no locale, no shared state (gmtime_r): any thread.
// - A server formats it once a second and reuses it (ResponseWriter::header
//   ("Date", ...)); ResponseWriter::date(t) formats and writes it in one go.
//
//   std::array<char, duet::http::http_date_size> buf;
//   writer.header("Date", duet::http::format_http_date(std::time(nullptr), buf));
#pragma once

#include <array>
#include <cstddef>
#include <ctime>
#include <string_view>

namespace duet::http {

inline constexpr std::size_t http_date_size = 29;

std::string_view format_http_date(std::time_t t, std::array<char, http_date_size>& out) noexcept;

}  // namespace duet::http
