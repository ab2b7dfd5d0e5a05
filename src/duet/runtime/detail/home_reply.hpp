// duet::detail::HomeReply — "an answer from another thread resumes a waiter on
// its own loop", the piece fiber::on and both voices' offload share.
//
// Contract
// - arm(home, complete, context) on the home loop's thread: an op goes in
//   flight there (EventLoop::expect), so the waiter counts as work (a fiber
//   scheduler does not call it a deadlock, a stopping ShardSet waits for it),
//   and as an awaited reply (EventLoop::await_reply: the home loop may spin
//   for it, LoopOptions::reply_spin) until the answer's message has run.
// - send(res) once, from any thread, as the answering side's last touch of
//   the reply (the waiter may be gone right after): the loop's next turn
//   fulfils the op and complete(op, res) runs there, as for any IoOp.
//
//   reply.arm(loop, &resume_task, handle.address());
//   /* another thread: */ reply.send(0);
#pragma once

#include "duet/io/event_loop.hpp"
#include "duet/io/io_op.hpp"
#include "duet/io/loop_message.hpp"

namespace duet::detail {

class HomeReply {
 public:
  HomeReply() noexcept = default;
  HomeReply(const HomeReply&) = delete;
  HomeReply& operator=(const HomeReply&) = delete;
  HomeReply(HomeReply&&) = delete;
  HomeReply& operator=(HomeReply&&) = delete;
  ~HomeReply() = default;

  void arm(EventLoop& home, IoOp::Complete complete, void* context) noexcept {
    home_ = &home;
    op_.kind_ = OpKind::nop;
    op_.complete_ = complete;
    op_.context_ = context;
    msg_.reply_ = this;
    msg_.run_ = &Message::run;
    home.expect(op_);
    home.await_reply();
  }
  void send(int res) noexcept {
    res_ = res;
    home_->send(msg_);
  }
  [[nodiscard]] EventLoop* home() const noexcept { return home_; }
  // Destroying a waiter that may still get its answer: run the home inbox
  // until it has come (EventLoop::abandon of a remote op). Home thread.
  void abandon() noexcept {
    if (home_ != nullptr && op_.in_flight()) home_->abandon(op_);
  }

 private:
  struct Message final : LoopMessage {
    static void run(LoopMessage* msg) noexcept {
      HomeReply& reply = *static_cast<Message*>(msg)->reply_;
      reply.home_->reply_arrived();
      reply.home_->fulfil(reply.op_, reply.res_);
    }
    HomeReply* reply_ = nullptr;
  };

  IoOp op_;
  Message msg_;
  EventLoop* home_ = nullptr;
  int res_ = 0;
};

}  // namespace duet::detail
