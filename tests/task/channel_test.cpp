// duet::Channel<T> for tasks (src/duet/task/channel.hpp over io/detail/channel_core.hpp):
// FIFO order, rendezvous and buffered hand-offs, try_*, close() with waiters on
// both sides, move-only values, and 10,000 tasks ping-ponging without a lost
// wake-up (stops, timeouts, destroyed frames: channel_cancel_test.cpp). Coin
// counts live values, so a leaked or duplicated value fails a check. Every
// case runs on both backends and turns the loop under a time limit. The fiber
// twin: tests/stackful/channel_test.cpp.
// The block between "// guide:begin" and "// guide:end" is quoted by docs/GUIDE.md
// (tests/io/check_guide.py keeps them equal).
#include <catch2/catch.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <stop_token>
#include <system_error>
#include <vector>

#include "channel_support.hpp"
#include <duet/io/event_loop.hpp>
#include "support/counted_value.hpp"
#include "sync_support.hpp"
#include <duet/task/channel.hpp>
#include <duet/task/run.hpp>
#include <duet/task/task.hpp>
#include <duet/task/task_scope.hpp>
#include <duet/task/with_timeout.hpp>

using namespace duet::test::sync;
using duet::EventLoop;
using duet::Task;
using duet::test::Coin;
using namespace std::chrono_literals;
using namespace duet::test::channel;


TEST_CASE("values pass through a channel in the order sent, with capacity 0 and with capacity 3") {
  EventLoop loop(any_backend());
  const std::size_t capacity = GENERATE(0U, 3U);
  Coin::alive = 0;
  {
    Coins ch(loop, capacity);
    std::vector<int> seen;
    auto producer = [](Coins& c) -> Task<void> {
      for (int i = 0; i < 100; ++i) {
        auto r = co_await c.send(Coin(i));
        REQUIRE(r);
      }
      c.close();
    };
    auto consumer = [](Coins& c, std::vector<int>& log) -> Task<void> {
      for (;;) {
        auto r = co_await c.recv();
        if (!r) break;
        log.push_back(r->id);
      }
    };
    Task<void> p = started(producer(ch));
    run_bounded(loop, consumer(ch, seen));
    REQUIRE(seen.size() == 100);
    for (int i = 0; i < 100; ++i) CHECK(seen[static_cast<std::size_t>(i)] == i);
  }
  CHECK(Coin::alive == 0);
}

TEST_CASE("a rendezvous send completes only once a receiver takes the value, and senders are served in order") {
  EventLoop loop(any_backend());
  Coins ch(loop, 0);
  Outcome s1, s2;
  Got r1, r2;
  Task<void> a = started(send_coin(ch, 1, s1));
  Task<void> b = started(send_coin(ch, 2, s2));
  turn_for(loop, 2ms);
  CHECK_FALSE(s1);
  CHECK(ch.size() == 0);
  Task<void> c = started(recv_coin(ch, r1));
  CHECK(id_of(r1) == 1);  // a sender was waiting: no suspension
  REQUIRE(turn_until(loop, [&] { return s1.has_value(); }));
  CHECK(*s1 == std::error_code{});
  CHECK_FALSE(s2);
  Task<void> d = started(recv_coin(ch, r2));
  REQUIRE(turn_until(loop, [&] { return s2.has_value(); }));
  CHECK(id_of(r2) == 2);
}

TEST_CASE("a full channel holds its senders back until receivers make room; waiting receivers get values in order") {
  EventLoop loop(any_backend());
  Coins ch(loop, 2);
  Outcome s[3], late;
  std::vector<Task<void>> senders;
  for (int i = 0; i < 3; ++i) senders.push_back(started(send_coin(ch, i, s[i])));
  senders.push_back(started(send_coin(ch, 3, late)));
  CHECK(*s[0] == std::error_code{});  // room in the buffer: done at once
  CHECK(*s[1] == std::error_code{});
  turn_for(loop, 2ms);
  CHECK(ch.size() == 2);
  CHECK_FALSE(s[2]);
  CHECK_FALSE(late);
  std::vector<int> ids;
  for (int i = 0; i < 4; ++i) {
    auto r = ch.try_recv();
    REQUIRE(r);
    ids.push_back(r->id);
  }
  CHECK(ids == std::vector<int>{0, 1, 2, 3});
  REQUIRE(turn_until(loop, [&] { return s[2] && late; }));
  CHECK(*late == std::error_code{});
  Got r1, r2;
  Task<void> a = started(recv_coin(ch, r1));
  Task<void> b = started(recv_coin(ch, r2));
  CHECK(ch.try_send(Coin(10)));
  CHECK(ch.try_send(Coin(11)));
  REQUIRE(turn_until(loop, [&] { return r1 && r2; }));
  CHECK(id_of(r1) == 10);
  CHECK(id_of(r2) == 11);
}

