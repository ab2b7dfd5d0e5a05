// duet::WebSocket<Stream> — a WebSocket connection (RFC 6455) in the
// stackless voice, over a duet::TcpStream or a duet::TlsStream; ws_accept
// (server) and ws_connect (client) make one from a connected stream.
//
// Contract
// - The semantics are WsConnectionCore's (http/detail/websocket_connection_core.hpp),
//   shared with duet::fiber::WebSocket: this file only awaits the core's sends
//   and receives. Same calls, same results, same close handshake.
// - ws_accept(stream, options) reads the upgrade request itself (at most
//   options.max_head_bytes, within options.handshake_timeout) and answers 101,
//   or 400/426 naming the defect and then closes (std::errc::protocol_error).
//   ws_accept(stream, head, leftover, options): an HTTP server routed the
//   request already; `leftover` is what it received after the head (maybe the
//   first frames), copied before the call returns. ws_connect(stream, host,
//   target, options) sends the upgrade (offering permessage-deflate when
//   options.session.deflate.enabled) and checks the 101. A failed handshake
//   closes the stream.
// - receive() -> the next text or binary message (a view, valid until the
//   next call); pings are answered and pongs dropped on the way. io_errc::eof
//   once the connection ended: close_code() says how (the peer's code, 1005
//   without one, 1006 without a close frame). A peer's close is echoed, then
//   a server closes TCP and a client waits close_timeout for the server's EOF.
//   protocol_error / message_size (1009): the peer broke a rule, our close
//   was sent. A timed-out or stopped receive leaves the connection usable.
// - send_text / send_binary / ping send one frame; close(code, reason) sends
//   ours and reads (dropping messages) until the peer's, within close_timeout.
//   Timeouts and stop tokens as the streams' own calls; a send that fails or
//   is stopped closes the connection (a frame may be cut).
// - One call at a time: no receive beside a send (the automatic pong is sent
//   from within receive). Arguments (payloads, host, target, reason) must
//   stay valid until the returned task completes. The loop's thread only;
//   move-only; the WebSocket owns its stream.
//
//   auto ws = co_await duet::ws_accept(std::move(conn));
//   if (!ws) co_return;
//   for (auto m = co_await ws->receive(); m; m = co_await ws->receive()) {
//     if (m->is_text()) co_await ws->send_text(m->data());   // not `co_await (c ? a : b)`: GCC 12
//     else co_await ws->send_binary(m->payload);            // destroys that temporary twice
//   }
#pragma once

#include <chrono>
#include <concepts>
#include <cstdint>
#include <memory>
#include <span>
#include <stop_token>
#include <string_view>
#include <utility>

#include "duet/http/detail/websocket_connection_core.hpp"
#include "duet/http/request_head.hpp"
#include "duet/http/websocket_options.hpp"
#include "duet/io/io_result.hpp"
#include "duet/task/task.hpp"
#include "duet/task/with_timeout.hpp"

namespace duet {

template <typename Stream>
class WebSocket;

namespace detail {

// TlsStream's calls take a timeout and are Tasks; TcpStream's are awaiters a timeout wraps.
template <typename Stream>
concept TimedStream = requires(Stream& s, std::span<char> b, std::chrono::nanoseconds t, std::stop_token k) {
  s.recv(b, t, k);
};

// Carries out the core's actions until the operation is over.
template <typename Stream>
Task<void> ws_drive(Stream& stream, http::detail::WsConnectionCore& core, std::stop_token token) {
  using Step = http::detail::WsConnectionCore::Step;
  for (auto a = core.next(); a.step != Step::done; a = core.next()) {
    if (a.step == Step::close_stream) {
      stream.close();
      core.on_stream_closed();
    } else if (a.step == Step::shutdown_write) {
      IoResult<void> r;
      if constexpr (TimedStream<Stream>) r = co_await stream.shutdown(a.timeout, token);  // close_notify + FIN
      else r = stream.shutdown();  // FIN
      core.on_shutdown(r);
    } else if (a.step == Step::send) {
      IoResult<std::size_t> r{0};
      if constexpr (TimedStream<Stream>) r = co_await stream.send_all(a.bytes, a.timeout, token);
      else if (a.timeout.count() > 0) r = co_await with_timeout(stream.send_all(a.bytes, token), a.timeout);
      else r = co_await stream.send_all(a.bytes, token);
      core.on_sent(r);
    } else {
      IoResult<std::size_t> r{0};
      if constexpr (TimedStream<Stream>) r = co_await stream.recv(core.receive_space(), a.timeout, token);
      else if (a.timeout.count() > 0) r = co_await with_timeout(stream.recv(core.receive_space(), token), a.timeout);
      else r = co_await stream.recv(core.receive_space(), token);
      core.on_received(r);
    }
  }
}

// The handshake functions' way in: a WebSocket is only made by them.
template <typename Stream>
struct WsAccess {
  static WebSocket<Stream> make(Stream stream, WsRole role, const WsOptions& options) {
    return WebSocket<Stream>(std::move(stream), role, options);
  }
  static http::detail::WsConnectionCore& core(WebSocket<Stream>& ws) noexcept { return *ws.core_; }
  static Stream& stream(WebSocket<Stream>& ws) noexcept { return ws.stream_; }
};

}  // namespace detail

template <typename Stream>
class WebSocket {
 public:
  using Timeout = std::chrono::nanoseconds;  // 0 = none

