// The stackless voice across shards: resume_on, on, spawn_on, on both backends.
#include <algorithm>
#include <atomic>
#include <memory>
#include <catch2/catch.hpp>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "echo_clients.hpp"
#include <duet/runtime/connection_spreader.hpp>
#include <duet/runtime/shard_set.hpp>
#include <duet/task/channel.hpp>
#include <duet/task/event.hpp>
#include <duet/task/offload.hpp>
#include <duet/task/on_shard.hpp>
#include <duet/task/resume_on.hpp>
#include <duet/task/sleep.hpp>
#include <duet/task/sync_wait.hpp>
#include <duet/task/task.hpp>
#include <duet/task/tcp_listener.hpp>

using namespace std::chrono_literals;

namespace {

duet::Backend any_backend() { return GENERATE(duet::Backend::io_uring, duet::Backend::epoll); }

std::size_t shard_id() { return duet::this_shard() != nullptr ? duet::this_shard()->id() : 99; }

}  // namespace

TEST_CASE("resume_on moves the rest of a task to the shard's thread, and back", "[shard]") {
  duet::ShardSet set({.shards = 2, .backend = any_backend()});
  std::atomic<bool> ok{false};
  set.shard(0).post([&] {
    duet::spawn_on(set.shard(0), [&]() -> duet::Task<> {
      const std::size_t start = shard_id();
      co_await duet::resume_on(set.shard(1));
      const std::size_t there = shard_id();
      co_await duet::resume_on(set.shard(0));
      ok = start == 0 && there == 1 && shard_id() == 0;
    });
  });
  set.stop();
  CHECK(ok);
}

TEST_CASE("on runs a task on another shard and brings its value back to the caller's shard", "[shard]") {
  duet::ShardSet set({.shards = 2, .backend = any_backend()});
  std::atomic<int> got{0};
  std::atomic<std::size_t> ran_on{99};
  std::atomic<std::size_t> back_on{99};
  duet::spawn_on(set.shard(0), [&]() -> duet::Task<> {
    const std::string word = "shard";
    got = co_await duet::on(set.shard(1), [&]() -> duet::Task<int> {
      ran_on = shard_id();
      co_await duet::sleep_for(duet::this_shard()->loop(), 1ms);  // real I/O on shard 1's loop
      co_return static_cast<int>(word.size());
    });
    back_on = shard_id();
  });
  set.stop();
  CHECK(got == 5);
  CHECK(ran_on == 1);
  CHECK(back_on == 0);
}

TEST_CASE("on rethrows the exception of the task it ran on the other shard", "[shard]") {
  duet::ShardSet set({.shards = 2, .backend = any_backend()});
  std::atomic<bool> caught{false};
  duet::spawn_on(set.shard(0), [&]() -> duet::Task<> {
    try {
      co_await duet::on(set.shard(1), []() -> duet::Task<void> {
        throw std::runtime_error("from shard 1");
        co_return;
      });
    } catch (const std::runtime_error& e) {
      caught = std::string(e.what()) == "from shard 1" && shard_id() == 0;
    }
  });
  set.stop();
  CHECK(caught);
}

TEST_CASE("sync_wait on a plain thread can await on() a shard", "[shard]") {
  duet::ShardSet set({.shards = 1, .backend = any_backend()});
  const int v = duet::sync_wait(duet::on(set.shard(0), []() -> duet::Task<int> { co_return 42; }));
  CHECK(v == 42);
  CHECK_THROWS_AS(duet::sync_wait(duet::on(set.shard(0), []() -> duet::Task<int> {
                    throw std::logic_error("no");
                    co_return 0;
                  })),
                  std::logic_error);
  set.stop();
}

TEST_CASE("an exception escaping a task spawned on a shard reaches stop", "[shard]") {
  duet::ShardSet set({.shards = 2, .backend = any_backend()});
  duet::spawn_on(set.shard(1), []() -> duet::Task<> {
    co_await duet::sleep_for(duet::this_shard()->loop(), 1ms);
    throw std::runtime_error("spawned task failed");
  });
  CHECK_THROWS_WITH(set.stop(), "spawned task failed");
}

TEST_CASE("stop waits for calls between shards that are in flight", "[shard]") {
  duet::ShardSet set({.shards = 3, .backend = any_backend()});
  std::atomic<int> done{0};
  for (std::size_t i = 0; i < 30; ++i) {
    duet::spawn_on(set.shard(i % 3), [&set, &done, i]() -> duet::Task<> {
      const int v = co_await duet::on(set.shard((i + 1) % 3), [&set, i]() -> duet::Task<int> {
        co_await duet::sleep_for(duet::this_shard()->loop(), 20ms);
        co_return co_await duet::on(set.shard((i + 2) % 3), [i]() -> duet::Task<int> { co_return static_cast<int>(i); });
      });
      if (v == static_cast<int>(i)) done.fetch_add(1);
    });
  }
  std::this_thread::sleep_for(5ms);
  set.stop();
  CHECK(done == 30);
}

