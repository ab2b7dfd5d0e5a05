// OpKind::recv_pooled with raw IoOps: a waiting recv holds no buffer, an empty
// pool delays recvs without failing them, and cancel/abandon/timeouts keep
// their contract. Runs on epoll, on io_uring with provided buffers, and on
// io_uring set up as on an old kernel (buffers taken at submission). The last
// tests stop a starved recv_pooled through each voice's public API.
#include <catch2/catch.hpp>

#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <stop_token>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include "duet/io/event_loop.hpp"
#include "duet/io/io_op.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/tcp_stream.hpp"
#include "duet/stackful/this_fiber.hpp"
#include "support/socket_pair.hpp"
#include "duet/task/run.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/task.hpp"
#include "duet/task/task_scope.hpp"
#include "duet/task/tcp_stream.hpp"
#include "duet/task/when_all.hpp"

using namespace std::chrono_literals;
using duet::Backend;
using duet::EventLoop;
using duet::IoOp;
using duet::LoopOptions;
using duet::OpKind;
using duet::Task;
using duet::TcpStream;
using Catch::Generators::from_range;
using Pair = duet::test::SocketPair;

namespace {

struct PooledRecv : IoOp {
  bool done = false;
  int res = 0;
  explicit PooledRecv(int fd, std::chrono::nanoseconds timeout = {}) {
    kind_ = OpKind::recv_pooled;
    fd_ = fd;
    timeout_ = timeout;
    complete_ = [](IoOp* op, int r) noexcept {
      auto* self = static_cast<PooledRecv*>(op);
      self->done = true;
      self->res = r;
    };
  }
  [[nodiscard]] std::string_view bytes() const {
    return {static_cast<const char*>(buf_), static_cast<std::size_t>(res)};
  }
};

void run_until(EventLoop& loop, const PooledRecv& op) {
  const auto give_up = std::chrono::steady_clock::now() + 5s;
  while (!op.done && std::chrono::steady_clock::now() < give_up) loop.run_once(give_up);
}

void turns(EventLoop& loop, int n) {
  for (int i = 0; i < n; ++i) loop.run_once(std::chrono::steady_clock::now() + 2ms);
}

// The pool has a free buffer again: a fresh recv gets its bytes at once.
void expect_a_free_buffer(EventLoop& loop) {
  Pair other;
  PooledRecv next(other.fds[0]);
  other.write("again");
  loop.submit(next);
  run_until(loop, next);
  CHECK(next.res == 5);
  loop.release_recv_buffer(next.buffer_id_);
}

struct Setup {
  const char* name;
  Backend backend;
  bool basic;
};

const std::vector<Setup> every_setup = {
    {"io_uring", Backend::io_uring, false}, {"io_uring old kernel", Backend::io_uring, true}, {"epoll", Backend::epoll, false}};
// Where a waiting recv holds no buffer (on an old kernel io_uring's does).
const std::vector<Setup> lean_setups = {every_setup[0], every_setup[2]};

// A PooledRecv that took a buffer and keeps it, so every other pooled recv starves.
struct Holder {
  Pair pair;
  PooledRecv op{pair.fds[0]};
  explicit Holder(EventLoop& loop) {
    pair.write("mine");
    loop.submit(op);
    run_until(loop, op);
    REQUIRE(op.res == 4);
  }
};

// A one-buffer loop whose buffer is lent out, and a connection with nothing to read.
struct EmptyPool {
  EventLoop loop;
  Holder holder{loop};
  Pair quiet;
  explicit EmptyPool(const Setup& s);
};

// The side under test moves into a stream that closes it; the peer stays with the pair.
int hand_over(Pair& pair) { return std::exchange(pair.fds[0], -1); }

LoopOptions options_for(const Setup& s, std::size_t buffers) {
  LoopOptions o;
  o.uring_basic_setup = s.basic;
  o.recv_buffer_count = buffers;
  o.recv_buffer_size = 64;
  return o;
}

EmptyPool::EmptyPool(const Setup& s) : loop(s.backend, options_for(s, 1)) {}

}  // namespace

