// RespReplies — counts complete RESP2 replies in a byte stream, incrementally,
// for the load generator's --resp mode (a reply may arrive split anywhere).
//
// Understands what GET/SET/PING answer: simple strings (+OK), errors (-ERR ...),
// integers (:1) and bulk strings ($3\r\nabc\r\n, $-1\r\n). Arrays are not
// needed by the workloads and are reported as malformed. Not a validator: it
// trusts the server's framing beyond the type byte and the bulk length.
//
//   RespReplies replies;
//   std::size_t done = replies.feed(bytes);   // complete replies in these bytes
//   if (replies.malformed()) ...
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace duet::bench {

class RespReplies {
 public:
  std::size_t feed(std::string_view bytes) noexcept {
    std::size_t complete = 0;
    for (std::size_t i = 0; i < bytes.size() && !malformed_;) {
      if (bulk_left_ > 0) {  // inside a bulk body (including its CRLF)
        std::size_t take = std::min<std::size_t>(bulk_left_, bytes.size() - i);
        bulk_left_ -= take;
        i += take;
        if (bulk_left_ == 0) ++complete;
        continue;
      }
      char c = bytes[i++];
      if (c != '\n') {
        if (line_.size() < 64) line_ += c;  // header lines are short; values skip this path
        continue;
      }
      complete += end_of_line() ? 1 : 0;
      line_.clear();
    }
    return complete;
  }
  [[nodiscard]] bool malformed() const noexcept { return malformed_; }

 private:
  // A header line ended; true when it completes a reply by itself.
  bool end_of_line() noexcept {
    std::string_view line = line_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) return malformed_ = true, false;
    switch (line.front()) {
      case '+':
      case '-':
      case ':':
        return true;
      case '*': {  // an array's header counts as one reply, then each element (EXEC's replies)
        std::int64_t n = 0;
        auto [end, ec] = std::from_chars(line.data() + 1, line.data() + line.size(), n);
        if (ec != std::errc{} || end != line.data() + line.size() || n < -1) return malformed_ = true, false;
        return true;
      }
      case '$': {
        std::int64_t len = 0;
        auto [end, ec] = std::from_chars(line.data() + 1, line.data() + line.size(), len);
        if (ec != std::errc{} || end != line.data() + line.size() || len < -1) return malformed_ = true, false;
        if (len == -1) return true;  // null bulk
        bulk_left_ = static_cast<std::uint64_t>(len) + 2;
        return false;
      }
      default:
        return malformed_ = true, false;
    }
  }

  std::string line_;
  std::uint64_t bulk_left_ = 0;
  bool malformed_ = false;
};

}  // namespace duet::bench
