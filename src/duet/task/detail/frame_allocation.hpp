// duet::detail::FrameAllocation — where a Task's coroutine frame comes from.
//
// Contract
// - A base of Task's promise: the compiler calls these operator new/delete for
//   every Task frame it does not elide (clang's HALO puts an elided frame
//   inside its caller's and calls neither).
// - Default: this thread's FramePool (task/frame_pool.hpp), or the global
//   operator new under ASan.
// - Allocator argument (as P2300's and std::generator's): a Task coroutine
//   whose parameters start with std::allocator_arg_t and an allocator (after
//   the object, for a member function or a lambda) gets its frame from a copy
//   of that allocator rebound to 16-byte units, and gives it back there.
//   The copy lives in the frame until then, so a stateful allocator (an
//   arena, a counting allocator) must outlive the task, as with any container.
// - operator delete receives only (pointer, size), so every frame carries one
//   pointer after the compiler's part: null for a default frame, else the
//   function that frees an allocator frame (whose allocator copy follows it).
//
//   Task<int> handle(std::allocator_arg_t, ArenaAllocator<std::byte> a, int x);
//   int v = sync_wait(handle(std::allocator_arg, arena_alloc, 7));
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "duet/task/frame_pool.hpp"

namespace duet::detail {

// What the allocator after std::allocator_arg must offer (a standard allocator).
template <typename A>
concept FrameAllocator = requires(A& a, std::size_t n) {
  typename A::value_type;
  a.deallocate(a.allocate(n), n);
};

class FrameAllocation {
 public:
  static void* operator new(std::size_t size) {
    void* frame = allocate_task_frame(default_bytes(size));
    ::new (slot_address(frame, size)) Release(nullptr);
    return frame;
  }
  // Free function: f(std::allocator_arg, alloc, args...).
  template <FrameAllocator Alloc, typename... Args>
  static void* operator new(std::size_t size, std::allocator_arg_t, const Alloc& alloc, const Args&...) {
    return allocate_with(size, alloc);
  }
  // Member function or lambda: obj.f(std::allocator_arg, alloc, args...).
  template <typename Self, FrameAllocator Alloc, typename... Args>
  static void* operator new(std::size_t size, const Self&, std::allocator_arg_t, const Alloc& alloc,
                            const Args&...) {
    return allocate_with(size, alloc);
  }
  static void operator delete(void* frame, std::size_t size) noexcept {
    if (Release release = *std::launder(static_cast<Release*>(slot_address(frame, size)))) {
      release(frame, size);
    } else {
      deallocate_task_frame(frame, default_bytes(size));
    }
  }

 private:
  using Release = void (*)(void* frame, std::size_t size) noexcept;
  struct alignas(__STDCPP_DEFAULT_NEW_ALIGNMENT__) Unit {
    unsigned char bytes[__STDCPP_DEFAULT_NEW_ALIGNMENT__];
  };
  template <typename Alloc>
  using Units = typename std::allocator_traits<Alloc>::template rebind_alloc<Unit>;

  static constexpr std::size_t align_up(std::size_t n, std::size_t a) noexcept { return (n + a - 1) / a * a; }
  static constexpr std::size_t default_bytes(std::size_t size) noexcept {
    return align_up(size, alignof(Release)) + sizeof(Release);
  }
  static void* slot_address(void* frame, std::size_t size) noexcept {
    return static_cast<char*>(frame) + align_up(size, alignof(Release));
  }
  template <typename U>
  static constexpr std::size_t allocator_offset(std::size_t size) noexcept {
    return align_up(default_bytes(size), alignof(U));
  }
  template <typename U>
  static constexpr std::size_t unit_count(std::size_t size) noexcept {
    return (allocator_offset<U>(size) + sizeof(U) + sizeof(Unit) - 1) / sizeof(Unit);
  }

  // Out of line: with this inlined into a coroutine, GCC 12 pairs the frame's
  // operator delete with the allocator's ::operator new and warns
  // (-Wmismatched-new-delete), though the two always match here.
  template <typename Alloc>
  [[gnu::noinline]] static void* allocate_with(std::size_t size, const Alloc& alloc) {
    using U = Units<Alloc>;
    static_assert(std::is_same_v<typename std::allocator_traits<U>::pointer, Unit*>,
                  "a frame allocator must hand out plain pointers");
    static_assert(alignof(U) <= alignof(Unit), "an over-aligned allocator cannot sit in the frame");
    U units(alloc);
    char* frame = reinterpret_cast<char*>(std::allocator_traits<U>::allocate(units, unit_count<U>(size)));
    ::new (frame + allocator_offset<U>(size)) U(std::move(units));
    ::new (slot_address(frame, size)) Release(&release_with<U>);
    return frame;
  }

  template <typename U>
  static void release_with(void* frame, std::size_t size) noexcept {
    char* base = static_cast<char*>(frame);
    U* stored = std::launder(reinterpret_cast<U*>(base + allocator_offset<U>(size)));
    U units(std::move(*stored));
    stored->~U();
    std::allocator_traits<U>::deallocate(units, reinterpret_cast<Unit*>(base), unit_count<U>(size));
  }
};

}  // namespace duet::detail
