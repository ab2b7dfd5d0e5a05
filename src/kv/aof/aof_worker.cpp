// AofWorker: one std::thread with a mutex-protected FIFO. The only shared state
// is queued_/finished_/stopping_ under mutex_; the eventfd write happens after
// the result is queued, so the loop's read always finds it (eventfd counts, so
// several results coalesce into one wake-up and one deliver()).
#include "kv/aof/aof_worker.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace duet::kv {

AofWorker::AofWorker(EventLoop& loop)
    : loop_(loop), event_fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  if (!event_fd_) throw std::system_error(errno, std::generic_category(), "eventfd");
  wake_op_.context_ = this;
  wake_op_.complete_ = &AofWorker::on_wake;
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
  if (!self->drained_) self->arm();
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
  drained_ = true;
  loop_.abandon(wake_op_);
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
