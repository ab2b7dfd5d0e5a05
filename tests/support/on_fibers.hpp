// on_fibers(backend, body[, stack_size]): runs body on a fiber of a fresh
// Scheduler over `backend`, runs the scheduler dry, checks that no op is left
// in flight, and returns body's result. For the stackful voice's I/O tests
// (TLS's want deeper stacks: OpenSSL's handshake).
//
//   CHECK(duet::test::on_fibers(Backend::epoll, [] { return 42; }) == 42);
//
// run_checked_on_fibers(backend, body): the same for the combinators' tests
// (when_any, when_first_ok, with_timeout), where a bug shows up as a call that
// never returns: under a 20 s alarm (support/alarm_guard.hpp), body (-> void,
// or -> bool that must be true) detached on a fiber; afterwards no op in
// flight and no fiber left.
#pragma once

#include <catch2/catch.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

#include "duet/stackful/scheduler.hpp"
#include "support/alarm_guard.hpp"

namespace duet::test {

template <typename Body>
auto on_fibers(Backend backend, Body body, std::size_t stack_size = 64 * 1024) {
  fiber::Scheduler scheduler({.backend = backend, .stack_size = stack_size});
  auto main_fiber = scheduler.spawn(std::move(body));
  auto result = main_fiber.join();
  scheduler.run();
  CHECK(scheduler.loop().in_flight() == 0);
  return result;
}

template <typename Body>
void run_checked_on_fibers(Backend backend, Body body) {
  INFO("backend " << backend_name(backend));
  const AlarmGuard alarm;
  fiber::Scheduler scheduler({.backend = backend, .stack_size = 64 * 1024});
  bool ok = false;
  scheduler.spawn([&] {
    if constexpr (std::is_same_v<std::invoke_result_t<Body&>, bool>) {
      ok = body();
    } else {
      body();
      ok = true;
    }
  }).detach();
  scheduler.run();
  CHECK(ok);
  CHECK(scheduler.loop().in_flight() == 0);
  CHECK(scheduler.live_fibers() == 0);
}

}  // namespace duet::test
