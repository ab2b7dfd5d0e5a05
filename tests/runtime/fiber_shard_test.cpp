// The stackful voice across shards: fiber shards, fiber::on, fiber::spawn_on,
// fiber::offload, on both backends. Apart from the stackless cases so the
// ThreadSanitizer run can leave fibers out until the switch is annotated.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include <duet/runtime/blocking_pool.hpp>
#include "echo_clients.hpp"
#include <duet/runtime/connection_spreader.hpp>
#include <duet/runtime/shard_set.hpp>
#include <duet/stackful/offload.hpp>
#include <duet/stackful/on_shard.hpp>
#include <duet/stackful/scheduler.hpp>
#include <duet/stackful/sleep.hpp>
#include <duet/stackful/tcp_listener.hpp>

using namespace std::chrono_literals;

namespace {

duet::Backend any_backend() { return GENERATE(duet::Backend::io_uring, duet::Backend::epoll); }

std::size_t shard_id() { return duet::this_shard() != nullptr ? duet::this_shard()->id() : 99; }

}  // namespace

TEST_CASE("fiber::on runs fn on a fiber of the other shard and returns its value to the blocked fiber",
          "[shard_fiber]") {
  duet::ShardSet set({.shards = 2, .backend = any_backend()}, duet::fiber::shard_runner());
  std::atomic<int> got{0};
  std::atomic<int> others_ran{0};
  std::atomic<std::size_t> ran_on{99};
  std::atomic<std::size_t> back_on{99};
  duet::fiber::spawn_on(set.shard(0), [&] {
    got = duet::fiber::on(set.shard(1), [&] {
      ran_on = shard_id();
      duet::fiber::sleep_for(5ms);  // a blocking fiber call on shard 1
      return 7;
    });
    back_on = shard_id();
  });
  duet::fiber::spawn_on(set.shard(0), [&] { ++others_ran; });  // the thread is not blocked
  set.stop();
  CHECK(got == 7);
  CHECK(ran_on == 1);
  CHECK(back_on == 0);
  CHECK(others_ran == 1);
}

TEST_CASE("fiber::on rethrows the exception fn threw on the other shard", "[shard_fiber]") {
  duet::ShardSet set({.shards = 2, .backend = any_backend()}, duet::fiber::shard_runner());
  std::atomic<bool> caught{false};
  duet::fiber::spawn_on(set.shard(0), [&] {
    try {
      duet::fiber::on(set.shard(1), []() -> int { throw std::runtime_error("fiber on shard 1 failed"); });
    } catch (const std::runtime_error& e) {
      caught = std::string(e.what()) == "fiber on shard 1 failed" && shard_id() == 0;
    }
  });
  set.stop();
  CHECK(caught);
}

TEST_CASE("fiber::on to the caller's own shard just runs fn", "[shard_fiber]") {
  duet::ShardSet set({.shards = 1, .backend = any_backend()}, duet::fiber::shard_runner());
  std::atomic<int> got{0};
  duet::fiber::spawn_on(set.shard(0), [&] { got = duet::fiber::on(set.shard(0), [] { return 3; }); });
  set.stop();
  CHECK(got == 3);
}

TEST_CASE("an exception escaping a fiber spawned on a shard reaches stop", "[shard_fiber]") {
  duet::ShardSet set({.shards = 2, .backend = any_backend()}, duet::fiber::shard_runner());
  duet::fiber::spawn_on(set.shard(1), [] {
    duet::fiber::sleep_for(1ms);
    throw std::runtime_error("detached fiber failed");
  });
  CHECK_THROWS_WITH(set.stop(), "detached fiber failed");
}

TEST_CASE("stop waits for fibers and calls between fiber shards in flight", "[shard_fiber]") {
  duet::ShardSet set({.shards = 3, .backend = any_backend()}, duet::fiber::shard_runner());
  std::atomic<int> done{0};
  for (std::size_t i = 0; i < 30; ++i) {
    duet::fiber::spawn_on(set.shard(i % 3), [&set, &done, i] {
      const int v = duet::fiber::on(set.shard((i + 1) % 3), [&set, i] {
        duet::fiber::sleep_for(20ms);
        return duet::fiber::on(set.shard((i + 2) % 3), [i] { return static_cast<int>(i); });
      });
      if (v == static_cast<int>(i)) done.fetch_add(1);
    });
  }
  std::this_thread::sleep_for(5ms);
  set.stop();
  CHECK(done == 30);
}

