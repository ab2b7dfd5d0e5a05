// duet hook internals: what the hooks know about each managed socket.
//
// Contract
// - One FdState per fd number below max_fds (fds above are never managed).
//   Zero-initialised static storage: untouched entries cost no memory.
// - get(fd) returns the state of a managed socket, or nullptr (pass through).
//   adopt(fd, user_nonblock, kernel_nonblock, stream) starts managing a socket
//   made by a hooked socket/accept; forget(fd) stops (close). Both first drop
//   whatever the number held before (an fd closed behind the hooks' back).
// - handed_to_loop(fd) / loop_may_know(fd) / loop_forgot(fd): a bit per fd
//   number, managed or not, set when the hooks gave the number to the loop
//   (poll), so close and dup2 know to make the loop forget it (wait.hpp).
// - Duplicates (dup, dup2, dup3, F_DUPFD) refer to the same open file
//   description, so O_NONBLOCK (the program's and the kernel's) and the
//   socket's timeouts are one value for all of them: adopt_duplicate(source,
//   copy) links copy into source's ring of fds, and the set_* calls write the
//   value through every fd of the ring. Each entry holds a copy, so the hot
//   path (get, then read the flags) touches one entry and never follows links.
// - Entries and rings are written by the thread that owns the fd (the one that
//   makes, duplicates, configures or closes it, and its duplicates); the
//   fields are atomics so a read from another thread sees a whole value.
//
//   if (FdState* s = fd_table().get(fd); s && !s->user_nonblock) { ...block the fiber... }
//   fd_table().set_nonblock(fd, true, true);   // F_SETFL O_NONBLOCK, seen by every dup of fd
#pragma once

#include <atomic>
#include <cstdint>

namespace duet::fiber::hook {

struct FdState {
  std::atomic<bool> managed{false};
  // Per open file description, the same in every fd of the ring:
  std::atomic<bool> user_nonblock{false};        // what the program asked for (F_SETFL, SOCK_NONBLOCK)
  std::atomic<bool> kernel_nonblock{false};      // what the kernel has
  std::atomic<std::int64_t> recv_timeout_ns{0};  // SO_RCVTIMEO; 0 = none
  std::atomic<std::int64_t> send_timeout_ns{0};  // SO_SNDTIMEO; 0 = none
  std::atomic<bool> stream{false};               // SOCK_STREAM: a blocking call moves every byte
  // The ring of managed fds sharing the open file description (itself when alone).
  std::atomic<int> next_shared{0};
  std::atomic<int> prev_shared{0};
  // Not the socket's: the number's, kept whether managed or not (see above).
  std::atomic<bool> in_loop{false};
};

enum class Timeout { recv, send };

class FdTable {
 public:
  static constexpr int max_fds = 1 << 17;

  FdState* get(int fd) noexcept {
    if (fd < 0 || fd >= max_fds) return nullptr;
    FdState& state = states_[fd];
    return state.managed.load(std::memory_order_acquire) ? &state : nullptr;
  }
  FdState* adopt(int fd, bool user_nonblock, bool kernel_nonblock, bool stream) noexcept;
  // copy now refers to source's open file description (it is the result of a
  // dup of source): it shares source's state if source is managed, else it is
  // not managed either.
  FdState* adopt_duplicate(int source, int copy) noexcept;
  void forget(int fd) noexcept;

  void handed_to_loop(int fd) noexcept {
    if (fd >= 0 && fd < max_fds) states_[fd].in_loop.store(true, std::memory_order_relaxed);
  }
  bool loop_may_know(int fd) const noexcept {
    return fd >= 0 && fd < max_fds && states_[fd].in_loop.load(std::memory_order_relaxed);
  }
  void loop_forgot(int fd) noexcept {
    if (fd >= 0 && fd < max_fds) states_[fd].in_loop.store(false, std::memory_order_relaxed);
  }

  // Through every fd sharing fd's open file description; no-ops if fd is not managed.
  void set_nonblock(int fd, bool user_nonblock, bool kernel_nonblock) noexcept;
  void set_timeout(int fd, Timeout which, std::int64_t ns) noexcept;

 private:
  template <typename Write>
  void write_shared(int fd, Write write) noexcept;
  void link_alone(int fd) noexcept;

  FdState states_[max_fds];
};

FdTable& fd_table() noexcept;

}  // namespace duet::fiber::hook
