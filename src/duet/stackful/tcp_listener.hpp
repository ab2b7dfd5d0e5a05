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
// - Many shards (runtime/connection_spreader.hpp): adopt(fd) wraps a
//   listening socket opened elsewhere; accept_fd() accepts a socket bound to
//   no loop yet, to hand to another shard. fiber::serve_shard(spreader,
//   serve), run on a fiber on every shard of a set (fiber::spawn_on), serves
//   that shard's share of the connections: serve(stream, stop) per
//   connection on a fiber of its own, until the shard's stop token stops
//   (SIGINT: ShardSet::stop), then waits for those fibers; serve should pass
//   stop to its calls, so the shard can finish.
//
//   auto listener = duet::fiber::TcpListener::bind(duet::SocketAddress::parse("127.0.0.1", 7000).value());
//   for (;;) {
//     auto conn = listener.accept();
//     if (conn) duet::fiber::spawn(serve, std::move(*conn)).detach();
//   }
#pragma once

#include <chrono>
#include <functional>
#include <stop_token>

#include "duet/io/event_loop.hpp"
#include "duet/io/io_result.hpp"
#include "duet/io/socket_address.hpp"
#include "duet/io/socket_ops.hpp"
#include "duet/io/unique_fd.hpp"
#include "duet/io/unix_socket_file.hpp"
#include "duet/runtime/connection_spreader.hpp"
#include "duet/stackful/tcp_stream.hpp"

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
  // Takes a listening, non-blocking socket (ConnectionSpreader::take_listener).
  [[nodiscard]] static TcpListener adopt(UniqueFd fd);

  IoResult<TcpStream> accept(std::stop_token token = {}) {
    return accept(TcpStream::Timeout{0}, std::move(token));
  }
  IoResult<TcpStream> accept(TcpStream::Timeout timeout, std::stop_token token = {});
  // An fd no loop has seen (tuned as accept() tunes its streams).
  IoResult<UniqueFd> accept_fd(std::stop_token token = {});

  [[nodiscard]] SocketAddress local_address() const noexcept;
  [[nodiscard]] int native_handle() const noexcept { return fd_; }
  [[nodiscard]] bool is_open() const noexcept { return fd_ >= 0; }
  void close() noexcept;

 private:
  TcpListener(EventLoop& loop, int fd) noexcept : loop_(&loop), fd_(fd) {}
  int accept_raw(TcpStream::Timeout timeout, std::stop_token token);  // fd or -errno

  EventLoop* loop_ = nullptr;
  int fd_ = -1;
  UnixSocketFile file_;  // bind's socket file, removed at close while still ours
};

// A listening Unix domain stream socket: the same type, bound to an AF_UNIX address.
using UnixListener = TcpListener;

// One connection's fiber on a shard: the stream, and the shard's stop token.
using ShardHandler = std::function<void(TcpStream, std::stop_token)>;

// On a fiber on a shard's thread (spawn_on): serves the connections spreader
// gives this shard until the shard stops, then waits for their fibers.
// on_error: what a failed accept does (connection_spreader.hpp).
void serve_shard(ConnectionSpreader& spreader, ShardHandler serve,
                 const AcceptErrorHandler& on_error = default_accept_backoff);

}  // namespace duet::fiber
