// duet::detail::RecvBufferPool — the fixed-size buffers behind OpKind::recv_pooled.
//
// Why: a server with many idle connections keeps a recv armed on each. With a
// per-connection buffer every idle connection pins 16 KiB (Redis's read size);
// with a pool the buffer is chosen only when data arrives — by the kernel
// (io_uring provided buffers) or right before the syscall (epoll) — and the
// owner hands it back as soon as it has parsed the bytes, so the number of
// buffers is bounded by the requests in progress, not by the connections.
//
// Contract
// - count buffers of size bytes each, in one anonymous mapping made on first
//   use: pages are touched only when a buffer is first filled.
// - take() hands out a free buffer id (LIFO: the hottest, already resident
//   buffer first) or -1; put(id) returns it. data(id) is its first byte.
// - The backend owns the free list; the user of EventLoop only ever returns
//   ids through EventLoop::release_recv_buffer. Loop thread only.
//
//   RecvBufferPool pool(64, 16 * 1024);
//   int id = pool.take();  ::recv(fd, pool.data(id), pool.buffer_size(), 0);  pool.put(id);
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace duet::detail {

class RecvBufferPool {
 public:
  // Throws std::system_error when the mapping cannot be made.
  RecvBufferPool(std::size_t count, std::size_t size);
  RecvBufferPool(const RecvBufferPool&) = delete;
  RecvBufferPool& operator=(const RecvBufferPool&) = delete;
  RecvBufferPool(RecvBufferPool&&) = delete;
  RecvBufferPool& operator=(RecvBufferPool&&) = delete;
  ~RecvBufferPool();

  [[nodiscard]] std::size_t count() const noexcept { return count_; }
  [[nodiscard]] std::size_t buffer_size() const noexcept { return size_; }
  [[nodiscard]] char* data(std::uint16_t id) const noexcept { return base_ + std::size_t{id} * size_; }
  [[nodiscard]] std::size_t free_count() const noexcept { return free_.size(); }

  [[nodiscard]] int take() noexcept {
    if (free_.empty()) return -1;
    const std::uint16_t id = free_.back();
    free_.pop_back();
    return id;
  }
  void put(std::uint16_t id) noexcept { free_.push_back(id); }  // capacity reserved: never allocates

 private:
  std::size_t count_;
  std::size_t size_;
  char* base_ = nullptr;
  std::vector<std::uint16_t> free_;
};

}  // namespace duet::detail
