// duet::when_any (src/duet/task/when_any.hpp) on both backends: the first task to
// finish wins, the others are stopped through the caller's stop source and
// awaited, so their pending socket I/O is cancelled and delivered before
// when_any returns (loop.in_flight() == 0 right after). Each test drives the
// loop with a time limit, so a loser that is never stopped is a failed check,
// not a hung suite.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <coroutine>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <variant>
#include <vector>

#include <duet/io/event_loop.hpp>
#include <duet/task/sleep.hpp>
#include <duet/task/task.hpp>
#include <duet/task/tcp_stream.hpp>
#include <duet/task/when_any.hpp>
#include "support/run_bounded.hpp"
#include "support/socket_pair.hpp"

namespace {

using duet::Backend;
using duet::EventLoop;
using duet::Task;
using duet::TcpStream;
using namespace std::chrono_literals;

Backend any_backend() { return GENERATE(Backend::io_uring, Backend::epoll); }

// The side under test as a TcpStream on `loop` (a dup of pair.fds[0]); the test writes to pair.fds[1].
struct StreamPair {
  duet::test::SocketPair pair;
  TcpStream near;
  explicit StreamPair(EventLoop& loop) : near(loop, ::dup(pair.fds[0])) { REQUIRE(near.native_handle() >= 0); }
};

using duet::test::run_bounded;

struct Tally {
  int cancelled = 0;
  int finished = 0;
};

// One backend's loop, a socket that never gets data, and the source the children's tokens come from.
struct Fixture {
  Backend backend = any_backend();
  EventLoop loop{backend};
  StreamPair silent{loop};
  Tally tally;
  std::stop_source stop;
};

// Waits for bytes on `s`: their count, or -1 after counting a cancellation.
Task<int> recv_count(TcpStream& s, std::stop_token token, Tally& tally) {
  char buf[64];
  auto r = co_await s.recv(buf, std::move(token));
  ++tally.finished;
  if (r) co_return static_cast<int>(*r);
  if (r.error() == std::errc::operation_canceled) ++tally.cancelled;
  co_return -1;
}

Task<int> value_after(EventLoop& loop, std::chrono::milliseconds d, int value) {
  co_await duet::sleep_for(loop, d);
  co_return value;
}

Task<void> write_after(EventLoop& loop, std::chrono::milliseconds d, const duet::test::SocketPair& pair) {
  co_await duet::sleep_for(loop, d);
  pair.write("hello");
}

Task<int> throw_after(EventLoop& loop, std::chrono::milliseconds d) {
  co_await duet::sleep_for(loop, d);
  throw std::runtime_error("winner failed");
}

}  // namespace

TEST_CASE("when_any returns the first task's index and value and cancels the other's pending recv") {
  const Backend backend = any_backend();
  INFO("backend " << duet::backend_name(backend));
  EventLoop loop(backend);
  StreamPair silent(loop);  // never gets data
  Tally tally;
  std::stop_source stop;
  auto result = run_bounded(
      loop, duet::when_any(stop, recv_count(silent.near, stop.get_token(), tally), value_after(loop, 10ms, 42)));
  CHECK(result.index() == 1);
  CHECK(std::get<1>(result) == 42);
  CHECK(tally.cancelled == 1);  // the loser ended before when_any returned
  CHECK(loop.in_flight() == 0);
  CHECK(stop.stop_requested());
}

TEST_CASE("when_any over 100 tasks picks the one whose socket gets data and cancels the other 99 recvs") {
  const Backend backend = any_backend();
  INFO("backend " << duet::backend_name(backend));
  EventLoop loop(backend);
  std::vector<std::unique_ptr<StreamPair>> pairs;
  for (int i = 0; i < 100; ++i) pairs.push_back(std::make_unique<StreamPair>(loop));
  Tally tally;
  std::stop_source stop;
  std::vector<Task<int>> tasks;
  for (auto& p : pairs) tasks.push_back(recv_count(p->near, stop.get_token(), tally));
  Task<void> writer = write_after(loop, 20ms, pairs[57]->pair);  // once every recv is pending
  writer.handle().resume();
  auto [index, value] = run_bounded(loop, duet::when_any(stop, std::move(tasks)));
  CHECK(writer.done());
  CHECK(index == 57);
  CHECK(value == 5);
  CHECK(tally.finished == 100);
  CHECK(tally.cancelled == 99);
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("when_any rethrows the winner's exception after the losers have finished") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  auto& [backend, loop, silent, tally, stop] = f;
  auto any = duet::when_any(stop, recv_count(silent.near, stop.get_token(), tally), throw_after(loop, 5ms));
  CHECK_THROWS_WITH(run_bounded(loop, std::move(any)), "winner failed");
  CHECK(tally.cancelled == 1);
  CHECK(loop.in_flight() == 0);
}

