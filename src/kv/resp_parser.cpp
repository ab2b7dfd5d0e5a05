// RespParser: a port of Redis's processInlineBuffer / processMultibulkBuffer
// (networking.c) to a parser that owns no buffer. Redis keeps a query buffer and
// a read position; here the caller keeps the buffer and passes the bytes of the
// current command each time, and the parser keeps only offsets into them, so the
// caller may compact or grow its buffer between calls.
//
// Redis's quirks are kept on purpose: a multibulk count or bulk header line ends
// at '\r' and the following byte is skipped whatever it is; the two bytes after
// a bulk's payload are skipped unchecked; an inline line ends at '\n' with an
// optional '\r' before it; and since Redis looks for line ends with strchr, a NUL
// byte in an inline line or a header line means the line never ends (until the
// 64 KiB limit turns it into an error). Bulk payloads are binary safe.
#include "kv/resp_parser.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

#include "kv/detail/numbers.hpp"
#include "kv/detail/split_args.hpp"

namespace duet::kv {
namespace {

// The common case of a header line: 1 to 9 digits without a leading zero (or
// just "0") and a '\r' that is not the last byte. Sets `value` and returns
// where the line ends (the byte after '\r' is skipped unchecked, as in the
// general path), or nullptr if the line is anything else or not all here yet.
// No NUL byte can hide before the '\r' since every byte before it is a digit.
const char* plain_number_line(const char* p, const char* end, std::size_t& value) noexcept {
  if (end - p < 3) return nullptr;  // the shortest line: a digit, '\r' and the skipped byte
  auto digit_at = [](const char* q) { return static_cast<unsigned>(static_cast<unsigned char>(*q)) - unsigned{'0'}; };
  std::size_t v = digit_at(p);
  if (v > 9) return nullptr;
  if (p[1] == '\r') {  // one digit: most counts and lengths
    value = v;
    return p + 3;
  }
  if (v == 0) return nullptr;  // a leading zero
  if (unsigned d = digit_at(p + 1); d <= 9 && end - p >= 4 && p[2] == '\r') {  // two digits: most key lengths
    value = v * 10 + d;
    return p + 4;
  }
  const char* stop = end - p > 9 ? p + 9 : end;
  for (unsigned d = 0; ++p < stop && (d = digit_at(p)) <= 9;) v = v * 10 + d;
  if (end - p < 2 || *p != '\r') return nullptr;  // also a 10th digit
  value = v;
  return p + 2;
}

}  // namespace

void RespParser::reset() noexcept {
  kind_ = Kind::none;
  pos_ = 0;
  scan_ = 0;
  remaining_ = 0;
  bulk_len_ = -1;
  nul_blocked_ = false;
  offsets_.clear();
}

ParseStatus RespParser::parse(std::string_view input) {
  consumed_ = 0;
  if (input.empty()) {
    wanted_ = 1;
    return ParseStatus::incomplete;
  }
  if (kind_ == Kind::none) {
    // Nothing in progress (the state is as reset() leaves it), so a complete
    // command read in one pass needs no finish().
    if (input[0] == '*' && parse_multibulk_fast(input)) return ParseStatus::complete;
    kind_ = input[0] == '*' ? Kind::multibulk : Kind::inline_line;
  }
  return kind_ == Kind::multibulk ? parse_multibulk(input) : parse_inline(input);
}

std::size_t RespParser::find_from_scan(std::string_view input, char c) noexcept {
  std::size_t from = scan_ > pos_ ? scan_ : pos_;
  if (!nul_blocked_ && from < input.size()) {
    const char* base = input.data() + from;
    std::size_t n = input.size() - from;
    const void* hit = std::memchr(base, c, n);
    std::size_t before = hit != nullptr ? static_cast<std::size_t>(static_cast<const char*>(hit) - base) : n;
    // Redis searches with strchr on its NUL-terminated buffer: a NUL byte before
    // the line end hides it for good, and only the size limit ends the wait.
    nul_blocked_ = std::memchr(base, '\0', before) != nullptr;
    if (hit != nullptr && !nul_blocked_) return from + before;
  }
  scan_ = input.size();
  return std::string_view::npos;
}

ParseStatus RespParser::finish(std::size_t consumed) {
  consumed_ = consumed;
  reset();
  return ParseStatus::complete;
}

ParseStatus RespParser::fail(std::string_view message) {
  error_.assign("ERR Protocol error: ");
  error_.append(message);
  args_.clear();
  reset();
  return ParseStatus::error;
}

ParseStatus RespParser::parse_inline(std::string_view input) {
  std::size_t newline = find_from_scan(input, '\n');
  if (newline == std::string_view::npos) {
    if (input.size() > inline_max_size) return fail("too big inline request");
    wanted_ = input.size() + 1;
    return ParseStatus::incomplete;
  }
  std::size_t line_len = newline;
  if (line_len > 0 && input[line_len - 1] == '\r') --line_len;
  if (!detail::split_args(input.substr(0, line_len), inline_storage_, args_)) {
    return fail("unbalanced quotes in request");
  }
  return finish(newline + 1);
}

ParseStatus RespParser::parse_count(std::string_view input) {
  std::size_t cr = find_from_scan(input, '\r');
  if (cr == std::string_view::npos) {
    if (input.size() > inline_max_size) return fail("too big mbulk count string");
    wanted_ = input.size() + 1;
    return ParseStatus::incomplete;
  }
  if (cr + 2 > input.size()) {
    wanted_ = cr + 2;
    return ParseStatus::incomplete;
  }
  std::int64_t count = 0;
  if (!detail::parse_i64(input.substr(1, cr - 1), count) || count > INT_MAX) {
    return fail("invalid multibulk length");
  }
  if (count > 10 && !authenticated_) return fail("unauthenticated multibulk length");
  pos_ = cr + 2;
  remaining_ = count;
  offsets_.clear();
  offsets_.reserve(static_cast<std::size_t>(count < 1024 ? (count > 0 ? count : 0) : 1024));
  return ParseStatus::complete;
}

ParseStatus RespParser::parse_bulk_header(std::string_view input) {
  std::size_t cr = find_from_scan(input, '\r');
  if (cr == std::string_view::npos) {
    if (input.size() - pos_ > inline_max_size) return fail("too big bulk count string");
    wanted_ = input.size() + 1;
    return ParseStatus::incomplete;
  }
  if (cr + 2 > input.size()) {
    wanted_ = cr + 2;
    return ParseStatus::incomplete;
  }
  if (input[pos_] != '$') {
    char got = input[pos_];
    if (got == '\r' || got == '\n') got = ' ';  // addReplyErrorFormat maps CR/LF to spaces
    std::string message = "expected '$', got '";
    message.push_back(got);
    message.push_back('\'');
    return fail(message);
  }
  std::int64_t len = 0;
  if (!detail::parse_i64(input.substr(pos_ + 1, cr - pos_ - 1), len) || len < 0 ||
      static_cast<std::uint64_t>(len) > max_bulk_len_) {
    return fail("invalid bulk length");
  }
  if (len > 16384 && !authenticated_) return fail("unauthenticated bulk length");
  pos_ = cr + 2;
  bulk_len_ = len;
  return ParseStatus::complete;
}

bool RespParser::parse_multibulk_fast(std::string_view input) {
  constexpr std::size_t max_fast_count = 64;  // bigger commands take the incremental path
  const char* const begin = input.data();
  const char* const end = begin + input.size();
  std::size_t count = 0;
  const char* p = plain_number_line(begin + 1, end, count);
  if (p == nullptr || count == 0 || count > max_fast_count || (count > 10 && !authenticated_)) return false;
  const std::size_t max_len = authenticated_ ? max_bulk_len_ : std::min<std::size_t>(max_bulk_len_, 16384);
  args_.resize(count);
  std::string_view* arg = args_.data();
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t len = 0;
    if (p == end || *p != '$' || (p = plain_number_line(p + 1, end, len)) == nullptr) return false;
    if (len > max_len || static_cast<std::size_t>(end - p) < len + 2) return false;
    arg[i] = std::string_view(p, len);
    p += len + 2;
  }
  consumed_ = static_cast<std::size_t>(p - begin);
  return true;
}

ParseStatus RespParser::parse_multibulk(std::string_view input) {
  if (pos_ == 0) {
    ParseStatus status = parse_count(input);
    if (status != ParseStatus::complete) return status;
    if (remaining_ <= 0) {  // "*0" and "*-1" are skipped
      args_.clear();
      return finish(pos_);
    }
  }
  while (remaining_ > 0) {
    if (bulk_len_ < 0) {
      ParseStatus status = parse_bulk_header(input);
      if (status != ParseStatus::complete) return status;
    }
    std::size_t need = pos_ + static_cast<std::size_t>(bulk_len_) + 2;
    if (input.size() < need) {
      wanted_ = need;
      return ParseStatus::incomplete;
    }
    offsets_.emplace_back(pos_, static_cast<std::size_t>(bulk_len_));
    pos_ = need;
    scan_ = need;
    bulk_len_ = -1;
    --remaining_;
  }
  args_.clear();
  for (auto [offset, len] : offsets_) args_.emplace_back(input.data() + offset, len);
  return finish(pos_);
}

}  // namespace duet::kv
