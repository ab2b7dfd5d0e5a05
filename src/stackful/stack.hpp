// duet::fiber::Stack — one guarded, lazily committed fiber stack (an mmap).
//
// Contract
// - allocate(usable) maps `usable` bytes (rounded up to whole pages) plus one
//   PROT_NONE guard page below them. Pages are committed by the kernel only
//   when first touched, so an idle fiber costs the pages it actually used.
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

namespace duet::fiber {

class Stack {
 public:
  Stack() noexcept = default;
  static Stack allocate(std::size_t usable_size);

  Stack(const Stack&) = delete;
  Stack& operator=(const Stack&) = delete;
  Stack(Stack&& other) noexcept;
  Stack& operator=(Stack&& other) noexcept;
  ~Stack();

  [[nodiscard]] bool valid() const noexcept { return base_ != nullptr; }
  // Highest address (one past the usable area); stacks grow down from here.
  [[nodiscard]] void* top() const noexcept { return base_ + size_; }
  // Lowest usable address, just above the guard page.
  [[nodiscard]] void* bottom() const noexcept { return base_ + guard_size(); }
  [[nodiscard]] std::size_t usable_size() const noexcept { return size_ - guard_size(); }
  [[nodiscard]] bool guard_contains(const void* address) const noexcept;

  static std::size_t page_size() noexcept;
  static std::size_t guard_size() noexcept { return page_size(); }

 private:
  Stack(char* base, std::size_t size) noexcept : base_(base), size_(size) {}
  void release() noexcept;

  char* base_ = nullptr;   // start of the mapping = the guard page
  std::size_t size_ = 0;   // whole mapping, guard included
};

}  // namespace duet::fiber
