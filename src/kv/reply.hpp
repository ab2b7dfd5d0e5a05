// duet::kv::Reply — the reply writer: appends RESP2 or RESP3 replies to one
// output buffer. It owns the protocol: handlers say "a map of n", "a double",
// "a null", and the writer encodes it in the connection's protocol, RESP3's
// own types or their RESP2 downgrade exactly as Redis 7.0 writes them
// (networking.c addReply*): a map is a flat array of 2n, a set an array, a
// double a bulk string ("%.17g", "inf"), a boolean 1/0, a verbatim string a
// bulk string without its "txt:" tag, a push an array, and both nulls keep
// their RESP2 forms ($-1 for a missing value, *-1 for a missing array).
//
// Contract
// - Wraps a std::string the session owns; every call appends one complete
//   value (or an aggregate header whose elements the caller appends next).
// - The protocol (2 or 3) is the connection's (ClientInfo::resp); HELLO
//   switches it for its own reply too (set_protocol).
// - error() takes the message without '-' and CRLF, e.g. "ERR syntax error";
//   CR and LF inside it become spaces (as Redis's addReplyErrorFormat does), so
//   a message quoting user input cannot break the protocol.
// - No allocation beyond growing the buffer; integers are formatted on the stack.
//   One thread (the session's).
//
//   Reply reply(out, client.resp);
//   reply.map(1); reply.bulk("a"); reply.double_value(1.5);  // RESP3: %1 $1 a ,1.5
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "kv/detail/numbers.hpp"

namespace duet::kv {

class Reply {
 public:
  explicit Reply(std::string& out, int protocol = 2) noexcept : out_(&out), resp3_(protocol == 3) {}

  [[nodiscard]] int protocol() const noexcept { return resp3_ ? 3 : 2; }
  void set_protocol(int protocol) noexcept { resp3_ = protocol == 3; }

  void simple(std::string_view text) {
    out_->push_back('+');
    out_->append(text);
    crlf();
  }
  void ok() { out_->append("+OK\r\n", 5); }
  void error(std::string_view message);
  void integer(std::int64_t value) { prefixed(':', value); }
  void bulk(std::string_view value) {
    if (value.size() > small_bulk) return bulk_large(value);
    // A small value goes out with its header in one append; its length has at
    // most two digits, so no general integer formatting either.
    char buf[small_bulk + 16];
    char* p = buf;
    std::size_t n = value.size();
    *p++ = '$';
    if (n >= 10) *p++ = static_cast<char>('0' + n / 10);
    *p++ = static_cast<char>('0' + n % 10);
    *p++ = '\r';
    *p++ = '\n';
    if (n != 0) std::memcpy(p, value.data(), n);
    p += n;
    *p++ = '\r';
    *p++ = '\n';
    out_->append(buf, static_cast<std::size_t>(p - buf));
  }
  void null() { resp3_ ? out_->append("_\r\n", 3) : out_->append("$-1\r\n", 5); }        // addReplyNull
  void null_array() { resp3_ ? out_->append("_\r\n", 3) : out_->append("*-1\r\n", 5); }  // addReplyNullArray
  // Whether a whole reply is null_array()'s, in either protocol (a blocking
  // command's "nothing there" as a timeout answers it).
  [[nodiscard]] static bool is_null_array(std::string_view reply) noexcept {
    return reply == "*-1\r\n" || reply == "_\r\n";
  }
  void array(std::size_t count) { prefixed('*', static_cast<std::int64_t>(count)); }
  void map(std::size_t pairs) {  // then key, value, key, value...
    if (resp3_) return prefixed('%', static_cast<std::int64_t>(pairs));
    array(2 * pairs);
  }
  void set(std::size_t count) { prefixed(resp3_ ? '~' : '*', static_cast<std::int64_t>(count)); }
  void push(std::size_t count) { prefixed(resp3_ ? '>' : '*', static_cast<std::int64_t>(count)); }
  void double_value(double value);
  void boolean(bool value) {
    if (!resp3_) return integer(value ? 1 : 0);
    out_->append(value ? "#t\r\n" : "#f\r\n", 4);
  }
  void verbatim(std::string_view text);  // RESP3: "=" with the "txt:" format tag
  [[nodiscard]] std::string& buffer() noexcept { return *out_; }

 private:
  static constexpr std::size_t small_bulk = 64;
  static_assert(small_bulk < 100, "bulk() writes a small value's length as at most two digits");

  // Out of line, so bulk()'s common path stays small (no stack frame for to_chars).
  [[gnu::noinline]] void bulk_large(std::string_view value) {
    prefixed('$', static_cast<std::int64_t>(value.size()));
    out_->append(value);
    crlf();
  }

  void crlf() { out_->append("\r\n", 2); }
  void prefixed(char type, std::int64_t value) {
    char buf[24];
    char* p = buf;
    *p++ = type;
    if (static_cast<std::uint64_t>(value) < 10) {  // counts and integers are often one digit
      *p++ = static_cast<char>('0' + value);
    } else {
      p = std::to_chars(p, buf + sizeof(buf) - 2, value).ptr;
    }
    *p++ = '\r';
    *p++ = '\n';
    out_->append(buf, static_cast<std::size_t>(p - buf));
  }

  std::string* out_;
  bool resp3_;
};

inline void Reply::error(std::string_view message) {
  out_->push_back('-');
  std::size_t start = out_->size();
  out_->append(message);
  for (std::size_t i = start; i < out_->size(); ++i) {
    if ((*out_)[i] == '\r' || (*out_)[i] == '\n') (*out_)[i] = ' ';
  }
  crlf();
}

// addReplyDouble: "%.17g", infinities spelled out (libc's spelling varies).
inline void Reply::double_value(double value) {
  char text[32];
  const std::string_view digits = detail::format_double_17g(value, text);
  if (!resp3_) return bulk(digits);
  out_->push_back(',');
  out_->append(digits);
  crlf();
}

inline void Reply::verbatim(std::string_view text) {
  if (!resp3_) return bulk(text);
  prefixed('=', static_cast<std::int64_t>(text.size() + 4));
  out_->append("txt:", 4);
  out_->append(text);
  crlf();
}

}  // namespace duet::kv
