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
// - The port is free once close() returns, or once the process is gone however
//   it ended (SIGKILL included), on both backends; io/socket_ops.hpp ("A port
//   free at exit") says how, and what duet cannot vouch for (a forked child's
//   copy of the fd, ...), where ListenOptions::bind_retry waits at bind.
// - Unix domain stream sockets too: bind to SocketAddress::unix_domain(path)
//   or ("@name") for Linux's abstract namespace. A stale socket file at path
//   (nobody accepts on it) is removed first; over a live server's socket,
//   in this process or another, bind throws std::system_error(EADDRINUSE)
//   (io/unix_socket_file.hpp). ListenOptions::unix_mode chmods the new file;
//   close removes it if the path still names it (not a file that replaced
//   it; an adopted socket's file stays). UnixListener names this same type:
//   one accept path, one set of tests for what the two families share.
// - Many shards (runtime/connection_spreader.hpp): adopt(loop, fd) wraps a
//   listening socket opened elsewhere; accept_fd() accepts a socket bound to
//   no loop yet, to hand to another shard. serve_shard(spreader, serve), a
//   task run on every shard of a set (spawn_on), serves that shard's share
//   of the connections: serve(stream, stop) per connection in a TaskScope
//   of its own, until the shard's stop token stops (SIGINT: ShardSet::stop);
//   serve should pass stop to its waits, so the shard can finish.
//
//   auto listener = duet::TcpListener::bind(loop, duet::SocketAddress::parse("127.0.0.1", 7000).value());
//   for (;;) {
//     auto conn = co_await listener.accept();
//     if (conn) scope.spawn(serve(std::move(*conn)));
//   }
#pragma once

#include <functional>
#include <stop_token>

#include "duet/io/event_loop.hpp"
#include "duet/io/socket_address.hpp"
#include "duet/io/socket_ops.hpp"
#include "duet/io/unique_fd.hpp"
#include "duet/io/unix_socket_file.hpp"
#include "duet/runtime/connection_spreader.hpp"
#include "duet/task/detail/stream_awaiters.hpp"
#include "duet/task/task.hpp"
#include "duet/task/tcp_stream.hpp"

namespace duet {

namespace detail {

// accept() for a socket to hand to another shard: IoResult<UniqueFd>, an fd
// no loop has seen (tuned as accept() tunes its streams).
class AcceptFdAwaiter : public AcceptAwaiter {
 public:
  AcceptFdAwaiter(EventLoop& loop, int listen_fd, int family, std::stop_token token) noexcept
      : AcceptAwaiter(loop, listen_fd, std::move(token)), family_(family) {}
  IoResult<UniqueFd> await_resume() noexcept;

 private:
  int family_;
};

}  // namespace detail

class TcpListener {
 public:
  TcpListener() noexcept = default;
  TcpListener(const TcpListener&) = delete;
  TcpListener& operator=(const TcpListener&) = delete;
  TcpListener(TcpListener&& other) noexcept;
  TcpListener& operator=(TcpListener&& other) noexcept;
  ~TcpListener() { close(); }

  [[nodiscard]] static TcpListener bind(EventLoop& loop, const SocketAddress& addr, ListenOptions options = {});
  // Takes a listening, non-blocking socket (ConnectionSpreader::take_listener).
  [[nodiscard]] static TcpListener adopt(EventLoop& loop, UniqueFd fd) noexcept;

  [[nodiscard]] detail::AcceptAwaiter accept(std::stop_token token = {}) noexcept {
    return detail::AcceptAwaiter(*loop_, fd_, std::move(token));
  }
  [[nodiscard]] detail::AcceptFdAwaiter accept_fd(std::stop_token token = {}) noexcept {
    return detail::AcceptFdAwaiter(*loop_, fd_, family_, std::move(token));
  }

  [[nodiscard]] SocketAddress local_address() const noexcept;
  [[nodiscard]] int native_handle() const noexcept { return fd_; }
  [[nodiscard]] EventLoop& loop() const noexcept { return *loop_; }
  [[nodiscard]] bool is_open() const noexcept { return fd_ >= 0; }
  void close() noexcept;

 private:
  TcpListener(EventLoop& loop, int fd, int family) noexcept : loop_(&loop), fd_(fd), family_(family) {}

  EventLoop* loop_ = nullptr;
  int fd_ = -1;
  int family_ = 0;  // of the accepted sockets: how to tune them
  UnixSocketFile file_;  // bind's socket file, removed at close while still ours
};

// A listening Unix domain stream socket: the same type, bound to an AF_UNIX address.
using UnixListener = TcpListener;

// One connection's task on a shard: the stream, and the shard's stop token.
using ShardHandler = std::function<Task<void>(TcpStream, std::stop_token)>;

// On a shard's thread (spawn_on): serves the connections spreader gives this
// shard until the shard stops, then waits for their tasks. on_error: what a
// failed accept does (connection_spreader.hpp).
[[nodiscard]] Task<void> serve_shard(ConnectionSpreader& spreader, ShardHandler serve,
                                     AcceptErrorHandler on_error = default_accept_backoff);

}  // namespace duet
