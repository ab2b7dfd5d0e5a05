// TcpListener: socket + SO_REUSEADDR (+ SO_REUSEPORT) + bind + listen; IPv6
// listeners stay IPv6-only so "::" and "0.0.0.0" can be bound side by side.
#include "task/tcp_listener.hpp"

#include <netinet/in.h>

#include <cerrno>
#include <system_error>
#include <utility>

#include "io/socket_ops.hpp"

namespace duet {

TcpListener TcpListener::bind(EventLoop& loop, const SocketAddress& addr, ListenOptions options) {
  UniqueFd fd = open_listener(addr, options);
  return TcpListener(loop, fd.release());
}

TcpListener::TcpListener(TcpListener&& other) noexcept
    : loop_(other.loop_), fd_(std::exchange(other.fd_, -1)) {}

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

}  // namespace duet
