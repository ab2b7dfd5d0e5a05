// A named task handed to with_timeout(stop, task, d) without std::move.
// expect: hand the work over as an rvalue
#include <chrono>
#include <stop_token>

#include <duet/task/with_timeout.hpp>

duet::Task<int> fetch(std::stop_token) { co_return 1; }

duet::Task<void> wrong() {
  std::stop_source stop;
  auto task = fetch(stop.get_token());
  (void)co_await duet::with_timeout(stop, task, std::chrono::seconds(1));
}