// The coordination types are single-loop (their fast path pays no atomics);
// between shards a value or a wait travels through on(): the Channel and the
// Event stay on their owner shard, and the caller's task waits there.
TEST_CASE("a Channel and an Event owned by one shard serve tasks of another through on()", "[shard]") {
  duet::ShardSet set({.shards = 2, .backend = any_backend()});
  std::unique_ptr<duet::Channel<int>> channel;  // lives on shard 1
  std::unique_ptr<duet::Event> ready;           // lives on shard 1
  std::atomic<int> sum{0};
  std::atomic<bool> waited{false};
  duet::sync_wait(duet::on(set.shard(1), [&]() -> duet::Task<> {
    channel = std::make_unique<duet::Channel<int>>(duet::this_shard()->loop(), 4);
    ready = std::make_unique<duet::Event>(duet::this_shard()->loop());
    co_return;
  }));
  duet::spawn_on(set.shard(1), [&]() -> duet::Task<> {  // the consumer, on the channel's shard
    for (int i = 0; i < 100; ++i) sum += (co_await channel->recv()).value();
    ready->set();
  });
  duet::spawn_on(set.shard(0), [&]() -> duet::Task<> {  // the producer, on another shard
    for (int i = 0; i < 100; ++i) {
      co_await duet::on(set.shard(1), [&, i]() -> duet::Task<> { (void)co_await channel->send(i); });
    }
    co_await duet::on(set.shard(1), [&]() -> duet::Task<> { (void)co_await ready->wait(); });
    waited = shard_id() == 0;
    co_await duet::on(set.shard(1), [&]() -> duet::Task<> {  // they die on their own shard
      channel.reset();
      ready.reset();
      co_return;
    });
  });
  set.stop();
  CHECK(sum == 4950);
  CHECK(waited);
}

// guide:begin shard_task
duet::Task<int> count_words(std::string text) {  // runs on whichever shard awaits it
  co_return static_cast<int>(std::count(text.begin(), text.end(), ' ') + 1);
}

int many_cores_with_tasks(duet::Backend backend) {
  int words = 0;
  duet::ShardSet set({.shards = 2, .backend = backend});  // two threads, a loop each
  duet::spawn_on(set.shard(0), [&]() -> duet::Task<> {
    // Run a task on shard 1; the value (or exception) comes back here, on shard 0.
    words = co_await duet::on(set.shard(1), [] { return count_words("one two three"); });
    // Blocking work goes to the pool, never to a loop thread.
    duet::IoResult<int> n = co_await duet::offload([] { return 6 * 7; });
    words += n.value();
  });
  set.stop();  // drains every shard's work, joins, rethrows a shard's exception
  return words;
}
// guide:end

TEST_CASE("the guide's many-cores snippet for tasks runs", "[shard]") {
  CHECK(many_cores_with_tasks(any_backend()) == 45);
}

namespace {

// The guide's clients: a few connections, each echoed once, then closed.
std::size_t talk_to(std::uint16_t port) { return duet::test::open_echoed(port, 8).size(); }

}  // namespace

// guide:begin shard_spread_task
duet::Task<void> echo_lines(duet::TcpStream conn, std::stop_token stop) {
  char buf[512];
  while (auto n = co_await conn.recv(buf, stop)) {  // ends on EOF, error or the shard's stop
    if (!co_await conn.send_all(std::span<const char>(buf, *n), stop)) break;
  }
}

std::size_t sharded_echo(duet::Backend backend, duet::AcceptMode mode) {
  // The listening sockets first: reuse_port opens one per shard on one port
  // (port 0: the kernel picks it once for all), single opens shard 0's only.
  duet::ConnectionSpreader spreader(2, duet::SocketAddress::parse("127.0.0.1", 0).value(), {.mode = mode});
  duet::ShardSet set({.shards = 2, .backend = backend});
  for (std::size_t i = 0; i < set.size(); ++i) {
    duet::spawn_on(set.shard(i), [&] { return duet::serve_shard(spreader, echo_lines); });
  }
  talk_to(spreader.port());
  set.stop();  // every shard's stop token: accepts and echoes end, then the threads join
  return spreader.connections(0) + spreader.connections(1);
}
// guide:end

TEST_CASE("the guide's sharded echo snippet serves in both accept modes", "[shard]") {
  const duet::AcceptMode mode = GENERATE(duet::AcceptMode::reuse_port, duet::AcceptMode::single);
  CHECK(sharded_echo(any_backend(), mode) == 8);
}
