// duet::EventLoop — drives IoOps on one thread over io_uring or epoll.
//
// Contract
// - Owns one backend (a ring, or an epoll fd) plus an eventfd for wake-ups; the
//   backend is picked once, at construction, from a run-time Backend value.
//   Construction throws std::system_error when the kernel resource cannot be made
//   (for io_uring: ENOSYS, EPERM, ...); catch it to fall back to Backend::epoll.
// - Thread rule: the loop belongs to the thread that constructs it (its owner;
//   io_uring's SINGLE_ISSUER needs that too). submit/start/cancel/abandon/post/
//   expect/fulfil/await_reply/reply_arrived/run*/close_fd/forget_fd/
//   release_recv_buffer only there: debug builds (no NDEBUG) check it and
//   abort with a message naming the call.
//   wake() and stop() from any thread, and from a signal handler (an atomic
//   store and an eventfd write); send(msg) from any thread (not a handler).
// - Completions are delivered only from run_once/run: submit never calls back.
//   A turn = push prepared work to the kernel (one io_uring_enter) and collect
//   what finished, then call every finished op's complete_. io_uring also
//   pushes work early, once LoopOptions::submit_batch SQEs are prepared.
// - fds used with the loop must be O_NONBLOCK (both backends rely on it) and be
//   closed through close_fd(fd), which cancels what still waits on them.
// - Destroying the loop with ops in flight is a bug (their memory may be written
//   later): it is reported on stderr and the process terminates.
//
//   duet::EventLoop loop(duet::Backend::io_uring);
//   loop.submit(op);                        // op: an IoOp with complete_ set
//   while (!done) loop.run_once(duet::EventLoop::forever);
//   std::thread([&] { loop.stop(); });      // loop.run() returns soon after
//   std::thread([&] { loop.send(msg); });   // msg.run_ runs in a turn of loop
#pragma once

#include <atomic>
#include <climits>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "duet/io/backend.hpp"
#include "duet/io/io_op.hpp"
#include "duet/io/loop_message.hpp"

namespace duet {

namespace detail {
class Poller;
}

struct LoopOptions {
  unsigned ring_entries = 1024;  // io_uring submission queue size (CQ is 4x)
  // io_uring: skip SINGLE_ISSUER / DEFER_TASKRUN / COOP_TASKRUN and provided
  // buffers, as on a kernel without them (tests exercise the fallbacks with it).
  bool uring_basic_setup = false;
  // io_uring: when this many SQEs wait in the submission queue, they go to the
  // kernel at once instead of at the turn (0: only at the turn). A turn that
  // delivers a burst of completions otherwise leaves the device idle until the
  // last owner has run and the whole batch is issued: O_DIRECT reads at depth
  // 32 went from 0.76x to 0.91-1.05x fio's IOPS; cached reads lose 2-4 %
  // (docs/BENCHMARKS.md, "Files"). Epoll does each syscall at submit.
  unsigned submit_batch = 8;
  // Buffers for OpKind::recv_pooled (made on first use): a power of two up to
  // 32768, and the size of each (Redis reads 16 KiB at a time).
  std::size_t recv_buffer_count = 64;
  std::size_t recv_buffer_size = 16 * 1024;
  // While a reply from another loop is awaited (await_reply), a turn with
  // nothing to do watches its inbox for up to this long before it sleeps
  // (0: never). A sleeping loop costs its peer a wake-up and itself two
  // context switches — 10-20 µs of CPU in a VM — where an awake peer
  // answers in a few µs. Spinning costs the CPU it spins; seastar polls
  // all the time, helio spins before it sleeps; duet spins only here.
  std::chrono::microseconds reply_spin{0};
};

class EventLoop {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr Clock::time_point forever = Clock::time_point::max();

  explicit EventLoop(Backend backend, LoopOptions options = {});
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;
  EventLoop(EventLoop&&) = delete;
  EventLoop& operator=(EventLoop&&) = delete;
  ~EventLoop();

  [[nodiscard]] Backend backend() const noexcept { return backend_; }

  // Starts op (see io_op.hpp). Never fails: errors come back through complete_.
  void submit(IoOp& op) noexcept;

