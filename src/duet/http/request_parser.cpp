// RequestParser: the state machine. A head or a trailer section is found by
// SectionScanner and parsed once complete (detail/field_section.cpp); what it
// means is judged in detail/request_rules.cpp; this file only moves between
// the states: head -> (fixed | chunk_line -> chunk_data -> chunk_crlf ... ->
// trailers) -> end -> head, or error, which sticks until reset().
#include "duet/http/request_parser.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "duet/http/detail/request_rules.hpp"

namespace duet::http {

RequestParser::RequestParser(RequestLimits limits) noexcept : limits_(limits) {
  // The request line is part of the head: a line limit past the head's is the
  // head's, and keeping it below makes 414 win over 431 for one long line,
  // however the bytes are split.
  limits_.max_head_bytes = std::max<std::size_t>(limits_.max_head_bytes, 4);
  limits_.max_request_line = std::min(limits_.max_request_line, limits_.max_head_bytes - 2);
}

void RequestParser::reset() noexcept {
  state_ = State::head;
  scanner_.reset();
  consumed_ = 0;
  remaining_ = body_total_ = 0;
  head_ = RequestHead{};
  fields_.clear();
  trailers_.clear();
  body_ = head_bytes_ = {};
  error_ = {};
  line_scan_ = 0;
}

ParseEvent RequestParser::fail(HttpError e) noexcept {
  state_ = State::error;
  error_ = e;
  return ParseEvent::error;
}

ParseEvent RequestParser::scan_error(detail::SectionScanner::Result r, bool head) noexcept {
  using R = detail::SectionScanner::Result;
  switch (r) {
    case R::first_line_too_long: return fail({414, "request line too long"});
    case R::too_large: return fail({431, head ? "request head too large" : "trailer section too large"});
    case R::bare_lf: return fail({400, "line not ended by CRLF"});
    default: return ParseEvent::need_more;
  }
}

ParseEvent RequestParser::parse(std::string_view input) {
  consumed_ = 0;
  body_ = {};
  switch (state_) {
    case State::head: return parse_head(input);
    case State::fixed: return parse_fixed(input);
    case State::end:
      state_ = State::head;
      return ParseEvent::message_end;
    case State::error: return ParseEvent::error;
    default: return parse_chunked(input);
  }
}

ParseEvent RequestParser::parse_head(std::string_view in) {
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
  if (r != detail::SectionScanner::Result::found) return scan_error(r, true);
  return finish_head(in.substr(0, scanner_.end()));
}

ParseEvent RequestParser::finish_head(std::string_view section) {
  head_ = RequestHead{};
  fields_.clear();
  trailers_.clear();
  std::size_t line_end = scanner_.first_line_end();
  scanner_.reset();
  if (HttpError e = detail::parse_request_line(section.substr(0, line_end), head_); e.status != 0) return fail(e);
  std::string_view lines = section.substr(line_end + 2, section.size() - line_end - 4);
  if (HttpError e = detail::parse_fields(lines, limits_.max_headers, fields_); e.status != 0) return fail(e);
  head_.headers = fields_;
  if (HttpError e = detail::judge_fields(head_, limits_.max_body); e.status != 0) return fail(e);
  head_bytes_ = section;
  consumed_ += section.size();
  remaining_ = head_.content_length;
  body_total_ = 0;
  line_scan_ = 0;
  switch (head_.body) {
    case BodyKind::none: state_ = State::end; break;
    case BodyKind::content_length: state_ = State::fixed; break;
    case BodyKind::chunked: state_ = State::chunk_line; break;
  }
  return ParseEvent::head;
}

ParseEvent RequestParser::parse_fixed(std::string_view in) {
  if (in.empty()) return ParseEvent::need_more;
  std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, in.size()));
  body_ = in.substr(0, n);
  consumed_ = n;
  remaining_ -= n;
  if (remaining_ == 0) state_ = State::end;
  return ParseEvent::body;
}

ParseEvent RequestParser::parse_chunked(std::string_view in) {
  // Framing (size lines, CRLFs) is consumed silently; stop at the first
  // body piece, the end of the trailers, an error or the end of the input.
  for (;;) {
    bool progressed = false;
    ParseEvent ev = chunk_step(in, progressed);
    if (ev != ParseEvent::need_more || !progressed) return ev;
  }
}

ParseEvent RequestParser::chunk_step(std::string_view& in, bool& progressed) {
  std::string_view rest = in.substr(consumed_);
  switch (state_) {
    case State::chunk_line: return parse_chunk_line(in, progressed);
    case State::chunk_data: {
      if (rest.empty()) return ParseEvent::need_more;
      std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, rest.size()));
      body_ = rest.substr(0, n);
      consumed_ += n;
      remaining_ -= n;
      if (remaining_ == 0) state_ = State::chunk_crlf;
      return ParseEvent::body;
    }
    case State::chunk_crlf:
      if (!rest.empty() && rest[0] != '\r') return fail({400, "chunk data not followed by CRLF"});
      if (rest.size() < 2) return ParseEvent::need_more;
      if (rest[1] != '\n') return fail({400, "chunk data not followed by CRLF"});
      consumed_ += 2;
      state_ = State::chunk_line;
      progressed = true;
      return ParseEvent::need_more;
    default: return parse_trailers(rest);
  }
}

ParseEvent RequestParser::parse_chunk_line(std::string_view& in, bool& progressed) {
  std::string_view rest = in.substr(consumed_);
  // 16 hex digits, the extensions, the CR: past that no line can be valid.
  const std::size_t max_line = 16 + limits_.max_chunk_extension + 1;
  const void* hit = std::memchr(rest.data() + line_scan_, '\n', rest.size() - line_scan_);
  std::size_t lf = hit ? static_cast<std::size_t>(static_cast<const char*>(hit) - rest.data()) : rest.size();
  if (lf > max_line) return fail({400, "chunk line too long"});
  if (hit == nullptr) {
    line_scan_ = rest.size();
    return ParseEvent::need_more;
  }
  if (lf == 0 || rest[lf - 1] != '\r') return fail({400, "line not ended by CRLF"});
  std::uint64_t size = 0;
  if (HttpError e = detail::parse_chunk_line(rest.substr(0, lf - 1), limits_.max_chunk_extension, size);
      e.status != 0)
    return fail(e);
  if (size > limits_.max_body - body_total_) return fail({413, "body larger than the limit"});
  body_total_ += size;
  consumed_ += lf + 1;
  line_scan_ = 0;
  remaining_ = size;
  state_ = size == 0 ? State::trailers : State::chunk_data;
  progressed = true;
  return ParseEvent::need_more;
}

ParseEvent RequestParser::parse_trailers(std::string_view rest) {
  auto r = scanner_.run(rest, 0, limits_.max_head_bytes);
  if (r != detail::SectionScanner::Result::found) return scan_error(r, false);
  std::string_view section = rest.substr(0, scanner_.end());
  scanner_.reset();
  trailers_.clear();
  if (HttpError e = detail::parse_fields(section.substr(0, section.size() - 2), limits_.max_headers, trailers_);
      e.status != 0)
    return fail(e);
  consumed_ += section.size();
  state_ = State::head;
  return ParseEvent::message_end;
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
