// duet::detail::OffloadJob<F> — the part of offload both voices share: a
// PoolJob that runs fn on a pool thread and keeps its value or exception, and
// the reply that brings the caller back to its own loop.
//
// Contract
// - start(pool, wait_for_room), on the caller's loop thread (home): arms the
//   reply (the caller counts as work in flight there) and submits the job;
//   a refused job (full queue and !wait_for_room, or a pool shut down) is
//   answered at once with -EAGAIN, through the same reply.
// - The pool runs fn, then answers 0; cancel() before the start answers
//   -ECANCELED. Either way complete(op, res) runs on home, in a turn.
// - take() after the answer: the value, error operation_canceled /
//   resource_unavailable_try_again, or fn's exception rethrown.
//
//   OffloadJob<F> job(pool, std::move(fn));
//   job.start(loop, &on_done, waiter, true);   // on_done(op, res) on loop's thread
#pragma once

#include <cerrno>
#include <exception>
#include <type_traits>
#include <utility>

#include "duet/io/event_loop.hpp"
#include "duet/io/io_result.hpp"
#include "duet/runtime/blocking_pool.hpp"
#include "duet/runtime/detail/home_reply.hpp"
#include "duet/task/detail/result.hpp"

namespace duet::detail {

template <typename F>
class OffloadJob final : public PoolJob {
 public:
  using T = std::invoke_result_t<F&>;
  static_assert(!std::is_reference_v<T>, "offload(fn): fn must return a value or void");

  OffloadJob(BlockingPool& pool, F&& fn) : pool_(pool), fn_(std::move(fn)) {
    run_ = &run;
    done_ = &done;
  }
  OffloadJob(const OffloadJob&) = delete;
  OffloadJob& operator=(const OffloadJob&) = delete;
  OffloadJob(OffloadJob&&) = delete;
  OffloadJob& operator=(OffloadJob&&) = delete;
  // Destroyed while the pool may still hold it: cancel it if it has not
  // started, else wait on home's inbox for the answer (the loop's abandon).
  ~OffloadJob() {
    if (armed_) {
      pool_.cancel(*this);
      reply_.abandon();
    }
  }

  void start(EventLoop& home, IoOp::Complete complete, void* context, bool wait_for_room) {
    reply_.arm(home, complete, context);
    armed_ = true;
    if (!pool_.submit(*this, wait_for_room)) done(this, -EAGAIN);
  }
  bool cancel() noexcept { return pool_.cancel(*this); }
  // The answer has arrived (complete ran): nothing of the job is shared now.
  void answered(int res) noexcept {
    armed_ = false;
    res_ = res;
  }

  IoResult<T> take() {
    if (res_ < 0) return error_from_res(res_);
    if constexpr (std::is_void_v<T>) {
      result_.get();
      return {};
    } else {
      return std::move(result_).get();
    }
  }

 private:
  static void run(PoolJob* job) noexcept {
    auto* self = static_cast<OffloadJob*>(job);
    capture_into(self->result_, self->fn_);
  }
  static void done(PoolJob* job, int res) noexcept { static_cast<OffloadJob*>(job)->reply_.send(res); }

  BlockingPool& pool_;
  F fn_;
  Result<T> result_;
  HomeReply reply_;
  int res_ = 0;
  bool armed_ = false;
};

}  // namespace duet::detail
