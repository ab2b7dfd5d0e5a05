// duet::AlignedBuffer — a heap buffer aligned for O_DIRECT file I/O.
//
// Contract
// - O_DIRECT needs the buffer's address, the length and the file offset of each
//   transfer to be multiples of the device's logical block size (512 or 4096;
//   4096 covers both). AlignedBuffer(size, alignment) gives zeroed memory at an
//   address that is a multiple of alignment (a power of two); size is rounded
//   up to a multiple of alignment. Allocation failure throws std::bad_alloc.
// - Owns its memory; move-only. Plain memory: any thread, no loop involved.
//
//   duet::AlignedBuffer buf(4096);
//   auto n = co_await file.read_at(buf.bytes(), 8192);   // file opened with O_DIRECT
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <utility>

namespace duet {

class AlignedBuffer {
 public:
  static constexpr std::size_t default_alignment = 4096;

  AlignedBuffer() noexcept = default;
  explicit AlignedBuffer(std::size_t size, std::size_t alignment = default_alignment)
      : size_((size + alignment - 1) / alignment * alignment) {
    if (size_ == 0) return;
    data_ = static_cast<std::byte*>(std::aligned_alloc(alignment, size_));
    if (data_ == nullptr) throw std::bad_alloc();
    std::memset(data_, 0, size_);
  }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  AlignedBuffer(AlignedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept {
    if (this != &other) {
      std::free(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  ~AlignedBuffer() { std::free(data_); }

  [[nodiscard]] std::byte* data() noexcept { return data_; }
  [[nodiscard]] const std::byte* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::span<std::byte> bytes() noexcept { return {data_, size_}; }
  [[nodiscard]] std::span<char> chars() noexcept { return {reinterpret_cast<char*>(data_), size_}; }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace duet
