// duet::http::detail::WsConnectionCore — everything a WebSocket connection
// does but wait: the opening handshake over HTTP/1.1, the receive buffer, the
// event loop over WsSession::next, the automatic replies, the closing
// handshake and when to close the stream. Written once; duet::WebSocket
// (task/websocket.hpp) and duet::fiber::WebSocket (stackful/websocket.hpp)
// only carry out its actions, each voice in its own way of waiting.
//
// Contract
// - An operation begins with begin_*(); the driver then loops: a = next();
//     send          send_all(a.bytes) within a.timeout, then on_sent(result);
//     receive       recv(receive_space()) within a.timeout, then on_received(result);
//     shutdown_write  half-close (TCP: shutdown(SHUT_WR); TLS: close_notify),
//                   then on_shutdown(result);
//     close_stream  close the stream (a server after the close, a failed
//                   handshake, a broken connection), then on_stream_closed();
//     done          the operation is over: result() (and message() after a receive).
//   a.timeout 0 means none; a stop token is the driver's, passed to each call.
// - Results: ok; io_errc::eof once the connection has ended (close_code()
//   says how: the peer's code, 1005 without one, 1006 without a close frame);
//   std::errc::protocol_error or message_size (1009) when the peer broke the
//   protocol (our close was sent); timed_out / operation_canceled from the
//   calls (a receive that timed out leaves the connection usable; a send
//   that did may have sent part of a frame, so the connection is closed);
//   std::errc::not_connected for a send after the connection closed.
// - Semantics: RFC 6455 through WsSession (websocket_session.hpp). A peer's
//   close is echoed; then a server closes TCP, a client waits for the
//   server's EOF (close_timeout) and closes. A server that fails the
//   connection (a broken rule, 1009) half-closes after its close frame and
//   reads until the client's EOF (close_timeout) before closing: closing
//   with unread bytes would send a TCP RST, which may destroy the close
//   frame before the client reads it. close() sends ours and reads,
//   dropping messages, until the peer's close (close_timeout).
// - One operation at a time (the automatic pong is sent from within a
//   receive, so a send may not run beside it). One thread.
//
//   core.begin_receive(timeout);
//   for (auto a = core.next(); a.step != Step::done; a = core.next()) { ...carry out a... }
//   if (auto r = core.result(); r) use(core.message());
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "duet/http/request_head.hpp"
#include "duet/http/detail/upgrade_response.hpp"
#include "duet/http/websocket_options.hpp"
#include "duet/http/websocket_session.hpp"
#include "duet/io/io_result.hpp"
#include "duet/tls/detail/deadline.hpp"

namespace duet::http::detail {

class WsConnectionCore {
 public:
  enum class Step : std::uint8_t { send, receive, shutdown_write, close_stream, done };
  struct Action {
    Step step = Step::done;
    std::span<const char> bytes;          // send
    std::chrono::nanoseconds timeout{0};  // send, receive: 0 = none
  };

  WsConnectionCore(WsRole role, const WsOptions& options);
  WsConnectionCore(const WsConnectionCore&) = delete;
  WsConnectionCore& operator=(const WsConnectionCore&) = delete;
  ~WsConnectionCore();

  // The opening handshake.
  void begin_accept();                                                  // reads the request head
  void begin_accept(const RequestHead& head, std::string_view leftover);  // a head parsed already
  void begin_connect(std::string_view host, std::string_view target);
  // The calls.
  void begin_receive(std::chrono::nanoseconds timeout);
  void begin_send(WsOpcode op, std::string_view payload, std::chrono::nanoseconds timeout);
  void begin_ping(std::string_view payload, std::chrono::nanoseconds timeout);
  void begin_close(std::uint16_t code, std::string_view reason);

  [[nodiscard]] Action next();
  [[nodiscard]] std::span<char> receive_space() noexcept;
  void on_sent(IoResult<std::size_t> r);
  void on_received(IoResult<std::size_t> r);
  void on_shutdown(const IoResult<void>& r) noexcept;
  void on_stream_closed() noexcept;

  [[nodiscard]] IoResult<void> result() const noexcept { return result_; }
  [[nodiscard]] WsMessage message() const noexcept { return message_; }

  [[nodiscard]] WsState state() const noexcept;
  [[nodiscard]] std::uint16_t close_code() const noexcept;
  [[nodiscard]] std::string_view close_reason() const noexcept { return close_reason_; }
  [[nodiscard]] std::string_view subprotocol() const noexcept { return subprotocol_; }
  [[nodiscard]] bool deflate() const noexcept { return deflate_; }
  // The handshake's refusal, for a log: the HTTP status a server answered or
  // a client received (0 if none), and why.
  [[nodiscard]] int refused_status() const noexcept { return refused_status_; }
  [[nodiscard]] std::string_view refused_reason() const noexcept { return refused_reason_; }

 private:
  enum class Phase : std::uint8_t { idle, accept_head, accept_reply, connect_reply, receive, sent, close_wait,
                                    half_close, linger, shutdown, done };

  Action step_accept_head();
  void answer_upgrade(const RequestHead& head);
  void refuse(int status, std::string_view reason, bool version_header);
  Action step_connect_reply();
  void check_upgrade_response(const UpgradeResponse& head);
  Action step_events(bool closing);
  bool on_event(const WsEvent& e, bool closing);
  void open_session(const std::optional<WsDeflateParams>& deflate);
  void end_connection(std::error_code result, bool failed);
  void fail(std::error_code e);
  void queue(std::span<const char> bytes);
  void queue(const WsOutFrame& frame);
  Action receive_action();
  [[nodiscard]] std::chrono::nanoseconds left() const noexcept { return deadline_.none() ? std::chrono::nanoseconds{0} : deadline_.left(); }

  WsRole role_;
  WsOptions options_;
  Phase phase_ = Phase::idle;
  std::optional<WsSession> session_;
  duet::detail::Deadline deadline_{std::chrono::nanoseconds{0}};
  std::vector<char> in_;       // received bytes: [begin_, end_) not yet given to the session
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  std::string out_;            // a handshake's bytes, or a small frame gathered in one send
  std::span<const char> sends_[2];  // what is still to be sent, in order
  std::string key_;            // the client's Sec-WebSocket-Key
  IoResult<void> result_;
  WsMessage message_;
  bool stream_open_ = true;
  bool ended_ = false;         // the connection is over (closed, failed or broken)
  bool deflate_ = false;
  bool eof_seen_ = false;
  std::uint16_t close_code_ = 1006;
  std::string close_reason_;
  std::string subprotocol_;
  int refused_status_ = 0;
  std::string refused_reason_;
};

}  // namespace duet::http::detail
