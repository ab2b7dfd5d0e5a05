// duet hook internals: what the hooks know about each managed socket.
//
// Contract
// - One FdState per fd number below max_fds (fds above are never managed).
//   Zero-initialised static storage: untouched entries cost no memory.
// - get(fd) returns the state of a managed socket, or nullptr (pass through).
//   adopt(fd, user_nonblock, kernel_nonblock) starts managing a socket made by
//   a hooked socket/accept; forget(fd) stops (close).
// - Entries are written by the thread that owns the fd (the one that made,
//   configures or closes it); the flags are atomics so a read from another
//   thread sees a whole value.
//
//   if (FdState* s = fd_table().get(fd); s && !s->user_nonblock) { ...block the fiber... }
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace duet::fiber::hook {

struct FdState {
  std::atomic<bool> managed{false};
  std::atomic<bool> user_nonblock{false};    // what the program asked for (F_SETFL, SOCK_NONBLOCK)
  std::atomic<bool> kernel_nonblock{false};  // what the kernel has
  std::atomic<std::int64_t> recv_timeout_ns{0};  // SO_RCVTIMEO; 0 = none
  std::atomic<std::int64_t> send_timeout_ns{0};  // SO_SNDTIMEO; 0 = none
};

class FdTable {
 public:
  static constexpr int max_fds = 1 << 17;

  FdState* get(int fd) noexcept {
    if (fd < 0 || fd >= max_fds) return nullptr;
    FdState& state = states_[fd];
    return state.managed.load(std::memory_order_acquire) ? &state : nullptr;
  }
  FdState* adopt(int fd, bool user_nonblock, bool kernel_nonblock) noexcept {
    if (fd < 0 || fd >= max_fds) return nullptr;
    FdState& state = states_[fd];
    state.user_nonblock.store(user_nonblock, std::memory_order_relaxed);
    state.kernel_nonblock.store(kernel_nonblock, std::memory_order_relaxed);
    state.recv_timeout_ns.store(0, std::memory_order_relaxed);
    state.send_timeout_ns.store(0, std::memory_order_relaxed);
    state.managed.store(true, std::memory_order_release);
    return &state;
  }
  void forget(int fd) noexcept {
    if (fd >= 0 && fd < max_fds) states_[fd].managed.store(false, std::memory_order_release);
  }

 private:
  FdState states_[max_fds];
};

FdTable& fd_table() noexcept;

}  // namespace duet::fiber::hook
