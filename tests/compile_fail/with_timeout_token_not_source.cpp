// A token where the stop_source goes: with_timeout could not stop the work.
// expect: first argument is the std::stop_source
#include <chrono>
#include <stop_token>

#include <duet/task/with_timeout.hpp>

duet::Task<int> fetch(std::stop_token) { co_return 1; }

duet::Task<void> wrong() {
  std::stop_source stop;
  (void)co_await duet::with_timeout(stop.get_token(), fetch(stop.get_token()), std::chrono::seconds(1));
}
