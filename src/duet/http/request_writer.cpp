#include "duet/http/request_writer.hpp"

#include <charconv>
#include <stdexcept>

#include "duet/http/detail/http_chars.hpp"

namespace duet::http {

namespace {

[[noreturn]] void refuse(const char* what) {
  throw std::invalid_argument(std::string("duet::http::RequestWriter: ") + what);
}

void check_value(std::string_view value) {
  for (char c : value)
    if (!detail::is_field_char(c)) refuse("control character in field value");
}

void append_number(std::string& out, std::uint64_t n, int base) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, n, base);
  out.append(buf, r.ptr);
}

}  // namespace

void RequestWriter::require(State s) const {
  if (state_ != s) throw std::logic_error("duet::http::RequestWriter: call out of order");
}

void RequestWriter::start(std::string_view method, std::string_view target, std::string_view host) {
  require(State::idle);
  if (!detail::is_token(method)) refuse("method is not a token");
  if (target.empty()) refuse("empty request target");
  for (char c : target)
    if (c <= 0x20 || c >= 0x7f) refuse("space or control character in request target");
  if (host.empty()) refuse("empty Host");
  check_value(host);
  out_.append(method).append(" ").append(target).append(" HTTP/1.1\r\nHost: ").append(host).append("\r\n");
  body_method_ = method == "POST" || method == "PUT" || method == "PATCH";
  state_ = State::headers;
}

void RequestWriter::header(std::string_view name, std::string_view value) {
  require(State::headers);
  if (!detail::is_token(name)) refuse("field name is not a token");
  check_value(value);
  if (detail::iequals(name, "host") || detail::iequals(name, "content-length") ||
      detail::iequals(name, "transfer-encoding"))
    refuse("Host and the framing fields are the writer's");
  out_.append(name).append(": ").append(value).append("\r\n");
}

void RequestWriter::body(std::string_view data) {
  require(State::headers);
  if (!data.empty() || body_method_) {
    out_.append("Content-Length: ");
    append_number(out_, data.size(), 10);
    out_.append("\r\n");
  }
  out_.append("\r\n").append(data);
  state_ = State::done;
}

void RequestWriter::end() { body({}); }

void RequestWriter::begin_chunked() {
  require(State::headers);
  out_.append("Transfer-Encoding: chunked\r\n\r\n");
  state_ = State::chunked;
}

void RequestWriter::chunk(std::string_view data) {
  require(State::chunked);
  if (data.empty()) return;  // an empty chunk would end the body
  append_number(out_, data.size(), 16);
  out_.append("\r\n").append(data).append("\r\n");
}

void RequestWriter::end_chunked() {
  require(State::chunked);
  out_.append("0\r\n\r\n");
  state_ = State::done;
}

}  // namespace duet::http
