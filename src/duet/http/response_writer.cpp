// ResponseWriter: the order of a response's parts and which framing headers
// it gets (RFC 9112 §6, RFC 9110 §6.4.1 for HEAD, 1xx, 204 and 304).
#include "duet/http/response_writer.hpp"

#include <array>
#include <charconv>
#include <stdexcept>

#include "duet/http/detail/http_chars.hpp"
#include "duet/http/http_date.hpp"

namespace duet::http {

namespace {

bool no_body_status(int status) noexcept { return status < 200 || status == 204 || status == 304; }

}  // namespace

void ResponseWriter::require(State s) const {
  if (state_ != s) throw std::logic_error("duet::http::ResponseWriter: call out of order");
}

void ResponseWriter::append_number(std::uint64_t n, int base) {
  std::array<char, 24> digits;
  auto r = std::to_chars(digits.data(), digits.data() + digits.size(), n, base);
  out_.append(digits.data(), r.ptr);
}

void ResponseWriter::start(int status, std::string_view reason) {
  require(State::idle);
  if (status < 100 || status > 999) throw std::logic_error("duet::http::ResponseWriter: status outside 100-999");
  if (reason.empty()) reason = status_reason(status);
  for (char c : reason)
    if (!detail::is_field_char(c)) throw std::invalid_argument("duet::http::ResponseWriter: control character in reason");
  status_ = status;
  out_.append("HTTP/1.1 ");
  append_number(static_cast<std::uint64_t>(status));
  out_.push_back(' ');
  out_.append(reason);
  out_.append("\r\n");
  state_ = State::headers;
}

void ResponseWriter::check_field(std::string_view name, std::string_view value) const {
  if (!detail::is_token(name)) throw std::invalid_argument("duet::http::ResponseWriter: field name is not a token");
  for (char c : value)
    if (!detail::is_field_char(c))
      throw std::invalid_argument("duet::http::ResponseWriter: control character in field value");
}

void ResponseWriter::header(std::string_view name, std::string_view value) {
  require(State::headers);
  check_field(name, value);
  if (detail::iequals(name, "content-length") || detail::iequals(name, "transfer-encoding") ||
      detail::iequals(name, "connection"))
    throw std::invalid_argument("duet::http::ResponseWriter: framing and Connection fields are the writer's");
  out_.append(name).append(": ").append(value).append("\r\n");
}

// A server writes this on every response: formatted once per second per
// thread (it was 15% of a hello response's instructions), and appended
// without the checks a caller's field needs.
void ResponseWriter::date(std::time_t now) {
  require(State::headers);
  thread_local std::time_t formatted_at = -1;
  thread_local std::array<char, http_date_size> text;
  if (now != formatted_at) {
    (void)format_http_date(now, text);
    formatted_at = now;
  }
  out_.append("Date: ").append(text.data(), text.size()).append("\r\n");
}

bool ResponseWriter::body_allowed() const noexcept { return !context_.head_method && !no_body_status(status_); }

void ResponseWriter::finish_head(bool close_delimited) {
  if (status_ == 101) {
    out_.append("Connection: Upgrade\r\n\r\n");
    keep_alive_ = false;  // the connection now speaks another protocol
    state_ = State::done;
    return;
  }
  if (status_ < 200) {  // interim: the final response follows
    out_.append("\r\n");
    state_ = State::idle;
    return;
  }
  keep_alive_ = context_.keep_alive && !close_requested_ && !close_delimited;
  if (!keep_alive_) out_.append("Connection: close\r\n");
  else if (context_.version == HttpVersion::http_1_0) out_.append("Connection: keep-alive\r\n");
  out_.append("\r\n");
  state_ = State::done;
}

void ResponseWriter::end_head(std::uint64_t content_length) {
  require(State::headers);
  if (no_body_status(status_)) throw std::logic_error("duet::http::ResponseWriter: no body on 1xx, 204 or 304");
  out_.append("Content-Length: ");
  append_number(content_length);
  out_.append("\r\n");
  finish_head(false);
}

void ResponseWriter::body(std::string_view data) {
  end_head(data.size());
  if (body_allowed()) out_.append(data);
}

void ResponseWriter::end() {
  require(State::headers);
  if (no_body_status(status_)) finish_head(false);
  else end_head(0);
}

void ResponseWriter::begin_chunked() {
  require(State::headers);
  if (no_body_status(status_)) throw std::logic_error("duet::http::ResponseWriter: no body on 1xx, 204 or 304");
  // An HTTP/1.0 client cannot read chunked: stream the bytes as they are
  // and end the body by closing (RFC 9112 §6.3, item 8).
  close_delimited_ = context_.version == HttpVersion::http_1_0;
  if (!close_delimited_) out_.append("Transfer-Encoding: chunked\r\n");
  finish_head(close_delimited_);
  state_ = State::chunked;
}

void ResponseWriter::chunk(std::string_view data) {
  require(State::chunked);
  if (data.empty() || !body_allowed()) return;  // an empty chunk would be the last one
  if (!close_delimited_) {
    append_number(data.size(), 16);
    out_.append("\r\n");
  }
  out_.append(data);
  if (!close_delimited_) out_.append("\r\n");
}

void ResponseWriter::end_chunked(std::span<const HeaderField> trailers) {
  require(State::chunked);
  for (const HeaderField& f : trailers) check_field(f.name, f.value);
  state_ = State::done;
  if (close_delimited_ || !body_allowed()) return;
  out_.append("0\r\n");
  for (const HeaderField& f : trailers) out_.append(f.name).append(": ").append(f.value).append("\r\n");
  out_.append("\r\n");
}

void write_continue(std::string& out) { out.append("HTTP/1.1 100 Continue\r\n\r\n"); }

void write_error_response(std::string& out, const HttpError& error) {
  ResponseWriter w(out, ResponseContext::after_error());
  w.start(error.status);
  w.header("Content-Type", "text/plain");
  std::string_view text = error.detail.empty() ? status_reason(error.status) : error.detail;
  w.end_head(text.size() + 1);
  out.append(text).push_back('\n');
}

}  // namespace duet::http
