// duet::fiber::when_first_ok (src/duet/stackful/when_first_ok.hpp) on both
// backends: each callable runs on its own fiber; the first to *succeed* wins
// (a refused connect that ends first does not), the others are stopped and
// joined before it returns (loop().in_flight() == 0 right after), and when
// none succeeds every fiber's failure comes back in order. The stackless twin
// is tests/task/when_first_ok_test.cpp.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <functional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "duet/stackful/scheduler.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/tcp_listener.hpp"
#include "duet/stackful/tcp_stream.hpp"
#include "duet/stackful/this_fiber.hpp"
#include "duet/stackful/when_first_ok.hpp"
#include "support/on_fibers.hpp"
#include "support/refusing_port.hpp"
#include "support/socket_pair.hpp"

using namespace std::chrono_literals;
using duet::Backend;
using duet::IoResult;
using duet::SocketAddress;
using duet::fiber::Scheduler;
using duet::fiber::TcpStream;
namespace fiber = duet::fiber;

namespace {

Backend any_backend() { return GENERATE(Backend::io_uring, Backend::epoll); }

// Runs body on a fiber of a fresh scheduler over each backend; checks nothing is left.
template <typename Body>
void on_fibers(Body body) {
  duet::test::run_checked_on_fibers(any_backend(), std::move(body));
}

struct Tally {
  int cancelled = 0;
  int finished = 0;
};

// Sleeps `delay` (cut short by the token), then connects; counts its end and a cancellation.
IoResult<TcpStream> connect_after(std::chrono::milliseconds delay, const SocketAddress& addr,
                                  const std::stop_token& token, Tally& tally) {
  IoResult<TcpStream> r = std::make_error_code(std::errc::operation_canceled);
  if (fiber::sleep_for(delay, token)) r = TcpStream::connect(addr, token);
  ++tally.finished;
  if (r.error() == std::errc::operation_canceled) ++tally.cancelled;
  return r;
}

using Connect = std::function<IoResult<TcpStream>(std::stop_token)>;
using IntResult = std::function<IoResult<int>(std::stop_token)>;

IntResult error_after(std::chrono::milliseconds delay, std::errc error) {
  return [=](std::stop_token) -> IoResult<int> {
    fiber::sleep_for(delay);
    return std::make_error_code(error);
  };
}

}  // namespace

TEST_CASE("fiber: a refused connect that ends first loses to a slower connect that succeeds, the rest is cancelled") {
  on_fibers([] {
    auto listener = fiber::TcpListener::bind(SocketAddress::parse("127.0.0.1", 0).value());
    const SocketAddress good = listener.local_address();
    const duet::test::RefusingPort refused;
    Tally tally;
    std::vector<Connect> tries;
    tries.emplace_back([&](std::stop_token t) { return connect_after(0ms, refused.addr, t, tally); });
    tries.emplace_back([&](std::stop_token t) { return connect_after(20ms, good, t, tally); });
    tries.emplace_back([&](std::stop_token t) { return connect_after(10s, good, t, tally); });
    auto r = fiber::when_first_ok(std::move(tries));
    REQUIRE(r.ok());
    CHECK(r.index() == 1);
    CHECK(r.value().ok());
    CHECK(r.value()->native_handle() >= 0);
    CHECK(tally.finished == 3);   // every fiber ended before when_first_ok returned
    CHECK(tally.cancelled == 1);  // the 10 s one, stopped by the winner
  });
}

TEST_CASE("fiber: when every callable fails, when_first_ok reports each failure in order, and value() throws") {
  on_fibers([] {
    std::vector<IntResult> fns;
    fns.push_back(error_after(15ms, std::errc::connection_refused));  // ends last
    fns.emplace_back([](std::stop_token) -> IoResult<int> {
      fiber::sleep_for(5ms);
      throw std::runtime_error("boom");
    });
    fns.push_back(error_after(1ms, std::errc::timed_out));  // ends first
    auto r = fiber::when_first_ok(std::move(fns));
    REQUIRE_FALSE(r.ok());
    REQUIRE(r.failures().size() == 3);
    CHECK(r.failures()[0].error() == std::errc::connection_refused);
    CHECK(r.failures()[1].threw());
    CHECK(r.failures()[1].message() == "boom");
    CHECK(r.failures()[2].value().error() == std::errc::timed_out);
    CHECK_THROWS_AS(r.value(), fiber::AllFailed);
    try {
      (void)r.index();
    } catch (const fiber::AllFailed& e) {
      CHECK(e.count() == 3);
      CHECK(std::string(e.what()).find("[1] boom;") != std::string::npos);
    }
  });
}

TEST_CASE("fiber: with a predicate, the first value that passes wins and the ones it rejects do not") {
  on_fibers([] {
    auto after = [](std::chrono::milliseconds d, int v) {
      return std::function<int(std::stop_token)>([=](std::stop_token t) { return fiber::sleep_for(d, t) ? v : -1; });
    };
    auto big = [](int v) { return v > 5; };
    auto r = fiber::when_first_ok(std::vector{after(10s, 100), after(1ms, 1), after(10ms, 7)}, big);
    REQUIRE(r);
    CHECK(r.index() == 2);
    CHECK(r.value() == 7);
    auto none = fiber::when_first_ok(std::vector{after(2ms, 3), after(1ms, 4)}, big);
    REQUIRE_FALSE(none);
    CHECK(none.failures()[0].value() == 3);  // the rejected values, in order
    CHECK(none.failures()[1].value() == 4);
    CHECK(none.failures()[1].message() == "rejected by the predicate");
    auto unlucky = fiber::when_first_ok(std::vector{after(1ms, 13)}, [](int v) -> bool {
      if (v == 13) throw std::domain_error("unlucky");
      return true;
    });
    REQUIRE_FALSE(unlucky);
    CHECK(unlucky.failures()[0].message() == "unlucky");  // a throwing predicate fails its child
  });
}

