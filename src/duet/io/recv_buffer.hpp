// duet::RecvBuffer — bytes a pooled recv delivered, in a buffer borrowed from the loop.
//
// Contract
// - What TcpStream::recv_pooled returns (both voices). bytes() views the data;
//   the buffer goes back to the loop when the RecvBuffer is destroyed or
//   release() is called — do that before the connection waits again: every
//   pooled recv of the loop waits while all buffers are lent out (there are
//   LoopOptions::recv_buffer_count of them). Keep what must outlive it (an
//   unfinished request) by copying it.
// - Move-only; loop thread only; must not outlive its EventLoop.
//
//   auto in = co_await conn.recv_pooled();   // stackless; fibers: conn.recv_pooled()
//   if (!in) return;                          // EOF or error, as recv
//   session.feed(in->bytes());                // then in goes out of scope: buffer back
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "duet/io/event_loop.hpp"

namespace duet {

class RecvBuffer {
 public:
  RecvBuffer() noexcept = default;
  RecvBuffer(EventLoop& loop, std::uint16_t id, const char* data, std::size_t size) noexcept
      : loop_(&loop), data_(data), size_(size), id_(id) {}
  RecvBuffer(RecvBuffer&& other) noexcept
      : loop_(std::exchange(other.loop_, nullptr)), data_(other.data_), size_(other.size_), id_(other.id_) {}
  RecvBuffer& operator=(RecvBuffer&& other) noexcept {
    if (this != &other) {
      release();
      loop_ = std::exchange(other.loop_, nullptr);
      data_ = other.data_;
      size_ = other.size_;
      id_ = other.id_;
    }
    return *this;
  }
  RecvBuffer(const RecvBuffer&) = delete;
  RecvBuffer& operator=(const RecvBuffer&) = delete;
  ~RecvBuffer() { release(); }

  [[nodiscard]] std::string_view bytes() const noexcept {
    return loop_ != nullptr ? std::string_view(data_, size_) : std::string_view();
  }
  [[nodiscard]] std::size_t size() const noexcept { return loop_ != nullptr ? size_ : 0; }

  // Gives the buffer back now; bytes() is empty afterwards.
  void release() noexcept {
    if (loop_ != nullptr) std::exchange(loop_, nullptr)->release_recv_buffer(id_);
  }

 private:
  EventLoop* loop_ = nullptr;
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  std::uint16_t id_ = 0;
};

}  // namespace duet
