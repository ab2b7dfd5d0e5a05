// ResponseParser: head -> body -> head, or error (sticky until reset()). The
// head is found by SectionScanner, read by detail/response_rules.cpp; the
// body is detail::BodyDecoder's, the same code that reads request bodies.
#include "duet/http/response_parser.hpp"

#include <algorithm>

#include "duet/http/detail/response_rules.hpp"

namespace duet::http {

ResponseParser::ResponseParser(ResponseLimits limits) noexcept : limits_(limits) {
  limits_.max_head_bytes = std::max<std::size_t>(limits_.max_head_bytes, 4);
  limits_.max_request_line = std::min(limits_.max_request_line, limits_.max_head_bytes - 2);
  decoder_ = detail::BodyDecoder(limits_);
}

void ResponseParser::expect(std::string_view request_method) noexcept { head_request_ = request_method == "HEAD"; }

void ResponseParser::reset() noexcept {
  state_ = State::head;
  scanner_.reset();
  decoder_.start(detail::BodyDecoder::Kind::none, 0);
  consumed_ = 0;
  head_ = ResponseHead{};
  fields_.clear();
  error_ = {};
}

ParseEvent ResponseParser::fail(HttpError e) noexcept {
  state_ = State::error;
  error_ = e;
  return ParseEvent::error;
}

ParseEvent ResponseParser::parse(std::string_view input) {
  consumed_ = 0;
  switch (state_) {
    case State::head: return parse_head(input);
    case State::error: return ParseEvent::error;
    case State::body: break;
  }
  ParseEvent ev = decoder_.parse(input);
  consumed_ = decoder_.consumed();
  if (ev == ParseEvent::message_end) state_ = State::head;
  if (ev == ParseEvent::error) {
    HttpError e = decoder_.error();  // a request body's 400 is a bad response here
    return fail({e.status == 400 ? 502 : e.status, e.detail});
  }
  return ev;
}

ParseEvent ResponseParser::eof() noexcept {
  consumed_ = 0;
  switch (state_) {
    case State::error: return ParseEvent::error;
    case State::head:
      if (scanner_.started()) return fail({502, "connection closed inside a response head"});
      return ParseEvent::need_more;
    case State::body: break;
  }
  ParseEvent ev = decoder_.eof();
  if (ev == ParseEvent::error) return fail({502, "connection closed inside a response body"});
  state_ = State::head;
  return ev;
}

ParseEvent ResponseParser::parse_head(std::string_view in) {
  decoder_.start(detail::BodyDecoder::Kind::none, 0);  // no body() left from the last response
  using R = detail::SectionScanner::Result;
  R r = scanner_.run(in, limits_.max_request_line + 1, limits_.max_head_bytes);
  switch (r) {
    case R::found: return finish_head(in.substr(0, scanner_.end()));
    case R::first_line_too_long: return fail({502, "status line too long"});
    case R::too_large: return fail({431, "response head too large"});
    case R::bare_lf: return fail({502, "line not ended by CRLF"});
    case R::more: break;
  }
  return ParseEvent::need_more;
}

ParseEvent ResponseParser::finish_head(std::string_view section) {
  head_ = ResponseHead{};
  fields_.clear();
  std::size_t line_end = scanner_.first_line_end();
  scanner_.reset();
  if (HttpError e = detail::parse_status_line(section.substr(0, line_end), head_); e.status != 0) return fail(e);
  std::string_view lines = section.substr(line_end + 2, section.size() - line_end - 4);
  if (HttpError e = detail::parse_fields(lines, limits_.max_headers, fields_); e.status != 0)
    return fail({e.status == 431 ? 431 : 502, e.detail});
  head_.headers = fields_;
  if (HttpError e = detail::judge_response_fields(head_, head_request_, limits_.max_body); e.status != 0)
    return fail(e);
  consumed_ = section.size();
  using Kind = detail::BodyDecoder::Kind;
  switch (head_.body) {
    case ResponseBody::none: decoder_.start(Kind::none, 0); break;
    case ResponseBody::content_length: decoder_.start(Kind::fixed, head_.content_length); break;
    case ResponseBody::chunked: decoder_.start(Kind::chunked, 0); break;
    case ResponseBody::until_close: decoder_.start(Kind::until_close, 0); break;
  }
  state_ = State::body;
  return ParseEvent::head;
}

}  // namespace duet::http
