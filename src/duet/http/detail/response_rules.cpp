#include "duet/http/detail/response_rules.hpp"

#include "duet/http/detail/http_chars.hpp"
#include "duet/http/detail/message_framing.hpp"

namespace duet::http::detail {

namespace {

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// reason-phrase = 1*( HTAB / SP / VCHAR / obs-text )
bool is_reason(std::string_view s) noexcept {
  for (char c : s)
    if (c != ' ' && c != '\t' && !is_field_char(c)) return false;
  return true;
}

}  // namespace

HttpError parse_status_line(std::string_view line, ResponseHead& head) {
  if (line.size() < 12 || line.substr(0, 7) != "HTTP/1." || !is_digit(line[7]) || line[8] != ' ')
    return {502, "malformed status line"};
  head.version = line[7] == '0' ? HttpVersion::http_1_0 : HttpVersion::http_1_1;
  if (!is_digit(line[9]) || !is_digit(line[10]) || !is_digit(line[11])) return {502, "malformed status code"};
  head.status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
  if (head.status < 100) return {502, "malformed status code"};
  if (line.size() == 12) {
    head.reason = {};
    return {};
  }
  if (line[12] != ' ') return {502, "malformed status line"};
  head.reason = line.substr(13);
  if (!is_reason(head.reason)) return {502, "control character in reason phrase"};
  return {};
}

HttpError judge_response_fields(ResponseHead& head, bool head_request, std::uint64_t max_body) {
  MessageFraming f = gather_framing(head.headers);
  head.keep_alive = keeps_alive(f, head.version);
  head.content_length = 0;
  // §6.3 item 1: no body whatever the fields say (a HEAD's Content-Length
  // describes the GET's body).
  if (head_request || head.status < 200 || head.status == 204 || head.status == 304) {
    head.body = ResponseBody::none;
    if (head.status == 101) head.keep_alive = false;  // the connection now speaks another protocol
    return {};
  }
  if (f.te_seen) {
    if (HttpError e = judge_transfer_encoding(f, head.version); e.status != 0) return {502, e.detail};
    head.body = ResponseBody::chunked;
  } else if (f.content_lengths != 0) {
    if (HttpError e = judge_content_length(f, max_body); e.status != 0) return {e.status == 413 ? 413 : 502, e.detail};
    head.body = f.content_length == 0 ? ResponseBody::none : ResponseBody::content_length;
    head.content_length = f.content_length;
  } else {
    // §6.3 item 8: the body ends when the server closes; nothing can follow.
    head.body = ResponseBody::until_close;
    head.keep_alive = false;
  }
  return {};
}

}  // namespace duet::http::detail
