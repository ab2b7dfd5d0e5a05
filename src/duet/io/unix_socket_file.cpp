// UnixSocketFile: whether a socket file is stale is asked of the kernel, not
// guessed from the file: connect(2) to a path whose socket has no listener
// is refused (ECONNREFUSED), while a live listener queues the connection (0,
// or EAGAIN when its backlog is full — non-blocking, so the probe never
// waits). Redis unlinks whatever the path names, so a second server steals a
// live one's path and the first one's shutdown then deletes the second's file;
// here the second fails with EADDRINUSE, and a shutdown removes only the
// inode its own bind made.
//
// Races left: two servers starting at once over one stale file may both see
// it refused, and the later unlink can remove the other's fresh file (no
// lock between processes can be had without another file); a server's remove
// and someone's replacement between its lstat and its unlink likewise. A
// listener removes its file before closing its socket, so while it checks
// and unlinks, other duet servers' probes still connect and do not replace it;
// and while a bound socket is open its inode cannot be freed and reused
// under the same number, so (st_dev, st_ino) names our file and no other.
#include "duet/io/unix_socket_file.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "duet/io/unique_fd.hpp"

namespace duet {

namespace {

bool is_socket_file(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

// 0 when something accepts at addr, else the connect's errno.
int probe(const SocketAddress& addr) noexcept {
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd) return errno;
  if (::connect(fd.get(), addr.data(), addr.size()) == 0 || errno == EAGAIN || errno == EINPROGRESS) return 0;
  return errno;
}

}  // namespace

void UnixSocketFile::clear_stale(const SocketAddress& addr) {
  const std::string path = addr.unix_path();
  if (path.empty() || !is_socket_file(path)) return;  // bind reports a non-socket as EADDRINUSE
  const int probed = probe(addr);
  if (probed == 0) {
    throw std::system_error(EADDRINUSE, std::generic_category(), "bind " + path + ": a server is listening there");
  }
  if (probed == ECONNREFUSED) ::unlink(path.c_str());
}

UnixSocketFile UnixSocketFile::bound(const SocketAddress& addr) {
  UnixSocketFile file;
  struct stat st {};
  std::string path = addr.unix_path();
  if (path.empty() || ::lstat(path.c_str(), &st) != 0) return file;
  file.path_ = std::move(path);
  file.dev_ = st.st_dev;
  file.ino_ = st.st_ino;
  return file;
}

UnixSocketFile& UnixSocketFile::operator=(UnixSocketFile&& other) noexcept {
  if (this != &other) {
    remove();
    path_ = std::exchange(other.path_, {});
    dev_ = other.dev_;
    ino_ = other.ino_;
  }
  return *this;
}

void UnixSocketFile::remove() noexcept {
  if (path_.empty()) return;
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_) ::unlink(path_.c_str());
  path_.clear();
}

}  // namespace duet
