// duet::when_first_ok (src/duet/task/when_first_ok.hpp) on both backends: the
// first task to *succeed* wins (a refused connect that ends first does not),
// the others are stopped and awaited before it returns (loop.in_flight() == 0
// right after), and when none succeeds every child's failure comes back in
// child order. Each test drives the loop with a time limit, so a child that is
// never stopped is a failed check, not a hung suite. The fiber twin is
// tests/stackful/when_first_ok_test.cpp.
#include <catch2/catch.hpp>

#include <chrono>
#include <exception>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "duet/io/event_loop.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/task.hpp"
#include "duet/task/tcp_listener.hpp"
#include "duet/task/tcp_stream.hpp"
#include "duet/task/when_first_ok.hpp"
#include "support/run_bounded.hpp"
#include "support/refusing_port.hpp"

namespace {

using duet::Backend;
using duet::EventLoop;
using duet::IoResult;
using duet::SocketAddress;
using duet::Task;
using duet::TcpStream;
using namespace std::chrono_literals;

Backend any_backend() { return GENERATE(Backend::io_uring, Backend::epoll); }

using duet::test::run_bounded;

struct Tally {
  int cancelled = 0;
  int finished = 0;
};

// One backend's loop, a listening port, a refusing port, and the source the children's tokens come from.
struct Fixture {
  Backend backend = any_backend();
  EventLoop loop{backend};
  duet::TcpListener listener = duet::TcpListener::bind(loop, SocketAddress::parse("127.0.0.1", 0).value());
  duet::test::RefusingPort refused;
  Tally tally;
  std::stop_source stop;
};

// Waits `delay` (cut short by the token), then connects; counts its end and a cancellation.
Task<IoResult<TcpStream>> connect_after(EventLoop& loop, std::chrono::milliseconds delay, SocketAddress addr,
                                        std::stop_token token, Tally& tally) {
  IoResult<TcpStream> r = std::make_error_code(std::errc::operation_canceled);
  const bool slept = co_await duet::sleep_for(loop, delay, token);
  if (slept) r = co_await TcpStream::connect(loop, addr, token);
  ++tally.finished;
  if (r.error() == std::errc::operation_canceled) ++tally.cancelled;
  co_return r;
}

// A named result: with `if (!co_await ...) co_return -1;` g++ 12 built a task whose body never ran.
Task<int> value_after(EventLoop& loop, std::chrono::milliseconds delay, int value, std::stop_token token = {}) {
  const bool slept = co_await duet::sleep_for(loop, delay, std::move(token));
  co_return slept ? value : -1;
}

Task<IoResult<int>> error_after(EventLoop& loop, std::chrono::milliseconds delay, std::errc error) {
  co_await duet::sleep_for(loop, delay);
  co_return std::make_error_code(error);
}

template <typename T>
Task<T> throw_after(EventLoop& loop, std::chrono::milliseconds delay, const char* what) {
  co_await duet::sleep_for(loop, delay);
  throw std::runtime_error(what);
}

Task<IoResult<int>> at_once(IoResult<int> r) { co_return r; }

Task<IoResult<int>> ok_after(EventLoop& loop, std::chrono::milliseconds delay, int value, std::stop_token token,
                             Tally& tally) {
  const bool slept = co_await duet::sleep_for(loop, delay, std::move(token));
  ++tally.finished;
  if (!slept) ++tally.cancelled;
  co_return slept ? IoResult<int>(value) : IoResult<int>(std::make_error_code(std::errc::operation_canceled));
}

}  // namespace

