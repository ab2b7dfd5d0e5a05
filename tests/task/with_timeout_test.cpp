// duet::with_timeout(stop, work, d) / with_deadline (src/duet/task/with_timeout.hpp)
// on both backends: a Task (a when_all group) or an awaitable races its
// deadline; past it the work is stopped through its token, its socket I/O
// sees operation_canceled, and with_timeout returns only once the work has
// finished (checked with tallies taken at the moment it returns, and
// loop.in_flight() == 0). Each test drives the loop with a time limit, so a
// work that is never stopped is a failed check, not a hung suite. The fiber
// twin is tests/stackful/with_timeout_test.cpp.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <exception>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <system_error>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "duet/io/event_loop.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/task.hpp"
#include "duet/task/tcp_stream.hpp"
#include "duet/task/when_all.hpp"
#include "duet/task/with_timeout.hpp"
#include "support/run_bounded.hpp"
#include "support/socket_pair.hpp"

namespace {

using duet::Backend;
using duet::EventLoop;
using duet::Task;
using duet::TcpStream;
using duet::TimeoutResult;
using namespace std::chrono_literals;

Backend any_backend() { return GENERATE(Backend::io_uring, Backend::epoll); }

struct StreamPair {
  duet::test::SocketPair pair;
  TcpStream near;
  explicit StreamPair(EventLoop& loop) : near(loop, ::dup(pair.fds[0])) { REQUIRE(near.native_handle() >= 0); }
};

struct Tally {
  int cancelled = 0;
  int finished = 0;
};

// One backend's loop (this thread's current one), two sockets that never get data, a stop source.
struct Fixture {
  Backend backend = any_backend();
  EventLoop loop{backend};
  StreamPair silent{loop};
  StreamPair silent2{loop};
  Tally tally;
  std::stop_source stop;
};

using duet::test::run_bounded;

// Awaits `work` and copies `tally` right as it returns.
template <typename T>
Task<T> then_snapshot(Task<T> work, const Tally& tally, Tally& at_return) {
  T result = co_await std::move(work);
  at_return = tally;
  co_return result;
}

Task<int> recv_count(TcpStream& s, std::stop_token token, Tally& tally) {
  char buf[64];
  auto r = co_await s.recv(buf, std::move(token));
  ++tally.finished;
  if (r) co_return static_cast<int>(*r);
  if (r.error() == std::errc::operation_canceled) ++tally.cancelled;
  co_return -1;
}

Task<int> value_after(EventLoop& loop, std::chrono::milliseconds d, int value, std::stop_token token) {
  co_await duet::sleep_for(loop, d, std::move(token));
  co_return value;
}

Task<int> at_once(int value) { co_return value; }

Task<int> throw_after(EventLoop& loop, std::chrono::milliseconds d) {
  co_await duet::sleep_for(loop, d);
  throw std::runtime_error("work failed");
}

}  // namespace

TEST_CASE("with_timeout returns the values of a group that finishes before its deadline") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  auto& stop = f.stop;
  auto r = run_bounded(
      f.loop, duet::with_timeout(stop, duet::when_all(value_after(f.loop, 1ms, 1, stop.get_token()),
                                                      value_after(f.loop, 2ms, 2, stop.get_token())),
                                 5s));
  REQUIRE(r.ok());
  CHECK_FALSE(r.timed_out());
  CHECK_FALSE(r.error());
  CHECK(r.value() == std::tuple{1, 2});
  CHECK(f.loop.in_flight() == 0);  // the deadline's sleep was cancelled and delivered
  std::stop_source stop2;  // a timeout past the clock's range means no deadline, not an overflow
  auto never = run_bounded(f.loop, duet::with_timeout(stop2, value_after(f.loop, 1ms, 3, stop2.get_token()),
                                                      std::chrono::hours::max()));
  REQUIRE(never.ok());
  CHECK(*never == 3);
  CHECK(f.loop.in_flight() == 0);
}

TEST_CASE("with_timeout stops a group past its deadline and returns only after every child finished") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  auto& stop = f.stop;
  Tally at_return;
  auto group = duet::when_all(recv_count(f.silent.near, stop.get_token(), f.tally),
                              recv_count(f.silent2.near, stop.get_token(), f.tally));
  auto r = run_bounded(f.loop, then_snapshot(duet::with_timeout(stop, std::move(group), 20ms), f.tally, at_return));
  CHECK(r.timed_out());
  CHECK(r.error() == std::errc::timed_out);
  CHECK_THROWS_AS(r.value(), std::system_error);
  CHECK(at_return.finished == 2);
  CHECK(at_return.cancelled == 2);  // both recvs saw operation_canceled
  CHECK(stop.stop_requested());
  CHECK(f.loop.in_flight() == 0);
}

