// The right form of every mistake beside this file: it must compile (warnings
// as errors), so the harness cannot pass because nothing compiles at all.
// expect: compiles
#include <chrono>
#include <stop_token>
#include <utility>

#include <duet/stackful/when_any.hpp>
#include <duet/stackful/with_timeout.hpp>
#include <duet/task/sleep.hpp>
#include <duet/task/sync_wait.hpp>
#include <duet/task/tcp_stream.hpp>
#include <duet/task/when_all.hpp>
#include <duet/task/when_any.hpp>
#include <duet/task/with_timeout.hpp>

using namespace std::chrono_literals;

int answer() { return 42; }
int stored = 1;
duet::Task<int> fetch(std::stop_token) { co_return 1; }
duet::Task<int> value(int x) { co_return x; }
duet::Task<int&> ref() { co_return stored; }
duet::Task<void> nap(duet::EventLoop& loop) { co_await duet::sleep_for(loop, 1s); }

duet::Task<int> right(duet::TcpStream& conn, duet::EventLoop& loop) {
  int sum = answer() + co_await value(1) + co_await ref();
  char buf[64];
  auto r = co_await duet::with_timeout(conn.recv(buf), 1s);
  std::stop_source stop;
  auto group = co_await duet::with_timeout(stop, duet::when_all(fetch(stop.get_token()), fetch(stop.get_token())), 1s);
  auto task = fetch(stop.get_token());
  auto one = co_await duet::with_timeout(stop, std::move(task), 1s);
  auto any = co_await duet::when_any(stop, value(1), value(2));
  co_await duet::when_all(nap(loop), nap(loop));
  co_return sum + static_cast<int>(r.ok()) + static_cast<int>(group.ok()) + one.value() + static_cast<int>(any.index());
}

int fibers() {
  auto first = duet::fiber::when_any([](std::stop_token) { return 1; }, [](std::stop_token) { return 2; });
  auto timed = duet::fiber::with_timeout([](std::stop_token) { return 1; }, 1s);
  return static_cast<int>(first.index()) + timed.value();
}

int main() { return duet::sync_wait(value(0)); }
