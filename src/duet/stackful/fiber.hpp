// duet::fiber::Fiber<T> — the handle to a spawned fiber: join it for its result.
//
// Contract
// - Returned by Scheduler::spawn / duet::fiber::spawn. Move-only; owns one
//   reference to the fiber's record (which lives on the fiber's stack).
// - join(): waits until the fiber has exited, then returns its value or
//   rethrows its exception; the handle is empty afterwards. Called from a
//   fiber, the caller blocks (other fibers run); called from the scheduler's
//   thread outside any fiber, it drives the scheduler until the fiber exits.
//   Same scheduler/thread only.
// - detach() (and the destructor of a joinable handle): the fiber goes on by
//   itself. If it then ends with an exception, Scheduler::run rethrows it.
//
//   duet::fiber::Scheduler scheduler;
//   duet::fiber::Fiber<int> f = scheduler.spawn([](int x) { return 2 * x; }, 21);
//   int v = f.join();   // 42
#pragma once

#include <cstdint>
#include <exception>
#include <stdexcept>
#include <utility>

#include "duet/stackful/detail/fiber_record.hpp"

namespace duet::fiber {

namespace detail {
// Defined in scheduler.cpp (they need the whole Scheduler).
void wait_for_exit(FiberRecord& record);
void drop_handle(FiberRecord& record) noexcept;
}  // namespace detail

template <typename T = void>
class Fiber {
 public:
  Fiber() noexcept = default;
  explicit Fiber(detail::FiberResult<T>* record) noexcept : record_(record) {}
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;
  Fiber(Fiber&& other) noexcept : record_(std::exchange(other.record_, nullptr)) {}
  Fiber& operator=(Fiber&& other) noexcept {
    if (this != &other) {
      detach();
      record_ = std::exchange(other.record_, nullptr);
    }
    return *this;
  }
  ~Fiber() { detach(); }

  [[nodiscard]] bool joinable() const noexcept { return record_ != nullptr; }
  [[nodiscard]] bool done() const noexcept {
    return record_ != nullptr && record_->state_ == detail::FiberState::exited;
  }
  [[nodiscard]] std::uint64_t id() const noexcept { return record_ != nullptr ? record_->id_ : 0; }

  T join() {
    if (record_ == nullptr) throw std::logic_error("duet: join on an empty Fiber handle");
    if (record_->state_ != detail::FiberState::exited) {
      detail::wait_for_exit(*record_);  // may throw (deadlock, joining itself): handle kept
    }
    auto* record = std::exchange(record_, nullptr);
    record->joined_ = true;
    struct Drop {
      detail::FiberRecord* record_;
      ~Drop() { detail::drop_handle(*record_); }
    } drop{record};
    if (record->error_) std::rethrow_exception(record->error_);
    return record->take();
  }

  void detach() noexcept {
    if (record_ != nullptr) detail::drop_handle(*std::exchange(record_, nullptr));
  }

 private:
  detail::FiberResult<T>* record_ = nullptr;
};

}  // namespace duet::fiber
