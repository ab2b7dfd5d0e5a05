// Counts constructions and destructions of a tracked object, so tests can
// assert that frames and captured arguments are destroyed exactly once.
//
//   LifetimeCounter counter;
//   { Tracked t{counter}; }
//   REQUIRE(counter.alive() == 0);
#pragma once

#include <cstddef>

namespace duet::test {

struct LifetimeCounter {
  std::size_t constructed = 0;
  std::size_t destroyed = 0;
  [[nodiscard]] std::ptrdiff_t alive() const noexcept {
    return static_cast<std::ptrdiff_t>(constructed) - static_cast<std::ptrdiff_t>(destroyed);
  }
};

class Tracked {
 public:
  explicit Tracked(LifetimeCounter& counter) noexcept : counter_(&counter) { ++counter_->constructed; }
  Tracked(const Tracked& other) noexcept : counter_(other.counter_) { ++counter_->constructed; }
  Tracked(Tracked&& other) noexcept : counter_(other.counter_) { ++counter_->constructed; }
  Tracked& operator=(const Tracked&) = delete;
  Tracked& operator=(Tracked&&) = delete;
  ~Tracked() { ++counter_->destroyed; }

 private:
  LifetimeCounter* counter_;
};

}  // namespace duet::test
