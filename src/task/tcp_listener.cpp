// TcpListener: socket + SO_REUSEADDR (+ SO_REUSEPORT) + bind + listen; IPv6
// listeners stay IPv6-only so "::" and "0.0.0.0" can be bound side by side.
#include "task/tcp_listener.hpp"

#include <netinet/in.h>

#include <cerrno>
#include <system_error>
#include <utility>

#include "io/unique_fd.hpp"

namespace duet {

namespace {
void set_option(int fd, int level, int name, const char* what) {
  const int one = 1;
  if (::setsockopt(fd, level, name, &one, sizeof one) != 0) {
    throw std::system_error(errno, std::generic_category(), what);
  }
}
}  // namespace

TcpListener TcpListener::bind(EventLoop& loop, const SocketAddress& addr, ListenOptions options) {
  UniqueFd fd(::socket(addr.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd) throw std::system_error(errno, std::generic_category(), "socket");
  set_option(fd.get(), SOL_SOCKET, SO_REUSEADDR, "setsockopt(SO_REUSEADDR)");
  if (options.reuse_port) set_option(fd.get(), SOL_SOCKET, SO_REUSEPORT, "setsockopt(SO_REUSEPORT)");
  if (addr.family() == AF_INET6) set_option(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, "setsockopt(IPV6_V6ONLY)");
  if (::bind(fd.get(), addr.data(), addr.size()) != 0) {
    throw std::system_error(errno, std::generic_category(), "bind " + addr.to_string());
  }
  if (::listen(fd.get(), options.backlog) != 0) throw std::system_error(errno, std::generic_category(), "listen");
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

SocketAddress TcpListener::local_address() const noexcept {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  return SocketAddress(reinterpret_cast<sockaddr*>(&addr), len);
}

}  // namespace duet
