// duet::fiber::with_timeout / with_deadline (src/duet/stackful/with_timeout.hpp)
// on both backends: fn(token) runs on a fiber and races its deadline; past it
// the token is stopped, fn's socket I/O sees operation_canceled, and
// with_timeout returns only once fn's fiber (and the fibers it joins) have
// finished. The stackless twin is tests/task/with_timeout_test.cpp.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string_view>
#include <system_error>
#include <utility>

#include "duet/stackful/fiber.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/tcp_stream.hpp"
#include "duet/stackful/this_fiber.hpp"
#include "duet/stackful/with_timeout.hpp"
#include "support/on_fibers.hpp"
#include "support/socket_pair.hpp"

using namespace std::chrono_literals;
using duet::Backend;
using duet::fiber::Scheduler;
using duet::fiber::TcpStream;
namespace fiber = duet::fiber;

namespace {

Backend any_backend() { return GENERATE(Backend::io_uring, Backend::epoll); }

// Runs body on a fiber of a fresh scheduler over each backend.
template <typename Body>
void on_fibers(Body body) {
  duet::test::run_checked_on_fibers(any_backend(), std::move(body));
}

struct StreamPair {
  duet::test::SocketPair pair;
  TcpStream near{Scheduler::current()->loop(), ::dup(pair.fds[0])};
};

struct Tally {
  int cancelled = 0;
  int finished = 0;
};

int recv_count(TcpStream& s, const std::stop_token& token, Tally& tally) {
  char buf[64];
  auto r = s.recv(buf, token);
  ++tally.finished;
  if (r) return static_cast<int>(*r);
  if (r.error() == std::errc::operation_canceled) ++tally.cancelled;
  return -1;
}

// A group: two fibers, each given the token, joined before returning their sum.
template <typename F>
int group_of_two(F one, F two, const std::stop_token& token) {
  auto a = fiber::spawn([&] { return one(token); });
  auto b = fiber::spawn([&] { return two(token); });
  const int sum = a.join();
  return sum + b.join();
}

bool nothing_in_flight() { return Scheduler::current()->loop().in_flight() == 0; }

}  // namespace

TEST_CASE("fiber with_timeout returns the value of a group that finishes before its deadline") {
  on_fibers([] {
    auto value_after = [](std::chrono::milliseconds d, int v) {
      return [d, v](const std::stop_token& t) { return fiber::sleep_for(d, t) ? v : -100; };
    };
    auto r = fiber::with_timeout(
        [&](std::stop_token t) { return group_of_two(value_after(1ms, 1), value_after(2ms, 2), t); }, 5s);
    REQUIRE(r.ok());
    CHECK_FALSE(r.error());
    CHECK(r.value() == 3);
    CHECK(nothing_in_flight());
    auto never = fiber::with_timeout(value_after(1ms, 4), std::chrono::hours::max());  // no deadline, no overflow
    REQUIRE(never.ok());
    CHECK(*never == 4);
    CHECK(nothing_in_flight());
  });
}

TEST_CASE("fiber with_timeout stops a group past its deadline and returns only after every fiber finished") {
  on_fibers([] {
    StreamPair s1;
    StreamPair s2;
    Tally tally;
    auto waits = [&](TcpStream& s) { return [&tally, &s](const std::stop_token& t) { return recv_count(s, t, tally); }; };
    auto r = fiber::with_timeout([&](std::stop_token t) { return group_of_two(waits(s1.near), waits(s2.near), t); },
                                 20ms);
    CHECK(r.timed_out());
    CHECK(r.error() == std::errc::timed_out);
    CHECK_THROWS_AS(r.value(), std::system_error);
    CHECK(tally.finished == 2);
    CHECK(tally.cancelled == 2);
    CHECK(nothing_in_flight());
  });
}

TEST_CASE("fiber with_timeout waits for a callable that ignores its stop token") {
  on_fibers([] {
    bool done = false;
    auto r = fiber::with_timeout(
        [&](std::stop_token) {
          fiber::sleep_for(40ms);  // no token: the stop goes unheard
          done = true;
          return 0;
        },
        1ms);
    CHECK(r.timed_out());
    CHECK(done);
    CHECK(nothing_in_flight());
  });
}

TEST_CASE("fiber with_timeout rethrows an exception thrown before its deadline, drops one thrown after") {
  on_fibers([] {
    auto throws_after = [](std::chrono::milliseconds d) {
      return [d](const std::stop_token& t) -> int {
        fiber::sleep_for(d, t);
        throw std::runtime_error("work failed");
      };
    };
    bool threw = false;
    try {
      (void)fiber::with_timeout(throws_after(2ms), 5s);
    } catch (const std::runtime_error& e) {
      threw = std::string_view(e.what()) == "work failed";
    }
    CHECK(threw);
    auto late = fiber::with_timeout(throws_after(10s), 5ms);  // stopped by the deadline, then throws
    CHECK(late.timed_out());
    CHECK(nothing_in_flight());
  });
}

