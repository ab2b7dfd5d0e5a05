// duet::SocketHandle — owns one socket that an EventLoop has seen, closes it
// through that loop, and answers the calls every socket type has.
//
// Contract
// - Move-only; the destructor closes through loop.close_fd(fd), so ops still
//   waiting on the socket are cancelled and the epoll backend forgets it before
//   the number can be reused. The loop's thread only (close_fd's rule).
// - The public base of socket types (UdpSocket in both voices): they add only
//   their I/O calls and need no special members of their own.
//
//   class UdpSocket : public duet::SocketHandle { ... };
//   sock.local_address().port();  sock.native_handle();  sock.close();
#pragma once

#include <utility>

#include "duet/io/event_loop.hpp"
#include "duet/io/socket_address.hpp"
#include "duet/io/socket_ops.hpp"

namespace duet {

class SocketHandle {
 public:
  SocketHandle() noexcept = default;
  SocketHandle(EventLoop& loop, int fd) noexcept : loop_(&loop), fd_(fd) {}
  SocketHandle(const SocketHandle&) = delete;
  SocketHandle& operator=(const SocketHandle&) = delete;
  SocketHandle(SocketHandle&& other) noexcept : loop_(other.loop_), fd_(std::exchange(other.fd_, -1)) {}
  SocketHandle& operator=(SocketHandle&& other) noexcept {
    if (this != &other) {
      close();
      loop_ = other.loop_;
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~SocketHandle() { close(); }

  void close() noexcept {
    if (fd_ >= 0) loop_->close_fd(std::exchange(fd_, -1));
  }
  [[nodiscard]] bool is_open() const noexcept { return fd_ >= 0; }
  [[nodiscard]] int native_handle() const noexcept { return fd_; }
  [[nodiscard]] EventLoop& loop() const noexcept { return *loop_; }
  [[nodiscard]] SocketAddress local_address() const noexcept { return local_address_of(fd_); }
  [[nodiscard]] SocketAddress peer_address() const noexcept { return peer_address_of(fd_); }

 private:
  EventLoop* loop_ = nullptr;
  int fd_ = -1;
};

}  // namespace duet
