// BodyDecoder: the body states of RequestParser and ResponseParser, moved
// here so both share them: fixed -> end, chunk_line -> chunk_data ->
// chunk_crlf ... -> trailers, until_close -> (eof) done; error sticks.
#include "duet/http/detail/body_decoder.hpp"

#include <algorithm>
#include <cstring>

#include "duet/http/detail/request_rules.hpp"

namespace duet::http::detail {

void BodyDecoder::start(Kind kind, std::uint64_t length) noexcept {
  consumed_ = 0;
  remaining_ = kind == Kind::fixed ? length : 0;
  body_total_ = 0;
  line_scan_ = 0;
  body_ = {};
  trailers_.clear();
  scanner_.reset();
  error_ = {};
  switch (kind) {
    case Kind::none: state_ = State::end; break;
    case Kind::fixed: state_ = length == 0 ? State::end : State::fixed; break;
    case Kind::chunked: state_ = State::chunk_line; break;
    case Kind::until_close: state_ = State::until_close; break;
  }
}

ParseEvent BodyDecoder::fail(HttpError e) noexcept {
  state_ = State::error;
  error_ = e;
  return ParseEvent::error;
}

ParseEvent BodyDecoder::parse(std::string_view in) {
  consumed_ = 0;
  body_ = {};
  switch (state_) {
    case State::fixed: return parse_fixed(in);
    case State::end: state_ = State::done; return ParseEvent::message_end;
    case State::until_close:
      if (in.empty()) return ParseEvent::need_more;
      body_ = in;
      consumed_ = in.size();
      return ParseEvent::body;
    case State::done: return ParseEvent::message_end;
    case State::error: return ParseEvent::error;
    default: break;
  }
  // Framing (size lines, CRLFs) is consumed silently; stop at the first
  // body piece, the end of the trailers, an error or the end of the input.
  for (;;) {
    bool progressed = false;
    ParseEvent ev = chunk_step(in, progressed);
    if (ev != ParseEvent::need_more || !progressed) return ev;
  }
}

ParseEvent BodyDecoder::eof() noexcept {
  consumed_ = 0;
  body_ = {};
  if (state_ == State::until_close || state_ == State::end) {
    state_ = State::done;
    return ParseEvent::message_end;
  }
  if (state_ == State::done) return ParseEvent::message_end;
  if (state_ == State::error) return ParseEvent::error;
  return fail({400, "connection closed inside the body"});
}

ParseEvent BodyDecoder::parse_fixed(std::string_view in) {
  if (in.empty()) return ParseEvent::need_more;
  std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, in.size()));
  body_ = in.substr(0, n);
  consumed_ = n;
  remaining_ -= n;
  if (remaining_ == 0) state_ = State::end;
  return ParseEvent::body;
}

ParseEvent BodyDecoder::chunk_step(std::string_view in, bool& progressed) {
  std::string_view rest = in.substr(consumed_);
  switch (state_) {
    case State::chunk_line: return parse_chunk_line(rest, progressed);
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

ParseEvent BodyDecoder::parse_chunk_line(std::string_view rest, bool& progressed) {
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
  if (HttpError e = detail::parse_chunk_line(rest.substr(0, lf - 1), limits_.max_chunk_extension, size); e.status != 0)
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

ParseEvent BodyDecoder::parse_trailers(std::string_view rest) {
  using R = SectionScanner::Result;
  R r = scanner_.run(rest, 0, limits_.max_head_bytes);
  if (r == R::too_large) return fail({431, "trailer section too large"});
  if (r == R::bare_lf) return fail({400, "line not ended by CRLF"});
  if (r != R::found) return ParseEvent::need_more;
  std::string_view section = rest.substr(0, scanner_.end());
  scanner_.reset();
  trailers_.clear();
  if (HttpError e = parse_fields(section.substr(0, section.size() - 2), limits_.max_headers, trailers_); e.status != 0)
    return fail(e);
  consumed_ += section.size();
  state_ = State::done;
  return ParseEvent::message_end;
}

}  // namespace duet::http::detail
