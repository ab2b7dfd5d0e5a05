// fiber::on and the stackful shard runner. A call is two messages: Go runs on
// the target shard (spawning a fiber there for fn), and the HomeReply brings
// the answer back to the caller's loop as a remote op, whose completion
// readies the parked fiber like any I/O completion.
#include "duet/stackful/on_shard.hpp"

#include <stdexcept>

#include "duet/runtime/shard_set.hpp"
#include "duet/stackful/detail/fiber_record.hpp"

namespace duet::fiber {

namespace detail {

namespace {

void answer(RemoteCall& call) noexcept {
  call.invoke_(&call);
  call.reply_.send(0);  // the last touch: the caller may return right after
}

void on_reply(IoOp* op, int /*res*/) noexcept {
  auto& call = *static_cast<RemoteCall*>(op->context_);
  call.done_ = true;
  call.fiber_->scheduler_->make_ready(*call.fiber_);
}

// On the target shard's thread, in a turn of its loop.
void go(LoopMessage* msg) noexcept {
  RemoteCall& call = *static_cast<RemoteCall::Go*>(msg)->call;
  Scheduler* scheduler = Scheduler::current();
  if (scheduler == nullptr) return answer(call);  // a plain loop: fn runs right here
  try {
    (void)scheduler->spawn([&call] { answer(call); });
  } catch (...) {
    call.start_error_ = std::current_exception();
    call.reply_.send(0);
  }
}

}  // namespace

void call_on(Shard& shard, RemoteCall& call) {
  Scheduler* scheduler = Scheduler::current();
  if (scheduler == nullptr || scheduler->running() == nullptr) {
    throw std::logic_error("duet: fiber::on called outside a fiber");
  }
  if (shard.is_current()) return call.invoke_(&call);
  call.fiber_ = scheduler->running();
  call.reply_.arm(scheduler->loop(), &on_reply, &call);
  call.go_.call = &call;
  call.go_.run_ = &go;
  shard.send(call.go_);
  while (!call.done_) scheduler->park();
}

}  // namespace detail

namespace {

// The runner's own fiber: it keeps the scheduler running until the set has
// finished (an expected op the ShardHost fulfils then), so that run() neither
// returns early nor calls an idle shard a deadlock.
struct Keeper final : IoOp {
  duet::fiber::detail::FiberRecord* fiber = nullptr;
  bool done = false;
};

class FiberRunner final : public ShardRunner {
 public:
  void run(Shard& shard) override {
    const ShardSetOptions& options = shard.set().options();
    Scheduler scheduler({.backend = options.backend, .loop = options.loop});
    Keeper keeper;
    keeper.complete_ = [](IoOp* op, int) noexcept {
      auto& k = *static_cast<Keeper*>(op);
      k.done = true;
      if (k.fiber != nullptr) k.fiber->scheduler_->make_ready(*k.fiber);
    };
    scheduler.loop().expect(keeper);
    ShardHost host(shard, scheduler.loop(),
                   {.idle_in_flight = 1,
                    .host_idle = [](void* s) noexcept { return static_cast<Scheduler*>(s)->live_fibers() <= 1; },
                    .ctx = &scheduler,
                    .finish_op = &keeper});
    (void)scheduler.spawn([&keeper, &scheduler] {
      keeper.fiber = scheduler.running();
      while (!keeper.done) scheduler.park();
    });
    scheduler.run();
  }
};

}  // namespace

ShardRunner& shard_runner() noexcept {
  static FiberRunner runner;
  return runner;
}

}  // namespace duet::fiber
