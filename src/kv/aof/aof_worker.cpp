// AofWorker: one std::thread with a mutex-protected FIFO. The only shared state
// is queued_/finished_/stopping_ under mutex_; the eventfd write happens after
// the result is queued, so the loop's read always finds it (eventfd counts, so
// several results coalesce into one wake-up and one deliver()). Under
// simulation there is no thread (see the header).
#include "kv/aof/aof_worker.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "duet/io/sim_world.hpp"

namespace duet::kv {

AofWorker::AofWorker(EventLoop& loop) : loop_(loop), sim_(SimWorld::current()) {
  wake_op_.context_ = this;
  wake_op_.complete_ = &AofWorker::on_wake;
  if (sim_ != nullptr) return;  // no thread: jobs are the world's simulated work
  event_fd_.reset(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!event_fd_) throw std::system_error(errno, std::generic_category(), "eventfd");
  arm();
  thread_ = std::thread([this] { run(); });
}

AofWorker::~AofWorker() {
  if (!drained_) drain();
}

void AofWorker::arm() {
  wake_op_.kind_ = OpKind::read;
  wake_op_.fd_ = event_fd_.get();
  wake_op_.buf_ = &wake_value_;
  wake_op_.len_ = sizeof wake_value_;
  wake_op_.offset_ = -1;
  loop_.submit(wake_op_);
}

void AofWorker::on_wake(IoOp* op, int) noexcept {
  auto* self = static_cast<AofWorker*>(op->context_);
  self->deliver();
  if (!self->drained_ && self->sim_ == nullptr) self->arm();
}

// Simulation: the head job runs as the world's work, one at a time (FIFO, as
// the thread runs them); its result reaches the loop as a completion, as the
// eventfd's would.
void AofWorker::run_next_simulated() {
  if (sim_running_ || queued_.empty()) return;
  sim_running_ = true;
  sim_->post_work(this, [this] {
    Item item = std::move(queued_.front());
    queued_.pop_front();
    item.result = item.job();
    finished_.push_back(std::move(item));
    sim_running_ = false;
    if (!wake_op_.in_flight()) {
      wake_op_.kind_ = OpKind::nop;
      loop_.submit(wake_op_);
    }
    run_next_simulated();
  });
}

void AofWorker::post(Job job, Done done) {
  if (drained_) {  // after drain (shutdown): synchronous
    int r = job();
    if (done) done(r);
    return;
  }
  ++outstanding_;
  {
    std::lock_guard lock(mutex_);
    queued_.push_back(Item{std::move(job), std::move(done)});
  }
  if (sim_ != nullptr) return run_next_simulated();
  cv_.notify_one();
}

void AofWorker::deliver() {
  std::deque<Item> ready;
  {
    std::lock_guard lock(mutex_);
    ready.swap(finished_);
  }
  for (Item& item : ready) {
    --outstanding_;
    if (item.done) item.done(item.result);
  }
}

void AofWorker::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    cv_.wait(lock, [this] { return stopping_ || !queued_.empty(); });
    if (queued_.empty()) return;  // stopping and nothing left
    Item item = std::move(queued_.front());
    queued_.pop_front();
    lock.unlock();
    item.result = item.job();
    lock.lock();
    finished_.push_back(std::move(item));
    const std::uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(event_fd_.get(), &one, sizeof one);
  }
}

void AofWorker::drain() {
  if (drained_) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
  if (sim_ != nullptr && sim_->cancel_work(this)) sim_running_ = false;  // the queue runs inline below
  drained_ = true;
  if (wake_op_.in_flight()) loop_.abandon(wake_op_);
  deliver();  // done callbacks may post again: run those inline
  while (true) {
    std::deque<Item> late;
    {
      std::lock_guard lock(mutex_);
      late.swap(queued_);
    }
    if (late.empty()) break;
    for (Item& item : late) {
      --outstanding_;
      int r = item.job();
      if (item.done) item.done(r);
    }
  }
}

}  // namespace duet::kv
