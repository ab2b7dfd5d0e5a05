// RequestParser: the state machine. A head is found by SectionScanner and
// parsed once complete (detail/field_section.cpp); what it means is judged in
// detail/request_rules.cpp; the body is detail::BodyDecoder's (shared with
// ResponseParser); this file only moves between head -> body -> head, or
// error, which sticks until reset().
#include "duet/http/request_parser.hpp"

#include <algorithm>
#include <cstdint>

#include "duet/http/detail/request_rules.hpp"

namespace duet::http {

RequestParser::RequestParser(RequestLimits limits) noexcept : limits_(limits) {
  // The request line is part of the head: a line limit past the head's is the
  // head's, and keeping it below makes 414 win over 431 for one long line,
  // however the bytes are split.
  limits_.max_head_bytes = std::max<std::size_t>(limits_.max_head_bytes, 4);
  limits_.max_request_line = std::min(limits_.max_request_line, limits_.max_head_bytes - 2);
  decoder_ = detail::BodyDecoder(limits_);
}

void RequestParser::reset() noexcept {
  state_ = State::head;
  scanner_.reset();
  decoder_.start(detail::BodyDecoder::Kind::none, 0);
  consumed_ = 0;
  head_ = RequestHead{};
  fields_.clear();
  head_bytes_ = {};
  error_ = {};
}

ParseEvent RequestParser::fail(HttpError e) noexcept {
  state_ = State::error;
  error_ = e;
  return ParseEvent::error;
}

ParseEvent RequestParser::scan_error(detail::SectionScanner::Result r) noexcept {
  using R = detail::SectionScanner::Result;
  switch (r) {
    case R::first_line_too_long: return fail({414, "request line too long"});
    case R::too_large: return fail({431, "request head too large"});
    case R::bare_lf: return fail({400, "line not ended by CRLF"});
    default: return ParseEvent::need_more;
  }
}

ParseEvent RequestParser::parse(std::string_view input) {
  consumed_ = 0;
  switch (state_) {
    case State::head: return parse_head(input);
    case State::error: return ParseEvent::error;
    case State::body: break;
  }
  ParseEvent ev = decoder_.parse(input);
  consumed_ = decoder_.consumed();
  if (ev == ParseEvent::message_end) state_ = State::head;
  if (ev == ParseEvent::error) return fail(decoder_.error());
  return ev;
}

ParseEvent RequestParser::parse_head(std::string_view in) {
  decoder_.start(detail::BodyDecoder::Kind::none, 0);  // no body() left from the last request
  if (!scanner_.started()) {
    // RFC 9112 §2.2: ignore empty lines before a request line (a client's
    // extra CRLF after a body). Consumed now, so they never accumulate.
    while (in.size() >= 2 && in[0] == '\r' && in[1] == '\n') {
      in.remove_prefix(2);
      consumed_ += 2;
    }
    if (in.empty() || in == "\r") return ParseEvent::need_more;
  }
  auto r = scanner_.run(in, limits_.max_request_line + 1, limits_.max_head_bytes);
  if (r != detail::SectionScanner::Result::found) return scan_error(r);
  return finish_head(in.substr(0, scanner_.end()));
}

ParseEvent RequestParser::finish_head(std::string_view section) {
  head_ = RequestHead{};
  fields_.clear();
  std::size_t line_end = scanner_.first_line_end();
  scanner_.reset();
  if (HttpError e = detail::parse_request_line(section.substr(0, line_end), head_); e.status != 0) return fail(e);
  std::string_view lines = section.substr(line_end + 2, section.size() - line_end - 4);
  if (HttpError e = detail::parse_fields(lines, limits_.max_headers, fields_); e.status != 0) return fail(e);
  head_.headers = fields_;
  if (HttpError e = detail::judge_fields(head_, limits_.max_body); e.status != 0) return fail(e);
  head_bytes_ = section;
  consumed_ += section.size();
  using Kind = detail::BodyDecoder::Kind;
  switch (head_.body) {
    case BodyKind::none: decoder_.start(Kind::none, 0); break;
    case BodyKind::content_length: decoder_.start(Kind::fixed, head_.content_length); break;
    case BodyKind::chunked: decoder_.start(Kind::chunked, 0); break;
  }
  state_ = State::body;
  return ParseEvent::head;
}

void RequestParser::relocate_head(const char* new_start) noexcept {
  // Integer arithmetic: the old and new buffers are unrelated objects.
  auto old_begin = reinterpret_cast<std::uintptr_t>(head_bytes_.data());
  auto old_end = old_begin + head_bytes_.size();
  auto move = [&](std::string_view& v) {
    auto p = reinterpret_cast<std::uintptr_t>(v.data());
    if (p >= old_begin && p <= old_end && v.data() != nullptr)
      v = std::string_view(new_start + (p - old_begin), v.size());
  };
  for (std::string_view* v : {&head_.method, &head_.target, &head_.path, &head_.query, &head_.host}) move(*v);
  for (HeaderField& f : fields_) {
    move(f.name);
    move(f.value);
  }
  head_bytes_ = std::string_view(new_start, head_bytes_.size());
}

}  // namespace duet::http
