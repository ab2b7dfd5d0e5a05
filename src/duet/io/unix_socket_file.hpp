// duet::UnixSocketFile — the file a Unix domain listener's bind made, removed
// at close only while the path still names it.
//
// Contract
// - clear_stale(addr), before bind (open_listener calls it): a socket file at
//   addr's path is removed only when nothing accepts on it. A connect probe
//   refused (ECONNREFUSED: a server that died without unlinking, kill -9)
//   unlinks it; a probe that connects (a live listener, of this process or
//   another) throws std::system_error(EADDRINUSE) and leaves it alone — that
//   listener sees one connection that closes at once. Anything else (not a
//   socket, no permission, a datagram socket) is left for bind to refuse.
//   Abstract names have no file: nothing to do.
// - bound(addr), right after bind: records the path and the file's identity
//   (st_dev, st_ino). remove() unlinks the path only if it still names that
//   file: a server that found ours stale and replaced it, or a file someone
//   else put there, is left alone. The destructor removes; release() forgets
//   the file without removing it. Empty (nothing to remove) for an abstract
//   name, an IP address or a default-constructed one.
// - Any thread; move-only. Both voices' listeners hold one (tcp_listener.hpp).
//
//   UnixSocketFile::clear_stale(addr);     // throws if a server listens there
//   ::bind(fd, addr.data(), addr.size());
//   UnixSocketFile file = UnixSocketFile::bound(addr);
//   file.remove();                         // before closing fd: see the .cpp
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>

#include "duet/io/socket_address.hpp"

namespace duet {

class UnixSocketFile {
 public:
  UnixSocketFile() noexcept = default;
  UnixSocketFile(const UnixSocketFile&) = delete;
  UnixSocketFile& operator=(const UnixSocketFile&) = delete;
  UnixSocketFile(UnixSocketFile&& other) noexcept
      : path_(std::exchange(other.path_, {})), dev_(other.dev_), ino_(other.ino_) {}
  UnixSocketFile& operator=(UnixSocketFile&& other) noexcept;
  ~UnixSocketFile() { remove(); }

  static void clear_stale(const SocketAddress& addr);
  [[nodiscard]] static UnixSocketFile bound(const SocketAddress& addr);

  void remove() noexcept;
  void release() noexcept { path_.clear(); }
  [[nodiscard]] bool empty() const noexcept { return path_.empty(); }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
};

}  // namespace duet