// Ignores its token: sleeps its full time, then records that it ran to the end.
Task<int> stubborn(EventLoop& loop, std::chrono::milliseconds d, bool& done) {
  co_await duet::sleep_for(loop, d);
  done = true;
  co_return 0;
}

TEST_CASE("with_timeout waits for work that ignores its stop token") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  bool done = false;
  bool done_at_return = false;
  auto timed = [](Task<TimeoutResult<int>> t, const bool& flag, bool& seen) -> Task<TimeoutResult<int>> {
    auto r = co_await std::move(t);
    seen = flag;
    co_return r;
  };
  auto r = run_bounded(f.loop, timed(duet::with_timeout(f.stop, stubborn(f.loop, 40ms, done), 1ms), done,
                                     done_at_return));
  CHECK(r.timed_out());
  CHECK(done_at_return);
  CHECK(f.loop.in_flight() == 0);
}

TEST_CASE("with_timeout rethrows an exception the work throws before its deadline") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  auto& stop = f.stop;
  auto group = duet::when_all(throw_after(f.loop, 2ms), recv_count(f.silent.near, stop.get_token(), f.tally));
  // when_all waits for its recv, which nothing stops: the deadline does, and
  // the group's exception came after it, so it is dropped...
  auto late = run_bounded(f.loop, duet::with_timeout(stop, std::move(group), 20ms));
  CHECK(late.timed_out());
  // ...while a work that fails before its deadline fails the call.
  std::stop_source stop2;
  CHECK_THROWS_WITH(run_bounded(f.loop, duet::with_timeout(stop2, throw_after(f.loop, 2ms), 5s)), "work failed");
  CHECK(f.loop.in_flight() == 0);
}

TEST_CASE("with_timeout with a zero or negative timeout keeps a value ready at once and stops a waiting work") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  const auto timeout = GENERATE(0ms, -5ms);
  auto ready = run_bounded(f.loop, duet::with_timeout(f.stop, at_once(9), timeout));
  REQUIRE(ready.ok());
  CHECK(*ready == 9);
  std::stop_source stop;
  Tally at_return;
  auto r = run_bounded(f.loop, then_snapshot(duet::with_timeout(stop, recv_count(f.silent.near, stop.get_token(), f.tally),
                                                                timeout),
                                             f.tally, at_return));
  CHECK(r.timed_out());
  CHECK(at_return.cancelled == 1);
  CHECK(f.loop.in_flight() == 0);
}

Task<void> stop_after(EventLoop& loop, std::chrono::milliseconds d, std::stop_source stop) {
  co_await duet::sleep_for(loop, d);
  stop.request_stop();
}

TEST_CASE("with_timeout stopped from outside gives the work's own result, not timed_out") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  auto& stop = f.stop;
  Task<void> stopper = stop_after(f.loop, 5ms, stop);
  stopper.handle().resume();
  auto r = run_bounded(f.loop, duet::with_timeout(stop, recv_count(f.silent.near, stop.get_token(), f.tally), 5s));
  CHECK(stopper.done());
  REQUIRE(r.ok());
  CHECK(*r == -1);  // the recv's operation_canceled, as the work reported it
  CHECK(f.tally.cancelled == 1);
  CHECK(f.loop.in_flight() == 0);
}

TEST_CASE("with_deadline takes a time point and an awaiter built with the token") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  auto& stop = f.stop;
  char buf[16];
  auto waits = [&]() -> Task<TimeoutResult<duet::IoResult<std::size_t>>> {
    co_return co_await duet::with_deadline(f.loop, stop, f.silent.near.recv(buf, stop.get_token()),
                                           duet::now() + 10ms);
  };
  auto r = run_bounded(f.loop, waits());
  CHECK(r.timed_out());
  std::stop_source stop2;
  f.silent2.pair.write("hey");
  auto got = [&]() -> Task<TimeoutResult<duet::IoResult<std::size_t>>> {
    co_return co_await duet::with_deadline(stop2, f.silent2.near.recv(buf, stop2.get_token()), duet::now() + 5s);
  };
  auto r2 = run_bounded(f.loop, got());
  REQUIRE(r2.ok());
  REQUIRE(r2->ok());
  CHECK(**r2 == 3);
  CHECK(f.loop.in_flight() == 0);
}