Task<int> throw_when_cancelled(TcpStream& s, std::stop_token token) {
  char buf[8];
  auto r = co_await s.recv(buf, std::move(token));
  if (!r) throw std::runtime_error("loser failed");
  co_return 0;
}

TEST_CASE("when_any drops a loser's exception raised after the stop") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  auto& [backend, loop, silent, tally, stop] = f;
  auto result =
      run_bounded(loop, duet::when_any(stop, throw_when_cancelled(silent.near, stop.get_token()),
                                       value_after(loop, 5ms, 7)));
  CHECK(result.index() == 1);
  CHECK(std::get<1>(result) == 7);
  CHECK(loop.in_flight() == 0);
}

// Ignores the token: sleeps its full time, then records that it ran to the end.
Task<int> stubborn(EventLoop& loop, std::chrono::milliseconds d, bool& done) {
  co_await duet::sleep_for(loop, d);
  done = true;
  co_return 0;
}

TEST_CASE("when_any waits for a loser that ignores the stop request") {
  const Backend backend = any_backend();
  INFO("backend " << duet::backend_name(backend));
  EventLoop loop(backend);
  bool stubborn_done = false;
  std::stop_source stop;
  const auto start = std::chrono::steady_clock::now();
  auto result = run_bounded(loop, duet::when_any(stop, stubborn(loop, 80ms, stubborn_done), value_after(loop, 1ms, 3)));
  CHECK(result.index() == 1);
  CHECK(stubborn_done);
  CHECK(std::chrono::steady_clock::now() - start >= 79ms);
  CHECK(loop.in_flight() == 0);
}

Task<void> nap(EventLoop& loop, std::chrono::milliseconds d, std::stop_token token) {
  co_await duet::sleep_for(loop, d, std::move(token));
}

TEST_CASE("when_any of void tasks returns the winner's index with a monostate") {
  const Backend backend = any_backend();
  INFO("backend " << duet::backend_name(backend));
  EventLoop loop(backend);
  std::stop_source stop;
  auto result =
      run_bounded(loop, duet::when_any(stop, nap(loop, 10s, stop.get_token()), nap(loop, 5ms, stop.get_token())));
  CHECK(result.index() == 1);
  CHECK(std::get_if<1>(&result) != nullptr);  // both alternatives are monostate: index() tells
  std::vector<Task<void>> tasks;
  std::stop_source stop2;
  tasks.push_back(nap(loop, 10s, stop2.get_token()));
  tasks.push_back(nap(loop, 10s, stop2.get_token()));
  tasks.push_back(nap(loop, 1ms, stop2.get_token()));
  CHECK(run_bounded(loop, duet::when_any(stop2, std::move(tasks))).index == 2);
  CHECK(loop.in_flight() == 0);
}

Task<void> stop_after(EventLoop& loop, std::chrono::milliseconds d, std::stop_source stop) {
  co_await duet::sleep_for(loop, d);
  stop.request_stop();
}

TEST_CASE("a stop requested by the caller cancels every task and when_any still returns the first to end") {
  const Backend backend = any_backend();
  INFO("backend " << duet::backend_name(backend));
  EventLoop loop(backend);
  StreamPair a(loop), b(loop), c(loop);
  Tally tally;
  std::stop_source stop;
  Task<void> stopper = stop_after(loop, 20ms, stop);
  stopper.handle().resume();
  auto result = run_bounded(loop, duet::when_any(stop, recv_count(a.near, stop.get_token(), tally),
                                                 recv_count(b.near, stop.get_token(), tally),
                                                 recv_count(c.near, stop.get_token(), tally)));
  CHECK(std::visit([](int v) { return v; }, result) == -1);  // the winner ended cancelled too
  CHECK(tally.cancelled == 3);
  CHECK(stopper.done());
  CHECK(loop.in_flight() == 0);
}

Task<int> at_once(int v) { co_return v; }

TEST_CASE("a task that finishes while when_any starts the others wins, and the later ones start stopped") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  auto& [backend, loop, silent, tally, stop] = f;
  auto result = run_bounded(loop, duet::when_any(stop, at_once(9), recv_count(silent.near, stop.get_token(), tally)));
  CHECK(result.index() == 0);
  CHECK(std::get<0>(result) == 9);
  CHECK(tally.cancelled == 1);
  CHECK(loop.in_flight() == 0);
}

Task<int&> ref_to(int& x) { co_return x; }

