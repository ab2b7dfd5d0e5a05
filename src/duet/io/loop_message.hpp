// duet::LoopMessage — a unit of work handed to an EventLoop from any thread.
//
// Contract
// - Intrusive: the sender owns the message (a heap block it frees in run_, a
//   coroutine frame, a fiber's stack); EventLoop::send links it into the loop's
//   lock-free inbox and never allocates, copies or frees it.
// - send(msg) from any thread; run_(msg) then runs exactly once, on the loop's
//   thread, inside one of its turns (run_once), in send order per sending
//   thread. run_ must not throw; it may send, submit, post or free msg.
// - From send until run_ starts the message must stay alive and unchanged.
//
//   struct Hello : duet::LoopMessage { int n = 7; };
//   auto* m = new Hello;
//   m->run_ = [](duet::LoopMessage* self) noexcept { delete static_cast<Hello*>(self); };
//   loop.send(*m);                       // from any thread; runs on loop's thread
#pragma once

#include "duet/io/detail/mpsc_queue.hpp"

namespace duet {

struct LoopMessage : detail::MpscNode {
  void (*run_)(LoopMessage* self) noexcept = nullptr;
};

}  // namespace duet
