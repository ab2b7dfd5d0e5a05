// duet::fiber::when_any (src/duet/stackful/when_any.hpp) on both backends: each
// callable runs on its own fiber with a token from when_any's stop source; the
// first to end wins, the others are stopped and joined, so their pending
// socket I/O is cancelled and delivered before when_any returns
// (loop().in_flight() == 0 right after). The stackless twin is
// tests/task/when_any_test.cpp.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <variant>
#include <vector>

#include <duet/stackful/scheduler.hpp>
#include <duet/stackful/sleep.hpp>
#include <duet/stackful/tcp_stream.hpp>
#include <duet/stackful/this_fiber.hpp>
#include <duet/stackful/when_any.hpp>
#include "support/on_fibers.hpp"
#include "support/socket_pair.hpp"

using namespace std::chrono_literals;
using duet::Backend;
using duet::fiber::Scheduler;
using duet::fiber::TcpStream;
namespace fiber = duet::fiber;

namespace {

Backend any_backend() { return GENERATE(Backend::io_uring, Backend::epoll); }

// Runs body (-> bool, which must be true) on a fiber of a fresh scheduler over each backend.
template <typename Body>
void check_on_fibers(Body body) {
  duet::test::run_checked_on_fibers(any_backend(), std::move(body));
}

// On a fiber: the side under test as a TcpStream (a dup of pair.fds[0]); the test writes to pair.fds[1].
struct StreamPair {
  duet::test::SocketPair pair;
  TcpStream near{Scheduler::current()->loop(), ::dup(pair.fds[0])};
};

struct Tally {
  int cancelled = 0;
  int finished = 0;
};

// Waits for bytes on `s`: their count, or -1 after counting a cancellation.
int recv_count(TcpStream& s, const std::stop_token& token, Tally& tally) {
  char buf[64];
  auto r = s.recv(buf, token);
  ++tally.finished;
  if (r) return static_cast<int>(*r);
  if (r.error() == std::errc::operation_canceled) ++tally.cancelled;
  return -1;
}

// For when_any called outside any fiber: a scheduler, a socket that never gets data.
struct OffFiber {
  Backend backend = any_backend();
  duet::test::AlarmGuard alarm;
  Scheduler scheduler{{.backend = backend, .stack_size = 64 * 1024}};
  duet::test::SocketPair pair;
  TcpStream silent{scheduler.loop(), ::dup(pair.fds[0])};
  Tally tally;
};

bool nothing_in_flight() { return Scheduler::current()->loop().in_flight() == 0; }

}  // namespace

TEST_CASE("fiber when_any returns the first fiber's index and value and cancels the other's pending recv") {
  check_on_fibers([] {
    StreamPair silent;
    Tally tally;
    int ticks = 0;  // another fiber runs while the caller waits: only the fiber blocks
    auto ticker = fiber::spawn([&] {
      for (int i = 0; i < 3; ++i) ++ticks, fiber::yield();
    });
    auto r = fiber::when_any([&](std::stop_token t) { return recv_count(silent.near, t, tally); },
                             [](std::stop_token) {
                               fiber::sleep_for(10ms);
                               return 42;
                             });
    ticker.join();
    return r.index() == 1 && std::get<1>(r) == 42 && tally.cancelled == 1 && ticks == 3 && nothing_in_flight();
  });
}

TEST_CASE("fiber when_any over 100 fibers picks the one whose socket gets data and cancels the other 99 recvs") {
  check_on_fibers([] {
    std::vector<std::unique_ptr<StreamPair>> pairs;
    for (int i = 0; i < 100; ++i) pairs.push_back(std::make_unique<StreamPair>());
    Tally tally;
    std::vector<std::function<int(std::stop_token)>> fns;
    for (auto& p : pairs) {
      fns.emplace_back([&s = p->near, &tally](std::stop_token t) { return recv_count(s, t, tally); });
    }
    auto writer = fiber::spawn([&] {
      fiber::sleep_for(20ms);  // every recv is parked (on io_uring: in the kernel) by now
      pairs[57]->pair.write("hello");
    });
    auto [index, value] = fiber::when_any(std::move(fns));
    writer.join();
    CHECK(index == 57);
    CHECK(value == 5);
    CHECK(tally.finished == 100);
    CHECK(tally.cancelled == 99);
    return nothing_in_flight();
  });
}

TEST_CASE("fiber when_any rethrows the winner's exception after the losers have finished") {
  check_on_fibers([] {
    StreamPair silent;
    Tally tally;
    bool threw = false;
    try {
      (void)fiber::when_any([&](std::stop_token t) { return recv_count(silent.near, t, tally); },
                            [](std::stop_token) -> int {
                              fiber::sleep_for(5ms);
                              throw std::runtime_error("winner failed");
                            });
    } catch (const std::runtime_error& e) {
      threw = std::string_view(e.what()) == "winner failed";
    }
    return threw && tally.cancelled == 1 && nothing_in_flight();
  });
}

TEST_CASE("fiber when_any drops a loser's exception raised after the stop") {
  check_on_fibers([] {
    StreamPair silent;
    auto r = fiber::when_any(
        [&](std::stop_token t) -> int {
          char buf[8];
          if (!silent.near.recv(buf, t)) throw std::runtime_error("loser failed");
          return 0;
        },
        [](std::stop_token) { return 7; });
    return r.index() == 1 && std::get<1>(r) == 7 && nothing_in_flight();
  });
}

