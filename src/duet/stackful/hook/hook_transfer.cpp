// The hooked transfers that must move every byte: on a blocking stream socket
// Linux's send, sendto, sendmsg, write and writev block until all of the data
// is queued, and recv, recvfrom and recvmsg with MSG_WAITALL until all of the
// buffer is filled or the peer ends the stream. Under the hooks the kernel's
// socket is non-blocking, so each real call stops at what fits (a few MB for
// a big write, what arrived so far for a MSG_WAITALL recv); the loop below
// waits and goes on from there. It gives up as Linux does: the count so far
// when some bytes moved (the timeout, an error, EOF), else the error
// (EAGAIN when SO_SNDTIMEO/SO_RCVTIMEO expired). Datagram sockets, sockets
// the program made non-blocking and MSG_DONTWAIT keep one real call.
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <climits>
#include <cstddef>

#include "duet/stackful/hook/blocking.hpp"
#include "duet/stackful/hook/real.hpp"

namespace duet::fiber::hook {
namespace {

// What is left of an iovec array: the rest of the current iovec, then the
// whole ones after it. The program's array is never written.
class Remaining {
 public:
  // Reads no iovec until the kernel has taken some bytes (and so checked them).
  Remaining(const iovec* iov, int count) noexcept : iov_(iov), count_(count) {}
  // The next piece for the kernel: the cut iovec's rest alone (a copy), or
  // every whole iovec left (the program's own array).
  [[nodiscard]] const iovec* data() const noexcept { return offset_ == 0 ? iov_ + index_ : &rest_; }
  [[nodiscard]] int count() const noexcept { return offset_ == 0 ? count_ - index_ : 1; }
  [[nodiscard]] bool empty() const noexcept { return index_ >= count_; }
  void advance(std::size_t n) noexcept {
    while (n > 0 && !empty()) {
      const std::size_t left = iov_[index_].iov_len - offset_;
      if (n < left) {
        offset_ += n;
        break;
      }
      n -= left;
      ++index_;
      offset_ = 0;
    }
    skip_empty();
    if (offset_ == 0) return;
    rest_ = iovec{static_cast<char*>(iov_[index_].iov_base) + offset_, iov_[index_].iov_len - offset_};
  }

 private:
  void skip_empty() noexcept {
    while (offset_ == 0 && index_ < count_ && iov_[index_].iov_len == 0) ++index_;
  }
  const iovec* iov_;
  int count_;
  int index_ = 0;
  std::size_t offset_ = 0;
  iovec rest_{};
};

// MSG_WAITALL, but not with MSG_PEEK: a peek drains nothing, so the loop
// below would peek the same first bytes again further into the buffer (and
// readiness would not wait for more). A peek returns what is there.
bool wait_all(int flags) noexcept { return (flags & MSG_WAITALL) != 0 && (flags & MSG_PEEK) == 0; }

// attempt(iov, count, first) makes one real call on what is left.
template <typename Attempt>
ssize_t transfer_all(int fd, Direction direction, Remaining left, Attempt attempt) noexcept {
  FdState* state = blocking_state(fd);
  if (state == nullptr) return attempt(left.data(), left.count(), true);
  if (!state->stream) return blocking_call(fd, direction, [&] { return attempt(left.data(), left.count(), true); });
  const Deadline deadline = deadline_for(*state, direction);
  std::size_t done = 0;
  for (;;) {
    const ssize_t n = attempt(left.data(), left.count(), done == 0);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      left.advance(static_cast<std::size_t>(n));
      if (left.empty()) return static_cast<ssize_t>(done);
      continue;
    }
    if (n == 0) return static_cast<ssize_t>(done);  // EOF, or nothing was asked for
    const bool again = errno == EAGAIN || errno == EWOULDBLOCK;
    if (!again || !wait_again(fd, direction, deadline)) return done > 0 ? static_cast<ssize_t>(done) : -1;
  }
}

ssize_t send_all(int fd, const void* buf, std::size_t len, int flags, const sockaddr* addr,
                 socklen_t addr_len) noexcept {
  const iovec one{const_cast<void*>(buf), len};
  return transfer_all(fd, Direction::out, Remaining(&one, 1), [&](const iovec* iov, int, bool first) {
    // A connected stream ignores the address; only the first call may connect (MSG_FASTOPEN).
    return real().sendto(fd, iov->iov_base, iov->iov_len, flags, first ? addr : nullptr, first ? addr_len : 0);
  });
}

ssize_t receive(int fd, void* buf, std::size_t len, int flags, sockaddr* addr, socklen_t* addr_len) noexcept {
  if ((flags & MSG_DONTWAIT) != 0) return real().recvfrom(fd, buf, len, flags, addr, addr_len);
  if (!wait_all(flags)) {
    return blocking_call(fd, Direction::in, [&] { return real().recvfrom(fd, buf, len, flags, addr, addr_len); });
  }
  const iovec one{buf, len};
  return transfer_all(fd, Direction::in, Remaining(&one, 1), [&](const iovec* iov, int, bool first) {
    return real().recvfrom(fd, iov->iov_base, iov->iov_len, flags, first ? addr : nullptr, first ? addr_len : nullptr);
  });
}

// Ancillary data and the address go with the first bytes only; what the
// first recvmsg reported of them (and its flags) is the program's answer.
// The first call gets the program's msg_iovlen as it is (the kernel judges it).
ssize_t msg_all(int fd, Direction direction, msghdr* msg, int flags) noexcept {
  msghdr part = *msg;
  const int count = msg->msg_iovlen > INT_MAX ? INT_MAX : static_cast<int>(msg->msg_iovlen);
  return transfer_all(fd, direction, Remaining(msg->msg_iov, count), [&](const iovec* iov, int n, bool first) {
    part.msg_iov = const_cast<iovec*>(iov);
    part.msg_iovlen = iov == msg->msg_iov ? msg->msg_iovlen : static_cast<std::size_t>(n);
    if (direction == Direction::out) return real().sendmsg(fd, &part, flags);
    const ssize_t got = real().recvmsg(fd, &part, flags);
    if (got <= 0) return got;
    if (first) {
      msg->msg_namelen = part.msg_namelen;
      msg->msg_controllen = part.msg_controllen;
      msg->msg_flags = part.msg_flags;
    } else {
      msg->msg_flags |= part.msg_flags;
    }
    part.msg_name = nullptr;
    part.msg_namelen = 0;
    part.msg_control = nullptr;
    part.msg_controllen = 0;
    return got;
  });
}

}  // namespace
}  // namespace duet::fiber::hook

