#include "duet/http/detail/message_framing.hpp"

#include "duet/http/detail/http_chars.hpp"
#include "duet/http/detail/request_rules.hpp"

namespace duet::http::detail {

namespace {

void note_coding(std::string_view element, MessageFraming& f) {
  std::size_t semi = element.find(';');
  std::string_view name = trim_ows(element.substr(0, semi));
  ++f.te_codings;
  if (!is_token(name)) {
    f.te_bad = true;
  } else if (iequals(name, "chunked")) {
    if (semi != std::string_view::npos) f.te_bad = true;
    if (f.te_last_chunked) f.te_chunked_not_last = true;
    f.te_last_chunked = true;
    return;
  } else {
    f.te_unsupported = true;
  }
  if (f.te_last_chunked) f.te_chunked_not_last = true;
  f.te_last_chunked = false;
}

void note_field(const HeaderField& field, MessageFraming& f) {
  std::string_view n = field.name, v = field.value;
  if (iequals(n, "content-length")) {
    ++f.content_lengths;
    if (!parse_decimal(v, f.content_length)) f.content_length_bad = true;
  } else if (iequals(n, "transfer-encoding")) {
    f.te_seen = true;
    for_each_list_element(v, [&](std::string_view e) { note_coding(e, f); });
  } else if (iequals(n, "host")) {
    ++f.hosts;
    f.host = v;
  } else if (iequals(n, "connection")) {
    for_each_list_element(v, [&](std::string_view e) {
      f.conn_close |= iequals(e, "close");
      f.conn_keep_alive |= iequals(e, "keep-alive");
      f.conn_upgrade |= iequals(e, "upgrade");
    });
  } else if (iequals(n, "upgrade")) {
    f.upgrade_field = true;
  } else if (iequals(n, "expect")) {
    for_each_list_element(v, [&](std::string_view e) {
      if (iequals(e, "100-continue"))
        f.expect_continue = true;
      else
        f.expect_other = true;
    });
  }
}

}  // namespace

MessageFraming gather_framing(std::span<const HeaderField> fields) {
  MessageFraming f;
  for (const HeaderField& field : fields) note_field(field, f);
  return f;
}

HttpError judge_transfer_encoding(const MessageFraming& f, HttpVersion version) {
  // RFC 9112 §6.1: an HTTP/1.0 message with Transfer-Encoding has faulty framing.
  if (version == HttpVersion::http_1_0) return {400, "Transfer-Encoding in an HTTP/1.0 message"};
  if (f.content_lengths != 0) return {400, "both Content-Length and Transfer-Encoding"};
  if (f.te_bad || f.te_codings == 0) return {400, "malformed Transfer-Encoding"};
  if (f.te_chunked_not_last || !f.te_last_chunked) return {400, "chunked is not the final transfer coding"};
  if (f.te_unsupported) return {501, "unsupported transfer coding"};
  return {};
}

HttpError judge_content_length(const MessageFraming& f, std::uint64_t max_body) {
  if (f.content_lengths > 1) return {400, "more than one Content-Length"};
  if (f.content_length_bad) return {400, "malformed Content-Length"};
  if (f.content_length > max_body) return {413, "body larger than the limit"};
  return {};
}

}  // namespace duet::http::detail
