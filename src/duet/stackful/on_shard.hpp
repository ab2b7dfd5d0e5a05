// duet::fiber::on(shard, fn), fiber::spawn_on, fiber::shard_runner — fibers across shards.
//
// Contract
// - fiber::shard_runner(): the ShardRunner of the stackful voice. Each shard's
//   thread gets a fiber::Scheduler on the set's backend, and the shard's loop
//   is that scheduler's; the shard is quiet when no fiber but the runner's own
//   is alive. Pass it to ShardSet: ShardSet set(options, fiber::shard_runner()).
// - fiber::on(shard, fn), on a fiber: blocks the calling fiber (not its
//   thread: other fibers run meanwhile) until fn() has run on shard's thread —
//   on a fiber of its own there when the shard has a scheduler, so fn may
//   block in fiber calls — and returns its value or rethrows its exception.
//   fn is used in place (it lives on the caller's stack until the call
//   returns). On the shard itself fn just runs. Called outside a fiber:
//   std::logic_error. The calling fiber counts as work in flight on its loop.
// - fiber::spawn_on(shard, fn): a detached fiber on shard (its scheduler's);
//   an exception escaping it reaches ShardSet::stop / join.
// - Thread rules: any fiber may call on(); spawn_on from any thread.
//
//   duet::ShardSet set({.shards = 2}, duet::fiber::shard_runner());
//   duet::fiber::spawn_on(set.shard(0), [&] {
//     int n = duet::fiber::on(set.shard(1), [] { duet::fiber::sleep_for(1ms); return 7; });
//   });
#pragma once

#include <exception>
#include <type_traits>
#include <utility>

#include "duet/io/loop_message.hpp"
#include "duet/runtime/detail/home_reply.hpp"
#include "duet/runtime/shard.hpp"
#include "duet/runtime/shard_runner.hpp"
#include "duet/stackful/scheduler.hpp"
#include "duet/task/detail/result.hpp"
#include "duet/task/detail/task_runner.hpp"

namespace duet::fiber {

[[nodiscard]] ShardRunner& shard_runner() noexcept;

namespace detail {

// The type-erased part of one on() call; it lives on the caller's stack.
struct RemoteCall {
  struct Go final : LoopMessage {
    RemoteCall* call = nullptr;
  };
  void (*invoke_)(RemoteCall* self) noexcept = nullptr;  // on the shard: run fn, keep the outcome
  duet::detail::HomeReply reply_;
  Go go_;
  std::exception_ptr start_error_;  // no fiber could be made on the shard
  FiberRecord* fiber_ = nullptr;
  bool done_ = false;
};

// Sends the call to shard and parks the calling fiber until its reply.
void call_on(Shard& shard, RemoteCall& call);

template <typename F>
struct Call final : RemoteCall {
  using R = std::invoke_result_t<F&>;
  explicit Call(F& fn) noexcept : fn_(fn) { invoke_ = &invoke; }
  static void invoke(RemoteCall* base) noexcept {
    auto* self = static_cast<Call*>(base);
    duet::detail::capture_into(self->result_, self->fn_);
  }
  F& fn_;
  duet::detail::Result<R> result_;
};

}  // namespace detail

template <typename F>
std::invoke_result_t<F&> on(Shard& shard, F&& fn) {
  detail::Call<std::remove_reference_t<F>> call(fn);
  detail::call_on(shard, call);
  if (call.start_error_) std::rethrow_exception(call.start_error_);
  return duet::detail::take_result(call.result_);
}

template <typename F>
void spawn_on(Shard& shard, F fn) {
  shard.post([f = std::move(fn)]() mutable {
    Scheduler* scheduler = Scheduler::current();
    if (scheduler == nullptr) throw std::logic_error("duet: fiber::spawn_on to a shard without a fiber scheduler");
    (void)scheduler->spawn(std::move(f));  // detached: its exception reaches Scheduler::run
  });
}

}  // namespace duet::fiber
