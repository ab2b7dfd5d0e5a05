// duet::fiber::TlsStream — TLS over a fiber::TcpStream: plain blocking calls.
//
// Contract
// - The same calls as fiber::TcpStream (recv, send, send_all, shutdown; each
//   with an optional timeout and std::stop_token) plus handshake(); the same
//   IoResult values. recv's EOF (r.eof()) means the peer sent close_notify;
//   a TCP close without it is tls_errc::unexpected_eof. TLS failures are
//   tls_errc values, with OpenSSL's words in error_message().
// - The TLS state machine is duet::TlsEngine (voice-neutral, sans-I/O); this
//   class only moves the bytes it asks for over the TCP stream, so it never
//   blocks the loop and works on both backends. Ciphertext arrives in the
//   loop's pooled buffers (recv_pooled), so a waiting stream holds none.
//   Each call blocks only the calling fiber. A timeout bounds the whole call
//   (all its round trips).
// - handshake() may be skipped: the first recv/send does it, without a
//   timeout of its own. shutdown() sends close_notify then FIN; it does not
//   wait for the peer's close_notify.
// - Owns the TCP stream and the engine; move-only. The scheduler's thread
//   only; one recv and one send may be in flight at once (a reader and a
//   writer fiber): the one sending flushes what the other produced.
//   A send returns once its ciphertext is in a send to the kernel (its own,
//   or the other's): behind a reader whose send is stuck (a peer that does
//   not read but keeps the reader answering) it waits, as a TCP send would,
//   so the queued ciphertext stays under TlsEngine::max_queued.
//
//   duet::TlsContext ctx({.ca_file = "ca.crt"});
//   auto tls = duet::fiber::TlsStream::connect(addr, ctx, "kv.example", 2s);
//   if (!tls) log(tls.error().message());
//   tls->send_all(std::string_view("PING\r\n"));
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <stop_token>
#include <string_view>

#include "duet/io/io_result.hpp"
#include "duet/io/socket_address.hpp"
#include "duet/stackful/tcp_stream.hpp"
#include "duet/tls/detail/deadline.hpp"
#include "duet/tls/tls_engine.hpp"

namespace duet::fiber {

class TlsStream {
 public:
  using Timeout = std::chrono::nanoseconds;  // 0 = none

  TlsStream() noexcept = default;
  // Wraps a connected TCP stream; no byte moves until handshake() or the first recv/send.
  // server_name (client side): SNI and the name the certificate must carry.
  TlsStream(TcpStream tcp, const TlsContext& context, std::string_view server_name = {});

  // connect + handshake; on a TLS failure the TCP connection is closed.
  static IoResult<TlsStream> connect(const SocketAddress& peer, const TlsContext& context,
                                     std::string_view server_name, Timeout timeout = {}, std::stop_token token = {});

  IoResult<void> handshake(Timeout timeout = {}, std::stop_token token = {});

  IoResult<std::size_t> recv(std::span<char> buf, std::stop_token token = {}) {
    return recv(buf, Timeout{0}, std::move(token));
  }
  IoResult<std::size_t> recv(std::span<char> buf, Timeout timeout, std::stop_token token = {});
  IoResult<std::size_t> send(std::span<const char> buf, std::stop_token token = {}) {
    return send(buf, Timeout{0}, std::move(token));
  }
  IoResult<std::size_t> send(std::span<const char> buf, Timeout timeout, std::stop_token token = {});
  IoResult<std::size_t> send_all(std::span<const char> buf, std::stop_token token = {}) {
    return send_all(buf, Timeout{0}, std::move(token));
  }
  IoResult<std::size_t> send_all(std::span<const char> buf, Timeout timeout, std::stop_token token = {});
  IoResult<void> shutdown(Timeout timeout = {}, std::stop_token token = {});

  [[nodiscard]] TlsEngine& engine() const noexcept { return *engine_; }  // alpn(), version(), record_layer(), ...
  [[nodiscard]] const std::string& error_message() const noexcept { return engine_->error_message(); }
  [[nodiscard]] TcpStream& tcp() noexcept { return tcp_; }
  [[nodiscard]] int native_handle() const noexcept { return tcp_.native_handle(); }
  [[nodiscard]] bool is_open() const noexcept { return tcp_.is_open(); }
  void close() noexcept { tcp_.close(); }

 private:
  template <typename Op>
  IoResult<void> drive(TlsEngine::Party party, Op op, const duet::detail::Deadline& deadline,
                       const std::stop_token& token);
  IoResult<void> flush(TlsEngine::Party party, const duet::detail::Deadline& deadline, const std::stop_token& token);

  TcpStream tcp_;
  std::unique_ptr<TlsEngine> engine_;  // on the heap: OpenSSL's BIO points at it, the stream moves
};

}  // namespace duet::fiber
