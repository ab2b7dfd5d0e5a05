// The stackless voice across shards: resume_on, on, spawn_on, on both backends.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "runtime/shard_set.hpp"
#include "task/on_shard.hpp"
#include "task/resume_on.hpp"
#include "task/sleep.hpp"
#include "task/sync_wait.hpp"
#include "task/task.hpp"

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
