// A move-only value that counts how many live instances hold a value, so the
// channel tests can show that no value is leaked or duplicated: every Coin
// made is either received or destroyed exactly once, and a moved-from shell
// (id -1) does not count. Default-constructible (empty), as IoResult<T> needs.
//
//   Coin::alive = 0;
//   { Coin c(7); Coin d(std::move(c)); }   // Coin::alive == 0 again
#pragma once

#include <utility>

namespace duet::test {

struct Coin {
  static inline int alive = 0;  // one test thread at a time
  int id = -1;

  Coin() noexcept = default;
  explicit Coin(int value) noexcept : id(value) { ++alive; }
  Coin(const Coin&) = delete;
  Coin& operator=(const Coin&) = delete;
  Coin(Coin&& other) noexcept : id(std::exchange(other.id, -1)) {}
  Coin& operator=(Coin&& other) noexcept {
    if (this != &other) {
      drop();
      id = std::exchange(other.id, -1);
    }
    return *this;
  }
  ~Coin() { drop(); }

 private:
  void drop() noexcept {
    if (id >= 0) --alive;
    id = -1;
  }
};

}  // namespace duet::test
