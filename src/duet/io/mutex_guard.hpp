// duet::MutexGuard — the scoped ownership of a Mutex, in either voice.
//
// Contract
// - Returned (inside an IoResult) by duet::Mutex::lock and duet::fiber::Mutex::lock;
//   owns the lock until it is destroyed, unlock()ed or moved from. Move-only. A
//   default-constructed guard owns nothing.
// - Unlocking hands the mutex to the first waiter (FIFO), if any. Same thread
//   as the mutex.
//
//   if (auto lock = co_await mutex.lock(); lock) { ++counter; }   // unlocked here
//   duet::MutexGuard g = std::move(*lock);  g.unlock();
#pragma once

#include <utility>

#include "duet/io/detail/semaphore_core.hpp"

namespace duet {

class MutexGuard {
 public:
  MutexGuard() noexcept = default;
  explicit MutexGuard(detail::SemaphoreCore& core) noexcept : core_(&core) {}
  MutexGuard(const MutexGuard&) = delete;
  MutexGuard& operator=(const MutexGuard&) = delete;
  MutexGuard(MutexGuard&& other) noexcept : core_(std::exchange(other.core_, nullptr)) {}
  MutexGuard& operator=(MutexGuard&& other) noexcept {
    if (this != &other) {
      unlock();
      core_ = std::exchange(other.core_, nullptr);
    }
    return *this;
  }
  ~MutexGuard() { unlock(); }

  [[nodiscard]] bool owns_lock() const noexcept { return core_ != nullptr; }
  void unlock() noexcept {
    if (core_ != nullptr) std::exchange(core_, nullptr)->release(1);
  }

 private:
  detail::SemaphoreCore* core_ = nullptr;
};

}  // namespace duet
