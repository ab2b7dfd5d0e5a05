// duet::on(shard, factory), duet::spawn_on(shard, factory) — tasks on another shard.
//
// Contract
// - co_await on(shard, factory): factory() (a callable returning Task<T>) is
//   called on shard's thread and its task runs there; its value comes back,
//   or its exception is rethrown, here: the awaiting coroutine resumes on the
//   thread it awaited from (that thread's EventLoop::current(); on a thread
//   with no loop, such as sync_wait's, it resumes on the shard's thread).
//   factory is moved into on's frame and lives until the task is done, so a
//   lambda coroutine's captures stay valid. Two messages per call, no other
//   allocation than on's frame (the task's own frame is made on the shard).
// - spawn_on(shard, factory): starts the task on shard and does not wait; an
//   exception escaping it is kept by the set (ShardSet::stop rethrows it).
// - Neither moves anything else: the task must not touch the caller's
//   loop-bound objects (sockets, Events) from the shard; send it values.
//
//   int n = co_await duet::on(set.shard(1), [&] { return count_keys(); });
//   duet::spawn_on(set.shard(2), [] { return serve(); });
#pragma once

#include <exception>
#include <type_traits>
#include <utility>

#include "duet/io/event_loop.hpp"
#include "duet/runtime/shard.hpp"
#include "duet/task/detail/result.hpp"
#include "duet/task/detail/task_runner.hpp"
#include "duet/task/resume_on.hpp"
#include "duet/task/task.hpp"

namespace duet {

namespace detail {

template <typename F>
using FactoryValue = typename std::invoke_result_t<F&>::value_type;

// A detached coroutine: starts at once, frees itself at the end, hands an
// escaping exception to the shard it ran on.
struct DetachedOnShard {
  struct promise_type {
    DetachedOnShard get_return_object() const noexcept { return {}; }
    std::suspend_never initial_suspend() const noexcept { return {}; }
    std::suspend_never final_suspend() const noexcept { return {}; }
    void return_void() const noexcept {}
    void unhandled_exception() const noexcept {
      if (Shard* shard = this_shard()) {
        shard->report(std::current_exception());
      } else {
        std::terminate();
      }
    }
  };
};

template <typename F>
DetachedOnShard run_detached(F factory) {
  co_await factory();
}

}  // namespace detail

template <typename F, typename T = detail::FactoryValue<F>>
Task<T> on(Shard& shard, F factory) {
  EventLoop* home = EventLoop::current();  // the task starts on the caller's thread
  // Home awaits the answer (its loop may spin for it: LoopOptions::reply_spin).
  const bool hops = home != nullptr && home != &shard.loop();
  if (hops) home->await_reply();
  co_await resume_on(shard);
  detail::Result<T> result;
  try {
    if constexpr (std::is_void_v<T>) {
      co_await factory();
      result.set_value();
    } else {
      result.set_value(co_await factory());
    }
  } catch (...) {
    result.set_exception(std::current_exception());
  }
  if (home != nullptr) co_await resume_on(*home);
  if (hops) home->reply_arrived();
  co_return detail::take_result(result);
}

template <typename F>
void spawn_on(Shard& shard, F factory) {
  shard.post([f = std::move(factory)]() mutable { detail::run_detached(std::move(f)); });
}

}  // namespace duet
