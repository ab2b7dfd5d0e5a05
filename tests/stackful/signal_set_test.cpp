// duet::fiber::SignalSet with real signals sent to this process, on both
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
#include <functional>
#include <set>
#include <span>
#include <stop_token>
#include <system_error>
#include <utility>
#include <variant>
#include <vector>

#include "duet/stackful/fiber.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/signal_set.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/tcp_listener.hpp"
#include "duet/stackful/tcp_stream.hpp"
#include "duet/stackful/this_fiber.hpp"
#include "duet/stackful/when_any.hpp"
#include "support/on_fibers.hpp"
#include "support/signals.hpp"

// The code docs/GUIDE.md quotes ("Signals and a clean stop"); tested below.
// guide:begin signals_stop_fiber
void echo(duet::fiber::TcpStream conn, std::stop_token stop) {
  char buf[4096];
  while (auto n = conn.recv(buf, stop)) {
    if (!conn.send_all(std::span<const char>(buf, *n), stop)) break;
  }
}

// Accepts until stopped; each connection's fiber gets the same token.
void serve(duet::fiber::TcpListener& listener, std::stop_token stop) {
  while (auto conn = listener.accept(stop)) duet::fiber::spawn(echo, std::move(*conn), stop).detach();
}

// Serves until SIGINT or SIGTERM, then stops every connection; returns the signal.
int serve_until_signal(duet::fiber::TcpListener& listener, duet::fiber::SignalSet& signals) {
  auto first = duet::fiber::when_any([&](std::stop_token stop) { serve(listener, stop); },
                                     [&](std::stop_token stop) { return signals.wait(stop); });
  return first.index() == 1 && std::get<1>(first) ? *std::get<1>(first) : 0;
}
// guide:end

int run_server(duet::Backend backend, std::uint16_t port) {
  // guide:begin signals_main_fiber
  duet::fiber::Scheduler scheduler({.backend = backend});
  duet::fiber::SignalSet signals({SIGINT, SIGTERM});  // first: threads started later inherit the mask
  auto listener = duet::fiber::TcpListener::bind(duet::SocketAddress::any(port));
  auto server = scheduler.spawn(serve_until_signal, std::ref(listener), std::ref(signals));
  scheduler.run();  // until the server and every connection's fiber have ended
  int signo = server.join();
  // guide:end
  return signo;
}

namespace {

using duet::Backend;
using duet::IoResult;
using duet::fiber::SignalSet;
using duet::test::on_fibers;
using namespace std::chrono_literals;

Backend any_backend() { return GENERATE(Backend::io_uring, Backend::epoll); }

}  // namespace

TEST_CASE("fiber: a signal sent to the process while a fiber waits is the wait's result", "[signal_set]") {
  on_fibers(any_backend(), [] {
    SignalSet signals({SIGUSR1, SIGUSR2});
    duet::fiber::spawn([] {
      duet::fiber::sleep_for(5ms);
      duet::test::send_to_process(SIGUSR2);
    }).detach();
    auto got = signals.wait();
    REQUIRE(got);
    CHECK(*got == SIGUSR2);
    CHECK_FALSE(duet::test::pending(SIGUSR2));
    return 0;
  });
}

TEST_CASE("fiber: a signal already pending is returned without parking", "[signal_set]") {
  on_fibers(any_backend(), [] {
    SignalSet signals({SIGUSR1});
    ::raise(SIGUSR1);  // thread-directed, to the scheduler's thread: seen as well
    auto got = signals.wait();
    REQUIRE(got);
    CHECK(*got == SIGUSR1);
    return 0;
  });
}

TEST_CASE("fiber: two different signals queued at once both arrive, one per wait", "[signal_set]") {
  on_fibers(any_backend(), [] {
    SignalSet signals({SIGUSR1, SIGUSR2});
    duet::test::send_to_process(SIGUSR1);
    duet::test::send_to_process(SIGUSR2);
    auto a = signals.wait();
    auto b = signals.wait();
    REQUIRE(a);
    REQUIRE(b);
    CHECK(std::set<int>{*a, *b} == std::set<int>{SIGUSR1, SIGUSR2});
    return 0;
  });
}

TEST_CASE("fiber: two fibers waiting on one set are each woken by one signal", "[signal_set]") {
  on_fibers(any_backend(), [] {
    SignalSet signals({SIGRTMIN});
    std::vector<int> got;
    auto waiter = [&] {
      auto r = signals.wait(2s);
      got.push_back(r ? *r : -1);
    };
    auto a = duet::fiber::spawn(waiter);
    auto b = duet::fiber::spawn(waiter);
    duet::fiber::sleep_for(5ms);  // both are parked on the signalfd now
    duet::test::send_to_process(SIGRTMIN);
    duet::test::send_to_process(SIGRTMIN);  // real-time: queued twice
    a.join();
    b.join();
    CHECK(got == std::vector<int>{SIGRTMIN, SIGRTMIN});
    return 0;
  });
}

TEST_CASE("fiber: two sets for one signal: one reads it, the other waits on and times out", "[signal_set]") {
  on_fibers(any_backend(), [] {
    SignalSet first({SIGUSR1});
    SignalSet second({SIGUSR1});
    std::vector<int> got;
    auto waiter = [&](SignalSet& s) {
      auto r = s.wait(100ms);
      got.push_back(r ? *r : (r.error() == std::errc::timed_out ? 0 : -1));
    };
    auto a = duet::fiber::spawn(waiter, std::ref(first));
    auto b = duet::fiber::spawn(waiter, std::ref(second));
    duet::fiber::sleep_for(5ms);  // both polls are armed: the signal wakes both
    duet::test::send_to_process(SIGUSR1);
    a.join();
    b.join();
    CHECK(std::multiset<int>(got.begin(), got.end()) == std::multiset<int>{0, SIGUSR1});
    return 0;
  });
}

