#include "duet/io/socket_ops.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <functional>
#include <string>
#include <system_error>
#include <thread>

#include "duet/io/sim_world.hpp"
#include "duet/io/sys.hpp"

namespace duet {

namespace {
void set_option(int fd, int level, int name, const char* what) {
  const int one = 1;
  if (sys::setsockopt(fd, level, name, &one, sizeof one) != 0) {
    throw std::system_error(errno, std::generic_category(), what);
  }
}
UniqueFd open_socket(int family, int type) {
  UniqueFd fd(sys::socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC));
  if (!fd) throw std::system_error(errno, std::generic_category(), "socket");
  return fd;
}

void bind_to(int fd, const SocketAddress& addr) {
  if (sys::bind(fd, addr.data(), addr.size()) != 0) {
    throw std::system_error(errno, std::generic_category(), "bind " + addr.to_string());
  }
}

// The file's identity is taken right after bind. Until listen, another
// server's probe is refused and would take the file for stale: that window
// is kept to the few calls below. A throw after bind removes the file again.
UniqueFd open_listener_once(const SocketAddress& addr, const ListenOptions& options, UnixSocketFile& file) {
  UniqueFd fd = open_socket(addr.family(), SOCK_STREAM);
  // A simulated listener has no file: the real file system is left alone.
  const bool simulated = SimWorld::current() != nullptr;
  const std::string path = simulated ? std::string() : addr.unix_path();
  if (addr.family() == AF_UNIX) {
    if (!simulated) UnixSocketFile::clear_stale(addr);
  } else {
    set_option(fd.get(), SOL_SOCKET, SO_REUSEADDR, "setsockopt(SO_REUSEADDR)");
    if (options.reuse_port) set_option(fd.get(), SOL_SOCKET, SO_REUSEPORT, "setsockopt(SO_REUSEPORT)");
  }
  if (addr.family() == AF_INET6) set_option(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, "setsockopt(IPV6_V6ONLY)");
  bind_to(fd.get(), addr);
  if (!simulated) file = UnixSocketFile::bound(addr);
  if (!path.empty() && options.unix_mode != 0 && ::chmod(path.c_str(), options.unix_mode) != 0) {
    throw std::system_error(errno, std::generic_category(), "chmod " + path);
  }
  if (sys::listen(fd.get(), options.backlog) != 0) throw std::system_error(errno, std::generic_category(), "listen");
  return fd;
}
}  // namespace

UniqueFd open_listener(const SocketAddress& addr, const ListenOptions& options) {
  UnixSocketFile file;
  UniqueFd fd = open_listener(addr, options, file);
  file.release();  // the caller did not ask to own it: the file stays after close
  return fd;
}

// The doubling back-off catches the common case (a socket that closes
// within milliseconds) at the first retries and stays at one try per 250 ms
// after that, as nginx's "still could not bind()".
void retry_while_in_use(const SocketAddress& addr, std::chrono::milliseconds budget,
                        const std::function<void()>& attempt) {
  using std::chrono::milliseconds;
  const auto start = std::chrono::steady_clock::now();
  milliseconds delay{5};
  for (;;) {
    try {
      return attempt();
    } catch (const std::system_error& e) {
      if (e.code() != std::errc::address_in_use || budget.count() <= 0) throw;
      const auto waited = std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - start);
      if (waited >= budget) {
        throw std::system_error(e.code(), "bind " + addr.to_string() + ": still could not bind() after " +
                                              std::to_string(waited.count()) + " ms");
      }
      std::this_thread::sleep_for(std::min(delay, budget - waited));
      delay = std::min(delay * 2, milliseconds(250));
    }
  }
}

UniqueFd open_listener(const SocketAddress& addr, const ListenOptions& options, UnixSocketFile& file) {
  UniqueFd fd;
  retry_while_in_use(addr, options.bind_retry, [&] {
    try {
      fd = open_listener_once(addr, options, file);
    } catch (...) {
      file.remove();  // a listen that failed after bind left its file
      throw;
    }
  });
  return fd;
}

UniqueFd open_datagram_socket(int family) { return open_socket(family, SOCK_DGRAM); }

UniqueFd open_datagram_socket(const SocketAddress& addr, const DatagramOptions& options) {
  UniqueFd fd = open_socket(addr.family(), SOCK_DGRAM);
  if (options.reuse_port) set_option(fd.get(), SOL_SOCKET, SO_REUSEPORT, "setsockopt(SO_REUSEPORT)");
  if (addr.family() == AF_INET6) set_option(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, "setsockopt(IPV6_V6ONLY)");
  bind_to(fd.get(), addr);
  return fd;
}

IoResult<void> connect_datagram(int fd, const SocketAddress& peer) noexcept {
  if (sys::connect(fd, peer.data(), peer.size()) != 0) return std::error_code(errno, std::generic_category());
  return {};
}

void tune_new_stream(int fd, int family) noexcept {
  if (family == AF_INET || family == AF_INET6) (void)set_tcp_nodelay(fd, true);
}

IoResult<void> shutdown_socket(int fd, int how) noexcept {
  if (sys::shutdown(fd, how) != 0) return std::error_code(errno, std::generic_category());
  return {};
}

IoResult<void> set_tcp_nodelay(int fd, bool on) noexcept {
  const int value = on ? 1 : 0;
  if (sys::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &value, sizeof value) != 0) {
    return std::error_code(errno, std::generic_category());
  }
  return {};
}

SocketAddress local_address_of(int fd) noexcept {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  sys::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return SocketAddress(reinterpret_cast<sockaddr*>(&addr), len);
}

SocketAddress peer_address_of(int fd) noexcept {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  sys::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return SocketAddress(reinterpret_cast<sockaddr*>(&addr), len);
}

}  // namespace duet
