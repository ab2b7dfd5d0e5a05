// Messages between threads: EventLoop::send's inbox and wake-ups, and the
// ShardSet built on it (start, post, stop with work in flight, errors,
// pinning, the calling thread as shard 0), on both backends.
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <latch>
#include <stdexcept>
#include <thread>
#include <vector>

#include "duet/io/event_loop.hpp"
#include "duet/runtime/shard_set.hpp"
#include "support/loop_turns.hpp"

using namespace std::chrono_literals;

namespace {

duet::Backend any_backend() { return GENERATE(duet::Backend::io_uring, duet::Backend::epoll); }

struct Counted final : duet::LoopMessage {
  std::atomic<int>* runs = nullptr;
  Counted() {
    run_ = [](duet::LoopMessage* m) noexcept { static_cast<Counted*>(m)->runs->fetch_add(1); };
  }
};

// Waits (bounded) until the loop's thread is blocked in the kernel: the loop
// turns forever on its own thread, and we give it time to get there.
void let_it_sleep() { std::this_thread::sleep_for(50ms); }

}  // namespace

TEST_CASE("a message sent from another thread runs on the loop's thread, in a turn", "[shard]") {
  duet::EventLoop loop(any_backend());
  std::atomic<int> runs{0};
  Counted msg;
  msg.runs = &runs;
  std::thread([&] { loop.send(msg); }).join();
  CHECK(runs == 0);  // nothing runs inside send
  REQUIRE(duet::test::turn_until(loop, [&] { return runs == 1; }));
}

// The wake-ups send() made to shard's loop so far, read on its thread.
std::uint64_t wakes_of(duet::Shard& shard) {
  std::atomic<std::uint64_t> wakes{0};
  std::atomic<bool> read{false};
  shard.post([&] {
    wakes = duet::this_shard()->loop().message_wakes();
    read = true;
  });
  while (!read) std::this_thread::yield();
  return wakes.load();
}

TEST_CASE("a loop asleep in the kernel wakes for a message from a plain thread", "[shard]") {
  duet::ShardSet set({.shards = 1, .backend = any_backend()});
  let_it_sleep();
  std::atomic<bool> ran{false};
  set.shard(0).post([&] { ran = true; });
  for (int i = 0; i < 500 && !ran; ++i) std::this_thread::sleep_for(2ms);
  CHECK(ran);
  set.stop();
}