using duet::fiber::hook::Direction;
using duet::fiber::hook::real;
using duet::fiber::hook::Remaining;
using duet::fiber::hook::transfer_all;

extern "C" {

ssize_t write(int fd, const void* buf, size_t count) {
  const iovec one{const_cast<void*>(buf), count};
  return transfer_all(fd, Direction::out, Remaining(&one, 1),
                      [&](const iovec* iov, int, bool) { return real().write(fd, iov->iov_base, iov->iov_len); });
}

ssize_t writev(int fd, const iovec* iov, int count) {
  // The program's own count for its own array: the kernel judges it (EINVAL).
  return transfer_all(fd, Direction::out, Remaining(iov, count),
                      [&](const iovec* part, int n, bool) { return real().writev(fd, part, part == iov ? count : n); });
}

ssize_t send(int fd, const void* buf, size_t len, int flags) {
  if ((flags & MSG_DONTWAIT) != 0) return real().send(fd, buf, len, flags);
  return duet::fiber::hook::send_all(fd, buf, len, flags, nullptr, 0);
}

ssize_t sendto(int fd, const void* buf, size_t len, int flags, const sockaddr* addr, socklen_t addr_len) {
  if ((flags & MSG_DONTWAIT) != 0) return real().sendto(fd, buf, len, flags, addr, addr_len);
  return duet::fiber::hook::send_all(fd, buf, len, flags, addr, addr_len);
}

ssize_t sendmsg(int fd, const msghdr* msg, int flags) {
  if ((flags & MSG_DONTWAIT) != 0) return real().sendmsg(fd, msg, flags);
  return duet::fiber::hook::msg_all(fd, Direction::out, const_cast<msghdr*>(msg), flags);
}

ssize_t recv(int fd, void* buf, size_t len, int flags) {
  return duet::fiber::hook::receive(fd, buf, len, flags, nullptr, nullptr);
}

ssize_t recvfrom(int fd, void* buf, size_t len, int flags, sockaddr* addr, socklen_t* addr_len) {
  return duet::fiber::hook::receive(fd, buf, len, flags, addr, addr_len);
}

ssize_t recvmsg(int fd, msghdr* msg, int flags) {
  if ((flags & MSG_DONTWAIT) != 0) return real().recvmsg(fd, msg, flags);
  if (duet::fiber::hook::wait_all(flags)) return duet::fiber::hook::msg_all(fd, Direction::in, msg, flags);
  return duet::fiber::hook::blocking_call(fd, Direction::in, [&] { return real().recvmsg(fd, msg, flags); });
}

}  // extern "C"
