#include "io/socket_ops.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>
#include <system_error>

namespace duet {

namespace {
void set_option(int fd, int level, int name, const char* what) {
  const int one = 1;
  if (::setsockopt(fd, level, name, &one, sizeof one) != 0) {
    throw std::system_error(errno, std::generic_category(), what);
  }
}
}  // namespace

UniqueFd open_listener(const SocketAddress& addr, const ListenOptions& options) {
  UniqueFd fd(::socket(addr.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd) throw std::system_error(errno, std::generic_category(), "socket");
  set_option(fd.get(), SOL_SOCKET, SO_REUSEADDR, "setsockopt(SO_REUSEADDR)");
  if (options.reuse_port) set_option(fd.get(), SOL_SOCKET, SO_REUSEPORT, "setsockopt(SO_REUSEPORT)");
  if (addr.family() == AF_INET6) set_option(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, "setsockopt(IPV6_V6ONLY)");
  if (::bind(fd.get(), addr.data(), addr.size()) != 0) {
    throw std::system_error(errno, std::generic_category(), "bind " + addr.to_string());
  }
  if (::listen(fd.get(), options.backlog) != 0) throw std::system_error(errno, std::generic_category(), "listen");
  return fd;
}

IoResult<void> shutdown_socket(int fd, int how) noexcept {
  if (::shutdown(fd, how) != 0) return std::error_code(errno, std::generic_category());
  return {};
}

IoResult<void> set_tcp_nodelay(int fd, bool on) noexcept {
  const int value = on ? 1 : 0;
  if (::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &value, sizeof value) != 0) {
    return std::error_code(errno, std::generic_category());
  }
  return {};
}

SocketAddress local_address_of(int fd) noexcept {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return SocketAddress(reinterpret_cast<sockaddr*>(&addr), len);
}

SocketAddress peer_address_of(int fd) noexcept {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  ::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return SocketAddress(reinterpret_cast<sockaddr*>(&addr), len);
}

}  // namespace duet
