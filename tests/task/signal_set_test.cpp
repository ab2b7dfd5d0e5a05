// duet::SignalSet (stackless) with real signals sent to this process, on both
// backends. An executable of its own and single-threaded (io_uring's kernel
// workers block every signal): a signal blocked in this thread is blocked in
// the whole process, so kill(getpid(), ...) reaches the signalfd and never a
// thread that would run the default action. Every test reads back every
// signal it sends: one left pending would kill the process when unblocked.
#include <catch2/catch.hpp>

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <set>
#include <span>
#include <stop_token>
#include <system_error>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "duet/io/event_loop.hpp"
#include "duet/task/run.hpp"
#include "duet/task/signal_set.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/task.hpp"
#include "duet/task/task_scope.hpp"
#include "duet/task/tcp_listener.hpp"
#include "duet/task/tcp_stream.hpp"
#include "duet/task/when_all.hpp"
#include "duet/task/when_any.hpp"
#include "duet/task/with_timeout.hpp"
#include "support/signals.hpp"

// The code docs/GUIDE.md quotes ("Signals and a clean stop"); tested below.
// guide:begin signals_stop_task
duet::Task<void> echo(duet::TcpStream conn, std::stop_token stop) {
  char buf[4096];
  while (auto n = co_await conn.recv(buf, stop)) {
    if (!co_await conn.send_all(std::span<const char>(buf, *n), stop)) break;
  }
}

// Accepts until stopped (a real server backs off on EMFILE: examples/chat_stackless.cpp).
duet::Task<void> serve(duet::TcpListener& listener, std::stop_token stop) {
  duet::TaskScope scope;
  while (auto conn = co_await listener.accept(stop)) scope.spawn(echo(std::move(*conn), scope.stop_token()));
  scope.request_stop();  // the accept ended: end every connection, and wait for them
  co_await scope.join();
}

// Serves until SIGINT or SIGTERM, then stops cleanly; returns the signal.
duet::Task<int> serve_until_signal(duet::TcpListener& listener, duet::SignalSet& signals) {
  std::stop_source stop;  // when_any stops it when either child ends
  auto first = co_await duet::when_any(stop, serve(listener, stop.get_token()), signals.wait_task(stop.get_token()));
  co_return first.index() == 1 && std::get<1>(first) ? *std::get<1>(first) : 0;
}
// guide:end

int run_server(duet::Backend backend, std::uint16_t port) {
  // guide:begin signals_main_task
  duet::EventLoop loop(backend);
  duet::SignalSet signals(loop, {SIGINT, SIGTERM});  // first: threads started later inherit the mask
  auto listener = duet::TcpListener::bind(loop, duet::SocketAddress::any(port));
  int signo = duet::run_until_complete(loop, serve_until_signal(listener, signals));
  // guide:end
  return signo;
}

namespace {

using duet::Backend;
using duet::EventLoop;
using duet::IoResult;
using duet::SignalSet;
using duet::Task;
using namespace std::chrono_literals;

Backend any_backend() { return GENERATE(Backend::io_uring, Backend::epoll); }

// Sends signo to the process once the waiter has had time to suspend.
Task<void> send_later(EventLoop& loop, int signo) {
  co_await duet::sleep_for(loop, 5ms);
  duet::test::send_to_process(signo);
}

Task<IoResult<int>> wait_once(const SignalSet& signals, std::stop_token stop = {}) {
  co_return co_await signals.wait(std::move(stop));
}

}  // namespace

TEST_CASE("a signal sent to the process while a task waits is the wait's result", "[signal_set]") {
  EventLoop loop(any_backend());
  SignalSet signals(loop, {SIGUSR1, SIGUSR2});
  auto [got, sent] = duet::run_until_complete(loop, duet::when_all(wait_once(signals), send_later(loop, SIGUSR2)));
  REQUIRE(got);
  CHECK(*got == SIGUSR2);
  CHECK_FALSE(duet::test::pending(SIGUSR2));
}

