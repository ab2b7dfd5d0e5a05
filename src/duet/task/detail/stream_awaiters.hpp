// The awaiters behind TcpStream's and TcpListener's calls. Each is an IoAwaiter
// (so: an IoOp in the coroutine frame, non-copyable, timeout and stop token
// aware) that fills in one operation and converts its result. See tcp_stream.hpp.
//
//   IoResult<std::size_t> n = co_await detail::RecvAwaiter(loop, fd, buf, len, 0, {});
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <cstddef>
#include <stop_token>

#include "duet/io/io_result.hpp"
#include "duet/io/recv_buffer.hpp"
#include "duet/io/socket_address.hpp"
#include "duet/io/unique_fd.hpp"
#include "duet/task/io_awaiter.hpp"

namespace duet {
class TcpStream;
}

namespace duet::detail {

// recv or send of one buffer: IoResult<std::size_t> (recv: EOF explicit).
class TransferAwaiter : public IoAwaiter {
 public:
  TransferAwaiter(EventLoop& loop, OpKind kind, int fd, void* data, std::size_t len, int flags,
                  std::stop_token token) noexcept;
  IoResult<std::size_t> await_resume() const noexcept { return size_result(); }
};

// recv into a loop-owned buffer picked when data arrives: IoResult<RecvBuffer>
// (EOF explicit, as recv). A result withdrawn by destruction gives its buffer back.
class RecvPooledAwaiter : public IoAwaiter {
 public:
  RecvPooledAwaiter(EventLoop& loop, int fd, std::stop_token token) noexcept;
  RecvPooledAwaiter(const RecvPooledAwaiter&) = delete;
  RecvPooledAwaiter& operator=(const RecvPooledAwaiter&) = delete;
  RecvPooledAwaiter(RecvPooledAwaiter&&) = delete;
  RecvPooledAwaiter& operator=(RecvPooledAwaiter&&) = delete;
  ~RecvPooledAwaiter();
  IoResult<RecvBuffer> await_resume() noexcept;
};

// Sends the whole buffer, resubmitting after partial sends inside the loop (no
// coroutine hop per chunk). A timeout bounds the whole transfer, not each chunk;
// the stop token is checked before every chunk (a stop ends it with
// operation_canceled, however much was sent).
class SendAllAwaiter : public IoAwaiter {
 public:
  SendAllAwaiter(EventLoop& loop, int fd, const void* data, std::size_t len, std::stop_token token) noexcept;
  bool await_ready() const noexcept { return total_ == 0; }
  bool await_suspend(std::coroutine_handle<> waiter) noexcept;
  IoResult<std::size_t> await_resume() const noexcept;

 private:
  static void on_chunk(IoOp* op, int res) noexcept;
  bool advance(int& res) noexcept;
  bool send_rest(int res) noexcept;
  std::size_t total_;
  std::size_t sent_ = 0;
  std::chrono::steady_clock::time_point deadline_{};
};

// Creates a non-blocking socket and connects it: IoResult<TcpStream>.
class ConnectAwaiter : public IoAwaiter {
 public:
  ConnectAwaiter(EventLoop& loop, const SocketAddress& peer, std::stop_token token) noexcept;
  ConnectAwaiter(const ConnectAwaiter&) = delete;
  ConnectAwaiter& operator=(const ConnectAwaiter&) = delete;
  ConnectAwaiter(ConnectAwaiter&&) = delete;
  ConnectAwaiter& operator=(ConnectAwaiter&&) = delete;
  ~ConnectAwaiter();
  IoResult<TcpStream> await_resume() noexcept;

 private:
  SocketAddress peer_;
  UniqueFd fd_;
};

// Accepts one connection as a non-blocking TcpStream: IoResult<TcpStream>. A
// frame destroyed while accepting closes a connection that beat the cancel.
class AcceptAwaiter : public IoAwaiter {
 public:
  AcceptAwaiter(EventLoop& loop, int listen_fd, std::stop_token token) noexcept;
  AcceptAwaiter(const AcceptAwaiter&) = delete;
  AcceptAwaiter& operator=(const AcceptAwaiter&) = delete;
  AcceptAwaiter(AcceptAwaiter&&) = delete;
  AcceptAwaiter& operator=(AcceptAwaiter&&) = delete;
  ~AcceptAwaiter();
  IoResult<TcpStream> await_resume() noexcept;

 private:
  sockaddr_storage peer_{};
};

}  // namespace duet::detail