TEST_CASE("pooled recvs wait without a buffer, and an empty pool delays them until one comes back") {
  const Setup setup = GENERATE(from_range(lean_setups));
  INFO(setup.name);
  EventLoop loop(setup.backend, options_for(setup, 1));  // one buffer for three connections
  std::array<Pair, 3> pairs;
  PooledRecv a(pairs[0].fds[0]), b(pairs[1].fds[0]), c(pairs[2].fds[0]);
  for (PooledRecv* op : {&a, &b, &c}) loop.submit(*op);
  turns(loop, 2);
  pairs[2].write("third");  // the last one armed still gets the only buffer
  run_until(loop, c);
  REQUIRE(c.res == 5);
  CHECK(c.bytes() == "third");
  CHECK(c.len_ == 64);

  pairs[0].write("first");  // no buffer free: a waits, data stays in the socket
  turns(loop, 3);
  CHECK_FALSE(a.done);
  loop.release_recv_buffer(c.buffer_id_);
  run_until(loop, a);
  REQUIRE(a.res == 5);
  CHECK(a.bytes() == "first");
  loop.release_recv_buffer(a.buffer_id_);

  pairs[1].write(std::string(100, 'x'));  // more than a buffer: the rest waits for the next recv
  run_until(loop, b);
  CHECK(b.res == 64);
  loop.release_recv_buffer(b.buffer_id_);
  PooledRecv rest(pairs[1].fds[0]);
  loop.submit(rest);
  run_until(loop, rest);
  CHECK(rest.res == 36);
  loop.release_recv_buffer(rest.buffer_id_);
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("a pooled recv reports EOF as 0 and takes no buffer for it") {
  const Setup setup = GENERATE(from_range(every_setup));
  INFO(setup.name);
  EventLoop loop(setup.backend, options_for(setup, 1));
  Pair pair;
  PooledRecv eof(pair.fds[0]);
  loop.submit(eof);
  turns(loop, 1);
  REQUIRE(::shutdown(pair.fds[1], SHUT_WR) == 0);
  run_until(loop, eof);
  CHECK(eof.res == 0);
  expect_a_free_buffer(loop);  // the single buffer was not taken for the EOF
}

TEST_CASE("a starved pooled recv can be cancelled, abandoned or timed out") {
  const Setup setup = GENERATE(from_range(every_setup));
  INFO(setup.name);
  EventLoop loop(setup.backend, options_for(setup, 1));
  Pair holder_pair, p1, p2, p3;
  PooledRecv holder(holder_pair.fds[0]);  // takes the only buffer and keeps it
  holder_pair.write("mine");
  loop.submit(holder);
  run_until(loop, holder);
  REQUIRE(holder.res == 4);

  PooledRecv cancelled(p1.fds[0]), abandoned(p2.fds[0]), timed(p3.fds[0]);
  timed.timeout_ = 20ms;
  for (PooledRecv* op : {&cancelled, &abandoned, &timed}) loop.submit(*op);
  for (const Pair* p : {&p1, &p2, &p3}) p->write("data");
  turns(loop, 2);
  CHECK_FALSE(cancelled.done);
  loop.cancel(cancelled);
  run_until(loop, cancelled);
  CHECK(cancelled.res == -ECANCELED);
  CHECK(loop.abandon(abandoned) == -ECANCELED);
  run_until(loop, timed);
  CHECK(timed.res == -ETIMEDOUT);
  CHECK(loop.in_flight() == 0);
  loop.release_recv_buffer(holder.buffer_id_);
  expect_a_free_buffer(loop);
}

TEST_CASE("abandoning a pooled recv that already has bytes returns them and its buffer to the caller") {
  const Setup setup = GENERATE(from_range(lean_setups));
  INFO(setup.name);
  EventLoop loop(setup.backend, options_for(setup, 1));
  Pair pair;
  pair.write("late");  // there before the recv: it finishes, undelivered, when abandoned
  PooledRecv op(pair.fds[0]);
  loop.submit(op);
  REQUIRE(loop.abandon(op) == 4);
  CHECK_FALSE(op.done);
  CHECK(std::string_view(static_cast<const char*>(op.buf_), 4) == "late");
  loop.release_recv_buffer(op.buffer_id_);
  expect_a_free_buffer(loop);
}

// io_uring with provided buffers fails a recv at issue with -ENOBUFS when the
// ring is empty, so a cancel submitted with it finds nothing to cancel. The
// loop used to requeue such an op as starved: an abandoned op stayed linked
// after it died (use-after-free), a cancelled one never finished.
TEST_CASE("a pooled recv stopped before its first turn while every buffer is lent is stopped for good") {
  const Setup setup = GENERATE(from_range(every_setup));
  INFO(setup.name);
  EmptyPool pool(setup);
  EventLoop& loop = pool.loop;
  SECTION("abandoned, it leaves nothing behind") {
    {
      PooledRecv op(pool.quiet.fds[0]);
      loop.submit(op);
      CHECK(loop.abandon(op) == -ECANCELED);
      CHECK_FALSE(op.in_flight());
      CHECK(loop.in_flight() == 0);
    }  // the op dies here: the loop must not touch it again (ASan)
    loop.release_recv_buffer(pool.holder.op.buffer_id_);
    turns(loop, 2);
  }
  SECTION("cancelled, it completes with ECANCELED though the cancel lost the race to ENOBUFS") {
    PooledRecv op(pool.quiet.fds[0]);
    loop.submit(op);
    loop.cancel(op);
    turns(loop, 3);  // every buffer still lent
    CHECK(op.done);
    CHECK(op.res == -ECANCELED);
    loop.release_recv_buffer(pool.holder.op.buffer_id_);
    turns(loop, 2);
    if (!op.done) {  // the cancel was lost: let data end the recv so the test ends
      pool.quiet.write("x");
      run_until(loop, op);
      if (op.res > 0) loop.release_recv_buffer(op.buffer_id_);
    }
  }
  CHECK(loop.in_flight() == 0);
  expect_a_free_buffer(loop);
}

TEST_CASE("a starved pooled recv's timeout counts from its submission, not from when a buffer came back") {
  const Setup setup = GENERATE(from_range(every_setup));
  INFO(setup.name);
  EmptyPool pool(setup);
  EventLoop& loop = pool.loop;
  PooledRecv op(pool.quiet.fds[0], 300ms);
  const auto start = std::chrono::steady_clock::now();
  loop.submit(op);
  while (std::chrono::steady_clock::now() - start < 200ms) loop.run_once(start + 200ms);
  loop.release_recv_buffer(pool.holder.op.buffer_id_);  // nothing to read: the recv now waits on its fd
  run_until(loop, op);
  const auto waited = std::chrono::steady_clock::now() - start;
  CHECK(op.res == -ETIMEDOUT);
  CHECK(waited >= 299ms);
  CHECK(waited < 450ms);  // a timeout restarted by the buffer's return would end at 500 ms
  expect_a_free_buffer(loop);
}

TEST_CASE("closing an fd through the loop cancels a pooled recv starved on it") {
  const Setup setup = GENERATE(from_range(every_setup));
  INFO(setup.name);
  EmptyPool pool(setup);
  EventLoop& loop = pool.loop;
  PooledRecv op(pool.quiet.fds[0], 10s);  // cancelled, not timed out
  loop.submit(op);
  turns(loop, 2);
  REQUIRE_FALSE(op.done);
  loop.close_fd(std::exchange(pool.quiet.fds[0], -1));
  turns(loop, 2);
  CHECK(op.done);
  CHECK(op.res == -ECANCELED);
  loop.release_recv_buffer(pool.holder.op.buffer_id_);  // a buffer back must not revive it on a closed fd
  turns(loop, 2);
  CHECK(op.res == -ECANCELED);
  if (op.in_flight()) loop.abandon(op);
  CHECK(loop.in_flight() == 0);
  expect_a_free_buffer(loop);
}

namespace {

// Stops a stackless reader at once, while it waits in recv_pooled for a
// buffer; returns the error it saw. If the stop were lost, the watchdog's byte
// ends the recv after 2 s (the test then fails instead of hanging).
Task<std::error_code> stop_a_starved_task(EventLoop& loop, TcpStream& holder, TcpStream& quiet) {
  auto held = co_await holder.recv_pooled();  // the only buffer, kept
  REQUIRE(held.ok());
  duet::TaskScope scope;
  std::error_code seen;
  auto reader = [](TcpStream& s, std::stop_token token, std::error_code& out) -> Task<void> {
    auto r = co_await s.recv_pooled(std::move(token));
    out = r ? std::error_code{} : r.error();
  };
  scope.spawn(reader(quiet, scope.stop_token(), seen));  // suspends in recv_pooled
  scope.request_stop();
  co_await duet::sleep_for(loop, 20ms);
  held->release();
  co_await scope.join();
  co_return seen;
}

Task<void> watchdog(EventLoop& loop, const bool& finished, int peer) {
  for (int i = 0; i < 200 && !finished; ++i) co_await duet::sleep_for(loop, 10ms);
  if (!finished) REQUIRE(::write(peer, "x", 1) == 1);
}

}  // namespace

TEST_CASE("a stop request ends a task's recv_pooled while every buffer is lent") {
  const Setup setup = GENERATE(from_range(every_setup));
  INFO(setup.name);
  EventLoop loop(setup.backend, options_for(setup, 1));
  Pair holder_pair, quiet_pair;
  TcpStream holder(loop, hand_over(holder_pair)), quiet(loop, hand_over(quiet_pair));
  holder_pair.write("mine");
  bool finished = false;
  auto body = [](EventLoop& lp, TcpStream& h, TcpStream& q, bool& done) -> Task<std::error_code> {
    const std::error_code e = co_await stop_a_starved_task(lp, h, q);
    done = true;
    co_return e;
  };
  auto [seen, ignored] = duet::run_until_complete(
      loop, duet::when_all(body(loop, holder, quiet, finished), watchdog(loop, finished, quiet_pair.fds[1])));
  CHECK(seen == std::errc::operation_canceled);
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("a stop request ends a fiber's recv_pooled while every buffer is lent") {
  namespace fiber = duet::fiber;
  const Setup setup = GENERATE(from_range(every_setup));
  INFO(setup.name);
  fiber::Scheduler scheduler({.backend = setup.backend, .loop = options_for(setup, 1), .stack_size = 64 * 1024});
  Pair holder_pair, quiet_pair;
  fiber::TcpStream holder(scheduler.loop(), hand_over(holder_pair)), quiet(scheduler.loop(), hand_over(quiet_pair));
  holder_pair.write("mine");
  bool finished = false;
  auto guard = scheduler.spawn([&] {  // ends a lost stop after 2 s, so the test fails instead of hanging
    for (int i = 0; i < 200 && !finished; ++i) fiber::sleep_for(10ms);
    if (!finished) REQUIRE(::write(quiet_pair.fds[1], "x", 1) == 1);
  });
  auto main_fiber = scheduler.spawn([&] {
    auto held = holder.recv_pooled();  // the only buffer, kept
    REQUIRE(held.ok());
    std::stop_source stop;
    auto reader = fiber::spawn([&] {
      auto r = quiet.recv_pooled(stop.get_token());
      return r ? std::error_code{} : r.error();
    });
    fiber::yield();  // the reader submits its recv; the stop lands before the loop's next turn
    stop.request_stop();
    fiber::sleep_for(20ms);
    held->release();
    const std::error_code seen = reader.join();
    finished = true;
    return seen;
  });
  CHECK(main_fiber.join() == std::errc::operation_canceled);
  guard.join();
  CHECK(scheduler.loop().in_flight() == 0);
}
