// SimPoller (see detail/sim_poller.hpp for how it works). Each op's position
// in waiting_ is kept in heap_index_ (+1; 0 = absent), which the sim, having
// no timer heap, uses as its own bookkeeping slot; ts_[0] holds when an
// fsync may complete, ts_[1] is 1 while a cancel is on its way.
#include "duet/io/detail/sim_poller.hpp"

#include <poll.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <thread>

#include "duet/io/event_loop.hpp"
#include "duet/io/file_ops.hpp"
#include "duet/io/sim/sim_fs.hpp"
#include "duet/io/sim/sim_net.hpp"
#include "duet/io/sim/sim_threads.hpp"

namespace duet::detail {

namespace {
SimWorld* world_for_thread(std::unique_ptr<SimWorld>& own) {
  if (SimWorld* world = SimWorld::current()) return world;
  own = std::make_unique<SimWorld>();
  return own.get();
}

bool file_kind(OpKind kind) noexcept {
  return kind == OpKind::openat || kind == OpKind::fsync || kind == OpKind::statx || kind == OpKind::close ||
         kind == OpKind::read || kind == OpKind::write;
}
}  // namespace

SimPoller::SimPoller(const LoopOptions& options) : Poller(options), world_(world_for_thread(own_world_)) {
  world_->threads().add_inbox(this, [](const void* self) { return !static_cast<const SimPoller*>(self)->inbox_empty(); });
}

SimPoller::~SimPoller() { world_->threads().remove_inbox(this); }

void SimPoller::submit(IoOp& op) noexcept {
  started(op);
  touched_ = true;
  op.ts_[0] = 0;
  op.ts_[1] = 0;
  if (op.timeout_.count() > 0) op.expires_ = world_->now() + op.timeout_;
  try {
    waiting_.push_back(&op);
  } catch (...) {
    return finish(op, -ENOMEM);
  }
  op.heap_index_ = static_cast<std::uint32_t>(waiting_.size());
  op.state_ = OpState::waiting;
}

void SimPoller::leave(IoOp& op) noexcept {
  const std::size_t at = op.heap_index_ - 1;
  waiting_[at] = waiting_.back();
  waiting_[at]->heap_index_ = static_cast<std::uint32_t>(at + 1);
  waiting_.pop_back();
  op.heap_index_ = 0;
}

void SimPoller::settle(IoOp& op, int res) noexcept {
  leave(op);
  finish(op, res);
  world_->trace((static_cast<std::uint64_t>(op.kind_) << 56) ^ (static_cast<std::uint64_t>(op.fd_) << 32) ^
                static_cast<std::uint32_t>(res));
}

// As io_uring's: the cancel reaches the op in the next sweep, where the op
// may still finish first with its own result (the seed decides), so owners
// meet the race between a completion and their cancel that the kernel has.
void SimPoller::cancel(IoOp& op) noexcept {
  if (op.state_ != OpState::waiting || op.cancel_requested_) return;
  op.cancel_requested_ = true;
  op.ts_[1] = 1;
  touched_ = true;  // the next sweep settles it
}

// A cancel in flight meets its op: the op's own result if it is ready and
// the seed lets it win, else -ECANCELED.
int SimPoller::meet_cancel(IoOp& op) noexcept {
  const int r = world_->chance(0.5) ? attempt(op) : blocked;
  if (r != blocked) return r;
  if (op.kind_ == OpKind::recv_pooled && sim_reintroduces("pooled_recv_cancel_lost")) {
    RecvBufferPool* pool = recv_pool_if_made();
    if (pool != nullptr && pool->free_count() == 0) {
      // Test-only: io_uring failed such a recv with -ENOBUFS at issue, so the
      // cancel found nothing; the op went back to starve, the cancel lost
      // (and later cancels returned early on cancel_requested_) (523f185).
      op.ts_[1] = 0;
      return blocked;
    }
  }
  return -ECANCELED;
}

int SimPoller::abandon(IoOp& op) noexcept {
  if (op.state_ == OpState::waiting) settle(op, -ECANCELED);
  take_finished(op);
  return op.res_;
}

void SimPoller::forget_fd(int fd) noexcept {
  for (std::size_t i = 0; i < waiting_.size();) {
    IoOp& op = *waiting_[i];
    if (op.fd_ == fd && op.kind_ != OpKind::sleep && op.kind_ != OpKind::nop) {
      leave(op);
      finish_cancelled(op);
    } else {
      ++i;
    }
  }
}

void SimPoller::release_recv_buffer(std::uint16_t id) noexcept {
  if (RecvBufferPool* pool = recv_pool_if_made()) pool->put(id);
}

// With no free buffer the op waits (as epoll's starved ops do): owners give
// buffers back between turns.
int SimPoller::recv_pooled(IoOp& op) noexcept {
  RecvBufferPool* pool = recv_pool();
  if (pool == nullptr) return -ENOMEM;
  const int id = pool->take();
  if (id < 0) return blocked;
  const auto bid = static_cast<std::uint16_t>(id);
  op.buf_ = pool->data(bid);
  op.len_ = pool->buffer_size();
  const int r = world_->net().recv(op.fd_, op.buf_, op.len_);
  if (r > 0) {
    op.buffer_id_ = bid;
  } else {
    pool->put(bid);
  }
  return r;
}

int SimPoller::attempt(IoOp& op) noexcept {
  if (op.kind_ == OpKind::nop) return 0;
  if (op.kind_ == OpKind::sleep) return world_->now() >= op.deadline_ ? 0 : blocked;
  SimNet& net = world_->net();
  if (op.kind_ == OpKind::openat) {
    return world_->fs().open(static_cast<const char*>(op.buf_), op.flags_, static_cast<mode_t>(op.len_));
  }
  if (SimFs::owns(op.fd_)) return file_op(op);
  if (!SimNet::simulated(op.fd_)) {
    // A real descriptor under a simulated loop (a pipe the program made):
    // files run inline, as on an epoll loop; sockets would escape the seed.
    return file_kind(op.kind_) ? file_syscall(op) : -EOPNOTSUPP;
  }
  try {
    switch (op.kind_) {
      case OpKind::recv:
      case OpKind::read:
        return net.recv(op.fd_, op.buf_, op.len_);
      case OpKind::recv_pooled:
        return recv_pooled(op);
      case OpKind::send:
      case OpKind::write:
        return net.send(op.fd_, op.buf_, op.len_);
      case OpKind::sendmsg:
        return net.sendmsg(op.fd_, *static_cast<const msghdr*>(op.buf_));
      case OpKind::recvmsg:
        return net.recvmsg(op.fd_, *static_cast<msghdr*>(op.buf_), op.flags_);
      case OpKind::accept:
        return net.accept(op.fd_, op.addr_, op.addr_ != nullptr ? &op.addrlen_ : nullptr);
      case OpKind::connect:
        return net.connect(op);
      case OpKind::poll:
        return net.poll(op.fd_, op.flags_);
      case OpKind::close:
        return net.close(op.fd_);
      case OpKind::openat:
      case OpKind::fsync:
      case OpKind::statx:
        return -EOPNOTSUPP;  // a simulated descriptor is a socket
      case OpKind::nop:
      case OpKind::sleep:
        break;
    }
  } catch (...) {
    return -ENOMEM;
  }
  return 0;
}

// A simulated file's op. An fsync takes a seeded delay first (op.ts_[0]:
// when it may complete), as a disk would.
int SimPoller::file_op(IoOp& op) noexcept {
  SimFs& fs = world_->fs();
  try {
    switch (op.kind_) {
      case OpKind::read:
        if (world_->chance(world_->options().eintr)) return -EINTR;
        return fs.read(op.fd_, op.buf_, op.len_, op.offset_);
      case OpKind::write:
        if (world_->chance(world_->options().eintr)) return -EINTR;
        return fs.write(op.fd_, op.buf_, op.len_, op.offset_);
      case OpKind::fsync: {
        const auto at = world_->now().time_since_epoch().count();
        if (op.ts_[0] == 0) {
          const auto most = static_cast<std::uint64_t>(world_->options().max_fsync_delay.count());
          op.ts_[0] = at + static_cast<std::int64_t>(world_->below(most + 1));
        }
        return at >= op.ts_[0] ? fs.fsync(op.fd_) : blocked;
      }
      case OpKind::statx: {
        std::int64_t size = 0;
        const int r = fs.size(op.fd_, size);
        if (r < 0) return r;
        auto* into = static_cast<struct statx*>(op.buf_);
        *into = {};
        into->stx_mask = STATX_SIZE | STATX_TYPE;
        into->stx_size = static_cast<std::uint64_t>(size);
        into->stx_mode = S_IFREG | 0644;
        return 0;
      }
      case OpKind::close:
        return fs.close(op.fd_);
      default:
        return -EOPNOTSUPP;  // a file is not a socket
    }
  } catch (...) {
    return -ENOMEM;
  }
}

// One pass over every waiting op, in a seeded order. True if any finished.
bool SimPoller::sweep() noexcept {
  skipped_ = false;
  if (waiting_.empty()) return false;
  try {
    order_.assign(waiting_.begin(), waiting_.end());
  } catch (...) {
    return false;
  }
  for (std::size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[world_->below(i)]);
  const double late = world_->options().late_wakeup;
  bool any = false;
  for (IoOp* op : order_) {
    if (late > 0 && world_->chance(late)) {
      skipped_ = true;  // tried next turn, with no virtual time passing
      continue;
    }
    int r = op->ts_[1] != 0 ? meet_cancel(*op) : attempt(*op);
    if (r == blocked && op->timeout_.count() > 0 && world_->now() >= op->expires_) r = -ETIMEDOUT;
    if (r == blocked) continue;
    settle(*op, r);
    any = true;
  }
  return any;
}

std::optional<Poller::Clock::time_point> SimPoller::next_event() noexcept {
  std::optional<Clock::time_point> next = world_->next_work();
  auto consider = [&next](Clock::time_point t) {
    if (!next || t < *next) next = t;
  };
  for (IoOp* op : waiting_) {
    if (op->kind_ == OpKind::sleep) consider(op->deadline_);
    if (op->timeout_.count() > 0) consider(op->expires_);
    if (op->kind_ == OpKind::fsync && op->ts_[0] != 0) consider(Clock::time_point(Clock::duration(op->ts_[0])));
    if (SimNet::simulated(op->fd_) && !SimFs::owns(op->fd_)) {
      if (auto t = world_->net().next_event(*op)) consider(*t);
    }
  }
  return next;
}

// Results are traced as they are settled (kind, descriptor, result), in the
// seeded order, and the bytes as they moved: two runs agree only if the same
// bytes went the same way at the same virtual times.
std::size_t SimPoller::turn(Clock::time_point deadline) {
  if (world_->threads().count() > 1) return shared_turn(deadline);
  bool progress = sweep();
  progress = world_->run_due_work() || progress;
  if (!progress && !skipped_ && !has_finished() && inbox_empty() && deadline > world_->now()) {
    const std::optional<Clock::time_point> next = next_event();
    if (next && *next <= deadline) {
      world_->advance_to(*next);
      sweep();
      world_->run_due_work();
    } else if (deadline != EventLoop::forever) {
      world_->advance_to(deadline);
      sweep();
      world_->run_due_work();
    } else if (in_flight() > waiting_.size()) {
      std::this_thread::yield();  // a reply from another thread (not simulated): wait for it for real
    } else {
      world_->deadlock();
    }
  }
  drain_inbox();
  const std::size_t delivered = deliver();
  world_->trace(static_cast<std::uint64_t>(world_->now().time_since_epoch().count()) ^ (delivered << 48));
  for (std::size_t i = 0; i < delivered; ++i) world_->count_step();
  return delivered;
}

// A turn while other threads share the world (a ShardSet's shards): the same
// sweep, but the clock is the world's to move. A turn that found nothing to
// do hands the baton on at the start of the next one, with the time it next
// has something to do: in between, the loop's owner sees the idle turn (a
// ShardSet counts its shard quiet there, which may end the set). A busy loop
// hands it on now and then too (SimOptions::switch_after_busy, the seed
// decides), so that the shards interleave at many points, not only where
// one waits.
std::size_t SimPoller::shared_turn(Clock::time_point deadline) {
  if (pass_due_) {
    pass_due_ = false;
    // Unless the owner gave the loop something between the turns (an op
    // submitted or cancelled, a result posted, a message queued): then this
    // turn is busy.
    if (!touched_ && !has_finished() && inbox_empty()) world_->threads().pass(false, pass_next_);
  }
  touched_ = false;
  const bool swept = sweep();
  const bool worked = world_->run_due_work();
  const std::size_t drained = drain_inbox();
  const std::size_t delivered = deliver();
  const bool busy = swept || worked || drained > 0 || delivered > 0 || skipped_;
  if (!busy || world_->chance(world_->options().switch_after_busy)) {
    std::optional<Clock::time_point> next = next_event();
    if (deadline != EventLoop::forever && (!next || deadline < *next)) next = deadline;
    if (busy) {
      world_->threads().pass(true, next);
    } else if (deadline > world_->now()) {
      pass_due_ = true;
      pass_next_ = next;
    }
  } else {
    world_->threads().note_activity();  // busy, keeping the baton: the idle ones may have news
  }
  world_->trace(static_cast<std::uint64_t>(world_->now().time_since_epoch().count()) ^ (delivered << 48));
  for (std::size_t i = 0; i < delivered; ++i) world_->count_step();
  return delivered;
}

}  // namespace duet::detail
