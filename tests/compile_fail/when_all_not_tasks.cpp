// when_all of awaiters rather than Tasks.
// expect: when_all takes Tasks
#include <chrono>

#include <duet/task/sleep.hpp>
#include <duet/task/when_all.hpp>

duet::Task<void> wrong(duet::EventLoop& loop) {
  co_await duet::when_all(duet::sleep_for(loop, std::chrono::seconds(1)), duet::sleep_for(loop, std::chrono::seconds(2)));
}
