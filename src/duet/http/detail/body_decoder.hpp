// duet::http::detail::BodyDecoder — the body of one HTTP/1.1 message, after
// its head: fixed length, chunked (with trailers) or, for a response, until
// the connection closes. Shared by RequestParser and ResponseParser, so both
// directions de-chunk and count with the same code.
//
// Contract
// - start(kind, length) after a head; then parse(input) returns body (body()
//   is a view into input), message_end (trailers() for chunked), need_more or
//   error (error(), sticky until start()), with consumed() as the parsers'.
//   Framing bytes (chunk lines, CRLFs) are consumed silently.
// - none: the first parse() returns message_end, consuming nothing; fixed:
//   body pieces, then message_end on the next call (consuming nothing);
//   until_close: every byte is body until eof() returns message_end.
// - eof(): the connection closed. message_end for until_close, else error
//   (400 "connection closed inside the body") unless the message had ended.
// - Limits: max_body (413), max_chunk_extension (400), trailers by
//   max_head_bytes and max_headers (431). One thread.
//
//   decoder.start(BodyDecoder::Kind::chunked, 0);
//   while ((ev = decoder.parse(buf)) == ParseEvent::body) { sink(decoder.body());
//   buf.remove_prefix(decoder.consumed()); }
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "duet/http/detail/field_section.hpp"
#include "duet/http/http_error.hpp"
#include "duet/http/parse_event.hpp"
#include "duet/http/request_head.hpp"

namespace duet::http::detail {

class BodyDecoder {
 public:
  enum class Kind : std::uint8_t { none, fixed, chunked, until_close };

  explicit BodyDecoder(const RequestLimits& limits = {}) noexcept : limits_(limits) {}

  void start(Kind kind, std::uint64_t length) noexcept;
  [[nodiscard]] ParseEvent parse(std::string_view in);
  [[nodiscard]] ParseEvent eof() noexcept;

  [[nodiscard]] std::size_t consumed() const noexcept { return consumed_; }
  [[nodiscard]] std::string_view body() const noexcept { return body_; }
  [[nodiscard]] std::span<const HeaderField> trailers() const noexcept { return trailers_; }
  [[nodiscard]] HttpError error() const noexcept { return error_; }
  [[nodiscard]] std::uint64_t remaining() const noexcept { return remaining_; }
  [[nodiscard]] bool ended() const noexcept { return state_ == State::done; }

 private:
  enum class State : std::uint8_t {
    fixed,
    chunk_line,
    chunk_data,
    chunk_crlf,
    trailers,
    end,
    until_close,
    done,
    error
  };

  ParseEvent fail(HttpError e) noexcept;
  ParseEvent parse_fixed(std::string_view in);
  // One step of a chunked body; returns need_more to go on with the loop.
  ParseEvent chunk_step(std::string_view in, bool& progressed);
  ParseEvent parse_chunk_line(std::string_view rest, bool& progressed);
  ParseEvent parse_trailers(std::string_view rest);

  RequestLimits limits_;
  State state_ = State::done;
  SectionScanner scanner_;
  std::size_t consumed_ = 0;
  std::uint64_t remaining_ = 0;   // of the current Content-Length body or chunk
  std::uint64_t body_total_ = 0;  // decoded bytes of a chunked body so far
  std::size_t line_scan_ = 0;     // chunk-size line searched up to here
  std::string_view body_;
  std::vector<HeaderField> trailers_;
  HttpError error_;
};

}  // namespace duet::http::detail
