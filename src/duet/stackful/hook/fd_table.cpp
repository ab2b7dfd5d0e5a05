// The fd table's rings of duplicates. A ring is a circular doubly linked list
// threaded through the entries by fd number; almost every ring has one member,
// so a write "through the ring" is usually one store. Links are relaxed
// atomics: only the owning thread follows or changes them (see fd_table.hpp);
// `managed` is released last so a reader on another thread that sees it set
// also sees the flags copied before it.
#include "duet/stackful/hook/fd_table.hpp"

namespace duet::fiber::hook {

namespace {
constexpr auto relaxed = std::memory_order_relaxed;
}  // namespace

FdTable& fd_table() noexcept {
  static FdTable table;
  return table;
}

void FdTable::link_alone(int fd) noexcept {
  states_[fd].next_shared.store(fd, relaxed);
  states_[fd].prev_shared.store(fd, relaxed);
}

FdState* FdTable::adopt(int fd, bool user_nonblock, bool kernel_nonblock, bool stream) noexcept {
  if (fd < 0 || fd >= max_fds) return nullptr;
  forget(fd);
  FdState& state = states_[fd];
  state.user_nonblock.store(user_nonblock, relaxed);
  state.kernel_nonblock.store(kernel_nonblock, relaxed);
  state.recv_timeout_ns.store(0, relaxed);
  state.send_timeout_ns.store(0, relaxed);
  state.stream.store(stream, relaxed);
  link_alone(fd);
  state.managed.store(true, std::memory_order_release);
  return &state;
}

FdState* FdTable::adopt_duplicate(int source, int copy) noexcept {
  if (copy < 0 || copy >= max_fds) return nullptr;
  forget(copy);  // what the number was before: dup2/dup3 closed it
  const FdState* from = get(source);
  if (from == nullptr) return nullptr;
  FdState& state = states_[copy];
  state.user_nonblock.store(from->user_nonblock.load(relaxed), relaxed);
  state.kernel_nonblock.store(from->kernel_nonblock.load(relaxed), relaxed);
  state.recv_timeout_ns.store(from->recv_timeout_ns.load(relaxed), relaxed);
  state.send_timeout_ns.store(from->send_timeout_ns.load(relaxed), relaxed);
  state.stream.store(from->stream.load(relaxed), relaxed);
  const int next = from->next_shared.load(relaxed);  // copy goes in between source and next
  state.prev_shared.store(source, relaxed);
  state.next_shared.store(next, relaxed);
  states_[next].prev_shared.store(copy, relaxed);
  states_[source].next_shared.store(copy, relaxed);
  state.managed.store(true, std::memory_order_release);
  return &state;
}

void FdTable::forget(int fd) noexcept {
  if (get(fd) == nullptr) return;
  FdState& state = states_[fd];
  state.managed.store(false, std::memory_order_release);
  const int next = state.next_shared.load(relaxed);
  const int prev = state.prev_shared.load(relaxed);
  states_[prev].next_shared.store(next, relaxed);
  states_[next].prev_shared.store(prev, relaxed);
  link_alone(fd);
}

template <typename Write>
void FdTable::write_shared(int fd, Write write) noexcept {
  if (get(fd) == nullptr) return;
  int member = fd;
  for (int n = 0; n < max_fds; ++n) {  // bounded: a ring holds at most max_fds entries
    write(states_[member]);
    member = states_[member].next_shared.load(relaxed);
    if (member == fd) return;
  }
}

void FdTable::set_nonblock(int fd, bool user_nonblock, bool kernel_nonblock) noexcept {
  write_shared(fd, [&](FdState& state) {
    state.user_nonblock.store(user_nonblock, relaxed);
    state.kernel_nonblock.store(kernel_nonblock, relaxed);
  });
}

void FdTable::set_timeout(int fd, Timeout which, std::int64_t ns) noexcept {
  write_shared(fd, [&](FdState& state) {
    (which == Timeout::recv ? state.recv_timeout_ns : state.send_timeout_ns).store(ns, relaxed);
  });
}

}  // namespace duet::fiber::hook
