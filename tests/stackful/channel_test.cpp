// duet::fiber::Channel<T> (src/duet/stackful/channel.hpp over io/detail/channel_core.hpp):
// the stackless cases of tests/task/channel_test.cpp and channel_cancel_test.cpp
// for fibers, on both backends. Coin counts live values, so a leaked or
// duplicated value fails a check; a lost wake-up shows as the scheduler's
// deadlock error, not a hang. Assertions stay outside blocking calls. The block
// between "// guide:begin" and "// guide:end" is quoted by docs/GUIDE.md
// (check_guide_stackful.py keeps them equal).
#include <catch2/catch.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <optional>
#include <random>
#include <set>
#include <stop_token>
#include <system_error>
#include <vector>

#include <duet/stackful/channel.hpp>
#include <duet/stackful/scheduler.hpp>
#include <duet/stackful/sleep.hpp>
#include <duet/stackful/this_fiber.hpp>
#include "support/counted_value.hpp"

namespace {

using duet::Backend;
using duet::fiber::Scheduler;
using duet::test::Coin;
using namespace std::chrono_literals;
namespace fiber = duet::fiber;
using Clock = std::chrono::steady_clock;
using Outcome = std::optional<std::error_code>;
using Coins = fiber::Channel<Coin>;

Backend any_backend() { return GENERATE(Backend::io_uring, Backend::epoll); }

// Runs body on a fiber of a fresh scheduler until every fiber has exited;
// every Coin made inside is gone by the end.
template <typename Body>
void on_fibers(Backend backend, Body body) {
  Coin::alive = 0;
  {
    Scheduler scheduler({.backend = backend, .stack_size = 32 * 1024});
    auto main_fiber = scheduler.spawn(std::move(body));
    main_fiber.join();
    scheduler.run();
    CHECK(scheduler.loop().in_flight() == 0);
  }
  CHECK(Coin::alive == 0);
}

template <typename Result>
std::error_code code_of(const Result& r) {
  return r ? std::error_code{} : r.error();
}

auto sender(Coins& ch, int id, Outcome& out, std::stop_token token = {}, Clock::duration t = {}) {
  return fiber::spawn([&ch, id, &out, token, t] {
    out = code_of(t.count() > 0 ? ch.send_for(Coin(id), t, token) : ch.send(Coin(id), token));
  });
}

// Records the id received (or -1) and the error.
struct Got {
  Outcome code;
  int id = -1;
};
auto receiver(Coins& ch, Got& out, std::stop_token token = {}, Clock::duration t = {}) {
  return fiber::spawn([&ch, &out, token, t] {
    auto r = t.count() > 0 ? ch.recv_for(t, token) : ch.recv(token);
    out.id = r ? r->id : -1;
    out.code = code_of(r);
  });
}

}  // namespace

TEST_CASE("values pass through a fiber channel in the order sent, with capacity 0 and with capacity 3") {
  const std::size_t capacity = GENERATE(0U, 3U);
  on_fibers(any_backend(), [capacity] {
    Coins ch(capacity);
    std::vector<int> seen;
    auto producer = fiber::spawn([&] {
      for (int i = 0; i < 100; ++i) {
        if (!ch.send(Coin(i))) return;
      }
      ch.close();
    });
    while (auto r = ch.recv()) seen.push_back(r->id);
    producer.join();
    REQUIRE(seen.size() == 100);
    for (int i = 0; i < 100; ++i) CHECK(seen[static_cast<std::size_t>(i)] == i);
  });
}

TEST_CASE("a fiber rendezvous send returns only once a receiver took the value; senders and receivers go in order") {
  on_fibers(any_backend(), [] {
    Coins ch(0);
    Outcome s1, s2;
    auto a = sender(ch, 1, s1);
    auto b = sender(ch, 2, s2);
    fiber::sleep_for(2ms);
    CHECK_FALSE(s1);
    auto first = ch.recv();
    CHECK(first->id == 1);
    CHECK_FALSE(s1);  // readied, not switched to inside recv
    a.join();
    CHECK(s1 == std::error_code{});
    Got r1, r2;
    auto c = receiver(ch, r1);
    auto d = receiver(ch, r2);  // b's value went to c (it was waiting); d waits
    c.join();
    b.join();
    CHECK(r1.id == 2);
    CHECK(ch.try_send(Coin(3)));
    d.join();
    CHECK(r2.id == 3);
  });
}