TEST_CASE("a refused connect that ends first loses to a slower connect that succeeds, and the rest is cancelled") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  auto& [backend, loop, listener, refused, tally, stop] = f;
  std::vector<Task<IoResult<TcpStream>>> tries;
  tries.push_back(connect_after(loop, 0ms, refused.addr, stop.get_token(), tally));
  tries.push_back(connect_after(loop, 20ms, listener.local_address(), stop.get_token(), tally));
  tries.push_back(connect_after(loop, 10s, listener.local_address(), stop.get_token(), tally));
  auto r = run_bounded(loop, duet::when_first_ok(stop, std::move(tries)));
  REQUIRE(r.ok());
  CHECK(r.index() == 1);
  CHECK(r.value().ok());
  CHECK(r.value()->native_handle() >= 0);
  CHECK(r.failures().empty());
  CHECK(tally.finished == 3);  // every child ended before when_first_ok returned
  CHECK(tally.cancelled == 1);  // the 10 s one, stopped by the winner
  CHECK(stop.stop_requested());
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("when every child fails, when_first_ok reports each failure in child order and stops nothing") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  auto& [backend, loop, listener, refused, tally, stop] = f;
  std::vector<Task<IoResult<int>>> tasks;
  tasks.push_back(error_after(loop, 15ms, std::errc::connection_refused));  // ends last
  tasks.push_back(throw_after<IoResult<int>>(loop, 5ms, "boom"));
  tasks.push_back(error_after(loop, 1ms, std::errc::timed_out));  // ends first
  auto r = run_bounded(loop, duet::when_first_ok(stop, std::move(tasks)));
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.failures().size() == 3);
  CHECK(r.failures()[0].error() == std::errc::connection_refused);
  CHECK_FALSE(r.failures()[0].threw());
  CHECK(r.failures()[1].threw());
  CHECK(r.failures()[1].message() == "boom");
  CHECK_THROWS_AS(r.failures()[1].value(), std::logic_error);
  CHECK(r.failures()[2].error() == std::errc::timed_out);
  CHECK(r.failures()[2].value().error() == std::errc::timed_out);
  CHECK_FALSE(stop.stop_requested());
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("index() and value() of a result with no winner throw AllFailed listing every failure") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  auto& [backend, loop, listener, refused, tally, stop] = f;
  auto r = run_bounded(loop, duet::when_first_ok(stop, connect_after(loop, 0ms, refused.addr, {}, tally),
                                                 connect_after(loop, 1ms, refused.addr, {}, tally)));
  REQUIRE_FALSE(r);
  CHECK(r.failures()[0].error() == std::errc::connection_refused);
  CHECK(r.failures()[1].error() == std::errc::connection_refused);
  const std::string refused_text = std::make_error_code(std::errc::connection_refused).message();
  try {
    (void)r.value();
    FAIL("value() did not throw");
  } catch (const duet::AllFailed& e) {
    CHECK(e.count() == 2);
    CHECK(std::string(e.what()) ==
          "duet: when_first_ok: all 2 children failed: [0] " + refused_text + "; [1] " + refused_text);
  }
  CHECK_THROWS_AS(r.index(), duet::AllFailed);
}

TEST_CASE("with a predicate, the first value that passes wins and the ones it rejects do not") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  auto& [backend, loop, listener, refused, tally, stop] = f;
  std::vector<Task<int>> tasks;
  tasks.push_back(value_after(loop, 10s, 100, stop.get_token()));  // would pass, but is stopped
  tasks.push_back(value_after(loop, 1ms, 1));                      // ends first, rejected
  tasks.push_back(value_after(loop, 10ms, 7));
  auto r = run_bounded(loop, duet::when_first_ok(stop, std::move(tasks), [](int v) { return v > 5; }));
  REQUIRE(r);
  CHECK(r.index() == 2);
  CHECK(r.value() == 7);
  CHECK(loop.in_flight() == 0);

  std::stop_source stop2;
  std::vector<Task<int>> all_small;
  all_small.push_back(value_after(loop, 2ms, 3));
  all_small.push_back(value_after(loop, 1ms, 4));
  auto none = run_bounded(loop, duet::when_first_ok(stop2, std::move(all_small), [](int v) { return v > 5; }));
  REQUIRE_FALSE(none);
  CHECK(none.failures()[0].value() == 3);  // the rejected values, in child order
  CHECK(none.failures()[1].value() == 4);
  CHECK(none.failures()[1].message() == "rejected by the predicate");
}

