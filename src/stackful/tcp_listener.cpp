// The fiber TcpListener: socket + SO_REUSEADDR (+ SO_REUSEPORT) + bind +
// listen, the same options as the stackless listener; accept is one FiberOp.
#include "stackful/tcp_listener.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <cerrno>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "io/socket_ops.hpp"
#include "stackful/detail/fiber_op.hpp"
#include "stackful/scheduler.hpp"

namespace duet::fiber {

TcpListener TcpListener::bind(const SocketAddress& addr, ListenOptions options) {
  Scheduler* scheduler = Scheduler::current();
  if (scheduler == nullptr) throw std::logic_error("duet: fiber TcpListener::bind on a thread without a Scheduler");
  UniqueFd fd = open_listener(addr, options);
  return TcpListener(scheduler->loop(), fd.release());
}

IoResult<TcpStream> TcpListener::accept(TcpStream::Timeout timeout, std::stop_token token) {
  sockaddr_storage peer{};
  detail::FiberOp op;
  op.kind_ = OpKind::accept;
  op.fd_ = fd_;
  op.addr_ = reinterpret_cast<sockaddr*>(&peer);
  op.addrlen_ = sizeof peer;
  op.flags_ = SOCK_NONBLOCK | SOCK_CLOEXEC;
  op.timeout_ = timeout;
  const int res = detail::run_op(op, token);
  if (res < 0) return error_from_res(res);
  tune_new_stream(res, peer.ss_family);
  return TcpStream(*loop_, res);
}

TcpListener::TcpListener(TcpListener&& other) noexcept : loop_(other.loop_), fd_(std::exchange(other.fd_, -1)) {}

TcpListener& TcpListener::operator=(TcpListener&& other) noexcept {
  if (this != &other) {
    close();
    loop_ = other.loop_;
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

void TcpListener::close() noexcept {
  if (fd_ >= 0) loop_->close_fd(std::exchange(fd_, -1));
}

SocketAddress TcpListener::local_address() const noexcept { return local_address_of(fd_); }

}  // namespace duet::fiber
