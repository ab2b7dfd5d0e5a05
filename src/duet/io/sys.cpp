// duet::sys: one thread-local load decides whether a call is the kernel's or
// the installed SimWorld's; a real descriptor never reaches the simulation.
#include "duet/io/sys.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "duet/io/sim/sim_fs.hpp"
#include "duet/io/sim/sim_net.hpp"
#include "duet/io/sim_world.hpp"

namespace duet::sys {

namespace {
detail::SimNet* net_for(int fd) noexcept {
  if (!detail::SimNet::simulated(fd)) return nullptr;
  SimWorld* world = SimWorld::current();
  return world == nullptr ? nullptr : &world->net();
}

int answer(int r) noexcept {
  if (r >= 0) return r;
  errno = -r;
  return -1;
}

int copy_out(const SocketAddress& a, sockaddr* addr, socklen_t* len) noexcept {
  const socklen_t n = *len < a.size() ? *len : a.size();
  std::memcpy(addr, a.data(), n);
  *len = a.size();
  return 0;
}

detail::SimFs* fs_for(int fd) noexcept {
  if (!detail::SimFs::owns(fd)) return nullptr;
  SimWorld* world = SimWorld::current();
  return world == nullptr ? nullptr : &world->fs();
}

detail::SimFs* fs_for_paths() noexcept {
  SimWorld* world = SimWorld::current();
  return world == nullptr ? nullptr : &world->fs();
}

template <typename F>
int guarded(F f) noexcept {
  try {
    return answer(f());
  } catch (...) {
    return answer(-ENOMEM);
  }
}
}  // namespace

int socket(int family, int type) noexcept {
  if (SimWorld* world = SimWorld::current()) {
    try {
      return answer(world->net().socket(family, type));
    } catch (...) {
      return answer(-ENOMEM);
    }
  }
  return ::socket(family, type, 0);
}

int close(int fd) noexcept {
  if (detail::SimFs* fs = fs_for(fd)) return answer(fs->close(fd));
  if (detail::SimNet* net = net_for(fd)) return answer(net->close(fd));
  return ::close(fd);
}

int open(const char* path, int flags, mode_t mode) noexcept {
  if (detail::SimFs* fs = fs_for_paths()) return guarded([&] { return fs->open(path, flags, mode); });
  return ::open(path, flags, mode);
}

ssize_t pread(int fd, void* buf, std::size_t len, off_t offset) noexcept {
  if (detail::SimFs* fs = fs_for(fd)) return answer(fs->read(fd, buf, len, offset));
  return ::pread(fd, buf, len, offset);
}

ssize_t pwrite(int fd, const void* buf, std::size_t len, off_t offset) noexcept {
  if (detail::SimFs* fs = fs_for(fd)) return guarded([&] { return fs->write(fd, buf, len, offset); });
  return ::pwrite(fd, buf, len, offset);
}

int fsync(int fd) noexcept {
  if (detail::SimFs* fs = fs_for(fd)) return answer(fs->fsync(fd));
  return ::fsync(fd);
}

int fdatasync(int fd) noexcept {
  if (detail::SimFs* fs = fs_for(fd)) return answer(fs->fsync(fd));
  return ::fdatasync(fd);
}

int ftruncate(int fd, off_t size) noexcept {
  if (detail::SimFs* fs = fs_for(fd)) return guarded([&] { return fs->ftruncate(fd, size); });
  return ::ftruncate(fd, size);
}

off_t file_size(int fd) noexcept {
  if (detail::SimFs* fs = fs_for(fd)) {
    std::int64_t size = 0;
    const int r = fs->size(fd, size);
    return r < 0 ? answer(r) : static_cast<off_t>(size);
  }
  struct stat st{};
  return ::fstat(fd, &st) == 0 ? st.st_size : -1;
}

int rename(const char* from, const char* to) noexcept {
  if (detail::SimFs* fs = fs_for_paths()) return guarded([&] { return fs->rename(from, to); });
  return ::rename(from, to);
}

int unlink(const char* path) noexcept {
  if (detail::SimFs* fs = fs_for_paths()) return guarded([&] { return fs->unlink(path); });
  return ::unlink(path);
}

int shutdown(int fd, int how) noexcept {
  if (detail::SimNet* net = net_for(fd)) return answer(net->shutdown(fd, how));
  return ::shutdown(fd, how);
}

int bind(int fd, const sockaddr* addr, socklen_t len) noexcept {
  if (detail::SimNet* net = net_for(fd)) return answer(net->bind(fd, SocketAddress(addr, len)));
  return ::bind(fd, addr, len);
}

int listen(int fd, int backlog) noexcept {
  if (detail::SimNet* net = net_for(fd)) return answer(net->listen(fd, backlog));
  return ::listen(fd, backlog);
}

int connect(int fd, const sockaddr* addr, socklen_t len) noexcept {
  if (detail::SimNet* net = net_for(fd)) return answer(net->connect_datagram(fd, SocketAddress(addr, len)));
  return ::connect(fd, addr, len);
}

int getsockname(int fd, sockaddr* addr, socklen_t* len) noexcept {
  if (detail::SimNet* net = net_for(fd)) {
    SocketAddress a;
    const int r = net->local_address(fd, a);
    return r < 0 ? answer(r) : copy_out(a, addr, len);
  }
  return ::getsockname(fd, addr, len);
}

int getpeername(int fd, sockaddr* addr, socklen_t* len) noexcept {
  if (detail::SimNet* net = net_for(fd)) {
    SocketAddress a;
    const int r = net->peer_address(fd, a);
    return r < 0 ? answer(r) : copy_out(a, addr, len);
  }
  return ::getpeername(fd, addr, len);
}

// Options change nothing the simulation models (buffer sizes are its own,
// Nagle does not exist there): accepted and forgotten.
int setsockopt(int fd, int level, int name, const void* value, socklen_t len) noexcept {
  if (detail::SimNet* net = net_for(fd)) return net->find(fd) == nullptr ? answer(-EBADF) : 0;
  return ::setsockopt(fd, level, name, value, len);
}

// SO_ERROR reads 0 and SO_TYPE the socket's type; anything else reads 0.
int getsockopt(int fd, int level, int name, void* value, socklen_t* len) noexcept {
  if (detail::SimNet* net = net_for(fd)) {
    detail::SimSocket* s = net->find(fd);
    if (s == nullptr) return answer(-EBADF);
    int v = 0;
    if (level == SOL_SOCKET && name == SO_TYPE) {
      v = s->kind == detail::SimSocket::Kind::datagram ? SOCK_DGRAM : SOCK_STREAM;
    }
    if (*len >= sizeof v) {
      std::memcpy(value, &v, sizeof v);
      *len = sizeof v;
    }
    return 0;
  }
  return ::getsockopt(fd, level, name, value, len);
}

}  // namespace duet::sys