  WebSocket() noexcept = default;
  WebSocket(WebSocket&&) noexcept = default;
  WebSocket& operator=(WebSocket&&) noexcept = default;
  WebSocket(const WebSocket&) = delete;
  WebSocket& operator=(const WebSocket&) = delete;
  ~WebSocket() = default;

  [[nodiscard]] Task<IoResult<WsMessage>> receive(Timeout timeout = {}, std::stop_token token = {}) {
    core_->begin_receive(timeout);
    co_await detail::ws_drive(stream_, *core_, std::move(token));
    IoResult<void> r = core_->result();
    if (!r) co_return r.error();
    co_return core_->message();
  }
  [[nodiscard]] Task<IoResult<void>> send_text(std::string_view text, Timeout timeout = {}, std::stop_token token = {}) {
    return send(WsOpcode::text, text, timeout, std::move(token));
  }
  [[nodiscard]] Task<IoResult<void>> send_binary(std::span<const char> bytes, Timeout timeout = {},
                                                 std::stop_token token = {}) {
    return send(WsOpcode::binary, std::string_view(bytes.data(), bytes.size()), timeout, std::move(token));
  }
  [[nodiscard]] Task<IoResult<void>> ping(std::string_view payload = {}, Timeout timeout = {},
                                          std::stop_token token = {}) {
    core_->begin_ping(payload, timeout);
    return run(std::move(token));
  }
  [[nodiscard]] Task<IoResult<void>> close(std::uint16_t code = 1000, std::string_view reason = {},
                                           std::stop_token token = {}) {
    core_->begin_close(code, reason);
    return run(std::move(token));
  }

  [[nodiscard]] WsState state() const noexcept { return core_ ? core_->state() : WsState::closed; }
  [[nodiscard]] std::uint16_t close_code() const noexcept { return core_->close_code(); }
  [[nodiscard]] std::string_view close_reason() const noexcept { return core_->close_reason(); }
  [[nodiscard]] std::string_view subprotocol() const noexcept { return core_->subprotocol(); }
  [[nodiscard]] bool deflate() const noexcept { return core_->deflate(); }
  [[nodiscard]] Stream& stream() noexcept { return stream_; }

 private:
  friend struct detail::WsAccess<Stream>;

  WebSocket(Stream stream, WsRole role, const WsOptions& options)
      : stream_(std::move(stream)), core_(std::make_unique<http::detail::WsConnectionCore>(role, options)) {}

  // The core's buffers live on the heap, so the task may run while `this` stays put.
  Task<IoResult<void>> send(WsOpcode op, std::string_view payload, Timeout timeout, std::stop_token token) {
    core_->begin_send(op, payload, timeout);
    return run(std::move(token));
  }
  Task<IoResult<void>> run(std::stop_token token) {
    co_await detail::ws_drive(stream_, *core_, std::move(token));
    co_return core_->result();
  }

  Stream stream_;
  std::unique_ptr<http::detail::WsConnectionCore> core_;
};

namespace detail {

template <typename Stream>
Task<IoResult<WebSocket<Stream>>> ws_handshake(WebSocket<Stream> ws, std::stop_token token) {
  co_await ws_drive(WsAccess<Stream>::stream(ws), WsAccess<Stream>::core(ws), std::move(token));
  IoResult<void> r = WsAccess<Stream>::core(ws).result();
  if (!r) co_return r.error();
  co_return std::move(ws);
}

}  // namespace detail

// Server: reads the upgrade request, answers it.
template <typename Stream>
[[nodiscard]] Task<IoResult<WebSocket<Stream>>> ws_accept(Stream stream, WsOptions options = {},
                                                          std::stop_token token = {}) {
  auto ws = detail::WsAccess<Stream>::make(std::move(stream), WsRole::server, options);
  detail::WsAccess<Stream>::core(ws).begin_accept();
  return detail::ws_handshake(std::move(ws), std::move(token));
}

// Server: the request's head was parsed by the caller; `leftover` followed it.
template <typename Stream>
[[nodiscard]] Task<IoResult<WebSocket<Stream>>> ws_accept(Stream stream, const http::RequestHead& head,
                                                          std::string_view leftover, WsOptions options = {},
                                                          std::stop_token token = {}) {
  auto ws = detail::WsAccess<Stream>::make(std::move(stream), WsRole::server, options);
  detail::WsAccess<Stream>::core(ws).begin_accept(head, leftover);
  return detail::ws_handshake(std::move(ws), std::move(token));
}

// Client: `host` for the Host field, `target` the path ("/chat?room=1").
template <typename Stream>
[[nodiscard]] Task<IoResult<WebSocket<Stream>>> ws_connect(Stream stream, std::string_view host,
                                                           std::string_view target, WsOptions options = {},
                                                           std::stop_token token = {}) {
  auto ws = detail::WsAccess<Stream>::make(std::move(stream), WsRole::client, options);
  detail::WsAccess<Stream>::core(ws).begin_connect(host, target);
  return detail::ws_handshake(std::move(ws), std::move(token));
}

}  // namespace duet
