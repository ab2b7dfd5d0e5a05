// duet::Channel<T> for tasks under stops, timeouts and destroyed frames: a
// cancelled waiter leaves the queue at once, a hand-off racing a cancel is
// either delivered or stays with the sender (never both, never neither), and
// Coin's live count shows no value leaked or duplicated. Both backends.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstddef>
#include <random>
#include <set>
#include <stop_token>
#include <system_error>
#include <vector>

#include "channel_support.hpp"
#include "duet/io/event_loop.hpp"
#include "sync_support.hpp"
#include "duet/task/channel.hpp"
#include "duet/task/task.hpp"

using namespace duet::test::sync;
using namespace duet::test::channel;
using duet::EventLoop;
using duet::Task;
using duet::test::Coin;
using namespace std::chrono_literals;

TEST_CASE("a stopped receiver or sender leaves the queue at once, and the next one gets the value") {
  EventLoop loop(any_backend());
  Coin::alive = 0;
  {
    Coins ch(loop, 0);
    std::stop_source stop_recv, stop_send;
    Got r1, r2;
    Task<void> a = started(recv_coin(ch, r1, stop_recv.get_token()));
    Task<void> b = started(recv_coin(ch, r2));
    stop_recv.request_stop();
    REQUIRE(turn_until(loop, [&] { return r1.has_value(); }));
    CHECK(code_of_got(r1) == std::errc::operation_canceled);
    REQUIRE(ch.try_send(Coin(1)));  // straight to the second receiver
    REQUIRE(turn_until(loop, [&] { return r2.has_value(); }));
    CHECK(id_of(r2) == 1);

    Outcome s1, s2;
    Task<void> c = started(send_coin(ch, 2, s1, stop_send.get_token()));
    Task<void> d = started(send_coin(ch, 3, s2));
    stop_send.request_stop();
    REQUIRE(turn_until(loop, [&] { return s1.has_value(); }));
    CHECK(*s1 == std::errc::operation_canceled);
    CHECK(Coin::alive == 2);  // the received 1 and the waiting 3; the cancelled 2 is gone
    auto next = ch.try_recv();
    REQUIRE(next);
    CHECK(next->id == 3);
    REQUIRE(turn_until(loop, [&] { return s2.has_value(); }));
    CHECK(*s2 == std::error_code{});
  }
  CHECK(Coin::alive == 0);
}

TEST_CASE("a send or recv under with_timeout times out, leaves the queue, and the next waiter is served") {
  EventLoop loop(any_backend());
  Coin::alive = 0;
  {
    Coins ch(loop, 1);
    Got timed, next_recv;
    Task<void> a = started(recv_coin(ch, timed, {}, 5ms));
    Task<void> b = started(recv_coin(ch, next_recv));
    REQUIRE(turn_until(loop, [&] { return timed.has_value(); }));
    CHECK(code_of_got(timed) == std::errc::timed_out);
    REQUIRE(ch.try_send(Coin(1)));
    REQUIRE(turn_until(loop, [&] { return next_recv.has_value(); }));
    CHECK(id_of(next_recv) == 1);

    REQUIRE(ch.try_send(Coin(2)));  // full now
    Outcome late, next_send;
    Task<void> c = started(send_coin(ch, 3, late, {}, 5ms));
    Task<void> d = started(send_coin(ch, 4, next_send));
    REQUIRE(turn_until(loop, [&] { return late.has_value(); }));
    CHECK(*late == std::errc::timed_out);
    CHECK(Coin::alive == 3);  // 1 received, 2 buffered, 4 waiting
    auto first = ch.try_recv();
    auto second = ch.try_recv();
    REQUIRE((first && second));
    CHECK(first->id == 2);
    CHECK(second->id == 4);
    REQUIRE(turn_until(loop, [&] { return next_send.has_value(); }));
    CHECK(*next_send == std::error_code{});
    CHECK(loop.in_flight() == 0);
  }
  CHECK(Coin::alive == 0);
}

