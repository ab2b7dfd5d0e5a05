// The fiber TcpStream: each call is one FiberOp on the caller's stack (see
// detail/fiber_op.hpp). Sockets are created non-blocking with CLOEXEC (both
// backends rely on O_NONBLOCK) and, over IP, TCP_NODELAY, exactly as the stackless voice
// does, so the two voices put the same bytes on the wire.
#include "duet/stackful/tcp_stream.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <cerrno>
#include <stdexcept>
#include <utility>

#include "duet/io/clock.hpp"
#include "duet/io/socket_ops.hpp"

#include "duet/io/unique_fd.hpp"
#include "duet/stackful/resolve.hpp"
#include "duet/stackful/detail/fiber_op.hpp"
#include "duet/stackful/scheduler.hpp"

namespace duet::fiber {

namespace {

EventLoop& current_loop() {
  Scheduler* scheduler = Scheduler::current();
  if (scheduler == nullptr) throw std::logic_error("duet: fiber socket call on a thread without a Scheduler");
  return scheduler->loop();
}

int transfer(OpKind kind, int fd, void* data, std::size_t len, TcpStream::Timeout timeout,
             const std::stop_token& token) {
  detail::FiberOp op;
  op.kind_ = kind;
  op.fd_ = fd;
  op.buf_ = data;
  op.len_ = len;
  op.timeout_ = timeout;
  return detail::run_op(op, token);
}

}  // namespace

IoResult<TcpStream> TcpStream::connect(const SocketAddress& peer, Timeout timeout, std::stop_token token) {
  EventLoop& loop = current_loop();
  UniqueFd fd(sys::socket(peer.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC));
  if (!fd) return std::error_code(errno, std::generic_category());
  SocketAddress target = peer;
  detail::FiberOp op;
  op.kind_ = OpKind::connect;
  op.fd_ = fd.get();
  op.addr_ = target.data();
  op.addrlen_ = target.size();
  op.timeout_ = timeout;
  const int res = detail::run_op(op, token);
  if (res < 0) {
    loop.close_fd(fd.release());
    return error_from_res(res);
  }
  tune_new_stream(fd.get(), peer.family());
  return TcpStream(loop, fd.release());
}

IoResult<TcpStream> TcpStream::connect(const std::string& host, std::uint16_t port, Timeout timeout,
                                       std::stop_token token) {
  auto addrs = resolve(host, std::to_string(port), token);
  if (!addrs) return addrs.error();
  std::error_code last;
  for (const SocketAddress& addr : *addrs) {
    auto conn = connect(addr, timeout, token);
    if (conn) return conn;
    last = conn.error();
    if (last == std::errc::operation_canceled) break;  // stopped: do not try the rest
  }
  return last;
}

IoResult<std::size_t> TcpStream::recv(std::span<char> buf, Timeout timeout, std::stop_token token) {
  return detail::size_result(transfer(OpKind::recv, fd_, buf.data(), buf.size(), timeout, token), buf.size());
}

IoResult<RecvBuffer> TcpStream::recv_pooled(Timeout timeout, std::stop_token token) {
  detail::FiberOp op;
  op.kind_ = OpKind::recv_pooled;
  op.fd_ = fd_;
  op.timeout_ = timeout;
  const int res = detail::run_op(op, token);
  if (res < 0) return error_from_res(res);
  if (res == 0) return io_errc::eof;
  return RecvBuffer(*loop_, op.buffer_id_, static_cast<const char*>(op.buf_), static_cast<std::size_t>(res));
}

IoResult<std::size_t> TcpStream::send(std::span<const char> buf, Timeout timeout, std::stop_token token) {
  const int res = transfer(OpKind::send, fd_, const_cast<char*>(buf.data()), buf.size(), timeout, token);
  if (res < 0) return error_from_res(res);
  return static_cast<std::size_t>(res);
}

IoResult<std::size_t> TcpStream::send_all(std::span<const char> buf, Timeout timeout, std::stop_token token) {
  const auto deadline = duet::now() + timeout;
  std::size_t sent = 0;
  while (sent < buf.size()) {
    Timeout left{0};
    if (timeout.count() > 0) {
      left = std::chrono::duration_cast<Timeout>(deadline - duet::now());
      if (left.count() <= 0) return std::make_error_code(std::errc::timed_out);
    }
    auto r = send(buf.subspan(sent), left, token);
    if (!r) return r.error();
    sent += *r;
  }
  return sent;
}

TcpStream::TcpStream(TcpStream&& other) noexcept : loop_(other.loop_), fd_(std::exchange(other.fd_, -1)) {}

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

}  // namespace duet::fiber
