// duet::TcpListener — a listening TCP socket for the stackless voice.
//
// Contract
// - bind() creates a non-blocking socket with SO_REUSEADDR (and SO_REUSEPORT if
//   asked), binds and listens; it throws std::system_error on failure (setup
//   errors throw, per-op results are values). Port 0 picks a free port:
//   local_address().port() tells which.
// - accept() returns an awaiter giving IoResult<TcpStream>. Errors such as EMFILE
//   (out of file descriptors) come back as values: the listener stays usable, and
//   the caller decides how to back off (the guide shows a short sleep).
// - Move-only; the destructor closes the socket through the loop. Loop thread only.
// - Unix domain stream sockets too: bind to SocketAddress::unix_domain(path)
//   (a socket file already at path is removed first, as Redis does;
//   ListenOptions::unix_mode chmods the new one) or ("@name") for Linux's
//   abstract namespace. UnixListener names this same type: one accept path,
//   one set of tests for what the two families share. The file stays after
//   close (as with bind(2)); the next bind replaces it.
//
//   auto listener = duet::TcpListener::bind(loop, duet::SocketAddress::parse("127.0.0.1", 7000).value());
//   for (;;) {
//     auto conn = co_await listener.accept();
//     if (conn) scope.spawn(serve(std::move(*conn)));
//   }
#pragma once

#include <stop_token>

#include "io/event_loop.hpp"
#include "io/socket_address.hpp"
#include "io/socket_ops.hpp"
#include "task/detail/stream_awaiters.hpp"

namespace duet {

class TcpListener {
 public:
  TcpListener() noexcept = default;
  TcpListener(const TcpListener&) = delete;
  TcpListener& operator=(const TcpListener&) = delete;
  TcpListener(TcpListener&& other) noexcept;
  TcpListener& operator=(TcpListener&& other) noexcept;
  ~TcpListener() { close(); }

  [[nodiscard]] static TcpListener bind(EventLoop& loop, const SocketAddress& addr, ListenOptions options = {});

  [[nodiscard]] detail::AcceptAwaiter accept(std::stop_token token = {}) noexcept {
    return detail::AcceptAwaiter(*loop_, fd_, std::move(token));
  }

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

}  // namespace duet
