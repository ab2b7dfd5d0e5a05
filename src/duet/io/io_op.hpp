// duet::IoOp — one I/O operation, the single contract between a voice and a backend.
//
// Contract
// - An IoOp is intrusive: the owner (a stackless awaiter, or a fiber's stack frame
//   for the stackful voice) *is* the operation. The loop never allocates, copies or
//   frees it; it only links it through next_ while it is in flight.
// - The owner fills the description (kind_, fd_, buf_, len_, ...) and complete_,
//   then calls EventLoop::submit(op). From submit until complete_ runs the op is
//   "in flight": it, its buffer and its sockaddr must stay alive and unchanged.
// - complete_(op, res) runs exactly once per submit, on the loop's thread, from
//   inside EventLoop::run_once (never from inside submit or cancel). res is the
//   syscall-style result: >= 0 on success (bytes, new fd, 0), -errno on failure.
//   It may resubmit the same op, or submit others; it must not throw.
// - Uniform results on both backends: a per-op timeout that expires gives
//   -ETIMEDOUT; EventLoop::cancel, and EventLoop::close_fd of the op's fd,
//   give -ECANCELED (unless the op finished first); a sleep that reaches its
//   deadline gives 0.
// - Only the loop's thread touches an op. Fields after "backend-private" belong to
//   the loop while the op is in flight.
//
//   struct Waiter : duet::IoOp { bool done = false; int res = 0; };
//   Waiter w;
//   w.kind_ = duet::OpKind::recv; w.fd_ = fd; w.buf_ = buf; w.len_ = sizeof buf;
//   w.complete_ = [](duet::IoOp* op, int res) noexcept {
//     auto* self = static_cast<Waiter*>(op); self->res = res; self->done = true; };
//   loop.submit(w);   while (!w.done) loop.run_once(duet::EventLoop::forever);
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace duet {

// What the op does. The syscall named is what epoll runs; io_uring uses the
// IORING_OP_ of the same name.
enum class OpKind : std::uint8_t {
  nop,      // completes with 0 on the next turn
  read,     // read(fd_, buf_, len_) at offset_ (offset_ == -1: current position)
  write,    // write(fd_, buf_, len_) at offset_
  recv,     // recv(fd_, buf_, len_, flags_) -> bytes; 0 means EOF
  // recv into a buffer the loop picks only when data arrives (io_uring:
  // provided buffers), so a connection waiting for input holds no buffer.
  // -> bytes in buf_ (the loop sets buf_, len_ and buffer_id_); 0 means EOF.
  // The owner must hand buffer_id_ back with EventLoop::release_recv_buffer
  // after reading the bytes (see io/recv_buffer.hpp, which does it for you).
  recv_pooled,
  send,     // send(fd_, buf_, len_, flags_ | MSG_NOSIGNAL) -> bytes (may be partial)
  accept,   // accept4(fd_, addr_, &addrlen_, flags_) -> new fd
  connect,  // connect(fd_, addr_, addrlen_) -> 0
  poll,     // wait until fd_ is ready for flags_ (POLLIN / POLLOUT) -> revents
  // Datagrams (io/datagram.hpp fills these): buf_ points to a msghdr that
  // stays alive, with its iovec and name buffer, while the op is in flight.
  sendmsg,  // sendmsg(fd_, (msghdr*)buf_, flags_ | MSG_NOSIGNAL) -> bytes
  recvmsg,  // recvmsg(fd_, (msghdr*)buf_, flags_) -> bytes; the kernel fills msg_namelen, msg_flags
  sleep,    // completes with 0 at deadline_ (std::chrono::steady_clock)
  // Files (io/file_ops.hpp fills these; duet::File runs them through the
  // blocking pool on epoll, where a regular file is always "ready" and these
  // calls would block the loop: an epoll loop given one runs it inline).
  openat,   // openat(fd_ = dir fd or AT_FDCWD, buf_ = path, flags_, len_ = mode) -> new fd
  fsync,    // fsync(fd_), or fdatasync(fd_) when flags_ has fsync_datasync -> 0
  statx,    // statx(fd_, "", AT_EMPTY_PATH | flags_, len_ = mask, buf_ = struct statx*) -> 0
  close,    // close(fd_) -> 0 (the fd is gone whatever the result)
};

// OpKind::fsync's flags_: fdatasync instead of fsync (= IORING_FSYNC_DATASYNC).
inline constexpr int fsync_datasync = 1;

namespace detail {
// Where an op is, from the loop's point of view. Owned by the loop.
// remote: in flight with no kernel part, finished by EventLoop::fulfil (a reply
// from another thread, delivered through the loop's inbox).
enum class OpState : std::uint8_t { idle, queued, in_kernel, waiting, remote, done };
}  // namespace detail

struct IoOp {
  using Clock = std::chrono::steady_clock;
  using Complete = void (*)(IoOp* op, int res) noexcept;

  IoOp() noexcept = default;
  // An op is an address the kernel may hold: never copied or moved.
  IoOp(const IoOp&) = delete;
  IoOp& operator=(const IoOp&) = delete;
  IoOp(IoOp&&) = delete;
  IoOp& operator=(IoOp&&) = delete;
  ~IoOp() = default;

  // True between submit and the start of complete_.
  [[nodiscard]] bool in_flight() const noexcept {
    return state_ != detail::OpState::idle && state_ != detail::OpState::done;
  }

  // Linkage and completion.
  IoOp* next_ = nullptr;
  Complete complete_ = nullptr;

  // Description, filled by the owner before submit.
  OpKind kind_ = OpKind::nop;
  int fd_ = -1;
  void* buf_ = nullptr;         // read/recv: destination; write/send: source; openat: path
  std::size_t len_ = 0;
  sockaddr* addr_ = nullptr;    // connect: the peer; accept: receives the peer (may be null)
  socklen_t addrlen_ = 0;       // connect: length of addr_; accept: capacity in, length out
  int flags_ = 0;               // recv/send: MSG_*; accept: SOCK_*; poll: POLLIN/POLLOUT
  std::int64_t offset_ = -1;    // read/write: file offset, -1 = current position
  std::chrono::nanoseconds timeout_{0};  // > 0: give up after this long with -ETIMEDOUT
  Clock::time_point deadline_{};         // sleep: when to complete
  void* context_ = nullptr;              // free for the owner (a fiber, a handle, ...)

  // Backend-private: the loop's bookkeeping while the op is in flight.
  detail::OpState state_ = detail::OpState::idle;
  bool cancel_requested_ = false;
  std::uint16_t buffer_id_ = 0;          // recv_pooled: the buffer holding the bytes (res_ > 0)
  int res_ = 0;
  std::uint32_t heap_index_ = 0;         // epoll: position in the timer heap (+1; 0 = absent)
  Clock::time_point expires_{};          // epoll: when the timer entry fires; io_uring: a timed op's deadline
  std::int64_t ts_[2] = {0, 0};          // io_uring: __kernel_timespec read at submission
};

}  // namespace duet
