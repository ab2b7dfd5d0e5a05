// duet::kv::Reply — appends RESP2 replies to one output buffer.
//
// Contract
// - Wraps a std::string the session owns; every call appends one complete
//   RESP2 value (or an array header whose elements the caller appends next).
// - error() takes the message without '-' and CRLF, e.g. "ERR syntax error";
//   CR and LF inside it become spaces (as Redis's addReplyErrorFormat does), so
//   a message quoting user input cannot break the protocol.
// - No allocation beyond growing the buffer; integers are formatted on the stack.
//   One thread (the session's).
//
//   Reply reply(out);
//   reply.array(2); reply.bulk("a"); reply.integer(42);
#pragma once

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace duet::kv {

class Reply {
 public:
  explicit Reply(std::string& out) noexcept : out_(&out) {}

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
  void null() { out_->append("$-1\r\n", 5); }
  void null_array() { out_->append("*-1\r\n", 5); }
  void array(std::size_t count) { prefixed('*', static_cast<std::int64_t>(count)); }
  // RESP3's types, each written in RESP2 as Redis downgrades it. TODO(issue 25,
  // RESP3): the RESP3 forms; until then every call writes the RESP2 form.
  void map(std::size_t pairs) { array(2 * pairs); }        // then key, value, key, value...
  void set(std::size_t count) { array(count); }            // a set reply (SMEMBERS)
  void push(std::size_t count) { array(count); }           // a pub/sub message
  void double_value(double value);                         // RESP2: a bulk string, "%.17g"
  void boolean(bool value) { integer(value ? 1 : 0); }
  void verbatim(std::string_view text) { bulk(text); }     // RESP3: "=" with "txt:"
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

inline void Reply::double_value(double value) {
  if (std::isinf(value)) return bulk(value > 0 ? "inf" : "-inf");
  char text[64];
  int n = std::snprintf(text, sizeof(text), "%.17g", value);
  bulk(std::string_view(text, static_cast<std::size_t>(n)));
}

}  // namespace duet::kv