TEST_CASE("when_any hands back a reference result as a reference_wrapper, and an empty vector throws") {
  EventLoop loop(Backend::epoll);
  int x = 5;
  std::stop_source stop;
  auto result = run_bounded(loop, duet::when_any(stop, ref_to(x)));
  CHECK(&std::get<0>(result).get() == &x);
  CHECK_THROWS_AS(run_bounded(loop, duet::when_any(stop, std::vector<Task<int>>{})), std::invalid_argument);
}

namespace {

// Suspends until its token is stopped, and is resumed *inline* by the stop
// callback, as a wait-queue primitive's cancellation may do: the loser then
// finishes inside the winner's request_stop().
struct WakeOnStop {
  struct Resume {
    std::coroutine_handle<> waiter_;
    void operator()() const noexcept { waiter_.resume(); }
  };
  std::stop_token token_;
  std::optional<std::stop_callback<Resume>> on_stop_;
  bool await_ready() const noexcept { return token_.stop_requested(); }
  void await_suspend(std::coroutine_handle<> waiter) { on_stop_.emplace(token_, Resume{waiter}); }
  void await_resume() const noexcept {}
};

Task<int> until_stopped(std::stop_token token) {
  // A named awaiter: g++ 12 destroys the members of an aggregate temporary in a
  // co_await operand twice (here: the token, freeing the stop state early).
  WakeOnStop wake{std::move(token), std::nullopt};
  co_await wake;
  co_return -1;
}

// Awaits when_any as a temporary, so its frame (and with it the only owner of
// the stop source) goes away as soon as the caller moves on; notes whether the
// stop request had run all its callbacks by then.
Task<bool> first_of(std::stop_source stop, Task<int> a, Task<int> b, const bool& stop_done) {
  auto r = co_await duet::when_any(std::move(stop), std::move(a), std::move(b));
  co_return r.index() == 1 && stop_done;
}

}  // namespace

TEST_CASE("a loser resumed inline by the stop request finishes, and when_any returns only after the request") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  auto& [backend, loop, silent, tally, stop] = f;
  std::stop_source only;  // moved into when_any
  bool stop_done = false;
  // Registered first, so it runs after the loser's callback (newest first).
  std::stop_callback last_callback(only.get_token(), [&stop_done]() noexcept { stop_done = true; });
  Task<int> loser = until_stopped(only.get_token());
  CHECK(run_bounded(loop, first_of(std::move(only), std::move(loser), value_after(loop, 1ms, 5), stop_done)));
  CHECK(loop.in_flight() == 0);
}

// The code docs/GUIDE.md quotes for when_any (checked by tests/io/check_guide.py).
namespace guide {

// guide:begin when_any
duet::Task<std::string> read_reply(duet::TcpStream& conn, std::stop_token stop) {
  char buf[512];
  auto n = co_await conn.recv(buf, stop);  // cancelled (operation_canceled) if the other one wins
  if (!n) co_return n.error().message();
  co_return std::string(buf, *n);
}

duet::Task<void> nap(duet::EventLoop& loop, std::chrono::milliseconds d, std::stop_token stop) {
  co_await duet::sleep_for(loop, d, stop);
}

// The reply, or "" if none came within a second.
duet::Task<std::string> ask(duet::EventLoop& loop, duet::TcpStream& conn) {
  std::stop_source stop;  // every child gets its token; when_any stops it when one ends
  auto r = co_await duet::when_any(stop, read_reply(conn, stop.get_token()), nap(loop, 1s, stop.get_token()));
  if (r.index() == 1) co_return "";  // the nap ended first: the recv was cancelled and awaited
  co_return std::get<0>(std::move(r));
}

// Whichever of several replicas answers first; the other reads are cancelled.
duet::Task<std::string> first_reply(std::vector<duet::TcpStream*> replicas) {
  std::stop_source stop;
  std::vector<duet::Task<std::string>> reads;
  for (auto* conn : replicas) reads.push_back(read_reply(*conn, stop.get_token()));
  auto [index, reply] = co_await duet::when_any(stop, std::move(reads));  // index: who answered
  co_return reply;
}
// guide:end

}  // namespace guide

TEST_CASE("the guide's when_any snippets get a reply, time out, and pick the replica that answers") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  auto& [backend, loop, silent, tally, stop] = f;
  StreamPair talker(loop), other(loop);
  talker.pair.write("pong");
  CHECK(run_bounded(loop, guide::ask(loop, talker.near)) == "pong");
  const auto start = std::chrono::steady_clock::now();
  CHECK(run_bounded(loop, guide::ask(loop, silent.near)).empty());
  CHECK(std::chrono::steady_clock::now() - start >= 999ms);
  other.pair.write("second");
  CHECK(run_bounded(loop, guide::first_reply({&silent.near, &other.near, &talker.near})) == "second");
  CHECK(loop.in_flight() == 0);
}
