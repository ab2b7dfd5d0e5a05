// The simulator is judged by what it catches: defects fixed earlier, put
// back with SimOptions::defects, must be found within a bounded number of
// seeds, while the fixed code passes those same seeds. (duet-kv-sim finds
// send_all_stop through the KV server too, and aof_rewrite_loss, which needs
// the server's append-only file and a restart: tests/sim/run_kv_sim.py.)
#include <catch2/catch.hpp>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>

#include "duet/io/event_loop.hpp"
#include "duet/io/sim_world.hpp"
#include "duet/runtime/shard_set.hpp"
#include "duet/stackful/await_task.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/task/on_shard.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/tcp_listener.hpp"
#include "duet/task/tcp_stream.hpp"
#include "duet/task/with_timeout.hpp"

using namespace std::chrono_literals;
using duet::Task;

namespace {

const duet::SocketAddress address = duet::SocketAddress::parse("127.0.0.1", 7100).value();

// A coarse grid (0-2 ms in whole ms) and late wake-ups: completions often
// share an instant, and the seed orders them.
duet::SimOptions grid(std::uint64_t seed, const char* defect) {
  return {.seed = seed,
          .min_latency = 0ms,
          .max_latency = 2ms,
          .latency_quantum = 1ms,
          .late_wakeup = 0.2,
          .defects = defect};
}

Task<void> started(Task<void> task) {
  task.handle().resume();
  return task;
}

// Turns until done() or `limit` of virtual time; a turn with nothing to do
// moves the clock 10 ms, so a hang ends the loop instead of reporting a deadlock.
template <typename Done>
bool turn_until(duet::EventLoop& loop, duet::SimWorld& world, Done done, std::chrono::seconds limit) {
  const auto end = world.now() + limit;
  while (!done() && world.now() < end) loop.run_once(world.now() + 10ms);
  return done();
}

// A sender streams 1 MiB to a reader that reads 1 KiB a millisecond for a
// seeded while and then stops; a stopper requests the sender's stop at a
// seeded moment. The sender must end (cancelled or done) however the two fall.
bool send_all_stop_holds(std::uint64_t seed, const char* defect) {
  duet::SimWorld world(grid(seed, defect));
  duet::EventLoop loop(duet::Backend::sim);
  auto listener = duet::TcpListener::bind(loop, address);
  std::optional<duet::TcpStream> near, far;
  Task<void> setup = started([](duet::EventLoop& l, duet::TcpListener& ls, std::optional<duet::TcpStream>& a,
                                std::optional<duet::TcpStream>& b) -> Task<void> {
    auto c = co_await duet::TcpStream::connect(l, address);
    auto s = co_await ls.accept();
    if (c && s) a.emplace(std::move(*c)), b.emplace(std::move(*s));
  }(loop, listener, near, far));
  REQUIRE(turn_until(loop, world, [&] { return setup.done(); }, 10s));
  REQUIRE(near);
  const std::string payload(1 << 20, 'p');
  std::stop_source stop;
  Task<void> sender = started([](duet::TcpStream& s, const std::string& p, std::stop_token t) -> Task<void> {
    (void)co_await s.send_all(p, std::move(t));
  }(*near, payload, stop.get_token()));
  Task<void> reader = started([](duet::EventLoop& l, duet::TcpStream& s, std::chrono::milliseconds for_) -> Task<void> {
    char buf[1024];
    const auto until = duet::now() + for_;
    while (duet::now() < until) {
      (void)co_await duet::with_timeout(s.recv(std::span<char>(buf, sizeof buf)), 1ms);
      co_await duet::sleep_for(l, 1ms);
    }
  }(loop, *far, std::chrono::milliseconds(world.below(60))));
  Task<void> stopper = started([](duet::EventLoop& l, std::stop_source& src, std::chrono::milliseconds after) -> Task<void> {
    co_await duet::sleep_for(l, after);
    src.request_stop();
  }(loop, stop, std::chrono::milliseconds(world.below(60))));
  const bool ended = turn_until(loop, world, [&] { return sender.done() && reader.done() && stopper.done(); }, 30s);
  return ended;  // the tasks' destructors abandon whatever is still in flight
}

// A task waiting in accept is destroyed (its frame goes) at a seeded moment,
// while a client connects at another: if the accept finished first, its
// socket must be closed with the frame. Nothing may stay open at the end.
bool accept_leak_holds(std::uint64_t seed, const char* defect) {
  duet::SimWorld world(grid(seed, defect));
  {
    duet::EventLoop loop(duet::Backend::sim);
    auto listener = duet::TcpListener::bind(loop, address);
    for (int round = 0; round < 20; ++round) {
      Task<void> accepting = started([](duet::TcpListener& l) -> Task<void> { (void)co_await l.accept(); }(listener));
      Task<void> killer = started([](duet::EventLoop& l, Task<void>& victim, std::chrono::milliseconds after) -> Task<void> {
        co_await duet::sleep_for(l, after);
        victim = Task<void>{};
      }(loop, accepting, std::chrono::milliseconds(world.below(4))));
      Task<void> client = started([](duet::EventLoop& l, std::chrono::milliseconds after) -> Task<void> {
        co_await duet::sleep_for(l, after);
        auto c = co_await duet::TcpStream::connect(l, address);
        co_await duet::sleep_for(l, 5ms);  // then closes
      }(loop, std::chrono::milliseconds(world.below(4))));
      REQUIRE(turn_until(loop, world, [&] { return killer.done() && client.done(); }, 10s));
      // A connection nobody accepted stays in the backlog: take and close it.
      Task<void> sweep = started([](duet::TcpListener& l) -> Task<void> {
        for (;;) {
          auto left = co_await duet::with_timeout(l.accept(), 1ms);
          if (!left) co_return;
        }
      }(listener));
      REQUIRE(turn_until(loop, world, [&] { return sweep.done(); }, 10s));
    }
  }
  return world.open_sockets() == 0;
}

// Two connections share a loop with one recv buffer. A holder takes it (a
// pooled recv on the first) and keeps it a seeded while; a waiter's pooled
// recv on the second meets a stop at a seeded moment, maybe while the buffer
// is lent, and its bytes come later. Like io_uring's, the simulated cancel
// may lose to a completion ready at that instant, but it must end the recv
// at once: no virtual time may pass between the stop and the waiter's end.
bool pooled_recv_cancel_holds(std::uint64_t seed, const char* defect) {
  duet::SimWorld world(grid(seed, defect));
  duet::EventLoop loop(duet::Backend::sim, duet::LoopOptions{.recv_buffer_count = 1});
  auto listener = duet::TcpListener::bind(loop, address);
  std::optional<duet::TcpStream> a_near, a_far, b_near, b_far;
  Task<void> setup = started([](duet::EventLoop& l, duet::TcpListener& ls, std::optional<duet::TcpStream>& an,
                                std::optional<duet::TcpStream>& af, std::optional<duet::TcpStream>& bn,
                                std::optional<duet::TcpStream>& bf) -> Task<void> {
    auto c1 = co_await duet::TcpStream::connect(l, address);
    auto s1 = co_await ls.accept();
    auto c2 = co_await duet::TcpStream::connect(l, address);
    auto s2 = co_await ls.accept();
    if (c1 && s1 && c2 && s2) an.emplace(std::move(*c1)), af.emplace(std::move(*s1)), bn.emplace(std::move(*c2)), bf.emplace(std::move(*s2));
  }(loop, listener, a_near, a_far, b_near, b_far));
  REQUIRE(turn_until(loop, world, [&] { return setup.done(); }, 10s));
  REQUIRE(b_far);
  Task<void> holder = started([](duet::EventLoop& l, duet::TcpStream& from, std::chrono::milliseconds keep) -> Task<void> {
    auto lent = co_await from.recv_pooled();
    co_await duet::sleep_for(l, keep);  // the loop's only buffer, lent
  }(loop, *a_far, std::chrono::milliseconds(1 + world.below(20))));
  std::stop_source stop;
  duet::SimWorld::Clock::time_point stopped_at = duet::SimWorld::Clock::time_point::max(), ended_at{};
  Task<void> waiter = started([](duet::TcpStream& s, std::stop_token t, duet::SimWorld& w,
                                 duet::SimWorld::Clock::time_point& end) -> Task<void> {
    auto got = co_await s.recv_pooled(std::move(t));
    end = w.now();
  }(*b_far, stop.get_token(), world, ended_at));
  Task<void> senders = started([](duet::EventLoop& l, duet::TcpStream& a, duet::TcpStream& b,
                                  std::chrono::milliseconds later) -> Task<void> {
    (void)co_await a.send_all(std::string_view("for the holder"));
    co_await duet::sleep_for(l, later);
    (void)co_await b.send_all(std::string_view("for the waiter"));
  }(loop, *a_near, *b_near, std::chrono::milliseconds(world.below(30))));
  Task<void> stopper = started([](duet::EventLoop& l, std::stop_source& src, duet::SimWorld& w,
                                  duet::SimWorld::Clock::time_point& at, std::chrono::milliseconds after) -> Task<void> {
    co_await duet::sleep_for(l, after);
    at = w.now();
    src.request_stop();
  }(loop, stop, world, stopped_at, std::chrono::milliseconds(world.below(20))));
  REQUIRE(turn_until(loop, world, [&] { return holder.done() && waiter.done() && senders.done() && stopper.done(); }, 30s));
  return ended_at <= stopped_at;
}

// A fiber on a plain scheduler awaits tasks that hop to a shard of a
// simulated ShardSet (a thread taking turns with this one) and back, a
// seeded number of times, with seeded sleeps on the shard: while a task is
// away nothing is in flight on the scheduler's loop, yet nothing is
// deadlocked. The scheduler must wait for every answer.
bool fiber_hop_holds(std::uint64_t seed, const char* defect) {
  duet::SimWorld world(grid(seed, defect));
  duet::ShardSet set({.shards = 1, .backend = duet::Backend::sim});
  duet::fiber::Scheduler scheduler({.backend = duet::Backend::sim});
  const auto pause = std::chrono::milliseconds(world.below(3));
  int sum = 0;
  (void)scheduler.spawn([&] {
    for (int i = 0; i < 5; ++i) {
      sum += duet::fiber::await([](duet::Shard& shard, std::chrono::milliseconds p) -> Task<int> {
        co_return co_await duet::on(shard, [p]() -> Task<int> {
          co_await duet::sleep_for(*duet::EventLoop::current(), p);
          co_return 7;
        });
      }(set.shard(0), pause));
    }
  });
  bool held = true;
  for (int attempt = 0; attempt < 100; ++attempt) {
    try {
      scheduler.run();
      break;
    } catch (const std::logic_error&) {
      held = false;  // "every fiber is waiting and nothing can wake one": let the answer come, and go on
      scheduler.loop().run_once(world.now() + 10ms);
    }
  }
  set.stop();
  return held && sum == 35;
}

// Seeds 1..limit: the first that breaks with the defect, having checked that
// the fixed code holds on every seed up to it.
std::optional<std::uint64_t> first_failing_seed(bool (*scenario)(std::uint64_t, const char*), const char* defect,
                                                std::uint64_t limit) {
  for (std::uint64_t seed = 1; seed <= limit; ++seed) {
    INFO("seed " << seed);
    REQUIRE(scenario(seed, ""));
    if (!scenario(seed, defect)) return seed;
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("the simulation finds a send_all that ignores a stop landing between two chunks", "[sim][defects]") {
  const auto seed = first_failing_seed(send_all_stop_holds, "send_all_stop", 200);
  REQUIRE(seed.has_value());
  WARN("send_all_stop found at seed " << *seed);
}

TEST_CASE("the simulation finds a pooled recv starved of buffers that loses its cancel", "[sim][defects]") {
  const auto seed = first_failing_seed(pooled_recv_cancel_holds, "pooled_recv_cancel_lost", 200);
  REQUIRE(seed.has_value());
  WARN("pooled_recv_cancel_lost found at seed " << *seed);
}

TEST_CASE("the simulation finds a fiber awaiting a task on another shard reported as deadlocked", "[sim][defects]") {
  const auto seed = first_failing_seed(fiber_hop_holds, "fiber_hop_deadlock", 200);
  REQUIRE(seed.has_value());
  WARN("fiber_hop_deadlock found at seed " << *seed);
}

TEST_CASE("the simulation finds an accept whose socket leaks when its frame goes first", "[sim][defects]") {
  const auto seed = first_failing_seed(accept_leak_holds, "accept_leak", 200);
  REQUIRE(seed.has_value());
  WARN("accept_leak found at seed " << *seed);
}
