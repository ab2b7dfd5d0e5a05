// on_fibers(backend, body[, stack_size]): runs body on a fiber of a fresh
// Scheduler over `backend`, runs the scheduler dry, checks that no op is left
// in flight, and returns body's result. For the stackful voice's I/O tests
// (TLS's want deeper stacks: OpenSSL's handshake).
//
//   CHECK(duet::test::on_fibers(Backend::epoll, [] { return 42; }) == 42);
#pragma once

#include <catch2/catch.hpp>

#include <cstddef>
#include <utility>

#include "duet/stackful/scheduler.hpp"

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

}  // namespace duet::test
