// Machinery for when_all: a countdown latch that resumes one awaiter, and the
// small coroutine that runs one child task into a Result slot.
//
// The latch starts at n + 1: one count per child plus one held by the awaiter
// while it starts the children. Whoever brings it to zero resumes the awaiter,
// so children that finish synchronously never resume it re-entrantly, and a
// child finishing on another thread resumes it there (acq_rel publishes the
// children's results to the awaiter).
#pragma once

#include <atomic>
#include <coroutine>
#include <cstddef>
#include <exception>
#include <utility>

#include "duet/task/detail/await_into.hpp"
#include "duet/task/detail/result.hpp"
#include "duet/task/task.hpp"

namespace duet::detail {

class WhenAllLatch {
 public:
  explicit WhenAllLatch(std::size_t children) noexcept : count_(children + 1) {}

  // Called by the awaiter after starting every child: true = stay suspended.
  bool suspend_awaiter(std::coroutine_handle<> awaiter) noexcept {
    awaiter_ = awaiter;
    return count_.fetch_sub(1, std::memory_order_acq_rel) > 1;
  }
  // Called by each child as it finishes: the handle to transfer to.
  std::coroutine_handle<> child_done() noexcept {
    if (count_.fetch_sub(1, std::memory_order_acq_rel) == 1) return awaiter_;
    return std::noop_coroutine();
  }

 private:
  std::atomic<std::size_t> count_;
  std::coroutine_handle<> awaiter_;
};

// One child's frame. Owned (and destroyed) by when_all after the latch opens.
class WhenAllChild {
 public:
  struct promise_type {
    WhenAllLatch* latch_ = nullptr;
    WhenAllChild get_return_object() noexcept {
      return WhenAllChild{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() const noexcept { return {}; }
    auto final_suspend() const noexcept {
      struct Notify {
        bool await_ready() const noexcept { return false; }
        std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> self) noexcept {
          return self.promise().latch_->child_done();
        }
        void await_resume() const noexcept {}
      };
      return Notify{};
    }
    void return_void() const noexcept {}
    void unhandled_exception() const noexcept { std::terminate(); }  // body catches all
  };

  explicit WhenAllChild(std::coroutine_handle<promise_type> handle) noexcept : handle_(handle) {}
  WhenAllChild(const WhenAllChild&) = delete;
  WhenAllChild& operator=(const WhenAllChild&) = delete;
  WhenAllChild(WhenAllChild&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  WhenAllChild& operator=(WhenAllChild&&) = delete;
  ~WhenAllChild() {
    if (handle_) handle_.destroy();
  }

  void start(WhenAllLatch& latch) noexcept {
    handle_.promise().latch_ = &latch;
    handle_.resume();
  }

 private:
  std::coroutine_handle<promise_type> handle_;
};


// Starts every child, then suspends until the latch opens.
template <typename Children>
struct WhenAllStart {
  Children& children_;
  WhenAllLatch& latch_;
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> awaiter) noexcept {
    for (auto& child : children_) child.start(latch_);
    return latch_.suspend_awaiter(awaiter);
  }
  void await_resume() const noexcept {}
};

}  // namespace duet::detail