TEST_CASE("fiber::offload blocks the fiber, not its thread, and returns fn's value or exception", "[shard_fiber]") {
  duet::fiber::Scheduler scheduler({.backend = any_backend()});
  duet::BlockingPool pool({.threads = 2});
  const auto here = std::this_thread::get_id();
  int ticks = 0;
  auto worker = scheduler.spawn([&] {
    auto r = duet::fiber::offload(pool, [&] {
      std::this_thread::sleep_for(20ms);
      return std::this_thread::get_id() != here ? std::string("pool") : std::string("loop");
    });
    CHECK(std::this_thread::get_id() == here);
    CHECK_THROWS_WITH(duet::fiber::offload(pool, []() -> int { throw std::runtime_error("bad"); }), "bad");
    return r.value();
  });
  auto ticker = scheduler.spawn([&] {
    for (int i = 0; i < 5; ++i) {
      duet::fiber::sleep_for(1ms);
      ++ticks;
    }
  });
  scheduler.run();
  CHECK(worker.join() == "pool");
  CHECK(ticks == 5);
}

TEST_CASE("a fiber's offload cancelled before it starts never runs; a full queue parks or fails", "[shard_fiber]") {
  duet::fiber::Scheduler scheduler({.backend = any_backend()});
  duet::BlockingPool pool({.threads = 1, .queue_capacity = 1});
  std::atomic<bool> open{false};
  std::atomic<bool> cancelled_ran{false};
  std::stop_source stop;
  std::error_code cancelled, refused;
  int waited = 0;
  auto blocker = scheduler.spawn([&] {
    (void)duet::fiber::offload(pool, [&] {
      while (!open) std::this_thread::sleep_for(1ms);
    });
  });
  auto victim = scheduler.spawn([&] {
    cancelled = duet::fiber::offload(pool, [&] { cancelled_ran = true; }, stop.get_token()).error();
  });
  auto patient = scheduler.spawn([&] { waited = duet::fiber::offload(pool, [] { return 5; }).value(); });
  auto impatient = scheduler.spawn([&] {
    refused = duet::fiber::offload(pool, [] { return 6; }, {}, duet::WhenFull::fail).error();
    stop.request_stop();  // the victim is still queued: it never runs
    duet::fiber::sleep_for(5ms);
    open = true;
  });
  scheduler.run();
  CHECK(refused == std::errc::resource_unavailable_try_again);
  CHECK(cancelled == std::errc::operation_canceled);
  CHECK_FALSE(cancelled_ran);
  CHECK(waited == 5);
}

// guide:begin shard_fiber
int many_cores_with_fibers(duet::Backend backend) {
  int total = 0;
  duet::ShardSet set({.shards = 2, .backend = backend}, duet::fiber::shard_runner());
  duet::fiber::spawn_on(set.shard(0), [&] {
    // Blocks this fiber (not shard 0's thread) until fn has run on a fiber of shard 1.
    int n = duet::fiber::on(set.shard(1), [] {
      duet::fiber::sleep_for(1ms);  // fn may block: it has a fiber of its own there
      return 40;
    });
    duet::IoResult<int> m = duet::fiber::offload([] { return 2; });  // on the blocking pool
    total = n + m.value();
  });
  set.stop();
  return total;
}
// guide:end

TEST_CASE("the guide's many-cores snippet for fibers runs", "[shard_fiber]") {
  CHECK(many_cores_with_fibers(any_backend()) == 42);
}

namespace {

// The guide's clients: a few connections, each echoed once, then closed.
std::size_t talk_to(std::uint16_t port) { return duet::test::open_echoed(port, 8).size(); }

}  // namespace

// guide:begin shard_spread_fiber
void echo_lines(duet::fiber::TcpStream conn, std::stop_token stop) {
  char buf[512];
  while (auto n = conn.recv(buf, stop)) {  // ends on EOF, error or the shard's stop
    if (!conn.send_all(std::span<const char>(buf, *n), stop)) break;
  }
}

std::size_t sharded_echo(duet::Backend backend, duet::AcceptMode mode) {
  duet::ConnectionSpreader spreader(2, duet::SocketAddress::parse("127.0.0.1", 0).value(), {.mode = mode});
  duet::ShardSet set({.shards = 2, .backend = backend}, duet::fiber::shard_runner());
  for (std::size_t i = 0; i < set.size(); ++i) {
    duet::fiber::spawn_on(set.shard(i), [&] { duet::fiber::serve_shard(spreader, echo_lines); });
  }
  talk_to(spreader.port());
  set.stop();
  return spreader.connections(0) + spreader.connections(1);
}
// guide:end

TEST_CASE("the guide's sharded echo snippet for fibers serves in both accept modes", "[shard_fiber]") {
  const duet::AcceptMode mode = GENERATE(duet::AcceptMode::reuse_port, duet::AcceptMode::single);
  CHECK(sharded_echo(any_backend(), mode) == 8);
}