TEST_CASE("a full fiber channel holds senders back until receivers make room; try_* report full, empty, closed") {
  on_fibers(any_backend(), [] {
    Coins ch(2);
    CHECK(ch.try_recv().error() == std::errc::resource_unavailable_try_again);
    Outcome s[4];
    std::vector<fiber::Fiber<void>> senders;
    for (int i = 0; i < 4; ++i) senders.push_back(sender(ch, i, s[i]));
    fiber::sleep_for(2ms);
    CHECK(ch.size() == 2);
    CHECK(s[1] == std::error_code{});
    CHECK_FALSE(s[2]);
    Coin extra(9);
    CHECK(ch.try_send(extra).error() == std::errc::resource_unavailable_try_again);
    CHECK(extra.id == 9);  // still the caller's
    std::vector<int> ids;
    for (int i = 0; i < 4; ++i) ids.push_back(ch.recv()->id);
    CHECK(ids == std::vector<int>{0, 1, 2, 3});
    for (auto& f : senders) f.join();
    ch.close();
    CHECK(ch.try_send(extra).error() == std::errc::broken_pipe);
    CHECK(ch.try_recv().error() == std::errc::broken_pipe);
    fiber::Channel<std::unique_ptr<int>> boxes(1);
    CHECK(boxes.send(std::make_unique<int>(5)));
    auto box = boxes.recv();
    REQUIRE(box);
    CHECK(**box == 5);
  });
}

TEST_CASE("close wakes waiting fiber receivers and senders with broken_pipe; receivers drain the buffer first") {
  on_fibers(any_backend(), [] {
    Coins empty(1);
    Coins full(1);
    REQUIRE(full.try_send(Coin(1)));
    Got r1, r2;
    Outcome s1, s2;
    auto a = receiver(empty, r1);
    auto b = receiver(empty, r2);
    auto c = sender(full, 2, s1);
    auto d = sender(full, 3, s2);
    fiber::sleep_for(2ms);
    CHECK(Coin::alive == 3);
    empty.close();
    full.close();
    a.join(), b.join(), c.join(), d.join();
    CHECK(r1.code == std::errc::broken_pipe);
    CHECK(r2.code == std::errc::broken_pipe);
    CHECK(s1 == std::errc::broken_pipe);
    CHECK(s2 == std::errc::broken_pipe);
    CHECK(Coin::alive == 1);  // the unsent values were destroyed; one stays buffered
    CHECK(full.recv()->id == 1);
    CHECK(full.recv().error() == std::errc::broken_pipe);
    CHECK(full.send(Coin(4)).error() == std::errc::broken_pipe);
  });
}

// [wide]: 10,000 live fibers, more than the ThreadSanitizer build can hold (.ci/run).
TEST_CASE("10,000 fibers ping-ponging through two channels lose no value and no wake-up", "[wide]") {
  const std::size_t capacity = GENERATE(0U, 8U);
  on_fibers(any_backend(), [capacity] {
    fiber::Channel<long> ping(capacity);
    fiber::Channel<long> pong(capacity);
    constexpr int pairs = 5'000;
    constexpr int rounds = 10;
    long total = 0;
    std::vector<fiber::Fiber<void>> fibers;
    fibers.reserve(2 * pairs);
    for (int i = 0; i < pairs; ++i) {
      fibers.push_back(fiber::spawn([&] {
        for (int r = 0; r < rounds; ++r) {
          auto sent = ping.send(1);
          auto back = pong.recv();
          if (sent && back) total += *back;
        }
      }));
      fibers.push_back(fiber::spawn([&] {
        for (int r = 0; r < rounds; ++r) {
          auto v = ping.recv();
          if (!v || !pong.send(*v + 1)) return;
        }
      }));
    }
    for (auto& f : fibers) f.join();
    CHECK(total == 2L * pairs * rounds);
  });
}

TEST_CASE("a stopped or timed-out fiber send or recv leaves the queue at once; its unsent value is destroyed") {
  on_fibers(any_backend(), [] {
    Coins ch(0);
    std::stop_source stop;
    Got r1, r2;
    auto a = receiver(ch, r1, stop.get_token());
    auto b = receiver(ch, r2, {}, 5ms);
    fiber::yield();
    stop.request_stop();
    a.join();
    b.join();
    CHECK(r1.code == std::errc::operation_canceled);
    CHECK(r2.code == std::errc::timed_out);
    std::stop_source stop_send;
    Outcome s1, s2, s3;
    auto c = sender(ch, 1, s1, stop_send.get_token());
    auto d = sender(ch, 2, s2, {}, 5ms);
    auto e = sender(ch, 3, s3);
    fiber::yield();
    stop_send.request_stop();
    c.join();
    d.join();
    CHECK(s1 == std::errc::operation_canceled);
    CHECK(s2 == std::errc::timed_out);
    CHECK(Coin::alive == 1);  // only 3 is left, still waiting
    CHECK(ch.recv()->id == 3);
    e.join();
    CHECK(s3 == std::error_code{});
    CHECK(code_of(ch.recv(stop.get_token())) == std::errc::operation_canceled);  // already stopped
  });
}