TEST_CASE("destroying a task suspended in send or recv unlinks it, timer and all, and destroys its unsent value") {
  EventLoop loop(any_backend());
  Coin::alive = 0;
  {
    Coins ch(loop, 0);
    Outcome s1, s2;
    Task<void> a = started(send_coin(ch, 1, s1, {}, 10s));
    Task<void> b = started(send_coin(ch, 2, s2));
    CHECK(Coin::alive == 2);
    a = Task<void>{};
    CHECK(Coin::alive == 1);
    auto got = ch.try_recv();
    REQUIRE(got);
    CHECK(got->id == 2);
    Got r1, r2;
    Task<void> c = started(recv_coin(ch, r1, {}, 10s));
    Task<void> d = started(recv_coin(ch, r2));
    c = Task<void>{};
    REQUIRE(ch.try_send(Coin(3)));
    REQUIRE(turn_until(loop, [&] { return s2 && r2; }));
    CHECK(id_of(r2) == 3);
    CHECK_FALSE(s1);
    CHECK_FALSE(r1);
    CHECK(loop.in_flight() == 0);
  }
  CHECK(Coin::alive == 0);
}

TEST_CASE("a receiver destroyed after a value was handed to it passes the value on") {
  EventLoop loop(any_backend());
  Coin::alive = 0;
  {
    Coins ch(loop, 1);
    Got r1, r2, r3;
    Task<void> a = started(recv_coin(ch, r1));
    Task<void> b = started(recv_coin(ch, r2));
    REQUIRE(ch.try_send(Coin(7)));  // handed to `a` ...
    a = Task<void>{};               // ... which goes before it resumes
    REQUIRE(turn_until(loop, [&] { return r2.has_value(); }));
    CHECK(id_of(r2) == 7);
    Task<void> c = started(recv_coin(ch, r3));
    REQUIRE(ch.try_send(Coin(8)));
    c = Task<void>{};  // nobody else waits: back to the buffer's front
    CHECK(ch.size() == 1);
    auto back = ch.try_recv();
    REQUIRE(back);
    CHECK(back->id == 8);
  }
  CHECK(Coin::alive == 0);
}

TEST_CASE("a hand-off that lands before a stop wins: the receiver has the value, the sender reports it delivered") {
  EventLoop loop(any_backend());
  Coins ch(loop, 0);
  std::stop_source stop_recv, stop_send;
  Got got;
  Task<void> r = started(recv_coin(ch, got, stop_recv.get_token()));
  REQUIRE(ch.try_send(Coin(1)));
  stop_recv.request_stop();  // too late
  Outcome sent;
  Task<void> s = started(send_coin(ch, 2, sent, stop_send.get_token()));
  auto taken = ch.try_recv();
  stop_send.request_stop();  // too late as well
  REQUIRE(turn_until(loop, [&] { return got && sent; }));
  CHECK(id_of(got) == 1);
  REQUIRE(taken);
  CHECK(taken->id == 2);
  CHECK(*sent == std::error_code{});
}

// Every coin is either received exactly once and its send reported ok, or its
// send failed and it is gone: never both, never neither.
TEST_CASE("under random stops and timeouts, 1,000 senders and receivers deliver each value once or not at all") {
  EventLoop loop(any_backend());
  const std::size_t capacity = GENERATE(0U, 4U);
  Coin::alive = 0;
  {
    Coins ch(loop, capacity);
    constexpr int n = 1'000;
    std::vector<Outcome> sent(n);
    std::vector<Got> got(n);
    std::vector<std::stop_source> stops(2 * n);
    std::vector<Task<void>> tasks;
    std::mt19937 rng(42);
    for (int i = 0; i < n; ++i) {
      const auto t = std::chrono::milliseconds(rng() % 3 == 0 ? 1 + rng() % 5 : 0);
      tasks.push_back(started(send_coin(ch, i, sent[i], stops[2 * i].get_token(), t)));
      tasks.push_back(started(recv_coin(ch, got[i], stops[2 * i + 1].get_token(), t)));
    }
    for (int round = 0; round < 20; ++round) {
      for (int k = 0; k < 50; ++k) stops[rng() % stops.size()].request_stop();
      turn_for(loop, 1ms);
    }
    ch.close();
    REQUIRE(turn_until(loop, [&] {
      for (int i = 0; i < n; ++i) {
        if (!sent[i] || !got[i]) return false;
      }
      return true;
    }));
    std::set<int> received;
    for (auto& g : got) {
      if (*g) CHECK(received.insert((*g)->id).second);  // no duplicate
    }
    while (auto left = ch.try_recv()) CHECK(received.insert(left->id).second);  // buffered when closed
    int delivered = 0;
    for (int i = 0; i < n; ++i) {
      const bool ok = *sent[i] == std::error_code{};
      delivered += ok ? 1 : 0;
      CHECK(ok == (received.count(i) == 1));
    }
    CHECK(received.size() == static_cast<std::size_t>(delivered));
  }
  CHECK(Coin::alive == 0);
}