  // Returned by start() when the op went in flight.
  static constexpr int pending = INT_MIN;
  // Like submit, but lets the backend finish the op on the spot: when the
  // non-blocking syscall succeeds or fails without waiting (epoll), start returns
  // its result and complete_ is NOT called (the op never went in flight). Else it
  // returns `pending` and complete_ runs later, as after submit. A per-turn budget
  // bounds inline finishes so one busy stream cannot starve the others; io_uring
  // always returns `pending` (its SQEs already complete inline in the kernel).
  int start(IoOp& op) noexcept;
  // Asks the kernel to stop op early. complete_ still runs exactly once, with
  // -ECANCELED, or with the real result if the op finished first. No-op when op
  // is not in flight.
  void cancel(IoOp& op) noexcept;
  // Cancels op and returns only after the backend no longer references it (and
  // its buffer); returns its final result. complete_ is NOT called. Other ops
  // finishing meanwhile are kept and delivered by the next run_once. For
  // destructors: a coroutine frame or fiber stack going away with an op in flight.
  int abandon(IoOp& op) noexcept;
  // Completes op with res from the loop's delivery, without the kernel: op is
  // in flight (cancel is a no-op, abandon withdraws it) until complete_ runs
  // from run_once — never inside post. Posted during a delivery, it runs later
  // in that same delivery (a chain of posts, bounded per turn so that polling
  // still comes round); otherwise in the next turn, which then does not block.
  // For wake-ups decided in user space (a Mutex handed to a waiter): resuming
  // the waiter there and then would recurse inside unlock(), and an io_uring
  // NOP per wake-up would cost a kernel round trip. op must not be in flight.
  void post(IoOp& op, int res) noexcept;

  // Any thread: msg.run_ runs on this loop's thread in a later turn (see
  // loop_message.hpp), in send order per sending thread. Wakes the loop only
  // if it may be asleep: from another io_uring loop's thread by
  // IORING_OP_MSG_RING where the kernel has it, else by the eventfd. Sent from
  // inside a turn of the calling thread's own loop (a task or a callback on
  // it), the wake-up waits for the end of that turn: a burst of sends from
  // one turn costs one wake-up per target loop (seastar batches the same way).
  // Each turn runs up to 1024 messages, before its completions are delivered.
  void send(LoopMessage& msg) noexcept;
  // A remote op: op goes in flight with no kernel part, and completes (its
  // complete_ runs from a turn, as for any op) only after fulfil(op, res),
  // which the owner calls from a message another thread sent to this loop.
  // So a fiber or task waiting for another thread's answer counts as work in
  // flight. cancel() ignores it; abandon() runs the inbox until the answer
  // has come (a reply that can never come hangs there: do not abandon it).
  void expect(IoOp& op) noexcept;
  void fulfil(IoOp& op, int res) noexcept;
  // Owner thread: a message sent from here will be answered by a message
  // back (await_reply), or the answer came (reply_arrived). While any is
  // awaited, a turn spins up to LoopOptions::reply_spin before it sleeps.
  // (A remote op of expect() is not counted: a ShardSet's fiber shards keep
  // one in flight for good. HomeReply counts its own.)
  void await_reply() noexcept;
  void reply_arrived() noexcept;

  // One turn without blocking. Returns the number of completions delivered.
  std::size_t run_once();
  // One turn that waits until at least one completion, a wake() or deadline.
  std::size_t run_once(Clock::time_point deadline);
  // Turns until stop() is called; then clears the stop request and returns.
  void run();

  // Any thread, async-signal-safe. The owner may destroy the loop as soon as
  // run() returns, even while a stop() that ended it has not returned yet
  // (the destructor waits for it). wake() has no such guard: a caller that
  // sets a flag of its own and then wakes must keep the loop alive until then.
  void stop() noexcept;
  void wake() noexcept;
  [[nodiscard]] bool stop_requested() const noexcept {
    return stop_.load(std::memory_order_acquire);
  }
  // Clears a stop request (run() does this when it returns).
  void reset_stop() noexcept { stop_.store(false, std::memory_order_release); }

  // Gives back the buffer a recv_pooled op delivered its bytes in (op.buffer_id_,
  // when its result was > 0). Call it once per such result, on the loop's
  // thread, before the loop is destroyed — and promptly: recv_pooled ops wait
  // while every buffer is out.
  void release_recv_buffer(std::uint16_t id) noexcept;