TEST_CASE("fiber when_any waits for a loser that ignores the stop request") {
  check_on_fibers([] {
    bool stubborn_done = false;
    const auto start = std::chrono::steady_clock::now();
    auto r = fiber::when_any(
        [&](std::stop_token) {
          fiber::sleep_for(80ms);  // no token: the stop request goes unheard
          stubborn_done = true;
        },
        [](std::stop_token) {});
    return r.index() == 1 && stubborn_done && std::chrono::steady_clock::now() - start >= 79ms &&
           nothing_in_flight();
  });
}

TEST_CASE("fiber when_any of void callables returns the winner's index with a monostate") {
  check_on_fibers([] {
    auto nap = [](std::chrono::milliseconds d) { return [d](std::stop_token t) { fiber::sleep_for(d, t); }; };
    auto r = fiber::when_any(nap(10s), nap(5ms));
    std::vector<std::function<void(std::stop_token)>> naps{nap(10s), nap(10s), nap(1ms)};
    auto [index, value] = fiber::when_any(std::move(naps));
    return r.index() == 1 && index == 2 && nothing_in_flight();
  });
}

TEST_CASE("a spawn that fails stops and joins the fibers when_any already started, then throws") {
  OffFiber f;
  INFO("backend " << duet::backend_name(f.backend));
  auto& [backend, deadline, scheduler, pair, silent, tally] = f;
  // Called off-fiber: the thread's stack holds the callable that fits no fiber stack.
  auto too_big = std::make_unique<std::array<char, 128 * 1024>>();
  CHECK_THROWS_AS(fiber::when_any([&](std::stop_token t) { return recv_count(silent, t, tally); },
                                  [big = *too_big](std::stop_token) { return int{big[0]}; }),
                  std::length_error);
  CHECK(tally.finished == 1);
  CHECK(tally.cancelled == 1);
  CHECK(scheduler.loop().in_flight() == 0);
  CHECK(scheduler.live_fibers() == 0);
}

TEST_CASE("fiber when_any hands back a reference result as a reference_wrapper") {
  check_on_fibers([] {
    int x = 5;
    auto r = fiber::when_any([&x](std::stop_token) -> int& { return x; });
    auto [index, ref] = fiber::when_any(std::vector{std::function<int&(std::stop_token)>([&x](std::stop_token) -> int& {
      return x;
    })});
    return &std::get<0>(r).get() == &x && index == 0 && &ref.get() == &x;
  });
}

TEST_CASE("the caller's stop token cancels every fiber of when_any, and the first to end still wins") {
  check_on_fibers([] {
    StreamPair a, b;
    Tally tally;
    std::stop_source outer;
    auto stopper = fiber::spawn([&] {
      fiber::sleep_for(20ms);
      outer.request_stop();
    });
    auto r = fiber::when_any(outer.get_token(), [&](std::stop_token t) { return recv_count(a.near, t, tally); },
                             [&](std::stop_token t) { return recv_count(b.near, t, tally); });
    stopper.join();
    // A token stopped before the call: every fiber starts stopped.
    auto again = fiber::when_any(outer.get_token(), [&](std::stop_token t) { return recv_count(a.near, t, tally); });
    return std::visit([](int v) { return v; }, r) == -1 && std::get<0>(again) == -1 && tally.cancelled == 3 &&
           nothing_in_flight();
  });
}

TEST_CASE("fiber when_any called outside any fiber drives the scheduler until it is done") {
  OffFiber f;
  INFO("backend " << duet::backend_name(f.backend));
  auto& [backend, deadline, scheduler, pair, silent, tally] = f;
  auto r = fiber::when_any([&](std::stop_token t) { return recv_count(silent, t, tally); },
                           [](std::stop_token) {
                             fiber::sleep_for(5ms);
                             return 1;
                           });
  CHECK(r.index() == 1);
  CHECK(tally.cancelled == 1);
  CHECK(scheduler.loop().in_flight() == 0);
  CHECK(scheduler.live_fibers() == 0);
}

TEST_CASE("fiber when_any without a scheduler or with no callables throws") {
  CHECK_THROWS_AS(fiber::when_any([](std::stop_token) { return 1; }), std::logic_error);
  Scheduler scheduler({.backend = Backend::epoll, .stack_size = 64 * 1024});
  CHECK_THROWS_AS(fiber::when_any(std::vector<std::function<int(std::stop_token)>>{}), std::invalid_argument);
}

// The code docs/GUIDE.md quotes for fiber::when_any (checked by check_guide_stackful.py).
namespace guide {

// guide:begin when_any
// The reply, or "" if none came within a second.
std::string ask(duet::fiber::TcpStream& conn) {
  auto r = duet::fiber::when_any(
      [&conn](std::stop_token stop) {  // on a fiber of its own
        char buf[512];
        auto n = conn.recv(buf, stop);  // cancelled (operation_canceled) if the other one wins
        return n ? std::string(buf, *n) : n.error().message();
      },
      [](std::stop_token stop) { duet::fiber::sleep_for(1s, stop); });
  if (r.index() == 1) return "";  // the sleep ended first: the recv was cancelled, its fiber joined
  return std::get<0>(r);
}
// guide:end

}  // namespace guide

TEST_CASE("the guide's fiber when_any snippet gets a reply or times out") {
  check_on_fibers([] {
    StreamPair talker, silent;
    talker.pair.write("pong");
    const bool replied = guide::ask(talker.near) == "pong";
    const auto start = std::chrono::steady_clock::now();
    const bool timed_out = guide::ask(silent.near).empty();
    return replied && timed_out && std::chrono::steady_clock::now() - start >= 999ms && nothing_in_flight();
  });
}