TEST_CASE("try_send and try_recv report full, empty and closed, and keep a value they could not pass") {
  EventLoop loop(any_backend());
  Coin::alive = 0;
  {
    duet::Channel<std::unique_ptr<int>> boxes(loop, 1);
    CHECK(boxes.try_recv().error() == std::errc::resource_unavailable_try_again);
    auto first = std::make_unique<int>(1);
    auto second = std::make_unique<int>(2);
    CHECK(boxes.try_send(first));
    CHECK(first == nullptr);
    CHECK(boxes.try_send(second).error() == std::errc::resource_unavailable_try_again);
    REQUIRE(second != nullptr);  // still the caller's
    boxes.close();
    CHECK(boxes.try_send(second).error() == std::errc::broken_pipe);
    CHECK(second != nullptr);
    auto drained = boxes.try_recv();
    REQUIRE(drained);
    CHECK(**drained == 1);
    CHECK(boxes.try_recv().error() == std::errc::broken_pipe);
  }
  Coins rendezvous(loop, 0);
  Coin c(5);
  CHECK(rendezvous.try_send(c).error() == std::errc::resource_unavailable_try_again);
  CHECK(c.id == 5);
}

TEST_CASE("close wakes waiting receivers and senders with broken_pipe; receivers drain the buffer first") {
  EventLoop loop(any_backend());
  Coin::alive = 0;
  {
    Coins empty(loop, 1);
    Got r1, r2;
    Task<void> a = started(recv_coin(empty, r1));
    Task<void> b = started(recv_coin(empty, r2));
    Coins full(loop, 1);
    REQUIRE(full.try_send(Coin(1)));
    Outcome s1, s2;
    Task<void> c = started(send_coin(full, 2, s1));
    Task<void> d = started(send_coin(full, 3, s2));
    turn_for(loop, 2ms);
    CHECK(Coin::alive == 3);
    empty.close();
    full.close();
    REQUIRE(turn_until(loop, [&] { return r1 && r2 && s1 && s2; }));
    CHECK(code_of_got(r1) == std::errc::broken_pipe);
    CHECK(code_of_got(r2) == std::errc::broken_pipe);
    CHECK(*s1 == std::errc::broken_pipe);
    CHECK(*s2 == std::errc::broken_pipe);
    CHECK(Coin::alive == 1);  // the senders' values died with their awaiters; one stays buffered
    Got drained, after;
    Task<void> e = started(recv_coin(full, drained));
    Task<void> f = started(recv_coin(full, after));
    CHECK(id_of(drained) == 1);
    CHECK(code_of_got(after) == std::errc::broken_pipe);
    Outcome late;
    Task<void> g = started(send_coin(full, 4, late));
    CHECK(*late == std::errc::broken_pipe);
  }
  CHECK(Coin::alive == 0);
}

TEST_CASE("10,000 tasks ping-ponging through two channels lose no value and no wake-up") {
  EventLoop loop(any_backend());
  const std::size_t capacity = GENERATE(0U, 8U);
  duet::Channel<long> ping(loop, capacity);
  duet::Channel<long> pong(loop, capacity);
  constexpr int pairs = 5'000;
  constexpr int rounds = 10;
  long total = 0;
  int finished = 0;
  auto player = [](duet::Channel<long>& out, duet::Channel<long>& in, long& sum, int& done) -> Task<void> {
    for (int r = 0; r < rounds; ++r) {
      auto sent = co_await out.send(1);
      auto back = co_await in.recv();
      if (sent && back) sum += *back;
    }
    ++done;
  };
  auto echo = [](duet::Channel<long>& in, duet::Channel<long>& out, int& done) -> Task<void> {
    for (int r = 0; r < rounds; ++r) {
      auto v = co_await in.recv();
      if (v) {
        auto sent = co_await out.send(*v + 1);
        if (!sent) co_return;
      }
    }
    ++done;
  };
  std::vector<Task<void>> tasks;
  tasks.reserve(2 * pairs);
  for (int i = 0; i < pairs; ++i) {
    tasks.push_back(started(player(ping, pong, total, finished)));
    tasks.push_back(started(echo(ping, pong, finished)));
  }
  REQUIRE(turn_until(loop, [&] { return finished == 2 * pairs; }, 30s));
  CHECK(total == 2L * pairs * rounds);
  CHECK(ping.size() == 0);
  CHECK(pong.size() == 0);
}

namespace guide {

// guide:begin channel
duet::Task<void> produce(duet::Channel<std::string>& jobs) {
  for (int i = 0; i < 5; ++i) {
    if (!co_await jobs.send("job " + std::to_string(i))) break;  // waits while 2 are queued
  }
  jobs.close();  // the consumer drains what is queued, then sees broken_pipe
}

duet::Task<int> consume(duet::Channel<std::string>& jobs) {
  int done = 0;
  while (auto job = co_await jobs.recv()) ++done;  // in the order sent
  co_return done;
}

duet::Task<int> pipeline(duet::EventLoop& loop) {
  duet::Channel<std::string> jobs(loop, 2);  // 2 buffered; 0 would be a rendezvous
  duet::TaskScope scope;
  scope.spawn(produce(jobs));
  const int done = co_await consume(jobs);
  co_await scope.join();
  co_return done;  // 5
}
// guide:end

}  // namespace guide

TEST_CASE("the guide's channel snippet passes five jobs through a buffer of two and ends on close") {
  EventLoop loop(any_backend());
  CHECK(duet::run_until_complete(loop, guide::pipeline(loop)) == 5);
}