TEST_CASE("a fiber hand-off that lands before a stop or timeout wins: the value is delivered, not kept") {
  on_fibers(any_backend(), [] {
    Coins ch(0);
    std::stop_source stop_recv, stop_send;
    Got got;
    auto r = receiver(ch, got, stop_recv.get_token());
    fiber::yield();
    REQUIRE(ch.try_send(Coin(1)));  // r is readied with the value ...
    stop_recv.request_stop();       // ... before the stop
    Outcome sent;
    auto s = sender(ch, 2, sent, stop_send.get_token());
    fiber::yield();
    auto taken = ch.try_recv();
    stop_send.request_stop();
    r.join();
    s.join();
    CHECK(got.id == 1);
    CHECK(taken->id == 2);
    CHECK(sent == std::error_code{});
  });
}

TEST_CASE("a fiber wait with a deadline arms its timer only when it has to wait, and disarms it before it returns") {
  on_fibers(any_backend(), [] {
    fiber::Channel<int> ch(1);
    duet::EventLoop& loop = Scheduler::current()->loop();
    REQUIRE(ch.send_for(1, 1h));  // room: granted at once, no timer
    REQUIRE(ch.recv_for(1h).value() == 1);
    CHECK(loop.in_flight() == 0);
    std::size_t armed = 0;
    auto sender = fiber::spawn([&] {
      armed = loop.in_flight();  // the receiver below waits with its timer in the loop
      (void)ch.try_send(2);
    });
    auto got = ch.recv_for(1h);
    CHECK(loop.in_flight() == 0);  // the timer left the loop before recv_for returned
    sender.join();
    CHECK(armed == 1);
    CHECK(got.value() == 2);
  });
}

TEST_CASE("under random stops and timeouts, 1,000 fiber senders and receivers deliver each value once or not at all") {
  const std::size_t capacity = GENERATE(0U, 4U);
  on_fibers(any_backend(), [capacity] {
    Coins ch(capacity);
    constexpr int n = 1'000;
    std::vector<Outcome> sent(n);
    std::vector<Got> got(n);
    std::vector<std::stop_source> stops(2 * n);
    std::vector<fiber::Fiber<void>> fibers;
    std::mt19937 rng(42);
    for (int i = 0; i < n; ++i) {
      const auto t = std::chrono::milliseconds(rng() % 3 == 0 ? 1 + rng() % 5 : 0);
      fibers.push_back(sender(ch, i, sent[i], stops[2 * i].get_token(), t));
      fibers.push_back(receiver(ch, got[i], stops[2 * i + 1].get_token(), t));
    }
    for (int round = 0; round < 20; ++round) {
      for (int k = 0; k < 50; ++k) stops[rng() % stops.size()].request_stop();
      fiber::sleep_for(1ms);
    }
    ch.close();
    for (auto& f : fibers) f.join();
    std::set<int> received;
    for (auto& g : got) {
      if (g.id >= 0) CHECK(received.insert(g.id).second);  // no duplicate
    }
    while (auto left = ch.try_recv()) CHECK(received.insert(left->id).second);
    for (int i = 0; i < n; ++i) CHECK((sent[i] == std::error_code{}) == (received.count(i) == 1));
  });
}

namespace guide {

// guide:begin channel
void produce(duet::fiber::Channel<std::string>& jobs) {
  for (int i = 0; i < 5; ++i) {
    if (!jobs.send("job " + std::to_string(i))) break;  // blocks while 2 are queued
  }
  jobs.close();  // the consumer drains what is queued, then sees broken_pipe
}

int pipeline() {  // on a fiber
  duet::fiber::Channel<std::string> jobs(2);  // 2 buffered; 0 would be a rendezvous
  auto producer = duet::fiber::spawn(produce, std::ref(jobs));
  int done = 0;
  while (auto job = jobs.recv()) ++done;  // in the order sent
  producer.join();
  return done;  // 5
}
// guide:end

}  // namespace guide

TEST_CASE("the guide's fiber channel snippet passes five jobs through a buffer of two and ends on close") {
  Scheduler scheduler({.backend = any_backend()});
  CHECK(scheduler.spawn(guide::pipeline).join() == 5);
}
