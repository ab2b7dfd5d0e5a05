// duet::fiber::offload(fn) — blocking work on a BlockingPool thread, the
// calling fiber blocked (not its thread) until the result is back.
//
// Contract: task/offload.hpp's, in the stackful voice. Call it on a fiber:
// fn() runs on a pool thread (default_blocking_pool() without a pool), the
// fiber resumes on its own scheduler's thread with IoResult<T> (fn's value,
// errc::operation_canceled if stop came before fn started,
// errc::resource_unavailable_try_again for a full queue with WhenFull::fail
// or a pool shut down) or rethrows fn's exception. A full queue with
// WhenFull::wait parks the fiber until there is room. Outside a fiber:
// std::logic_error.
//
//   duet::IoResult<std::string> s = duet::fiber::offload([&] { return read_file(path); });
//   auto r = duet::fiber::offload(pool, [] { return resolve(host); }, token, duet::WhenFull::fail);
#pragma once

#include <cerrno>
#include <optional>
#include <stop_token>
#include <type_traits>
#include <utility>

#include "duet/io/io_result.hpp"
#include "duet/runtime/blocking_pool.hpp"
#include "duet/task/detail/offload_job.hpp"

namespace duet::fiber {

namespace detail {

// The fiber side of any remote op: context_ points at it.
struct FiberWake {
  void* fiber_ = nullptr;  // the parked fiber (detail::FiberRecord*)
  bool done_ = false;
  int res_ = 0;
};
// Where this fiber's answers arrive (throws std::logic_error off a fiber).
EventLoop& fiber_home(FiberWake& wake);
void fiber_wake(IoOp* op, int res) noexcept;
void park_until_done(FiberWake& wake);

}  // namespace detail

template <typename F>
IoResult<std::invoke_result_t<std::decay_t<F>&>> offload(BlockingPool& pool, F&& fn, std::stop_token stop = {},
                                                         WhenFull when_full = WhenFull::wait) {
  duet::detail::OffloadJob<std::decay_t<F>> job(pool, std::decay_t<F>(std::forward<F>(fn)));
  detail::FiberWake wake;
  EventLoop& home = detail::fiber_home(wake);
  if (stop.stop_requested()) {
    job.answered(-ECANCELED);
    return job.take();
  }
  job.start(home, &detail::fiber_wake, &wake, when_full == WhenFull::wait);
  {
    auto cancel = [&job]() noexcept { job.cancel(); };
    std::optional<std::stop_callback<decltype(cancel)>> on_stop;
    if (stop.stop_possible()) on_stop.emplace(stop, cancel);
    detail::park_until_done(wake);
  }
  job.answered(wake.res_);
  return job.take();
}

template <typename F>
  requires(!std::is_same_v<std::decay_t<F>, BlockingPool>)
IoResult<std::invoke_result_t<std::decay_t<F>&>> offload(F&& fn, std::stop_token stop = {},
                                                         WhenFull when_full = WhenFull::wait) {
  // Qualified: BlockingPool's namespace would bring duet::offload (the task
  // voice's) in by ADL, and a file that includes both voices would not compile.
  return fiber::offload(default_blocking_pool(), std::forward<F>(fn), std::move(stop), when_full);
}

}  // namespace duet::fiber
