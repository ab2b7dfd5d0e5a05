// duet::fiber::WebSocket<Stream> — a WebSocket connection (RFC 6455) in the
// stackful voice, over a duet::fiber::TcpStream or duet::fiber::TlsStream;
// ws_accept (server) and ws_connect (client) make one from a connected stream.
//
// Contract
// - The same API and semantics as the stackless duet::WebSocket
//   (task/websocket.hpp, whose contract this shares word for word), as plain
//   blocking calls: both carry out one WsConnectionCore
//   (http/detail/websocket_connection_core.hpp); only the waiting differs.
// - Each call blocks the calling fiber only; calls must be made on a fiber
//   of the scheduler owning the stream. One call at a time (no receive in
//   one fiber beside a send in another: the automatic pong is sent from
//   within receive). Move-only; the WebSocket owns its stream.
//
//   auto ws = duet::fiber::ws_accept(std::move(conn));
//   if (!ws) return;
//   for (auto m = ws->receive(); m; m = ws->receive())
//     m->is_text() ? ws->send_text(m->data()) : ws->send_binary(m->payload);
#pragma once

#include <chrono>
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

namespace duet::fiber {

template <typename Stream>
class WebSocket;

namespace detail {

// Carries out the core's actions until the operation is over.
template <typename Stream>
void ws_drive(Stream& stream, http::detail::WsConnectionCore& core, const std::stop_token& token) {
  using Step = http::detail::WsConnectionCore::Step;
  for (auto a = core.next(); a.step != Step::done; a = core.next()) {
    if (a.step == Step::close_stream) {
      stream.close();
      core.on_stream_closed();
    } else if (a.step == Step::shutdown_write) {
      if constexpr (requires { stream.shutdown(a.timeout, token); }) {
        core.on_shutdown(stream.shutdown(a.timeout, token));  // TLS: close_notify + FIN
      } else {
        core.on_shutdown(stream.shutdown());  // FIN
      }
    } else if (a.step == Step::send) {
      core.on_sent(stream.send_all(a.bytes, a.timeout, token));
    } else {
      core.on_received(stream.recv(core.receive_space(), a.timeout, token));
    }
  }
}

// The handshake functions' way in: a WebSocket is only made by them.
template <typename Stream>
struct WsAccess {
  static WebSocket<Stream> make(Stream stream, WsRole role, const WsOptions& options) {
    return WebSocket<Stream>(std::move(stream), role, options);
  }
  static IoResult<WebSocket<Stream>> handshake(WebSocket<Stream> ws, const std::stop_token& token) {
    ws_drive(ws.stream_, *ws.core_, token);
    if (IoResult<void> r = ws.core_->result(); !r) return r.error();
    return ws;  // moved (C++20 implicit move into IoResult)
  }
  static http::detail::WsConnectionCore& core(WebSocket<Stream>& ws) noexcept { return *ws.core_; }
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

  IoResult<WsMessage> receive(Timeout timeout = {}, std::stop_token token = {}) {
    core_->begin_receive(timeout);
    detail::ws_drive(stream_, *core_, token);
    if (IoResult<void> r = core_->result(); !r) return r.error();
    return core_->message();
  }
  IoResult<void> send_text(std::string_view text, Timeout timeout = {}, std::stop_token token = {}) {
    core_->begin_send(WsOpcode::text, text, timeout);
    return run(token);
  }
  IoResult<void> send_binary(std::span<const char> bytes, Timeout timeout = {}, std::stop_token token = {}) {
    core_->begin_send(WsOpcode::binary, std::string_view(bytes.data(), bytes.size()), timeout);
    return run(token);
  }
  IoResult<void> ping(std::string_view payload = {}, Timeout timeout = {}, std::stop_token token = {}) {
    core_->begin_ping(payload, timeout);
    return run(token);
  }
  IoResult<void> close(std::uint16_t code = 1000, std::string_view reason = {}, std::stop_token token = {}) {
    core_->begin_close(code, reason);
    return run(token);
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

  IoResult<void> run(const std::stop_token& token) {
    detail::ws_drive(stream_, *core_, token);
    return core_->result();
  }

  Stream stream_;
  std::unique_ptr<http::detail::WsConnectionCore> core_;
};

// Server: reads the upgrade request, answers it.
template <typename Stream>
[[nodiscard]] IoResult<WebSocket<Stream>> ws_accept(Stream stream, WsOptions options = {}, std::stop_token token = {}) {
  auto ws = detail::WsAccess<Stream>::make(std::move(stream), WsRole::server, options);
  detail::WsAccess<Stream>::core(ws).begin_accept();
  return detail::WsAccess<Stream>::handshake(std::move(ws), token);
}

// Server: the request's head was parsed by the caller; `leftover` followed it.
template <typename Stream>
[[nodiscard]] IoResult<WebSocket<Stream>> ws_accept(Stream stream, const http::RequestHead& head,
                                                    std::string_view leftover, WsOptions options = {},
                                                    std::stop_token token = {}) {
  auto ws = detail::WsAccess<Stream>::make(std::move(stream), WsRole::server, options);
  detail::WsAccess<Stream>::core(ws).begin_accept(head, leftover);
  return detail::WsAccess<Stream>::handshake(std::move(ws), token);
}

// Client: `host` for the Host field, `target` the path ("/chat?room=1").
template <typename Stream>
[[nodiscard]] IoResult<WebSocket<Stream>> ws_connect(Stream stream, std::string_view host, std::string_view target,
                                                     WsOptions options = {}, std::stop_token token = {}) {
  auto ws = detail::WsAccess<Stream>::make(std::move(stream), WsRole::client, options);
  detail::WsAccess<Stream>::core(ws).begin_connect(host, target);
  return detail::WsAccess<Stream>::handshake(std::move(ws), token);
}

}  // namespace duet::fiber
