// Plain-socket helpers shared by the two baseline KV drivers (kv_threads,
// kv_reactor): they use no duet I/O on purpose, so they show what a voice
// costs against plain threads and plain callbacks over the same KV core.
#pragma once

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

#include "duet/io/socket_address.hpp"

namespace duet::baseline {

inline int listen_socket(const SocketAddress& addr, int flags) {
  int fd = ::socket(addr.family(), SOCK_STREAM | SOCK_CLOEXEC | flags, 0);
  int one = 1;
  if (fd < 0 || ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
      ::bind(fd, addr.data(), addr.size()) != 0 || ::listen(fd, 4096) != 0) {
    int err = errno;
    if (fd >= 0) ::close(fd);
    throw std::system_error(err, std::generic_category(), "listen on " + addr.to_string());
  }
  return fd;
}

}  // namespace duet::baseline
