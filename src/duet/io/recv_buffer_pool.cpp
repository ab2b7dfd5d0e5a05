// RecvBufferPool: one anonymous mapping, carved into equal buffers.
#include "duet/io/detail/recv_buffer_pool.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <stdexcept>
#include <system_error>

namespace duet::detail {

RecvBufferPool::RecvBufferPool(std::size_t count, std::size_t size) : count_(count), size_(size) {
  // io_uring rings hold a power of two of entries, at most 32768.
  if (count == 0 || count > 32768 || (count & (count - 1)) != 0 || size == 0 || size > (std::size_t{1} << 30)) {
    throw std::invalid_argument(
        "duet: recv buffers: the count must be a power of two up to 32768, the size 1 B..1 GiB");
  }
  void* base = ::mmap(nullptr, count * size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "mmap recv buffers");
  base_ = static_cast<char*>(base);
  free_.reserve(count);
  for (std::size_t i = count; i-- > 0;) free_.push_back(static_cast<std::uint16_t>(i));  // id 0 first
}

RecvBufferPool::~RecvBufferPool() { ::munmap(base_, count_ * size_); }

}  // namespace duet::detail
