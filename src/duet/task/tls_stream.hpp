// duet::TlsStream — TLS over a TcpStream for the stackless voice: co_await its calls.
//
// Contract
// - The same calls as TcpStream (recv, send, send_all, shutdown), each a
//   Task to co_await, with an optional timeout (the overloads taking a
//   duration, like fiber::TlsStream's: a TLS call is several socket calls, so
//   with_timeout cannot wrap it) and std::stop_token, plus handshake(); the
//   same IoResult values. recv's EOF (r.eof()) means the peer sent close_notify;
//   a TCP close without it is tls_errc::unexpected_eof. TLS failures are
//   tls_errc values, with OpenSSL's words in error_message().
// - The TLS state machine is duet::TlsEngine (voice-neutral, sans-I/O); this
//   class only moves the bytes it asks for over the TCP stream, so it never
//   blocks the loop and works on both backends. Ciphertext arrives in the
//   loop's pooled buffers (recv_pooled), so a waiting stream holds none. A timeout bounds the whole
//   call (all its round trips). The stream must outlive the awaited call.
// - handshake() may be skipped: the first recv/send does it, without a
//   timeout of its own. shutdown() sends close_notify then FIN; it does not
//   wait for the peer's close_notify.
// - Owns the TCP stream and the engine; move-only. The loop's thread only;
//   one recv and one send may be in flight at once (a reader and a writer
//   coroutine): the one sending flushes what the other produced.
//   A send returns once its ciphertext is in a send to the kernel (its own,
//   or the other's): behind a reader whose send is stuck (a peer that does
//   not read but keeps the reader answering) it waits, as a TCP send would,
//   so the queued ciphertext stays under TlsEngine::max_queued.
//
//   duet::TlsContext ctx({.ca_file = "ca.crt"});
//   auto tls = co_await duet::TlsStream::connect(loop, addr, ctx, "kv.example", 2s);
//   if (!tls) log(tls.error().message());
//   co_await tls->send_all(std::string_view("PING\r\n"));
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
#include "duet/task/task.hpp"
#include "duet/task/tcp_stream.hpp"
#include "duet/tls/detail/deadline.hpp"
#include "duet/tls/tls_engine.hpp"

namespace duet {

class TlsStream {
 public:
  using Timeout = std::chrono::nanoseconds;  // 0 = none

  TlsStream() noexcept = default;
  // Wraps a connected TCP stream; no byte moves until handshake() or the first recv/send.
  // server_name (client side): SNI and the name the certificate must carry.
  TlsStream(TcpStream tcp, const TlsContext& context, std::string_view server_name = {});

  // connect + handshake; on a TLS failure the TCP connection is closed.
  static Task<IoResult<TlsStream>> connect(EventLoop& loop, SocketAddress peer, const TlsContext& context,
                                           std::string server_name, Timeout timeout = {}, std::stop_token token = {});

  Task<IoResult<void>> handshake(Timeout timeout = {}, std::stop_token token = {});

  Task<IoResult<std::size_t>> recv(std::span<char> buf, std::stop_token token = {}) {
    return recv(buf, Timeout{0}, std::move(token));
  }
  Task<IoResult<std::size_t>> recv(std::span<char> buf, Timeout timeout, std::stop_token token = {});
  Task<IoResult<std::size_t>> send(std::span<const char> buf, std::stop_token token = {}) {
    return send(buf, Timeout{0}, std::move(token));
  }
  Task<IoResult<std::size_t>> send(std::span<const char> buf, Timeout timeout, std::stop_token token = {});
  Task<IoResult<std::size_t>> send_all(std::span<const char> buf, std::stop_token token = {}) {
    return send_all(buf, Timeout{0}, std::move(token));
  }
  Task<IoResult<std::size_t>> send_all(std::span<const char> buf, Timeout timeout, std::stop_token token = {});
  Task<IoResult<void>> shutdown(Timeout timeout = {}, std::stop_token token = {});

  [[nodiscard]] TlsEngine& engine() const noexcept { return *engine_; }  // alpn(), version(), record_layer(), ...
  [[nodiscard]] const std::string& error_message() const noexcept { return engine_->error_message(); }
  [[nodiscard]] TcpStream& tcp() noexcept { return tcp_; }
  [[nodiscard]] int native_handle() const noexcept { return tcp_.native_handle(); }
  [[nodiscard]] bool is_open() const noexcept { return tcp_.is_open(); }
  void close() noexcept { tcp_.close(); }

 private:
  template <typename Op>
  Task<IoResult<void>> drive(TlsEngine::Party party, Op op, detail::Deadline deadline, std::stop_token token);
  Task<IoResult<void>> flush(TlsEngine::Party party, detail::Deadline deadline, std::stop_token token);

  TcpStream tcp_;
  std::unique_ptr<TlsEngine> engine_;  // on the heap: OpenSSL's BIO points at it, the stream moves
};

}  // namespace duet
