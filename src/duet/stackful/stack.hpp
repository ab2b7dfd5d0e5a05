// duet::fiber::Stack — one guarded, lazily committed fiber stack (an mmap).
//
// Contract
// - allocate(usable) maps `usable` bytes (rounded up to whole pages) plus a
//   PROT_NONE guard of guard_size() = 64 KiB below them. Not one page: a frame
//   larger than the guard that writes its far end first (a local buffer, in
//   code built without -fstack-clash-protection) skips a 4 KiB guard into
//   whatever is mapped below. The guard costs address space only: it is never
//   committed and adds no mapping. The usable pages are committed by the kernel
//   only when first touched, so an idle fiber costs the pages it actually used.
//   Transparent huge pages are disabled on the mapping (MADV_NOHUGEPAGE): a
//   2 MiB page would commit the whole stack at the first touch.
// - Failure to map (ENOMEM: memory, or vm.max_map_count — every guarded stack
//   is two mappings, so the default 65530 allows ~32k stacks) throws
//   std::system_error with a message saying so. Never asserts or aborts.
// - Owns the mapping: move-only; the destructor unmaps it. Any thread.
//
//   auto stack = duet::fiber::Stack::allocate(64 * 1024);
//   void* sp = stack.top();                  // stacks grow down from here
//   bool hit = stack.guard_contains(fault);  // the SIGSEGV handler's question
#pragma once

#include <cstddef>
#include <utility>

namespace duet::fiber {

class Stack {
 public:
  Stack() noexcept = default;
  static Stack allocate(std::size_t usable_size);

  Stack(const Stack&) = delete;
  Stack& operator=(const Stack&) = delete;
  // Moves and accessors are inline: a spawn moves a stack four times.
  Stack(Stack&& other) noexcept
      : base_(std::exchange(other.base_, nullptr)), size_(std::exchange(other.size_, 0)),
        guard_(other.guard_) {}
  Stack& operator=(Stack&& other) noexcept {
    if (this != &other) {
      if (base_ != nullptr) unmap();
      base_ = std::exchange(other.base_, nullptr);
      size_ = std::exchange(other.size_, 0);
      guard_ = other.guard_;
    }
    return *this;
  }
  ~Stack() {
    if (base_ != nullptr) unmap();
  }

  [[nodiscard]] bool valid() const noexcept { return base_ != nullptr; }
  // Highest address (one past the usable area); stacks grow down from here.
  [[nodiscard]] void* top() const noexcept { return base_ + size_; }
  // Lowest usable address, just above the guard.
  [[nodiscard]] void* bottom() const noexcept { return base_ + guard_; }
  [[nodiscard]] std::size_t usable_size() const noexcept { return size_ - guard_; }
  [[nodiscard]] bool guard_contains(const void* address) const noexcept {
    const auto* p = static_cast<const char*>(address);
    return base_ != nullptr && p >= base_ && p < base_ + guard_;
  }

  static std::size_t page_size() noexcept;
  static std::size_t guard_size() noexcept;

 private:
  Stack(char* base, std::size_t size, std::size_t guard) noexcept : base_(base), size_(size), guard_(guard) {}
  void unmap() noexcept;

  char* base_ = nullptr;   // start of the mapping = the guard
  std::size_t size_ = 0;   // whole mapping, guard included
  std::size_t guard_ = 0;  // bytes of PROT_NONE at base_
};

}  // namespace duet::fiber