TEST_CASE("a child's exception counts as its failure, and so does a predicate that throws") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  auto& [backend, loop, listener, refused, tally, stop] = f;
  std::vector<Task<int>> tasks;
  tasks.push_back(throw_after<int>(loop, 1ms, "first to end, but threw"));
  tasks.push_back(value_after(loop, 10ms, 5));
  auto r = run_bounded(loop, duet::when_first_ok(stop, std::move(tasks)));
  REQUIRE(r);
  CHECK(r.index() == 1);
  CHECK(r.value() == 5);

  std::stop_source stop2;
  std::vector<Task<int>> picky;
  picky.push_back(value_after(loop, 1ms, 13));
  auto none = run_bounded(loop, duet::when_first_ok(stop2, std::move(picky), [](int v) -> bool {
                            if (v == 13) throw std::domain_error("unlucky");
                            return true;
                          }));
  REQUIRE_FALSE(none);
  CHECK(none.failures()[0].threw());
  CHECK(none.failures()[0].message() == "unlucky");
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("a child that succeeds while when_first_ok starts the others wins, and the later ones start stopped") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  auto& [backend, loop, listener, refused, tally, stop] = f;
  std::vector<Task<IoResult<int>>> tasks;
  tasks.push_back(at_once(std::make_error_code(std::errc::connection_refused)));  // fails at once: no win
  tasks.push_back(at_once(9));
  tasks.push_back(ok_after(loop, 10s, 1, stop.get_token(), tally));
  auto r = run_bounded(loop, duet::when_first_ok(stop, std::move(tasks)));
  REQUIRE(r);
  CHECK(r.index() == 1);
  CHECK(*r.value() == 9);
  CHECK(tally.finished == 1);
  CHECK(tally.cancelled == 1);
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("a stop requested from outside ends every child, reported as failures") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  auto& [backend, loop, listener, refused, tally, stop] = f;
  std::vector<Task<IoResult<int>>> tasks;
  tasks.push_back(ok_after(loop, 10s, 1, stop.get_token(), tally));
  tasks.push_back(ok_after(loop, 10s, 2, stop.get_token(), tally));
  auto stopper = [](EventLoop& lp, std::stop_source s) -> Task<void> {
    co_await duet::sleep_for(lp, 5ms);
    s.request_stop();
  }(loop, stop);
  stopper.handle().resume();
  auto r = run_bounded(loop, duet::when_first_ok(stop, std::move(tasks)));
  REQUIRE_FALSE(r);
  CHECK(r.failures()[0].error() == std::errc::operation_canceled);
  CHECK(r.failures()[1].error() == std::errc::operation_canceled);
  CHECK(tally.cancelled == 2);
  CHECK(stopper.done());
  CHECK(loop.in_flight() == 0);
}

Task<void> nap_or_throw(EventLoop& loop, std::chrono::milliseconds delay, bool fail) {
  co_await duet::sleep_for(loop, delay);
  if (fail) throw std::runtime_error("void child failed");
}

TEST_CASE("void tasks succeed by returning, and an empty vector throws invalid_argument when awaited") {
  EventLoop loop(Backend::epoll);
  std::stop_source stop;
  std::vector<Task<void>> tasks;
  tasks.push_back(nap_or_throw(loop, 1ms, true));
  tasks.push_back(nap_or_throw(loop, 5ms, false));
  auto r = run_bounded(loop, duet::when_first_ok(stop, std::move(tasks)));
  REQUIRE(r);
  CHECK(r.index() == 1);
  auto empty = duet::when_first_ok(stop, std::vector<Task<int>>{});  // nothing thrown yet: lazy
  CHECK_THROWS_AS(run_bounded(loop, std::move(empty)), std::invalid_argument);
}

// The code docs/GUIDE.md quotes for when_first_ok (checked by tests/io/check_guide.py).
namespace guide {

// guide:begin when_first_ok
duet::Task<duet::IoResult<duet::TcpStream>> connect_to(duet::EventLoop& loop, duet::SocketAddress addr,
                                                       std::stop_token stop) {
  co_return co_await duet::TcpStream::connect(loop, addr, stop);
}

// The first replica that accepts the connection; the other attempts are cancelled.
duet::Task<duet::IoResult<duet::TcpStream>> connect_any(duet::EventLoop& loop,
                                                        std::vector<duet::SocketAddress> replicas) {
  std::stop_source stop;
  std::vector<duet::Task<duet::IoResult<duet::TcpStream>>> tries;
  for (const auto& addr : replicas) tries.push_back(connect_to(loop, addr, stop.get_token()));
  auto r = co_await duet::when_first_ok(stop, std::move(tries));
  if (r) co_return std::move(r).value();  // a refused replica that answered sooner did not win
  co_return r.failures().back().error();  // none connected: failures()[i] says why replica i failed
}
// guide:end

}  // namespace guide

TEST_CASE("the guide's connect_any takes the replica that connects, or reports why none did") {
  Fixture f;
  INFO("backend " << duet::backend_name(f.backend));
  auto& [backend, loop, listener, refused, tally, stop] = f;
  auto conn = run_bounded(loop, guide::connect_any(loop, {refused.addr, listener.local_address(), refused.addr}));
  CHECK(conn.ok());
  auto none = run_bounded(loop, guide::connect_any(loop, {refused.addr, refused.addr}));
  CHECK(none.error() == std::errc::connection_refused);
  CHECK(loop.in_flight() == 0);
}
