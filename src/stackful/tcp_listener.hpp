// duet::fiber::TcpListener — a listening TCP socket for the stackful voice.
//
// Contract
// - bind(addr, options) creates a non-blocking socket with SO_REUSEADDR (and
//   SO_REUSEPORT if asked) on the current scheduler's loop, binds and listens;
//   throws std::system_error on failure, like the stackless bind. Port 0 picks
//   a free port: local_address().port() tells which.
// - accept() blocks the calling fiber until a connection arrives and returns
//   IoResult<TcpStream>; errors (EMFILE, timed_out, operation_canceled) are
//   values and the listener stays usable. Optional timeout and stop_token.
// - Move-only; the destructor closes the socket through the loop. The
//   scheduler's thread only; accept must be called on a fiber.
// - Unix domain stream sockets too: bind to SocketAddress::unix_domain(path)
//   (a socket file already at path is removed first, as Redis does;
//   ListenOptions::unix_mode chmods the new one) or ("@name") for Linux's
//   abstract namespace. UnixListener names this same type: one accept path,
//   one set of tests for what the two families share. The file stays after
//   close (as with bind(2)); the next bind replaces it.
//
//   auto listener = duet::fiber::TcpListener::bind(duet::SocketAddress::parse("127.0.0.1", 7000).value());
//   for (;;) {
//     auto conn = listener.accept();
//     if (conn) duet::fiber::spawn(serve, std::move(*conn)).detach();
//   }
#pragma once

#include <chrono>
#include <stop_token>

#include "io/event_loop.hpp"
#include "io/io_result.hpp"
#include "io/socket_address.hpp"
#include "io/socket_ops.hpp"
#include "stackful/tcp_stream.hpp"

namespace duet::fiber {

using duet::ListenOptions;  // the same options as the stackless listener

class TcpListener {
 public:
  TcpListener() noexcept = default;
  TcpListener(const TcpListener&) = delete;
  TcpListener& operator=(const TcpListener&) = delete;
  TcpListener(TcpListener&& other) noexcept;
  TcpListener& operator=(TcpListener&& other) noexcept;
  ~TcpListener() { close(); }

  [[nodiscard]] static TcpListener bind(const SocketAddress& addr, ListenOptions options = {});

  IoResult<TcpStream> accept(std::stop_token token = {}) {
    return accept(TcpStream::Timeout{0}, std::move(token));
  }
  IoResult<TcpStream> accept(TcpStream::Timeout timeout, std::stop_token token = {});

  [[nodiscard]] SocketAddress local_address() const noexcept;
  [[nodiscard]] int native_handle() const noexcept { return fd_; }
  [[nodiscard]] bool is_open() const noexcept { return fd_ >= 0; }
  void close() noexcept;

 private:
  TcpListener(EventLoop& loop, int fd) noexcept : loop_(&loop), fd_(fd) {}

  EventLoop* loop_ = nullptr;
  int fd_ = -1;
};

// A listening Unix domain stream socket: the same type, bound to an AF_UNIX address.
using UnixListener = TcpListener;

}  // namespace duet::fiber
