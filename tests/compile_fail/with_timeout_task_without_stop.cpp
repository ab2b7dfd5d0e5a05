// The call from issue 29: a deadline over a group, without the stop_source that stops it.
// expect: for a Task or another awaitable, make a std::stop_source
#include <chrono>

#include <duet/task/when_all.hpp>
#include <duet/task/with_timeout.hpp>

duet::Task<int> fetch(int x) { co_return x; }

duet::Task<void> wrong() {
  (void)co_await duet::with_timeout(duet::when_all(fetch(1), fetch(2)), std::chrono::seconds(1));
}