TEST_CASE("a busy loop is not woken by the messages sent to it meanwhile", "[shard]") {
  duet::ShardSet set({.shards = 1, .backend = any_backend()});
  std::atomic<bool> busy{false};
  std::atomic<bool> release{false};
  std::atomic<int> runs{0};
  set.shard(0).post([&] {
    busy = true;
    while (!release) std::this_thread::yield();
  });
  while (!busy) std::this_thread::yield();
  const std::uint64_t before = set.shard(0).loop().message_wakes();  // an atomic: any thread
  for (int i = 0; i < 10'000; ++i) set.shard(0).post([&] { runs.fetch_add(1); });
  CHECK(set.shard(0).loop().message_wakes() == before);
  release = true;
  set.stop();
  CHECK(runs == 10'000);
}

TEST_CASE("a burst of posts from one shard's turn wakes a sleeping shard once", "[shard]") {
  const duet::Backend backend = any_backend();  // io_uring: by message ring; epoll: by eventfd
  duet::ShardSet set({.shards = 2, .backend = backend});
  const std::uint64_t before = wakes_of(set.shard(1));
  std::atomic<int> runs{0};
  for (int round = 0; round < 5; ++round) {
    let_it_sleep();
    set.shard(0).post([&] {
      for (int i = 0; i < 64; ++i) set.shard(1).post([&] { runs.fetch_add(1); });
    });
    for (int i = 0; i < 500 && runs < 64 * (round + 1); ++i) std::this_thread::sleep_for(2ms);
  }
  REQUIRE(runs == 5 * 64);
  INFO(duet::backend_name(backend));
  CHECK(wakes_of(set.shard(1)) - before <= 5 + 1);  // one per burst, and one for the read
  set.stop();
}

// LoopOptions::reply_spin: shard 0 awaits each answer (await_reply) and
// spins for it, so the answers reach it awake: none costs a wake-up. The spin
// is far longer than any answer takes, so the count does not depend on timing.
TEST_CASE("a loop awaiting a reply spins for it: the reply needs no wake-up", "[shard]") {
  const duet::Backend backend = any_backend();
  duet::ShardSet set({.shards = 2, .backend = backend, .loop = {.reply_spin = std::chrono::seconds(5)}});
  constexpr int round_trips = 200;
  std::atomic<std::uint64_t> wakes{~std::uint64_t{0}};
  int left = round_trips;  // shard 0's
  std::function<void()> step = [&] {
    duet::EventLoop& here = duet::this_shard()->loop();
    if (left == 0) {
      wakes = here.message_wakes();
      return;
    }
    here.await_reply();
    set.shard(1).post([&] {
      set.shard(0).post([&] {
        duet::this_shard()->loop().reply_arrived();
        --left;
        step();
      });
    });
  };
  std::atomic<std::uint64_t> before{0};
  set.shard(0).post([&] {
    before = duet::this_shard()->loop().message_wakes();
    step();
  });
  for (int i = 0; i < 2500 && wakes == ~std::uint64_t{0}; ++i) std::this_thread::sleep_for(2ms);
  INFO(duet::backend_name(backend));
  REQUIRE(wakes != ~std::uint64_t{0});
  CHECK(wakes - before == 0);
  set.stop();
}

TEST_CASE("posts from four threads arrive exactly once and in each sender's order", "[shard]") {
  constexpr int producers = 4;
  constexpr int per_producer = 100'000;
  duet::ShardSet set({.shards = 1, .backend = any_backend()});
  std::vector<int> last(producers, -1);  // touched on the shard's thread only
  std::atomic<int> out_of_order{0};
  std::atomic<int> arrived{0};
  std::vector<std::thread> threads;
  for (int p = 0; p < producers; ++p) {
    threads.emplace_back([&, p] {
      for (int i = 0; i < per_producer; ++i) {
        set.shard(0).post([&, p, i] {
          if (last[static_cast<std::size_t>(p)] != i - 1) out_of_order.fetch_add(1);
          last[static_cast<std::size_t>(p)] = i;
          arrived.fetch_add(1, std::memory_order_relaxed);
        });
      }
    });
  }
  for (auto& t : threads) t.join();
  set.stop();  // drains: every message has run when it returns
  CHECK(arrived == producers * per_producer);
  CHECK(out_of_order == 0);
  for (int l : last) CHECK(l == per_producer - 1);
}

// A million messages in one burst from a plain thread, onto a shard that is
// either asleep in the kernel or busy in a long turn of its own: each one runs
// once (the inbox neither drops nor repeats under a burst that outruns it).
TEST_CASE("a burst of one million posts onto a busy or a sleeping shard arrives exactly once", "[shard]") {
  constexpr std::size_t burst = 1'000'000;
  const duet::Backend backend = any_backend();
  const bool busy = GENERATE(false, true);
  duet::ShardSet set({.shards = 1, .backend = backend});
  std::vector<std::uint8_t> hits(burst, 0);  // the shard's thread only
  std::atomic<bool> sent{false};
  std::atomic<bool> spinning{false};
  if (busy) {
    set.shard(0).post([&] {  // one long turn, bounded, while the burst arrives
      spinning = true;
      const auto deadline = std::chrono::steady_clock::now() + 10s;
      while (!sent.load() && std::chrono::steady_clock::now() < deadline) {
      }
    });
    while (!spinning) std::this_thread::yield();
  } else {
    let_it_sleep();
  }
  for (std::size_t i = 0; i < burst; ++i) set.shard(0).post([&hits, i] { ++hits[i]; });
  sent = true;
  set.stop();  // drains the inbox: every message has run when it returns
  INFO(duet::backend_name(backend) << (busy ? ", busy" : ", asleep"));
  CHECK(std::count(hits.begin(), hits.end(), std::uint8_t{1}) == static_cast<std::ptrdiff_t>(burst));
}

TEST_CASE("each shard runs on its own thread and knows itself", "[shard]") {
  duet::ShardSet set({.shards = 3, .backend = any_backend()});
  std::atomic<int> right{0};
  for (std::size_t i = 0; i < set.size(); ++i) {
    set.shard(i).post([&, i] {
      if (duet::this_shard() == &set.shard(i) && duet::shard_count() == 3 && set.shard(i).is_current()) ++right;
    });
  }
  set.stop();
  CHECK(right == 3);
  CHECK(duet::this_shard() == nullptr);
  CHECK(duet::shard_count() == 0);
}

TEST_CASE("stop drains the work in flight on every shard, including what it sends on", "[shard]") {
  struct Sleeper final : duet::IoOp {
    std::atomic<int>* done;
  };
  duet::ShardSet set({.shards = 2, .backend = any_backend()});
  std::atomic<int> done{0};
  constexpr int timers = 50;
  for (int i = 0; i < timers; ++i) {
    set.shard(i % 2).post([&set, &done, i] {
      auto* op = new Sleeper;
      op->done = &done;
      op->kind_ = duet::OpKind::sleep;
      op->deadline_ = std::chrono::steady_clock::now() + 30ms;
      op->context_ = &set.shard((i + 1) % 2);
      op->complete_ = [](duet::IoOp* o, int) noexcept {
        auto* self = static_cast<Sleeper*>(o);
        auto* next = static_cast<duet::Shard*>(self->context_);
        std::atomic<int>* counter = self->done;
        delete self;
        next->post([counter] { counter->fetch_add(1); });  // work sent on after the stop
      };
      duet::this_shard()->loop().submit(*op);
    });
  }
  set.stop();
  CHECK(done == timers);
}

// The race: shard 0, idle, hears its stop first, is quiet at once and sees
// no activity left while the other shards' stop messages are still unsent;
// before the fix it declared the set finished and shard 1..3 tore down their
// loops with their timers in flight (EventLoop's destructor terminates).
TEST_CASE("stop waits for every shard even when the first one is quiet before the others hear of it", "[shard]") {
  struct Waiter final : duet::IoOp {
    std::atomic<int>* ended = nullptr;
    std::optional<std::stop_callback<std::function<void()>>> on_stop;
  };
  const duet::Backend backend = any_backend();
  constexpr int rounds = 200;
  for (int round = 0; round < rounds; ++round) {
    std::atomic<int> ended{0};
    std::latch waiting(3);
    std::vector<std::unique_ptr<Waiter>> waiters(4);
    duet::ShardSet set({.shards = 4, .backend = backend});
    for (std::size_t i = 1; i < 4; ++i) {
      set.shard(i).post([&, i] {  // a timer only the shard's stop token ends
        auto& op = *(waiters[i] = std::make_unique<Waiter>());
        op.ended = &ended;
        op.kind_ = duet::OpKind::sleep;
        op.deadline_ = std::chrono::steady_clock::now() + 1h;
        op.complete_ = [](duet::IoOp* o, int) noexcept { static_cast<Waiter*>(o)->ended->fetch_add(1); };
        duet::EventLoop& loop = duet::this_shard()->loop();
        loop.submit(op);
        op.on_stop.emplace(duet::this_shard()->stop_token(), std::function<void()>([&loop, &op] { loop.cancel(op); }));
        waiting.count_down();
      });
    }
    waiting.wait();
    set.stop();
    REQUIRE(ended == 3);
  }
}

// The per-shard count's own accident: shard 0 sent shard 1 messages before
// the stop (counted in shard 0's loop, not yet in the set's count), shard 1
// ran them and hears its stop first while shard 0 is still busy in a turn.
// With 4 of them, this thread's 2 posts and 2 stops and the 2 shards' units,
// shard 1's enrollment brings the set's count to exactly zero before shard 0
// has enrolled: only unenrolled_ keeps the set from finishing there, with
// shard 0's stop unrun and the timer it starts at the stop never waited for.
TEST_CASE("stop waits for a busy shard whose earlier messages another shard, already quiet, has run", "[shard]") {
  struct Timer final : duet::IoOp {
    std::atomic<bool>* fired = nullptr;
  };
  std::atomic<bool> fired{false};
  Timer timer;
  timer.fired = &fired;
  timer.kind_ = duet::OpKind::sleep;
  timer.complete_ = [](duet::IoOp* o, int) noexcept { static_cast<Timer*>(o)->fired->store(true); };
  std::atomic<int> arrived{0};
  std::atomic<bool> busy{false};
  duet::ShardSet set({.shards = 2, .backend = any_backend()});
  std::optional<std::stop_callback<std::function<void()>>> on_stop;
  set.shard(0).post([&] {
    for (int i = 0; i < 4; ++i) set.shard(1).post([&] { arrived.fetch_add(1); });
    duet::EventLoop& loop = duet::this_shard()->loop();
    on_stop.emplace(duet::this_shard()->stop_token(), std::function<void()>([&loop, &timer] {
      timer.deadline_ = std::chrono::steady_clock::now() + 20ms;  // work that starts at the stop
      loop.submit(timer);
    }));
  });
  while (arrived.load() != 4) std::this_thread::yield();
  set.shard(0).post([&] {
    busy = true;
    std::this_thread::sleep_for(100ms);  // shard 1 hears its stop meanwhile
  });
  while (!busy.load()) std::this_thread::yield();
  set.stop();
  CHECK(fired.load());
}

// The set counts from the moment the host joins: a message the runner's loop
// ran before that is no part of it (else the count could never come back to
// zero, and stop would wait for ever).
TEST_CASE("a runner may use its loop before it hosts the shard, and the set still stops", "[shard]") {
  struct EarlyRunner final : duet::ShardRunner {
    void run(duet::Shard& shard) override {
      duet::EventLoop loop(shard.set().options().backend);
      std::atomic<int> runs{0};
      Counted early;
      early.runs = &runs;
      loop.send(early);
      while (runs.load() == 0) loop.run_once();
      duet::ShardHost host(shard, loop);
      while (!host.finished()) loop.run_once(duet::EventLoop::forever);
    }
  } runner;
  duet::ShardSet set({.shards = 2, .backend = any_backend()}, runner);
  std::atomic<int> ran{0};
  set.shard(1).post([&] { ran.fetch_add(1); });
  set.stop();
  CHECK(ran == 1);
}

TEST_CASE("stop requests every shard's stop token on the shard's own thread", "[shard]") {
  duet::ShardSet set({.shards = 2, .backend = any_backend()});
  std::atomic<int> seen{0};
  std::vector<std::unique_ptr<std::stop_callback<std::function<void()>>>> callbacks(2);
  std::latch registered(2);
  for (std::size_t i = 0; i < 2; ++i) {
    set.shard(i).post([&, i] {
      callbacks[i] = std::make_unique<std::stop_callback<std::function<void()>>>(
          set.shard(i).stop_token(), std::function<void()>([&, i] {
            if (set.shard(i).is_current()) ++seen;
          }));
      registered.count_down();
    });
  }
  registered.wait();
  set.stop();
  CHECK(seen == 2);
}

TEST_CASE("an exception escaping posted work reaches stop", "[shard]") {
  duet::ShardSet set({.shards = 2, .backend = any_backend()});
  set.shard(1).post([] { throw std::runtime_error("shard 1 failed"); });
  CHECK_THROWS_WITH(set.stop(), "shard 1 failed");
}

TEST_CASE("shards can be pinned to CPUs", "[shard]") {
  duet::ShardSet set({.shards = 2, .backend = any_backend(), .cpus = {0}});
  std::atomic<int> on_cpu0{0};
  for (std::size_t i = 0; i < 2; ++i) set.shard(i).post([&] { on_cpu0 += ::sched_getcpu() == 0; });
  set.stop();
  CHECK(on_cpu0 == 2);
}

TEST_CASE("the calling thread can be shard 0", "[shard]") {
  duet::ShardSet set({.shards = 2, .backend = any_backend(), .calling_thread = true});
  const auto caller = std::this_thread::get_id();
  std::atomic<bool> main_here{false};
  std::atomic<bool> other_elsewhere{false};
  set.run([&] {
    main_here = std::this_thread::get_id() == caller && duet::this_shard()->id() == 0;
    set.shard(1).post([&] {
      other_elsewhere = std::this_thread::get_id() != caller;
      set.request_stop();
    });
  });
  CHECK(main_here);
  CHECK(other_elsewhere);
}

TEST_CASE("a set that cannot start its loops throws from its constructor", "[shard]") {
  CHECK_THROWS_AS(duet::ShardSet({.shards = 2, .backend = duet::Backend::epoll, .cpus = {99999}}),
                  std::system_error);
}

TEST_CASE("debug builds stop a loop used off its owner thread", "[shard]") {
#ifdef NDEBUG
  SUCCEED("release build: the owner-thread check is compiled out");
#else
  // A death test: the child process aborts, the parent reads how it ended.
  // The loop is made on a helper thread, so that the child (whose only
  // thread is a copy of this one) is off the owner thread without starting
  // a thread after fork (ThreadSanitizer does not allow that).
  std::unique_ptr<duet::EventLoop> loop;
  std::thread([&] { loop = std::make_unique<duet::EventLoop>(duet::Backend::epoll); }).join();
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::freopen("/dev/null", "w", stderr);  // the check's message is expected
    std::signal(SIGABRT, SIG_DFL);           // not Catch's handler: die at once
    loop->run_once();
    ::_exit(0);  // not reached when the check works
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  INFO("child status " << status);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGABRT);
#endif
}