TEST_CASE("with_timeout over a Task<void> and a Task<T&>") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  int cell = 4;
  auto ref = [](int& c) -> Task<int&> { co_return c; };
  auto r = run_bounded(f.loop, duet::with_timeout(f.stop, ref(cell), 1s));
  REQUIRE(r.ok());
  CHECK(&r.value() == &cell);
  std::stop_source stop;
  auto none = [](EventLoop& loop, std::stop_token t) -> Task<void> { co_await duet::sleep_for(loop, 1ms, t); };
  auto v = run_bounded(f.loop, duet::with_timeout(stop, none(f.loop, stop.get_token()), 1s));
  CHECK(v.ok());
  CHECK(f.loop.in_flight() == 0);
}

// The code docs/GUIDE.md quotes ("Groups and their deadlines"), checked by
// tests/io/check_guide.py.
namespace guide {

// guide:begin when_all
duet::Task<int> twice(duet::EventLoop& loop, int x) {
  co_await duet::sleep_for(loop, 1ms);
  co_return 2 * x;
}

duet::Task<int> sum(duet::EventLoop& loop) {
  auto [a, b] = co_await duet::when_all(twice(loop, 1), twice(loop, 2));  // concurrently: ~1 ms, not 2
  std::vector<duet::Task<int>> many;
  for (int i = 0; i < 10; ++i) many.push_back(twice(loop, i));
  std::vector<int> all = co_await duet::when_all(std::move(many));  // in argument order
  int total = a + b;
  for (int v : all) total += v;
  co_return total;
}
// guide:end

// guide:begin group_deadline
duet::Task<int> count_bytes(duet::TcpStream& conn, std::stop_token stop) {
  char buf[512];
  auto n = co_await conn.recv(buf, stop);  // operation_canceled once stop is requested
  co_return n ? static_cast<int>(*n) : 0;
}

// Both replies' sizes, or nothing if they have not both come within a second.
duet::Task<std::optional<int>> both(duet::TcpStream& a, duet::TcpStream& b) {
  std::stop_source stop;  // the group's children get its token; with_timeout stops it at the deadline
  auto r = co_await duet::with_timeout(
      stop, duet::when_all(count_bytes(a, stop.get_token()), count_bytes(b, stop.get_token())), 1s);
  if (r.timed_out()) co_return std::nullopt;  // both recvs were cancelled and have finished
  auto [x, y] = *r;
  co_return x + y;
}
// guide:end

// guide:begin group_when_any
duet::Task<void> nap(duet::EventLoop& loop, std::chrono::milliseconds d, std::stop_token stop) {
  co_await duet::sleep_for(loop, d, stop);
}

// The same deadline spelled with when_any: the group races a nap.
duet::Task<std::optional<int>> both_or_nap(duet::EventLoop& loop, duet::TcpStream& a, duet::TcpStream& b) {
  std::stop_source stop;
  auto r = co_await duet::when_any(
      stop, duet::when_all(count_bytes(a, stop.get_token()), count_bytes(b, stop.get_token())),
      nap(loop, 1s, stop.get_token()));
  if (r.index() == 1) co_return std::nullopt;  // the nap won (or someone stopped `stop`)
  auto [x, y] = std::get<0>(r);
  co_return x + y;
}
// guide:end

}  // namespace guide

TEST_CASE("the guide's when_all snippet sums a group and a vector of tasks") {
  const Backend backend = any_backend();
  INFO("backend " << duet::backend_name(backend));
  EventLoop loop(backend);
  CHECK(run_bounded(loop, guide::sum(loop)) == 2 + 4 + 90);
}

TEST_CASE("the guide's group deadline snippets give both sizes, or nothing after a second") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  f.silent.pair.write("ab");
  f.silent2.pair.write("cde");
  CHECK(run_bounded(f.loop, guide::both(f.silent.near, f.silent2.near)) == 5);
  f.silent.pair.write("ab");
  f.silent2.pair.write("cde");
  CHECK(run_bounded(f.loop, guide::both_or_nap(f.loop, f.silent.near, f.silent2.near)) == 5);
  f.silent.pair.write("ab");  // the other never answers
  CHECK(run_bounded(f.loop, guide::both(f.silent.near, f.silent2.near)) == std::nullopt);
  f.silent.pair.write("ab");
  CHECK(run_bounded(f.loop, guide::both_or_nap(f.loop, f.silent.near, f.silent2.near)) == std::nullopt);
  CHECK(f.loop.in_flight() == 0);
}
