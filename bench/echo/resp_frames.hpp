// duet::bench::RespFrames — whole RESP2 values out of a byte stream, with their
// contents, for load generators that need more than a count of replies
// (RespReplies): PUBLISH's receiver count, a subscriber's `message` pushes.
//
// Contract
// - recv into space(), commit(n) the bytes received, then call next(frame)
//   until it returns false: each call yields one complete top-level value, in
//   order. A value split across recvs stays in the buffer until its rest
//   arrives; space() first moves that partial tail to the front (one memmove
//   per recv, of less than one value).
// - Understands simple strings, errors, integers, bulk strings (null too) and
//   arrays of those, one level deep (pub/sub pushes are `*3` of bulks and an
//   integer). A nested array, an unknown type byte, a bad length, or a value
//   larger than the buffer sets malformed() and stops the stream.
// - A frame's string_views point into the buffer: valid until the next space().
// - Not a validator: it trusts the framing beyond type bytes and lengths.
//
//   duet::bench::RespFrames frames(32 * 1024);
//   auto n = co_await conn.recv(frames.space());  ...  frames.commit(*n);
//   for (duet::bench::RespFrame f; frames.next(f);) if (f.is_push("message")) ...
#pragma once

#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace duet::bench {

// One scalar: type '+', '-', ':' or '$'. text: the string (empty for ':' and a
// null bulk); integer: the value of ':', or a bulk's length (-1 when null).
struct RespItem {
  char type = 0;
  std::string_view text;
  std::int64_t integer = 0;
};

// A top-level value: a scalar in head, or an array (head.type '*', head.integer
// its length) whose first max_items elements are in items.
struct RespFrame {
  static constexpr std::size_t max_items = 4;
  RespItem head;
  std::array<RespItem, max_items> items;

  // An array of `size` elements whose first is the bulk string `kind`.
  [[nodiscard]] bool is_push(std::string_view kind, std::int64_t size = 3) const noexcept {
    return head.type == '*' && head.integer == size && items[0].type == '$' && items[0].text == kind;
  }
};

class RespFrames {
 public:
  explicit RespFrames(std::size_t capacity) : buf_(capacity) {}

  [[nodiscard]] std::span<char> space() noexcept {
    if (begin_ > 0) {
      std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (end_ == buf_.size()) malformed_ = true;  // one value does not fit: give up, never spin on recv(0 bytes)
    return {buf_.data() + end_, buf_.size() - end_};
  }
  void commit(std::size_t n) noexcept { end_ += n; }

  bool next(RespFrame& frame) noexcept {
    if (malformed_ || begin_ == end_) return false;
    const std::string_view in(buf_.data(), end_);
    std::size_t pos = item(in, begin_, frame.head);
    if (frame.head.type == '*' && pos != incomplete && pos != bad) pos = elements(in, pos, frame);
    if (pos == bad) malformed_ = true;
    if (pos == incomplete || pos == bad) return false;
    begin_ = pos;
    return true;
  }
  [[nodiscard]] bool malformed() const noexcept { return malformed_; }

 private:
  // item() and elements() return the position after what they parsed, or one
  // of these (a value ends at least 3 bytes in, so 0 is free).
  static constexpr std::size_t incomplete = 0;
  static constexpr std::size_t bad = std::string_view::npos;

  static bool whole_number(std::string_view s, std::int64_t& out) noexcept {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc{} && end == s.data() + s.size() && !s.empty();
  }

  // One value's header line (and a bulk's body) at pos; '*' only reads the count.
  static std::size_t item(std::string_view in, std::size_t pos, RespItem& out) noexcept {
    const std::size_t eol = in.find("\r\n", pos);
    if (eol == std::string_view::npos) return incomplete;
    out.type = in[pos];
    const std::string_view line = in.substr(pos + 1, eol - pos - 1);
    out.text = {};
    switch (out.type) {
      case '+':
      case '-':
        out.text = line;
        return eol + 2;
      case ':':
      case '*':
        return whole_number(line, out.integer) && (out.type == ':' || out.integer >= 0) ? eol + 2 : bad;
      case '$': {
        if (!whole_number(line, out.integer) || out.integer < -1) return bad;
        if (out.integer == -1) return eol + 2;
        const std::size_t body = eol + 2, len = static_cast<std::size_t>(out.integer);
        if (in.size() - body < len + 2) return incomplete;
        if (in.compare(body + len, 2, "\r\n") != 0) return bad;
        out.text = in.substr(body, len);
        return body + len + 2;
      }
      default:
        return bad;
    }
  }

  static std::size_t elements(std::string_view in, std::size_t pos, RespFrame& frame) noexcept {
    RespItem skipped;
    for (std::int64_t i = 0; i < frame.head.integer; ++i) {
      const auto idx = static_cast<std::size_t>(i);
      RespItem& slot = idx < RespFrame::max_items ? frame.items[idx] : skipped;
      if (pos >= in.size()) return incomplete;
      if (in[pos] == '*') return bad;  // one level only
      pos = item(in, pos, slot);
      if (pos == incomplete || pos == bad) return pos;
    }
    return pos;
  }

  std::vector<char> buf_;
  std::size_t begin_ = 0;  // first byte not yet yielded
  std::size_t end_ = 0;    // one past the last byte received
  bool malformed_ = false;
};

}  // namespace duet::bench
