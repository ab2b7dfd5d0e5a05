// duet::Utf8Validator — checks text as UTF-8 (RFC 3629) across any split of
// its bytes, as WebSocket text messages and close reasons require.
//
// Contract
// - feed(bytes) returns false as soon as the bytes seen so far can no longer
//   be the start of valid UTF-8 (and stays false): overlong forms, surrogates
//   (U+D800..U+DFFF), code points past U+10FFFF, stray continuation bytes and
//   the bytes C0, C1, F5..FF. A sequence may be split anywhere between feeds;
//   complete() tells whether the text ends on a character boundary.
// - A value type: no allocation, any thread (one text at a time).
//
//   duet::Utf8Validator v;
//   bool ok = v.feed(part1) && v.feed(part2) && v.complete();
#pragma once

#include <cstdint>
#include <string_view>

namespace duet {

class Utf8Validator {
 public:
  [[nodiscard]] bool feed(std::string_view bytes) noexcept;
  [[nodiscard]] bool complete() const noexcept { return !failed_ && need_ == 0; }
  [[nodiscard]] bool failed() const noexcept { return failed_; }
  void reset() noexcept { *this = Utf8Validator{}; }

 private:
  std::uint8_t need_ = 0;    // continuation bytes still expected
  std::uint8_t lo_ = 0x80;   // the next continuation byte's range: narrower
  std::uint8_t hi_ = 0xBF;   // after E0, ED, F0, F4 (overlongs, surrogates, > U+10FFFF)
  bool failed_ = false;
};

// A whole text at once.
[[nodiscard]] inline bool is_valid_utf8(std::string_view text) noexcept {
  Utf8Validator v;
  return v.feed(text) && v.complete();
}

}  // namespace duet
