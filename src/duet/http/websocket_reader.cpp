// The receiving state machine. Frame syntax is WsFrameParser's; this file
// decides what a frame means inside the message stream: which frames may
// follow which, where the payload goes (a view, the message buffer, the
// inflater, the control buffer), and when a message is whole.
#include "duet/http/websocket_reader.hpp"

#include <cstring>

namespace duet {

WsReader::WsReader(WsRole role, std::size_t max_message_size, const std::optional<WsDeflateParams>& deflate)
    : role_(role), max_(max_message_size), parser_(role) {
  if (deflate) {
    inflater_.emplace(deflate->receive_window_bits(role_), deflate->receive_no_context_takeover(role_));
    parser_.allow_rsv1(true);
  }
}

WsEvent WsReader::fail(WsError error) {
  failed_ = true;
  error_ = error;
  WsEvent e;
  e.kind = WsEvent::Kind::error;
  e.error = error;
  return e;
}

WsEvent WsReader::next(std::span<char>& input) {
  if (failed_) return fail(error_);
  if (close_received_) {
    input = {};  // nothing after a close frame counts (RFC 6455 §5.5.1)
    return {};
  }
  for (;;) {
    WsEvent e;
    switch (parser_.parse(input)) {
      case WsFrameParser::Status::need_more:
        return e;
      case WsFrameParser::Status::error:
        return fail(parser_.error());
      case WsFrameParser::Status::header:
        e = on_header(input);
        break;
      case WsFrameParser::Status::payload:
        e = on_payload(parser_.piece());
        break;
    }
    if (e.kind == WsEvent::Kind::need_more && parser_.frame_done()) e = on_frame_end();
    if (e.kind != WsEvent::Kind::need_more) return e;
  }
}

WsEvent WsReader::on_header(std::span<const char> rest) {
  const WsFrameHeader& h = parser_.header();
  if (ws_is_control(h.opcode)) {
    if (h.rsv1) return fail(WsCloseCode::protocol_error, "RSV1 set on a control frame");
    control_size_ = 0;
    return {};
  }
  if (h.opcode == WsOpcode::continuation) {
    if (!in_message_) return fail(WsCloseCode::protocol_error, "continuation frame outside a message");
    if (h.rsv1) return fail(WsCloseCode::protocol_error, "RSV1 set on a continuation frame");
  } else {
    if (in_message_) return fail(WsCloseCode::protocol_error, "new message before the last one ended");
    in_message_ = true;
    opcode_ = h.opcode;
    compressed_ = h.rsv1;
    size_ = 0;
    utf8_.reset();
    if (message_.capacity() > keep_capacity) std::string().swap(message_);
    message_.clear();
    // One whole frame already in the caller's buffer: hand it over as is.
    direct_ = !compressed_ && h.fin && rest.size() >= h.length;
  }
  // Decompressed size is checked while inflating; the wire size bounds both.
  if (size_ + h.length > max_ && (!compressed_ || h.length > max_)) {
    return fail(WsCloseCode::message_too_big, "message larger than the maximum");
  }
  size_ += h.length;
  return {};
}

bool WsReader::check_text(std::span<const char> bytes) {
  return opcode_ != WsOpcode::text || utf8_.feed(std::string_view(bytes.data(), bytes.size()));
}

WsEvent WsReader::inflate(std::span<const char> piece, bool last) {
  const std::size_t before = message_.size();
  switch (inflater_->decompress(piece, last, message_, max_)) {
    case WsInflater::Result::too_big:
      return fail(WsCloseCode::message_too_big, "message inflates past the maximum");
    case WsInflater::Result::corrupt:
      return fail(WsCloseCode::invalid_payload, "compressed data does not inflate");
    case WsInflater::Result::ok:
      break;
  }
  if (!check_text(std::span<const char>(message_).subspan(before))) {
    return fail(WsCloseCode::invalid_payload, "text message is not UTF-8");
  }
  return {};
}

WsEvent WsReader::on_payload(std::span<char> piece) {
  if (ws_is_control(parser_.header().opcode)) {
    std::memcpy(control_.data() + control_size_, piece.data(), piece.size());
    control_size_ = static_cast<std::uint8_t>(control_size_ + piece.size());
    return {};
  }
  if (compressed_) return inflate(piece, false);
  if (direct_) {
    direct_view_ = piece;  // the whole payload: the parser had all of it
  } else {
    message_.append(piece.data(), piece.size());
  }
  if (!check_text(piece)) return fail(WsCloseCode::invalid_payload, "text message is not UTF-8");
  return {};
}

WsEvent WsReader::on_frame_end() {
  const WsFrameHeader& h = parser_.header();
  WsEvent e;
  if (!ws_is_control(h.opcode)) return h.fin ? finish_message() : e;
  e.payload = std::span<const char>(control_.data(), control_size_);
  if (h.opcode == WsOpcode::ping) {
    e.kind = WsEvent::Kind::ping;
  } else if (h.opcode == WsOpcode::pong) {
    e.kind = WsEvent::Kind::pong;
  } else {
    const WsCloseParse c = parse_close_payload(e.payload);
    if (!c) return fail(c.error());
    close_received_ = true;
    e.kind = WsEvent::Kind::close;
    e.close = *c;
  }
  return e;
}

WsEvent WsReader::finish_message() {
  if (compressed_) {
    WsEvent e = inflate({}, true);
    if (e.kind != WsEvent::Kind::need_more) return e;
  }
  if (opcode_ == WsOpcode::text && !utf8_.complete()) {
    return fail(WsCloseCode::invalid_payload, "text message ends inside a character");
  }
  in_message_ = false;
  WsEvent e;
  e.kind = WsEvent::Kind::message;
  e.opcode = opcode_;
  e.payload = direct_ ? direct_view_ : std::span<const char>(message_);
  direct_ = false;
  direct_view_ = {};
  return e;
}

}  // namespace duet
