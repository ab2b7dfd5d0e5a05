// dup, dup2 and dup3 for the hooks. POSIX: the new fd refers to the same open
// file description as the old one, so it shares O_NONBLOCK — the kernel's,
// which the hooks may have turned on, and the program's own view of it — and
// the socket's SO_RCVTIMEO/SO_SNDTIMEO. The copy therefore joins the source's
// ring in the fd table (or is dropped from it when the source is not managed).
//
// dup2/dup3 onto an open fd close it first, atomically, in the kernel. If it
// was a managed socket, or any fd the hooks handed to the loop (poll), the
// hooks and the loop still hold its old state: the table entry is replaced
// after the call, and the loop forgets the fd before it, while the number
// still names the old file (epoll: EPOLL_CTL_DEL must see
// the old file; after the kernel's close the registration would linger, or be
// dropped behind the loop's back, and a wait on the new file would never wake).
// dup2(fd, fd) changes nothing, and dup3(fd, fd, …) fails with EINVAL.
#include <fcntl.h>
#include <unistd.h>

#include "duet/stackful/hook/fd_table.hpp"
#include "duet/stackful/hook/real.hpp"
#include "duet/stackful/hook/wait.hpp"

namespace duet::fiber::hook {
namespace {

template <typename Call>
int duplicate_onto(int fd, int target, Call call) noexcept {
  if (fd == target) return call();
  // Only when the call can succeed: a bad fd leaves target open and untouched.
  if (real().fcntl(fd, F_GETFD) >= 0) forget_if_loop_knows(target);
  const int result = call();
  if (result >= 0) fd_table().adopt_duplicate(fd, result);
  return result;
}

}  // namespace
}  // namespace duet::fiber::hook

using duet::fiber::hook::real;

extern "C" {

int dup(int fd) {
  const int copy = real().dup(fd);
  if (copy >= 0) duet::fiber::hook::fd_table().adopt_duplicate(fd, copy);
  return copy;
}

int dup2(int fd, int target) {
  return duet::fiber::hook::duplicate_onto(fd, target, [&] { return real().dup2(fd, target); });
}

int dup3(int fd, int target, int flags) {
  if ((flags & ~O_CLOEXEC) != 0) return real().dup3(fd, target, flags);  // EINVAL, target untouched
  return duet::fiber::hook::duplicate_onto(fd, target, [&] { return real().dup3(fd, target, flags); });
}

}  // extern "C"