TEST_CASE("fiber: an exception counts as a failure, and callables of different types share one result type") {
  on_fibers([] {
    auto r = fiber::when_first_ok(
        [](std::stop_token) -> int {
          fiber::sleep_for(1ms);
          throw std::runtime_error("first to end, but threw");
        },
        [](std::stop_token) {
          fiber::sleep_for(10ms);
          return 5;
        });
    REQUIRE(r);
    CHECK(r.index() == 1);
    CHECK(r.value() == 5);
  });
}

TEST_CASE("fiber: a callable that succeeds without blocking wins, and the later ones run already stopped") {
  on_fibers([] {
    duet::test::SocketPair silent_pair;
    TcpStream silent{Scheduler::current()->loop(), ::dup(silent_pair.fds[0])};
    int cancelled = 0;
    std::vector<IntResult> fns;
    fns.emplace_back([](std::stop_token) -> IoResult<int> { return std::make_error_code(std::errc::timed_out); });
    fns.emplace_back([](std::stop_token) -> IoResult<int> { return 9; });
    fns.emplace_back([&](std::stop_token t) -> IoResult<int> {
      char buf[8];
      auto n = silent.recv(buf, t);
      if (n.error() == std::errc::operation_canceled) ++cancelled;
      return n ? IoResult<int>(static_cast<int>(*n)) : IoResult<int>(n.error());
    });
    auto r = fiber::when_first_ok(std::move(fns));
    REQUIRE(r);
    CHECK(r.index() == 1);
    CHECK(*r.value() == 9);
    CHECK(cancelled == 1);
  });
}

TEST_CASE("fiber: the caller's stop token ends every callable, reported as failures") {
  on_fibers([] {
    std::stop_source outer;
    auto stopper = fiber::spawn([&] {
      fiber::sleep_for(5ms);
      outer.request_stop();
    });
    auto nap = [](std::stop_token t) -> IoResult<void> {
      if (fiber::sleep_for(10s, t)) return {};
      return std::make_error_code(std::errc::operation_canceled);
    };
    auto r = fiber::when_first_ok(outer.get_token(), nap, nap);
    stopper.join();
    REQUIRE_FALSE(r);
    CHECK(r.failures()[0].error() == std::errc::operation_canceled);
    CHECK(r.failures()[1].error() == std::errc::operation_canceled);
  });
}

TEST_CASE("fiber when_first_ok called outside any fiber drives the scheduler, through success and failure") {
  const Backend backend = any_backend();
  INFO("backend " << duet::backend_name(backend));
  const duet::test::AlarmGuard alarm;  // a combinator that never returns ends the binary
  Scheduler scheduler({.backend = backend, .stack_size = 64 * 1024});
  const duet::test::RefusingPort refused;
  Tally tally;
  auto none = fiber::when_first_ok(std::vector<Connect>{
      [&](std::stop_token t) { return connect_after(0ms, refused.addr, t, tally); },
      [&](std::stop_token t) { return connect_after(2ms, refused.addr, t, tally); }});
  REQUIRE_FALSE(none);
  CHECK(none.failures()[0].error() == std::errc::connection_refused);
  CHECK(none.failures()[1].error() == std::errc::connection_refused);
  auto one = fiber::when_first_ok([](std::stop_token) { return 1; },
                                  [](std::stop_token t) { return fiber::sleep_for(10s, t) ? 2 : -1; });
  CHECK(one.index() == 0);
  CHECK(scheduler.loop().in_flight() == 0);
  CHECK(scheduler.live_fibers() == 0);
}

TEST_CASE("fiber when_first_ok of void callables, and of no callables, which throws invalid_argument") {
  Scheduler scheduler({.backend = Backend::epoll, .stack_size = 64 * 1024});
  auto r = fiber::when_first_ok([](std::stop_token) { throw std::runtime_error("no"); }, [](std::stop_token) {});
  CHECK(r.index() == 1);
  CHECK_THROWS_AS(fiber::when_first_ok(std::vector<std::function<int(std::stop_token)>>{}), std::invalid_argument);
}

// The code docs/GUIDE.md quotes for fiber::when_first_ok (checked by check_guide_stackful.py).
namespace guide {

// guide:begin when_first_ok
// The first replica that accepts the connection; the other attempts are cancelled.
duet::IoResult<duet::fiber::TcpStream> connect_any(const std::vector<duet::SocketAddress>& replicas) {
  std::vector<std::function<duet::IoResult<duet::fiber::TcpStream>(std::stop_token)>> tries;
  for (const auto& addr : replicas) {
    tries.emplace_back([&addr](std::stop_token stop) { return duet::fiber::TcpStream::connect(addr, stop); });
  }
  auto r = duet::fiber::when_first_ok(std::move(tries));
  if (r) return std::move(r).value();  // a refused replica that answered sooner did not win
  return r.failures().back().error();  // none connected: failures()[i] says why replica i failed
}
// guide:end

}  // namespace guide

TEST_CASE("the guide's fiber connect_any takes the replica that connects, or reports why none did") {
  on_fibers([] {
    auto listener = fiber::TcpListener::bind(SocketAddress::parse("127.0.0.1", 0).value());
    const duet::test::RefusingPort refused;
    CHECK(guide::connect_any({refused.addr, listener.local_address(), refused.addr}).ok());
    CHECK(guide::connect_any({refused.addr, refused.addr}).error() == std::errc::connection_refused);
  });
}
