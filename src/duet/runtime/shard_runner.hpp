// duet::ShardRunner, duet::ShardHost — how a shard's thread hosts its loop.
//
// Contract
// - A ShardRunner is called once per shard, on that shard's thread:
//   run(shard) makes the loop (a plain EventLoop, or a fiber::Scheduler and
//   its loop), makes a ShardHost over it, turns the loop until
//   host.finished(), and returns (the loop dies with the runner's frame).
//   An exception escaping run reaches ShardSet::stop / join / run.
// - ShardHost (RAII, shard's thread only) publishes the loop to the set, makes
//   the shard this thread's this_shard(), and counts the shard's work so that
//   the set can tell when every shard is quiet after a stop. "Quiet" means: no
//   op in flight beyond idle_in_flight (ops the host keeps for itself) and
//   host_idle(ctx) true (a fiber host: no fiber but its own), and no message
//   to any shard still unrun. finished() is true once the set was asked to
//   stop and every shard was quiet at once; the loops are then woken, and
//   finish_op (if given, an EventLoop::expect'ed op) is fulfilled with 0.
// - loop_runner() is the stackless voice's (and the default) runner: a plain
//   EventLoop on the set's backend. The stackful voice's is
//   fiber::shard_runner() (stackful/on_shard.hpp).
//
//   struct MyRunner : duet::ShardRunner {
//     void run(duet::Shard& s) override {
//       duet::EventLoop loop(s.set().options().backend);
//       duet::ShardHost host(s, loop);
//       while (!host.finished()) loop.run_once(duet::EventLoop::forever);
//     }
//   };
#pragma once

#include <cstddef>

#include "duet/io/event_loop.hpp"
#include "duet/io/io_op.hpp"
#include "duet/runtime/shard.hpp"

namespace duet {

class ShardRunner {
 public:
  ShardRunner() = default;
  ShardRunner(const ShardRunner&) = delete;
  ShardRunner& operator=(const ShardRunner&) = delete;
  ShardRunner(ShardRunner&&) = delete;
  ShardRunner& operator=(ShardRunner&&) = delete;
  virtual ~ShardRunner() = default;
  virtual void run(Shard& shard) = 0;
};

// The plain runner (a static object: shared by every set, stateless).
[[nodiscard]] ShardRunner& loop_runner() noexcept;

struct ShardHostOptions {
  std::size_t idle_in_flight = 0;
  bool (*host_idle)(void* ctx) = nullptr;
  void* ctx = nullptr;
  IoOp* finish_op = nullptr;
};

struct ShardHost {
  ShardHost(Shard& shard, EventLoop& loop, ShardHostOptions options = {});
  ShardHost(const ShardHost&) = delete;
  ShardHost& operator=(const ShardHost&) = delete;
  ShardHost(ShardHost&&) = delete;
  ShardHost& operator=(ShardHost&&) = delete;
  // Leaves only once the set has finished: if the runner unwinds early (an
  // exception), the set is asked to stop and the loop turns until then, so
  // no other shard's message can reach a dead loop.
  ~ShardHost();

  [[nodiscard]] bool finished() const noexcept;

 private:
  static void after_turn(void* self) noexcept;
  Shard& shard_;
  EventLoop& loop_;
  IoOp* finish_op_;
};

}  // namespace duet