TEST_CASE("fiber with_timeout with a zero or negative timeout keeps a value ready at once and stops a waiting call") {
  const auto timeout = GENERATE(0ms, -5ms);
  on_fibers([timeout] {
    auto ready = fiber::with_timeout([](std::stop_token) { return 9; }, timeout);
    REQUIRE(ready.ok());
    CHECK(*ready == 9);
    StreamPair s;
    Tally tally;
    auto r = fiber::with_timeout([&](std::stop_token t) { return recv_count(s.near, t, tally); }, timeout);
    CHECK(r.timed_out());
    CHECK(tally.cancelled == 1);
    CHECK(nothing_in_flight());
  });
}

TEST_CASE("fiber with_timeout stopped through the caller's token gives the callable's own result") {
  on_fibers([] {
    StreamPair s;
    Tally tally;
    std::stop_source outer;
    auto stopper = fiber::spawn([&] {
      fiber::sleep_for(5ms);
      outer.request_stop();
    });
    auto r = fiber::with_timeout(outer.get_token(), [&](std::stop_token t) { return recv_count(s.near, t, tally); },
                                 5s);
    stopper.join();
    REQUIRE(r.ok());
    CHECK(*r == -1);  // the recv's operation_canceled, as the callable reported it
    CHECK(tally.cancelled == 1);
    CHECK(nothing_in_flight());
  });
}

TEST_CASE("fiber with_deadline takes a time point; void and reference results") {
  on_fibers([] {
    StreamPair s;
    s.pair.write("hey");
    auto got = fiber::with_deadline(
        [&](std::stop_token t) {
          char buf[16];
          return s.near.recv(buf, t);
        },
        duet::now() + 5s);
    REQUIRE(got.ok());
    REQUIRE(got->ok());
    CHECK(**got == 3);
    auto none = fiber::with_deadline([](std::stop_token t) { fiber::sleep_for(1ms, t); }, duet::now() + 5s);
    CHECK(none.ok());
    int cell = 4;
    auto ref = fiber::with_timeout([&cell](std::stop_token) -> int& { return cell; }, 1s);
    REQUIRE(ref.ok());
    CHECK(&ref.value() == &cell);
    CHECK(nothing_in_flight());
  });
}

TEST_CASE("fiber with_timeout called off-fiber drives the scheduler") {
  const Backend backend = any_backend();
  INFO("backend " << duet::backend_name(backend));
  const duet::test::AlarmGuard alarm;  // a combinator that never returns ends the binary
  Scheduler scheduler({.backend = backend, .stack_size = 64 * 1024});
  duet::test::SocketPair pair;
  TcpStream silent{scheduler.loop(), ::dup(pair.fds[0])};
  Tally tally;
  auto r = fiber::with_timeout([&](std::stop_token t) { return recv_count(silent, t, tally); }, 10ms);
  CHECK(r.timed_out());
  CHECK(tally.cancelled == 1);
  CHECK(scheduler.live_fibers() == 0);
}

// The code docs/GUIDE.md quotes, checked by tests/stackful/check_guide_stackful.py.
namespace guide {

// guide:begin fiber_group_deadline
int count_bytes(duet::fiber::TcpStream& conn, const std::stop_token& stop) {
  char buf[512];
  auto n = conn.recv(buf, stop);  // operation_canceled once stop is requested
  return n ? static_cast<int>(*n) : 0;
}

// Both replies' sizes, or nothing if they have not both come within a second.
std::optional<int> both(duet::fiber::TcpStream& a, duet::fiber::TcpStream& b) {
  auto r = duet::fiber::with_timeout(
      [&](std::stop_token stop) {  // on a fiber of its own; stop is requested at the deadline
        auto other = duet::fiber::spawn([&] { return count_bytes(b, stop); });
        const int mine = count_bytes(a, stop);
        return mine + other.join();  // the group: a here, b on a fiber of its own
      },
      1s);
  if (r.timed_out()) return std::nullopt;  // both recvs were cancelled, both fibers joined
  return *r;
}
// guide:end

}  // namespace guide

TEST_CASE("the guide's fiber group deadline snippet gives both sizes, or nothing after a second") {
  on_fibers([] {
    StreamPair a;
    StreamPair b;
    a.pair.write("ab");
    b.pair.write("cde");
    CHECK(guide::both(a.near, b.near) == 5);
    a.pair.write("ab");  // b never answers
    CHECK(guide::both(a.near, b.near) == std::nullopt);
    CHECK(nothing_in_flight());
  });
}
