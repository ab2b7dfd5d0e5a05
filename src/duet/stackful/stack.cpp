// Guarded stacks. One mmap per stack, then mprotect of its lowest 64 KiB: the
// kernel splits that into two VMAs (a PROT_NONE one and a read-write one),
// which is why vm.max_map_count bounds the number of stacks at about half of
// its value. MAP_NORESERVE keeps untouched pages out of the commit charge, so
// 10,000 stacks of 128 KiB cost address space, not memory.
#include "duet/stackful/stack.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <string>
#include <system_error>
#include <utility>

namespace duet::fiber {

namespace {

std::string max_map_count_text() {
  std::ifstream in("/proc/sys/vm/max_map_count");
  std::string value;
  if (in >> value) return value;
  return "unknown";
}

[[noreturn]] void throw_map_failure(int error, std::size_t size, const char* what) {
  std::string message = "duet: cannot create a " + std::to_string(size / 1024) + " KiB fiber stack (" +
                        what + " failed; each guarded stack needs 2 memory mappings and vm.max_map_count is " +
                        max_map_count_text() + ", or memory is exhausted)";
  throw std::system_error(error, std::generic_category(), message);
}

}  // namespace

std::size_t Stack::page_size() noexcept {
  static const std::size_t size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

// 64 KiB, in whole pages (one page where pages are 64 KiB).
std::size_t Stack::guard_size() noexcept {
  constexpr std::size_t wanted = 64 * 1024;
  const std::size_t page = page_size();
  return (wanted + page - 1) / page * page;
}

Stack Stack::allocate(std::size_t usable_size) {
  const std::size_t page = page_size();
  const std::size_t usable = (usable_size + page - 1) / page * page;
  const std::size_t total = usable + guard_size();
  void* base = ::mmap(nullptr, total, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (base == MAP_FAILED) throw_map_failure(errno, usable, "mmap");
  if (::mprotect(base, guard_size(), PROT_NONE) != 0) {
    const int error = errno;
    ::munmap(base, total);
    throw_map_failure(error, usable, "mprotect of the guard");
  }
  // Advice only: a kernel without THP rejects it, which is what we want anyway.
  (void)::madvise(static_cast<char*>(base) + guard_size(), usable, MADV_NOHUGEPAGE);
  return Stack(static_cast<char*>(base), total, guard_size());
}

void Stack::unmap() noexcept {
  ::munmap(base_, size_);
  base_ = nullptr;
  size_ = 0;
}

}  // namespace duet::fiber
