// TcpStream and the awaiters behind its calls. Sockets are created and accepted
// non-blocking with CLOEXEC (both backends rely on O_NONBLOCK) and, over IP,
// TCP_NODELAY (tune_new_stream: Nagle plus delayed ACK would add 40 ms stalls).
#include "duet/task/tcp_stream.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <cerrno>
#include <utility>

#include "duet/io/clock.hpp"
#include "duet/io/sim_world.hpp"
#include "duet/io/socket_ops.hpp"
#include "duet/task/resolve.hpp"

#include "duet/task/tcp_listener.hpp"

namespace duet {

namespace detail {

TransferAwaiter::TransferAwaiter(EventLoop& loop, OpKind kind, int fd, void* data, std::size_t len, int flags,
                                 std::stop_token token) noexcept
    : IoAwaiter(loop, std::move(token)) {
  op_.kind_ = kind;
  op_.fd_ = fd;
  op_.buf_ = data;
  op_.len_ = len;
  op_.flags_ = flags;
}

RecvPooledAwaiter::RecvPooledAwaiter(EventLoop& loop, int fd, std::stop_token token) noexcept
    : IoAwaiter(loop, std::move(token)) {
  op_.kind_ = OpKind::recv_pooled;
  op_.fd_ = fd;
}

// A result withdrawn by abandon() was never delivered: its buffer is still ours.
RecvPooledAwaiter::~RecvPooledAwaiter() {
  if (abandon() && result() > 0) loop_->release_recv_buffer(op_.buffer_id_);
}

IoResult<RecvBuffer> RecvPooledAwaiter::await_resume() noexcept {
  const int res = result();
  if (res < 0) return error_from_res(res);
  if (res == 0) return io_errc::eof;
  return RecvBuffer(*loop_, op_.buffer_id_, static_cast<const char*>(op_.buf_), static_cast<std::size_t>(res));
}

SendAllAwaiter::SendAllAwaiter(EventLoop& loop, int fd, const void* data, std::size_t len,
                               std::stop_token token) noexcept
    : IoAwaiter(loop, std::move(token)), total_(len) {
  op_.kind_ = OpKind::send;
  op_.fd_ = fd;
  op_.buf_ = const_cast<void*>(data);
  op_.len_ = len;
  op_.complete_ = &SendAllAwaiter::on_chunk;
}

bool SendAllAwaiter::await_suspend(std::coroutine_handle<> waiter) noexcept {
  if (op_.timeout_.count() > 0) deadline_ = duet::now() + op_.timeout_;
  if (IoAwaiter::await_suspend(waiter)) return true;
  return send_rest(result());
}

// Counts a chunk; true when there is more to send (op_ now describes the rest).
// On false, res is the final result: an error, or the last chunk's size.
bool SendAllAwaiter::advance(int& res) noexcept {
  if (res <= 0) return false;
  sent_ += static_cast<std::size_t>(res);
  if (sent_ >= total_) return false;
  op_.buf_ = static_cast<char*>(op_.buf_) + res;
  op_.len_ = total_ - sent_;
  if (op_.timeout_.count() > 0) {
    const auto left = deadline_ - duet::now();
    if (left <= std::chrono::steady_clock::duration::zero()) {
      res = -ETIMEDOUT;
      return false;
    }
    op_.timeout_ = std::chrono::duration_cast<std::chrono::nanoseconds>(left);
  }
  return true;
}

// After a chunk that ended with res: starts chunks until one has to wait (true:
// in flight) or the transfer is over (false: result() holds the outcome). Each
// start goes through launch(), which ends the transfer when a stop was requested
// since the last chunk (see IoAwaiter::launch).
bool SendAllAwaiter::send_rest(int res) noexcept {
  while (advance(res)) {
    if (launch()) return true;
    res = result();
  }
  set_result(res);
  return false;
}

// Runs on the loop thread for each chunk that had to wait.
void SendAllAwaiter::on_chunk(IoOp* op, int res) noexcept {
  auto* self = static_cast<SendAllAwaiter*>(static_cast<IoAwaiter*>(op->context_));
  if (!self->send_rest(res)) on_complete(op, self->result());
}

IoResult<std::size_t> SendAllAwaiter::await_resume() const noexcept {
  if (result() < 0) return error_from_res(result());
  return sent_;
}

ConnectAwaiter::ConnectAwaiter(EventLoop& loop, const SocketAddress& peer, std::stop_token token) noexcept
    : IoAwaiter(loop, std::move(token)),
      peer_(peer),
      fd_(sys::socket(peer.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC)) {
  if (!fd_) {
    set_failed(-errno);
    return;
  }
  op_.kind_ = OpKind::connect;
  op_.fd_ = fd_.get();
  op_.addr_ = peer_.data();
  op_.addrlen_ = peer_.size();
}

ConnectAwaiter::~ConnectAwaiter() {
  abandon();
  loop_->close_fd(fd_.release());
}

IoResult<TcpStream> ConnectAwaiter::await_resume() noexcept {
  if (result() < 0) return error_from_res(result());
  tune_new_stream(fd_.get(), peer_.family());
  return TcpStream(*loop_, fd_.release());
}

AcceptAwaiter::AcceptAwaiter(EventLoop& loop, int listen_fd, std::stop_token token) noexcept
    : IoAwaiter(loop, std::move(token)) {
  op_.kind_ = OpKind::accept;
  op_.fd_ = listen_fd;
  op_.addr_ = reinterpret_cast<sockaddr*>(&peer_);
  op_.addrlen_ = sizeof peer_;
  op_.flags_ = SOCK_NONBLOCK | SOCK_CLOEXEC;
}

// The frame goes away while accepting. The kernel (io_uring), or a retry on a
// readiness edge (epoll) whose result waits in the same delivery batch, may have
// accepted a connection before the cancel: nobody will ever see that fd, so
// close it here rather than leak it (and leave its client hanging).
AcceptAwaiter::~AcceptAwaiter() {
  if (abandon() && result() >= 0 && !sim_reintroduces("accept_leak")) loop_->close_fd(result());
}

IoResult<TcpStream> AcceptAwaiter::await_resume() noexcept {
  if (result() < 0) return error_from_res(result());
  tune_new_stream(result(), peer_.ss_family);
  return TcpStream(*loop_, result());
}

}  // namespace detail

Task<IoResult<TcpStream>> TcpStream::connect(EventLoop& loop, std::string host, std::uint16_t port,
                                             std::stop_token token) {
  auto addrs = co_await resolve(std::move(host), std::to_string(port), token);
  if (!addrs) co_return addrs.error();
  std::error_code last;
  for (const SocketAddress& addr : *addrs) {
    auto conn = co_await connect(loop, addr, token);
    if (conn) co_return std::move(*conn);
    last = conn.error();
    if (last == std::errc::operation_canceled) break;  // stopped: do not try the rest
  }
  co_return last;
}

TcpStream::TcpStream(TcpStream&& other) noexcept
    : loop_(other.loop_), fd_(std::exchange(other.fd_, -1)) {}

TcpStream& TcpStream::operator=(TcpStream&& other) noexcept {
  if (this != &other) {
    close();
    loop_ = other.loop_;
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

void TcpStream::close() noexcept {
  if (fd_ >= 0) loop_->close_fd(std::exchange(fd_, -1));
}

IoResult<void> TcpStream::shutdown(int how) noexcept { return shutdown_socket(fd_, how); }

IoResult<void> TcpStream::set_nodelay(bool on) noexcept { return set_tcp_nodelay(fd_, on); }

SocketAddress TcpStream::local_address() const noexcept { return local_address_of(fd_); }

SocketAddress TcpStream::peer_address() const noexcept { return peer_address_of(fd_); }

}  // namespace duet
