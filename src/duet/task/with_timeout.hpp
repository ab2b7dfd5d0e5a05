// duet::with_timeout(awaiter, duration) — give any I/O awaiter a deadline.
//
// Contract
// - Works on every awaiter derived from IoAwaiter (recv, send, send_all, accept,
//   connect). The timeout travels with the operation into the backend
//   (IORING_OP_LINK_TIMEOUT on io_uring, the timer heap on epoll): when it
//   expires the op is cancelled in the kernel and the result is
//   std::errc::timed_out. For send_all it bounds the whole transfer.
// - Works on the waits of Event, Latch, Mutex and Semaphore too: there the
//   timeout is a sleep op in the loop's timer that withdraws the waiter from
//   the primitive's queue when it fires (same std::errc::timed_out).
// - Takes the awaiter as the prvalue the call returned and keeps only a reference:
//   use it inside one co_await expression, where that temporary lives until the
//   coroutine resumes.
//
//   auto r = co_await duet::with_timeout(sock.recv(buf), 500ms);
//   if (r.error() == std::errc::timed_out) { ... }
#pragma once

#include <chrono>
#include <concepts>
#include <coroutine>
#include <type_traits>

#include "duet/task/detail/sync_awaiter.hpp"
#include "duet/task/io_awaiter.hpp"

namespace duet {

// An I/O awaiter, or a coordination primitive's wait (task/detail/sync_awaiter.hpp).
template <typename Awaiter>
concept TimeoutAwaitable = std::derived_from<Awaiter, IoAwaiter> || std::derived_from<Awaiter, detail::SyncAwaiter>;

template <typename Awaiter>
  requires TimeoutAwaitable<Awaiter>
class TimeoutAwaiter {
 public:
  explicit TimeoutAwaiter(Awaiter& inner) noexcept : inner_(&inner) {}
  bool await_ready() noexcept { return inner_->await_ready(); }
  auto await_suspend(std::coroutine_handle<> waiter) noexcept { return inner_->await_suspend(waiter); }
  decltype(auto) await_resume() noexcept { return inner_->await_resume(); }

 private:
  Awaiter* inner_;
};

template <typename Awaiter, typename Rep, typename Period>
  requires TimeoutAwaitable<Awaiter>
TimeoutAwaiter<Awaiter> with_timeout(Awaiter&& awaiter, std::chrono::duration<Rep, Period> timeout) noexcept {
  static_assert(!std::is_lvalue_reference_v<Awaiter>, "pass the awaiter straight from the call");
  // A zero or negative timeout means "already expired": make it the shortest one.
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(timeout);
  awaiter.set_timeout(ns.count() > 0 ? ns : std::chrono::nanoseconds{1});
  return TimeoutAwaiter<Awaiter>(awaiter);
}

}  // namespace duet