  // Closes fd after telling the backend to forget it. Ops still pending on fd
  // are cancelled, on both backends, as asio's close does: each completes,
  // from a later run_once, with -ECANCELED (an op that already had its result
  // keeps it). Without this an io_uring op would outlive the close (it holds
  // the file) and an epoll one would never be woken. io_uring needs Linux 5.19
  // (IORING_ASYNC_CANCEL_FD) for it; on older kernels such ops stay pending
  // (accepts excepted: they are cancelled one by one). When close_fd returns
  // the kernel holds no reference to fd's socket from the loop (io_uring runs
  // the cancelled ops' completions in the same enter, as an op on a
  // non-blocking socket waits by poll, not in a worker; an accept never holds
  // its listener: uring_accept.cpp), so the close is the socket's last: a
  // listener's port is free, a stream's FIN has left.
  void close_fd(int fd) noexcept;
  // close_fd without the close: the backend forgets fd (and cancels what waits
  // on it, as above) while fd stays open — for a caller about to put another
  // file under the same number atomically (the hooks' dup2 onto a managed fd).
  void forget_fd(int fd) noexcept;

  // Ops submitted and not yet delivered (for tests and leak checks).
  [[nodiscard]] std::size_t in_flight() const noexcept;
  // Owner thread: true when no turn can deliver anything unless another
  // thread sends a message nobody here awaits — no op in flight, no reply
  // awaited (await_reply) and no message queued. A coroutine away on another
  // loop that will come back as a message (on(shard, ...)) keeps the loop
  // from being idle through its await_reply. A fiber scheduler whose fibers
  // all wait on an idle loop has a deadlock.
  [[nodiscard]] bool idle() const noexcept;
  // For a group of loops that must tell when all of them are quiet (a
  // ShardSet stopping), counted with no shared write per message between
  // them. count_messages(group) puts this loop in the group whose shared
  // counter is *group. A send() to a loop of a group is counted once, before
  // the message is queued: by the sending thread's own loop (current()) in a
  // plain counter of its own, when that loop is in the same group and has
  // not gone live (take_messages_sent() hands the count over); else (any
  // other thread, or a sender whose loop went live with count_live()) by
  // adding 1 to *group. take_messages_run() says how many messages the turns
  // ran since the last call; on_turn(fn, ctx) runs fn(ctx) at the start and
  // at the end of every turn. All owner thread, set before others send.
  void count_messages(std::atomic<std::int64_t>* group) noexcept {
    message_group_ = group;
    count_live_ = false;
  }
  void count_live() noexcept { count_live_ = true; }
  void on_turn(void (*fn)(void*), void* ctx) noexcept {
    turn_hook_ = fn;
    turn_ctx_ = ctx;
  }
  [[nodiscard]] std::uint64_t take_messages_run() noexcept { return std::exchange(messages_run_, 0); }
  [[nodiscard]] std::uint64_t take_messages_sent() noexcept { return std::exchange(messages_sent_, 0); }
  // Wake-ups that send() had to make (for tests and benchmarks). Any thread.
  [[nodiscard]] std::uint64_t message_wakes() const noexcept {
    return message_wakes_.load(std::memory_order_relaxed);
  }
  // The first loop constructed on the calling thread that is still alive, or
  // nullptr: where a task or fiber on this thread gets its answers delivered.
  [[nodiscard]] static EventLoop* current() noexcept;
  // True on the loop's owner thread.
  [[nodiscard]] bool on_owner_thread() const noexcept;

 private:
  void check_owner(const char* call) const noexcept;
  std::size_t turn(Clock::time_point deadline);
  void wake_from_here(EventLoop* here) noexcept;
  void count_send(EventLoop* here) noexcept;
  void flush_wakes() noexcept;

  // Three groups of fields, each on its own cache line, so that a message
  // between two threads moves no line that only one of them writes.
  // Set up once; read by senders on every send:
  Backend backend_;
  std::atomic<bool> stop_{false};
  std::atomic<std::int64_t>* message_group_ = nullptr;
  const void* owner_;  // a thread-local's address on the owner thread
  std::unique_ptr<detail::Poller> poller_;
  // Written by the owner every turn (and read on its own thread only):
  alignas(64) std::uint64_t messages_run_ = 0;
  std::uint64_t messages_sent_ = 0;  // by this thread, to loops of its group
  bool count_live_ = false;
  bool turning_ = false;  // inside turn(): sends defer their wake-ups
  void (*turn_hook_)(void*) = nullptr;
  void* turn_ctx_ = nullptr;
  std::vector<EventLoop*> wake_later_;  // loops to wake at the end of this turn
  // Written by other threads on every send:
  alignas(64) std::atomic<std::uint32_t> senders_{0};  // send()/stop() calls not yet done with this loop
  std::atomic<std::uint64_t> message_wakes_{0};
};

}  // namespace duet
