// UTF-8 by the table of RFC 3629 §4: a lead byte says how many continuation
// bytes follow and, for E0, ED, F0 and F4, narrows the range of the first one;
// that narrowing is all it takes to refuse overlongs, surrogates and code
// points past U+10FFFF. ASCII, most of any text, is skipped eight bytes at a time.
#include "duet/http/websocket_utf8.hpp"

#include <cstring>

namespace duet {

bool Utf8Validator::feed(std::string_view bytes) noexcept {
  if (failed_) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t n = bytes.size();
  std::size_t i = 0;
  while (i < n) {
    if (need_ == 0) {
      // Between characters: skip ASCII words fast.
      while (i + 8 <= n) {
        std::uint64_t w = 0;
        std::memcpy(&w, p + i, 8);
        if ((w & 0x8080808080808080ULL) != 0) break;
        i += 8;
      }
      if (i == n) break;
      const unsigned char b = p[i++];
      if (b < 0x80) continue;
      lo_ = 0x80;
      hi_ = 0xBF;
      if (b >= 0xC2 && b <= 0xDF) {
        need_ = 1;
      } else if (b >= 0xE0 && b <= 0xEF) {
        need_ = 2;
        if (b == 0xE0) lo_ = 0xA0;  // below: overlong
        if (b == 0xED) hi_ = 0x9F;  // above: surrogates
      } else if (b >= 0xF0 && b <= 0xF4) {
        need_ = 3;
        if (b == 0xF0) lo_ = 0x90;  // below: overlong
        if (b == 0xF4) hi_ = 0x8F;  // above: past U+10FFFF
      } else {
        failed_ = true;  // 80..BF alone, C0, C1 (overlong), F5..FF
        return false;
      }
      continue;
    }
    const unsigned char b = p[i++];
    if (b < lo_ || b > hi_) {
      failed_ = true;
      return false;
    }
    lo_ = 0x80;
    hi_ = 0xBF;
    --need_;
  }
  return true;
}

}  // namespace duet