TEST_CASE("a signal already pending is returned without waiting", "[signal_set]") {
  EventLoop loop(any_backend());
  SignalSet signals(loop, {SIGUSR1});
  ::raise(SIGUSR1);  // thread-directed, to the loop's thread: seen as well
  auto got = duet::run_until_complete(loop, wait_once(signals));
  REQUIRE(got);
  CHECK(*got == SIGUSR1);
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("two different signals queued at once both arrive, one per wait", "[signal_set]") {
  EventLoop loop(any_backend());
  SignalSet signals(loop, {SIGUSR1, SIGUSR2});
  duet::test::send_to_process(SIGUSR1);
  duet::test::send_to_process(SIGUSR2);
  auto [a, b] = duet::run_until_complete(loop, duet::when_all(wait_once(signals), wait_once(signals)));
  REQUIRE(a);
  REQUIRE(b);
  CHECK(std::set<int>{*a, *b} == std::set<int>{SIGUSR1, SIGUSR2});
}

TEST_CASE("two sets for one signal: one reads it, the other waits on and times out", "[signal_set]") {
  EventLoop loop(any_backend());
  SignalSet first(loop, {SIGUSR1});
  SignalSet second(loop, {SIGUSR1});
  auto waiter = [](const SignalSet& s) -> Task<int> {
    auto r = co_await duet::with_timeout(s.wait(), 100ms);
    co_return r ? *r : (r.error() == std::errc::timed_out ? 0 : -1);
  };
  auto [a, b, sent] =
      duet::run_until_complete(loop, duet::when_all(waiter(first), waiter(second), send_later(loop, SIGUSR1)));
  CHECK(std::multiset<int>{a, b} == std::multiset<int>{0, SIGUSR1});
}

TEST_CASE("a real-time signal sent twice is queued twice", "[signal_set]") {
  EventLoop loop(any_backend());
  SignalSet signals(loop, {SIGRTMIN});
  duet::test::send_to_process(SIGRTMIN);
  duet::test::send_to_process(SIGRTMIN);
  auto first = duet::run_until_complete(loop, wait_once(signals));
  auto second = duet::run_until_complete(loop, wait_once(signals));
  REQUIRE(first);
  REQUIRE(second);
  CHECK(*first == SIGRTMIN);
  CHECK(*second == SIGRTMIN);
}

TEST_CASE("a stop request cancels a signal wait", "[signal_set]") {
  EventLoop loop(any_backend());
  SignalSet signals(loop, {SIGUSR1});
  std::stop_source stop;
  auto stopper = [](EventLoop& l, std::stop_source s) -> Task<void> {
    co_await duet::sleep_for(l, 5ms);
    s.request_stop();
  };
  auto [got, done] = duet::run_until_complete(loop, duet::when_all(wait_once(signals, stop.get_token()), stopper(loop, stop)));
  REQUIRE_FALSE(got);
  CHECK(got.error() == std::errc::operation_canceled);
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("a token already stopped fails at once and leaves the signal queued", "[signal_set]") {
  EventLoop loop(any_backend());
  SignalSet signals(loop, {SIGUSR1});
  duet::test::send_to_process(SIGUSR1);
  std::stop_source stop;
  stop.request_stop();
  auto cancelled = duet::run_until_complete(loop, wait_once(signals, stop.get_token()));
  CHECK(cancelled.error() == std::errc::operation_canceled);
  auto got = duet::run_until_complete(loop, wait_once(signals));
  REQUIRE(got);
  CHECK(*got == SIGUSR1);
}

TEST_CASE("with_timeout ends a signal wait with timed_out", "[signal_set]") {
  EventLoop loop(any_backend());
  SignalSet signals(loop, {SIGUSR1});
  auto waiter = [](const SignalSet& s) -> Task<IoResult<int>> { co_return co_await duet::with_timeout(s.wait(), 20ms); };
  auto got = duet::run_until_complete(loop, waiter(signals));
  REQUIRE_FALSE(got);
  CHECK(got.error() == std::errc::timed_out);
}

TEST_CASE("destroying the set restores the thread's mask, and only what it changed", "[signal_set]") {
  EventLoop loop(any_backend());
  REQUIRE_FALSE(duet::test::blocked(SIGUSR1));
  REQUIRE_FALSE(duet::test::blocked(SIGUSR2));
  sigset_t own;  // the program blocked SIGUSR2 itself: it stays blocked
  sigemptyset(&own);
  sigaddset(&own, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &own, nullptr);
  {
    SignalSet outer(loop, {SIGUSR1, SIGUSR2});
    CHECK(duet::test::blocked(SIGUSR1));
    {
      SignalSet inner(loop, {SIGUSR1});  // a second holder of SIGUSR1
    }
    CHECK(duet::test::blocked(SIGUSR1));  // the outer set still holds it
  }
  CHECK_FALSE(duet::test::blocked(SIGUSR1));
  CHECK(duet::test::blocked(SIGUSR2));
  pthread_sigmask(SIG_UNBLOCK, &own, nullptr);
}

TEST_CASE("a signal set refuses what it cannot wait for", "[signal_set]") {
  EventLoop loop(Backend::epoll);
  CHECK_THROWS_AS(SignalSet(loop, {SIGKILL}), std::system_error);
  CHECK_THROWS_AS(SignalSet(loop, {}), std::system_error);
  CHECK_THROWS_AS(SignalSet(loop, {0}), std::system_error);
  CHECK_FALSE(duet::test::blocked(SIGUSR1));
  EventLoop sim(Backend::sim);
  try {
    SignalSet signals(sim, {SIGUSR1});
    FAIL("a SignalSet on Backend::sim was made");
  } catch (const std::system_error& e) {
    CHECK(e.code() == std::errc::not_supported);
  }
  CHECK_FALSE(duet::test::blocked(SIGUSR1));
}

namespace {

// Three clients echo a line each, then SIGTERM is sent: the server must end
// every connection (each client reads EOF) and its accept, and return.
Task<int> clients_then_sigterm(EventLoop& loop, std::uint16_t port) {
  std::vector<duet::TcpStream> clients;
  for (int i = 0; i < 3; ++i) {
    auto conn = co_await duet::TcpStream::connect(loop, *duet::SocketAddress::parse("127.0.0.1", port));
    REQUIRE(conn);
    // Not co_await inside REQUIRE: GCC ran such a send twice here.
    auto sent = co_await conn->send_all(std::string_view("ping"));
    REQUIRE(sent);
    char buf[4];
    for (std::size_t got = 0; got < sizeof buf;) {  // the echo may come back in pieces
      auto n = co_await duet::with_timeout(conn->recv(std::span<char>(buf + got, sizeof buf - got)), 2s);
      REQUIRE(n);
      got += *n;
    }
    clients.push_back(std::move(*conn));
  }
  duet::test::send_to_process(SIGTERM);
  int eofs = 0;
  for (auto& c : clients) {
    char buf[4];
    auto n = co_await duet::with_timeout(c.recv(buf), 2s);
    eofs += n.eof() ? 1 : 0;
  }
  co_return eofs;
}

}  // namespace

TEST_CASE("SIGTERM stops a server with live connections cleanly (the GUIDE's recipe)", "[signal_set]") {
  EventLoop loop(any_backend());
  SignalSet signals(loop, {SIGINT, SIGTERM});
  auto listener = duet::TcpListener::bind(loop, *duet::SocketAddress::parse("127.0.0.1", 0));
  auto [signo, eofs] = duet::run_until_complete(
      loop, duet::when_all(serve_until_signal(listener, signals), clients_then_sigterm(loop, listener.local_address().port())));
  CHECK(signo == SIGTERM);
  CHECK(eofs == 3);
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("the GUIDE's main returns the SIGTERM that was pending when it started", "[signal_set]") {
  const Backend backend = any_backend();
  sigset_t term;  // blocked (and the signal queued) before the program's own set exists
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, nullptr);
  duet::test::send_to_process(SIGTERM);
  CHECK(run_server(backend, 0) == SIGTERM);
  CHECK_FALSE(duet::test::pending(SIGTERM));
  pthread_sigmask(SIG_UNBLOCK, &term, nullptr);
}

TEST_CASE("run_until_complete with a stop_source turns loop.stop() into a stop request", "[signal_set]") {
  EventLoop loop(any_backend());
  std::stop_source stop;
  auto sleeper = [](EventLoop& l, std::stop_token t) -> Task<bool> {
    co_await duet::sleep_for(l, 10s, t);
    co_return t.stop_requested();
  };
  auto stopper = [](EventLoop& l) -> Task<void> {
    co_await duet::sleep_for(l, 5ms);
    l.stop();  // any thread or a signal handler may do this; here the loop's own
  };
  auto [stopped, done] =
      duet::run_until_complete(loop, duet::when_all(sleeper(loop, stop.get_token()), stopper(loop)), stop);
  CHECK(stopped);
  CHECK(stop.stop_requested());
  CHECK_FALSE(loop.stop_requested());  // consumed: the loop can run again
}