TEST_CASE("fiber: a stop request cancels a signal wait", "[signal_set]") {
  on_fibers(any_backend(), [] {
    SignalSet signals({SIGUSR1});
    std::stop_source stop;
    duet::fiber::spawn([stop]() mutable {
      duet::fiber::sleep_for(5ms);
      stop.request_stop();
    }).detach();
    auto got = signals.wait(stop.get_token());
    REQUIRE_FALSE(got);
    CHECK(got.error() == std::errc::operation_canceled);
    return 0;
  });
}

TEST_CASE("fiber: a token already stopped fails at once and leaves the signal queued", "[signal_set]") {
  on_fibers(any_backend(), [] {
    SignalSet signals({SIGUSR1});
    duet::test::send_to_process(SIGUSR1);
    std::stop_source stop;
    stop.request_stop();
    CHECK(signals.wait(stop.get_token()).error() == std::errc::operation_canceled);
    auto got = signals.wait();
    REQUIRE(got);
    CHECK(*got == SIGUSR1);
    return 0;
  });
}

TEST_CASE("fiber: a signal wait with a timeout ends with timed_out", "[signal_set]") {
  on_fibers(any_backend(), [] {
    SignalSet signals({SIGUSR1});
    auto got = signals.wait(20ms);
    REQUIRE_FALSE(got);
    CHECK(got.error() == std::errc::timed_out);
    return 0;
  });
}

TEST_CASE("fiber: destroying the set restores the thread's mask", "[signal_set]") {
  on_fibers(any_backend(), [] {
    REQUIRE_FALSE(duet::test::blocked(SIGUSR1));
    {
      SignalSet signals({SIGUSR1});
      CHECK(duet::test::blocked(SIGUSR1));
    }
    CHECK_FALSE(duet::test::blocked(SIGUSR1));
    return 0;
  });
}

TEST_CASE("fiber: a signal set needs a scheduler and refuses Backend::sim", "[signal_set]") {
  CHECK_THROWS_AS(SignalSet({SIGUSR1}), std::logic_error);
  duet::fiber::Scheduler scheduler({.backend = Backend::sim});
  try {
    SignalSet signals({SIGUSR1});
    FAIL("a fiber SignalSet on Backend::sim was made");
  } catch (const std::system_error& e) {
    CHECK(e.code() == std::errc::not_supported);
  }
  CHECK_FALSE(duet::test::blocked(SIGUSR1));
}

namespace {

// Three clients echo a line each, then SIGTERM is sent: every client must
// read EOF (its connection's fiber ended) within the timeout.
int clients_then_sigterm(std::uint16_t port) {
  std::vector<duet::fiber::TcpStream> clients;
  for (int i = 0; i < 3; ++i) {
    auto conn = duet::fiber::TcpStream::connect(*duet::SocketAddress::parse("127.0.0.1", port));
    REQUIRE(conn);
    REQUIRE(conn->send_all(std::string_view("ping")));
    char buf[4];
    for (std::size_t got = 0; got < sizeof buf;) {  // the echo may come back in pieces
      auto n = conn->recv(std::span<char>(buf + got, sizeof buf - got), 2s);
      REQUIRE(n);
      got += *n;
    }
    clients.push_back(std::move(*conn));
  }
  duet::test::send_to_process(SIGTERM);
  int eofs = 0;
  for (auto& c : clients) {
    char buf[4];
    eofs += c.recv(buf, 2s).eof() ? 1 : 0;
  }
  return eofs;
}

}  // namespace

TEST_CASE("fiber: SIGTERM stops a server with live connections cleanly (the GUIDE's recipe)", "[signal_set]") {
  duet::fiber::Scheduler scheduler({.backend = any_backend()});
  SignalSet signals({SIGINT, SIGTERM});
  auto listener = duet::fiber::TcpListener::bind(*duet::SocketAddress::parse("127.0.0.1", 0));
  auto server = scheduler.spawn(serve_until_signal, std::ref(listener), std::ref(signals));
  auto clients = scheduler.spawn(clients_then_sigterm, listener.local_address().port());
  scheduler.run();
  CHECK(server.join() == SIGTERM);
  CHECK(clients.join() == 3);
  CHECK(scheduler.loop().in_flight() == 0);
}

TEST_CASE("fiber: the GUIDE's main returns the SIGTERM that was pending when it started", "[signal_set]") {
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

TEST_CASE("Scheduler::run with a stop_source turns loop.stop() into a stop request", "[signal_set]") {
  duet::fiber::Scheduler scheduler({.backend = any_backend()});
  std::stop_source stop;
  auto sleeper = scheduler.spawn([token = stop.get_token()] {
    duet::fiber::sleep_for(10s, token);
    return token.stop_requested();
  });
  scheduler.spawn([&scheduler] {
    duet::fiber::sleep_for(5ms);
    scheduler.loop().stop();  // any thread or a signal handler may do this; here a fiber
  }).detach();
  scheduler.run(stop);
  CHECK(sleeper.join());
  CHECK(stop.stop_requested());
  CHECK_FALSE(scheduler.loop().stop_requested());  // consumed: the scheduler can run again
}
