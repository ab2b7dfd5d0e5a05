// fcntl for the hooks, in its own file: with _FILE_OFFSET_BITS=64 (which
// Meson defines) <fcntl.h> renames fcntl to fcntl64, and we must define both
// names — programs built either way call one or the other.
//
// F_GETFL reports the program's own O_NONBLOCK, F_SETFL records it (for every
// dup of fd: file status flags belong to the open file description) and keeps
// the kernel's O_NONBLOCK on when the hooks need it. F_DUPFD/F_DUPFD_CLOEXEC
// make a duplicate that shares that state. Everything else is the real fcntl,
// with the argument passed on as glibc does (as a pointer-sized word).
#undef _FILE_OFFSET_BITS
#include <fcntl.h>

#include <cstdarg>
#include <cstdint>

#include "duet/stackful/hook/fd_table.hpp"
#include "duet/stackful/hook/real.hpp"

namespace duet::fiber::hook {
namespace {

int managed_fcntl(int fd, int cmd, void* arg) noexcept {
  FdState* state = fd_table().get(fd);
  if (state != nullptr && cmd == F_GETFL) {
    const int flags = real().fcntl(fd, F_GETFL);
    if (flags < 0) return flags;
    return state->user_nonblock ? flags | O_NONBLOCK : flags & ~O_NONBLOCK;
  }
  if (state != nullptr && cmd == F_SETFL) {
    const int wanted = static_cast<int>(reinterpret_cast<std::intptr_t>(arg));
    const bool user_nonblock = (wanted & O_NONBLOCK) != 0;
    const bool kernel_nonblock = state->kernel_nonblock || user_nonblock;
    const int result = real().fcntl(fd, F_SETFL, kernel_nonblock ? wanted | O_NONBLOCK : wanted);
    if (result == 0) fd_table().set_nonblock(fd, user_nonblock, kernel_nonblock);
    return result;
  }
  const int result = real().fcntl(fd, cmd, arg);
  if (result >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)) fd_table().adopt_duplicate(fd, result);
  return result;
}

}  // namespace
}  // namespace duet::fiber::hook

extern "C" {

int fcntl(int fd, int cmd, ...) {
  va_list args;
  va_start(args, cmd);
  void* arg = va_arg(args, void*);
  va_end(args);
  return duet::fiber::hook::managed_fcntl(fd, cmd, arg);
}

int duet_hook_fcntl64(int fd, int cmd, ...) __asm__("fcntl64");
int duet_hook_fcntl64(int fd, int cmd, ...) {
  va_list args;
  va_start(args, cmd);
  void* arg = va_arg(args, void*);
  va_end(args);
  return duet::fiber::hook::managed_fcntl(fd, cmd, arg);
}

}  // extern "C"
