// duet::resume_on(shard) — move the rest of a coroutine to another shard.
//
// Contract
// - co_await resume_on(shard): the coroutine suspends here and resumes on
//   shard's thread, in a turn of its loop (one LoopMessage, inside the
//   awaiter: no allocation). Already on that shard: it goes on at once.
//   resume_on(loop) does the same for any EventLoop (its owner thread).
// - From then on the coroutine belongs to that thread: its I/O must use that
//   shard's loop, and whoever awaits the task must be ready to be resumed
//   there. Move back (co_await resume_on(home)) before finishing if the
//   awaiter is on another thread, or use on(shard, factory), which does.
// - on() also tells home that its answer is awaited (EventLoop::await_reply),
//   so that a fiber scheduler there (fiber::await of the task) does not take
//   the trip for a deadlock. A bare resume_on away and back does not: home
//   cannot know the coroutine will return. Use on(), or bracket the trip
//   with home.await_reply() / home.reply_arrived() on home's thread.
// - The frame must not be destroyed while it is on its way (a few turns).
//
//   co_await duet::resume_on(set.shard(1));   // now on shard 1's thread
//   co_await duet::resume_on(home);            // and back
#pragma once

#include <coroutine>

#include "duet/io/event_loop.hpp"
#include "duet/io/loop_message.hpp"
#include "duet/runtime/shard.hpp"

namespace duet {

class [[nodiscard]] ResumeOn final : LoopMessage {
 public:
  explicit ResumeOn(EventLoop& target) noexcept : target_(&target) { run_ = &run; }
  ResumeOn(const ResumeOn&) = delete;
  ResumeOn& operator=(const ResumeOn&) = delete;
  ResumeOn(ResumeOn&&) = delete;
  ResumeOn& operator=(ResumeOn&&) = delete;
  ~ResumeOn() = default;

  [[nodiscard]] bool await_ready() const noexcept { return target_->on_owner_thread(); }
  // After send the coroutine may already run on the target thread: nothing
  // here touches the awaiter after it.
  void await_suspend(std::coroutine_handle<> waiter) noexcept {
    waiter_ = waiter;
    target_->send(*this);
  }
  void await_resume() const noexcept {}

 private:
  static void run(LoopMessage* msg) noexcept { static_cast<ResumeOn*>(msg)->waiter_.resume(); }

  EventLoop* target_;
  std::coroutine_handle<> waiter_;
};

inline ResumeOn resume_on(EventLoop& loop) noexcept { return ResumeOn(loop); }
inline ResumeOn resume_on(Shard& shard) noexcept { return ResumeOn(shard.loop()); }

}  // namespace duet
