// duet::kv::detail::InputBuffer — a growable byte buffer for received data.
//
// Contract
// - writable(min) returns at least `min` bytes of free space after the data
//   (compacting consumed bytes away first, then growing by doubling, never
//   zero-filling); commit(n) appends the n bytes written there.
// - readable() views the unconsumed bytes; consume(n) drops n of them. Views
//   stay valid until the next writable() call.
// - One owner, one thread. Move-only.
//
//   auto space = buf.writable(16 * 1024);
//   buf.commit(::recv(fd, space.data(), space.size(), 0));
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>

namespace duet::kv::detail {

class InputBuffer {
 public:
  [[nodiscard]] std::span<char> writable(std::size_t min) {
    if (start_ == end_) start_ = end_ = 0;
    if (capacity_ - end_ < min) make_room(min);
    return {data_.get() + end_, capacity_ - end_};
  }
  void commit(std::size_t n) noexcept { end_ += n; }
  [[nodiscard]] std::string_view readable() const noexcept { return {data_.get() + start_, end_ - start_}; }
  void consume(std::size_t n) noexcept {
    start_ += n;
    if (start_ == end_) start_ = end_ = 0;
  }
  void clear() noexcept { start_ = end_ = 0; }
  [[nodiscard]] std::size_t size() const noexcept { return end_ - start_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  // Gives memory back after a big request (keeps a small buffer).
  void shrink_if_idle(std::size_t keep) {
    if (start_ == end_ && capacity_ > keep) {
      data_.reset();
      capacity_ = start_ = end_ = 0;
    }
  }

 private:
  void make_room(std::size_t min) {
    std::size_t live = end_ - start_;
    if (capacity_ - live >= min && start_ > 0 && live <= capacity_ / 2) {
      std::memmove(data_.get(), data_.get() + start_, live);  // cheap: little live data
    } else {
      std::size_t cap = capacity_ == 0 ? 16 * 1024 : capacity_;
      while (cap - live < min) cap *= 2;
      auto bigger = std::make_unique_for_overwrite<char[]>(cap);
      if (live > 0) std::memcpy(bigger.get(), data_.get() + start_, live);
      data_ = std::move(bigger);
      capacity_ = cap;
    }
    start_ = 0;
    end_ = live;
  }

  std::unique_ptr<char[]> data_;
  std::size_t capacity_ = 0;
  std::size_t start_ = 0;
  std::size_t end_ = 0;
};

}  // namespace duet::kv::detail
