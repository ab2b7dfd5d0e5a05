// duet::fiber::detail::FiberRecord — a fiber's control block, placed at the top of its own stack.
//
// Contract
// - Created by Scheduler::spawn with placement new in the highest bytes of the
//   fiber's stack (no separate allocation; the page it sits on is the first
//   page the fiber touches anyway). It owns that stack: destroying the record
//   hands the stack back to the pool (Scheduler::drop_ref does both).
// - Two references: the scheduler's while the fiber has not exited, and the
//   Fiber<T> handle's until join or detach. The last one frees the record.
// - FiberBody<R, Fn>::run() calls the callable, stores the value and destroys
//   the callable *on the fiber*, so destructors of captured objects may still
//   block or do I/O. execute() catches everything the body throws; the catch
//   block only stores the exception: nothing switches inside a catch.
// - One thread: the scheduler's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <new>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "duet/stackful/stack.hpp"

namespace duet::fiber {
class Scheduler;
}

namespace duet::fiber::detail {

enum class FiberState : std::uint8_t { created, ready, running, waiting, exited };

class FiberRecord {
 public:
  FiberRecord(Scheduler& scheduler, std::uint64_t id) noexcept : scheduler_(&scheduler), id_(id) {}
  FiberRecord(const FiberRecord&) = delete;
  FiberRecord& operator=(const FiberRecord&) = delete;
  FiberRecord(FiberRecord&&) = delete;
  FiberRecord& operator=(FiberRecord&&) = delete;
  virtual ~FiberRecord() = default;

  void execute() noexcept {
    try {
      run();
    } catch (...) {
      error_ = std::current_exception();  // only store: never switch inside a catch
    }
  }

  FiberRecord* next_ = nullptr;         // ready-queue link (intrusive, one queue at a time)
  void* sp_ = nullptr;                  // saved stack pointer while not running
  Scheduler* scheduler_;
  std::uint64_t id_;
  Stack stack_;                         // the stack this record lives on
  FiberRecord* joiner_ = nullptr;       // a fiber blocked in join() on us
  std::exception_ptr error_;
  void* asan_fake_stack_ = nullptr;     // ASan's per-fiber fake stack while switched out
  void* tsan_fiber_ = nullptr;          // TSan's context for this fiber, until it exits
  unsigned valgrind_id_ = 0;
  std::uint32_t refs_ = 2;              // scheduler + handle
  FiberState state_ = FiberState::created;
  bool joined_ = false;
  char name_[32] = {};

 protected:
  virtual void run() = 0;
};

// The typed part: where the result waits for join().
template <typename R>
class FiberResult : public FiberRecord {
 public:
  using FiberRecord::FiberRecord;
  using Stored = std::conditional_t<std::is_reference_v<R>, std::reference_wrapper<std::remove_reference_t<R>>,
                                    std::conditional_t<std::is_void_v<R>, bool, R>>;
  R take() {
    if constexpr (std::is_void_v<R>) {
      return;
    } else if constexpr (std::is_reference_v<R>) {
      return value_->get();
    } else {
      return std::move(*value_);
    }
  }

 protected:
  std::optional<Stored> value_;
};

template <typename R, typename Fn>
class FiberBody final : public FiberResult<R> {
 public:
  FiberBody(Scheduler& scheduler, std::uint64_t id, Fn&& fn)
      : FiberResult<R>(scheduler, id), fn_(std::move(fn)) {}

 private:
  void run() override {
    struct DestroyFn {  // the callable dies on the fiber, also when it throws
      std::optional<Fn>& fn_;
      ~DestroyFn() { fn_.reset(); }
    } destroy{fn_};
    if constexpr (std::is_void_v<R>) {
      std::invoke(*fn_);
    } else if constexpr (std::is_reference_v<R>) {
      this->value_.emplace(std::invoke(*fn_));
    } else {
      this->value_.emplace(std::invoke(*fn_));
    }
  }

  std::optional<Fn> fn_;
};

// Where a record of `size` bytes goes on `stack`: at the top, aligned down.
inline void* record_slot(const Stack& stack, std::size_t size, std::size_t align) {
  constexpr std::size_t min_free = 4096;  // the fiber must keep at least a page of stack
  if (size + align + min_free > stack.usable_size()) {
    throw std::length_error("duet: fiber callable and arguments do not fit on its stack");
  }
  auto top = reinterpret_cast<std::uintptr_t>(stack.top()) - size;
  top &= ~(std::uintptr_t{align < 16 ? 16 : align} - 1);
  return reinterpret_cast<void*>(top);
}

}  // namespace duet::fiber::detail
