// Machinery for when_any: a latch that remembers which child finished first and
// asks the others to stop, and the small coroutine that runs one child into a
// Result slot.
//
// The latch starts at n + 1 like when_all's: one count per child plus one held
// by the awaiter while it starts the children, and whoever brings it to zero
// resumes the awaiter. The first child to finish claims the win (a CAS on
// winner_) and calls request_stop() *before* giving up its own count: a stop
// callback may cancel a loser's op and resume that loser inline (epoll cancels
// synchronously), and the loser then finishes inside the winner's final
// suspension. The winner's count still held keeps such a nested finish from
// opening the latch and resuming the awaiter under the winner's feet.
//
// when_first_ok builds the latch with Win::claimed: finishing no longer wins;
// a child that succeeded calls claim() from its body, before its final
// suspension, so it too still holds its count while the stop runs. If no
// child claims, the latch opens with winner() == no_winner.
#pragma once

#include <atomic>
#include <coroutine>
#include <cstddef>
#include <exception>
#include <stop_token>
#include <utility>

#include "duet/task/detail/frame_allocation.hpp"

namespace duet::detail {

class WhenAnyLatch {
 public:
  static constexpr std::size_t no_winner = static_cast<std::size_t>(-1);
  // finishing: the first child to finish wins (when_any); claimed: the first to call claim() (when_first_ok).
  enum class Win : unsigned char { finishing, claimed };

  WhenAnyLatch(std::size_t children, std::stop_source& stop, Win win = Win::finishing) noexcept
      : count_(children + 1), stop_(&stop), win_(win) {}

  // Called by the awaiter after starting every child: true = stay suspended.
  bool suspend_awaiter(std::coroutine_handle<> awaiter) noexcept {
    awaiter_ = awaiter;
    return count_.fetch_sub(1, std::memory_order_acq_rel) > 1;
  }
  // Called by child `index` as it finishes: the handle to transfer to.
  std::coroutine_handle<> child_done(std::size_t index) noexcept {
    if (win_ == Win::finishing) claim(index);
    if (count_.fetch_sub(1, std::memory_order_acq_rel) == 1) return awaiter_;
    return std::noop_coroutine();
  }
  // Child `index` wins if no one has yet; the winner stops the others.
  void claim(std::size_t index) noexcept {
    std::size_t none = no_winner;
    if (winner_.compare_exchange_strong(none, index, std::memory_order_acq_rel)) stop_->request_stop();
  }
  [[nodiscard]] std::size_t winner() const noexcept { return winner_.load(std::memory_order_acquire); }

 private:
  std::atomic<std::size_t> count_;
  std::atomic<std::size_t> winner_{no_winner};
  std::stop_source* stop_;
  Win win_;
  std::coroutine_handle<> awaiter_;
};

// One child's frame, from this thread's FramePool like a Task's (FrameAllocation),
// so after warm-up a child costs no malloc beyond its own task's frame.
// Owned (and destroyed) by when_any after the latch opens.
class WhenAnyChild {
 public:
  struct promise_type : FrameAllocation {
    WhenAnyLatch* latch_ = nullptr;
    std::size_t index_ = 0;
    WhenAnyChild get_return_object() noexcept {
      return WhenAnyChild{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() const noexcept { return {}; }
    auto final_suspend() const noexcept {
      struct Notify {
        bool await_ready() const noexcept { return false; }
        std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> self) noexcept {
          return self.promise().latch_->child_done(self.promise().index_);
        }
        void await_resume() const noexcept {}
      };
      return Notify{};
    }
    void return_void() const noexcept {}
    void unhandled_exception() const noexcept { std::terminate(); }  // body catches all
  };

  explicit WhenAnyChild(std::coroutine_handle<promise_type> handle) noexcept : handle_(handle) {}
  WhenAnyChild(const WhenAnyChild&) = delete;
  WhenAnyChild& operator=(const WhenAnyChild&) = delete;
  WhenAnyChild(WhenAnyChild&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  WhenAnyChild& operator=(WhenAnyChild&&) = delete;
  ~WhenAnyChild() {
    if (handle_) handle_.destroy();
  }

  void start(WhenAnyLatch& latch, std::size_t index) noexcept {
    handle_.promise().latch_ = &latch;
    handle_.promise().index_ = index;
    handle_.resume();
  }

 private:
  std::coroutine_handle<promise_type> handle_;
};

// Starts every child, then suspends until the latch opens (every child done).
template <typename Children>
struct WhenAnyStart {
  Children& children_;
  WhenAnyLatch& latch_;
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> awaiter) noexcept {
    for (std::size_t i = 0; i < children_.size(); ++i) children_[i].start(latch_, i);
    return latch_.suspend_awaiter(awaiter);
  }
  void await_resume() const noexcept {}
};

}  // namespace duet::detail
