// duet::kv::detail reply reading — the few RESP2 reply shapes the shard layer
// merges (integers, arrays of bulk strings or nulls, errors), read back from
// replies this server's own handlers wrote.
//
// Contract
// - Pure functions over bytes; nullopt when the bytes are not that shape.
// - Views point into the reply, which must outlive them. Any thread.
//
//   if (auto n = read_integer(":3\r\n")) total += *n;
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "kv/detail/numbers.hpp"

namespace duet::kv::detail {

[[nodiscard]] inline bool is_error_reply(std::string_view reply) noexcept { return !reply.empty() && reply[0] == '-'; }

// Reads "<type><number>\r\n" at `at`, moving past it; the number by
// parse_i64 (Redis's string2ll rules). An MGET over shards reads one header
// per value, so the line end is found by a plain loop, not a find of "\r\n"
// (which with std::from_chars cost ~1.5x this).
[[nodiscard]] inline std::optional<std::int64_t> read_header(std::string_view reply, std::size_t& at, char type) {
  if (at >= reply.size() || reply[at] != type) return std::nullopt;
  std::size_t end = at + 1;  // a header is a few bytes: a loop beats a call
  while (end < reply.size() && reply[end] != '\r') ++end;
  if (end + 1 >= reply.size() || reply[end + 1] != '\n') return std::nullopt;
  std::int64_t n = 0;
  if (!parse_i64(reply.substr(at + 1, end - at - 1), n)) return std::nullopt;
  at = end + 2;
  return n;
}

[[nodiscard]] inline std::optional<std::int64_t> read_integer(std::string_view reply) {
  std::size_t at = 0;
  return read_header(reply, at, ':');
}

// A bulk string or a null ($-1) at `at`; the outer optional is "well formed".
[[nodiscard]] inline std::optional<std::optional<std::string_view>> read_bulk(std::string_view reply, std::size_t& at) {
  auto n = read_header(reply, at, '$');
  if (!n) return std::nullopt;
  if (*n < 0) return std::optional<std::string_view>{};
  const auto size = static_cast<std::size_t>(*n);
  if (at + size + 2 > reply.size()) return std::nullopt;
  std::string_view value = reply.substr(at, size);
  at += size + 2;
  return std::optional<std::string_view>{value};
}

// "*n" followed by n bulk strings or nulls (a null element stays nullopt).
[[nodiscard]] inline std::optional<std::vector<std::optional<std::string_view>>> read_bulk_array(std::string_view reply,
                                                                                                std::size_t& at) {
  auto n = read_header(reply, at, '*');
  if (!n || *n < 0) return std::nullopt;
  std::vector<std::optional<std::string_view>> items;
  items.reserve(static_cast<std::size_t>(*n));
  for (std::int64_t i = 0; i < *n; ++i) {
    if (at < reply.size() && reply[at] == ':') {  // PUBSUB NUMSUB's counts: kept as their digits
      const std::size_t start = at + 1;
      if (!read_header(reply, at, ':')) return std::nullopt;
      items.emplace_back(reply.substr(start, at - 2 - start));
      continue;
    }
    auto item = read_bulk(reply, at);
    if (!item) return std::nullopt;
    items.push_back(*item);
  }
  return items;
}

}  // namespace duet::kv::detail
