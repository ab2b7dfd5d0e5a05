// WsConnectionCore's calls (receive, send, ping, close) and the loop that
// carries every operation: next(), the results the driver hands back, and the
// events of the session. The handshake's steps are in websocket_connection_core.cpp.
#include "duet/http/detail/websocket_connection_core.hpp"

namespace duet::http::detail {
namespace {

constexpr std::size_t gather_limit = 16 * 1024;  // a frame this small goes out in one send (copied)

std::error_code errc(std::errc e) { return std::make_error_code(e); }

}  // namespace

WsConnectionCore::Action WsConnectionCore::next() {
  if (!sends_[0].empty()) return {Step::send, sends_[0], left()};
  switch (phase_) {
    case Phase::accept_head: return step_accept_head();
    case Phase::accept_reply:
      if (refused_status_ != 0) {
        fail(errc(std::errc::protocol_error));
        return next();
      }
      phase_ = Phase::done;
      return {};
    case Phase::connect_reply: return step_connect_reply();
    case Phase::receive: return step_events(false);
    case Phase::close_wait: return step_events(true);
    case Phase::half_close:
      phase_ = Phase::linger;
      return {Step::shutdown_write, {}, left()};
    case Phase::linger: return receive_action();
    case Phase::shutdown:
      if (stream_open_) return {Step::close_stream, {}, {}};
      phase_ = Phase::done;
      return {};
    case Phase::sent: phase_ = Phase::done; return {};
    case Phase::idle:
    case Phase::done: return {};
  }
  return {};
}

// --- the calls ---

void WsConnectionCore::begin_receive(std::chrono::nanoseconds timeout) {
  result_ = {};
  message_ = {};
  deadline_ = duet::detail::Deadline(timeout);
  if (ended_ || !session_) {
    result_ = io_errc::eof;
    phase_ = stream_open_ ? Phase::shutdown : Phase::done;
    return;
  }
  phase_ = Phase::receive;
}

void WsConnectionCore::begin_send(WsOpcode op, std::string_view payload, std::chrono::nanoseconds timeout) {
  result_ = {};
  deadline_ = duet::detail::Deadline(timeout);
  phase_ = Phase::done;
  if (ended_ || !session_ || !session_->can_send()) {
    result_ = errc(std::errc::not_connected);
    return;
  }
  queue(session_->message(op, payload));
  phase_ = Phase::sent;
}

void WsConnectionCore::begin_ping(std::string_view payload, std::chrono::nanoseconds timeout) {
  result_ = {};
  deadline_ = duet::detail::Deadline(timeout);
  phase_ = Phase::done;
  if (payload.size() > ws_max_control_payload) {
    result_ = errc(std::errc::invalid_argument);
  } else if (ended_ || !session_ || !session_->can_send()) {
    result_ = errc(std::errc::not_connected);
  } else {
    queue(session_->ping(payload));
    phase_ = Phase::sent;
  }
}

void WsConnectionCore::begin_close(std::uint16_t code, std::string_view reason) {
  result_ = {};
  deadline_ = duet::detail::Deadline(options_.close_timeout);
  if (ended_ || !session_ || !session_->can_send()) {  // over already (or closing: a second close waits again)
    phase_ = ended_ && stream_open_ ? Phase::shutdown : (ended_ ? Phase::done : Phase::close_wait);
    return;
  }
  queue(session_->close(code, reason));
  phase_ = Phase::close_wait;
}

// --- the events ---

// Gives the session what has arrived until it needs more or something must be done.
WsConnectionCore::Action WsConnectionCore::step_events(bool closing) {
  for (;;) {
    if (begin_ == end_) return receive_action();
    std::span<char> in(in_.data() + begin_, end_ - begin_);
    const WsEvent e = session_->next(in);
    begin_ = end_ - in.size();
    if (e.kind == WsEvent::Kind::need_more) {
      begin_ = end_ = 0;  // the reader took everything (it keeps partial frames itself)
      continue;
    }
    if (on_event(e, closing)) return next();
  }
}

// True when the operation moves on (a reply to send, a message, the end).
bool WsConnectionCore::on_event(const WsEvent& e, bool closing) {
  if (!e.reply.empty()) queue(e.reply);
  switch (e.kind) {
    case WsEvent::Kind::message:
      if (closing) return false;  // after our close, what still arrives is dropped
      message_ = WsMessage{e.opcode, e.payload};
      phase_ = Phase::done;
      return true;
    case WsEvent::Kind::ping: return !e.reply.empty();  // the pong goes out, then reading goes on
    case WsEvent::Kind::close:
      close_code_ = e.close.code;
      close_reason_.assign(e.close.reason);
      end_connection(closing ? std::error_code{} : make_error_code(io_errc::eof), false);
      return true;
    case WsEvent::Kind::error:
      close_code_ = e.error.code;
      close_reason_.assign(e.error.reason);
      end_connection(errc(e.error.code == static_cast<std::uint16_t>(WsCloseCode::message_too_big)
                              ? std::errc::message_size
                              : std::errc::protocol_error),
                     true);
      return true;
    case WsEvent::Kind::pong:
    case WsEvent::Kind::need_more: return false;
  }
  return false;
}

// Both closes have crossed (or ours went out after an error): a server
// closes TCP now, a client waits for the server to (RFC 6455 §7.1.1). A
// server failing the connection may not have read all the peer sent (the
// rest of a message too big): it half-closes and drains first, so its close
// frame is not lost to the RST a close with unread bytes would send.
void WsConnectionCore::end_connection(std::error_code result, bool failed) {
  result_ = result;
  ended_ = true;
  deadline_ = duet::detail::Deadline(options_.close_timeout);
  if (role_ == WsRole::client) phase_ = Phase::linger;
  else phase_ = failed ? Phase::half_close : Phase::shutdown;
}

void WsConnectionCore::fail(std::error_code e) {
  result_ = e;
  ended_ = true;
  sends_[0] = sends_[1] = {};
  phase_ = Phase::shutdown;
}

// --- the driver's results ---

std::span<char> WsConnectionCore::receive_space() noexcept {
  return {in_.data() + end_, in_.size() - end_};
}

WsConnectionCore::Action WsConnectionCore::receive_action() {
  if (begin_ == end_) begin_ = end_ = 0;
  return {Step::receive, {}, left()};
}

void WsConnectionCore::on_received(IoResult<std::size_t> r) {
  if (phase_ == Phase::linger) {  // waiting for the server's EOF: bytes are dropped, anything else ends it
    if (r) begin_ = end_ = 0;
    else phase_ = Phase::shutdown;
    return;
  }
  if (r) {
    end_ += *r;
    return;
  }
  const bool soft = r.error() == std::errc::timed_out || r.error() == std::errc::operation_canceled;
  if (soft && phase_ == Phase::receive) {  // nothing was lost: the connection goes on
    result_ = r.error();
    phase_ = Phase::done;
    return;
  }
  fail(r.error());  // EOF without a close (close_code() stays 1006), a reset, a handshake cut short
}

void WsConnectionCore::on_sent(IoResult<std::size_t> r) {
  if (!r && ended_) {  // our echo of the peer's close could not go: what the peer said stands
    sends_[0] = sends_[1] = {};
    phase_ = Phase::shutdown;
    return;
  }
  if (!r) return fail(r.error());  // part of a frame may have gone: the framing is lost
  sends_[0] = sends_[1];
  sends_[1] = {};
}

void WsConnectionCore::on_shutdown(const IoResult<void>& r) noexcept {
  if (!r) phase_ = Phase::shutdown;  // no half-close: just close
}

void WsConnectionCore::on_stream_closed() noexcept { stream_open_ = false; }

void WsConnectionCore::queue(std::span<const char> bytes) {
  if (bytes.empty()) return;
  (sends_[0].empty() ? sends_[0] : sends_[1]) = bytes;
}

void WsConnectionCore::queue(const WsOutFrame& frame) {
  if (frame.size() <= gather_limit) {  // one send, not two
    out_.assign(frame.header.data(), frame.header.size()).append(frame.payload.data(), frame.payload.size());
    return queue(std::span<const char>(out_));
  }
  queue(frame.header);
  queue(frame.payload);
}

WsState WsConnectionCore::state() const noexcept {
  if (ended_ || !session_) return WsState::closed;
  return session_->state();
}

std::uint16_t WsConnectionCore::close_code() const noexcept { return close_code_; }

}  // namespace duet::http::detail
