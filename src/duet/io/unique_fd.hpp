// duet::UniqueFd — owns one file descriptor and closes it exactly once.
//
// Contract
// - Move-only; the destructor closes the fd (sys::close: a simulated one
//   goes to its SimWorld). For an fd that an
//   EventLoop has seen, release() it and call loop.close_fd(fd) instead, so the
//   epoll backend forgets it first (TcpStream does this for you).
// - Not thread-safe; one owner.
//
//   duet::UniqueFd fd{::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0)};
//   if (!fd) throw std::system_error(errno, std::generic_category(), "socket");
//   int raw = fd.release();   // now the caller closes raw
#pragma once

#include <utility>

#include "duet/io/sys.hpp"

namespace duet {

class UniqueFd {
 public:
  UniqueFd() noexcept = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  ~UniqueFd() { reset(); }

  [[nodiscard]] int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  int release() noexcept { return std::exchange(fd_, -1); }
  void reset(int fd = -1) noexcept {
    if (fd_ >= 0) sys::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

}  // namespace duet
