// AofWriter: the write/fsync pipeline. Logical offsets (appended_ ≥ written_ ≥
// durable_) count bytes since the server started, across file switches, so a
// waiter's target never has to be translated when a rewrite swaps the file.
#include "kv/aof/aof_writer.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "duet/io/file_ops.hpp"
#include "duet/io/sim_world.hpp"
#include "duet/io/sys.hpp"

namespace duet::kv {
namespace {

void write_all(int fd, std::string_view bytes, std::uint64_t offset) {
  while (!bytes.empty()) {
    ssize_t n = sys::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::system_error(errno, std::generic_category(), "AOF write");
    bytes.remove_prefix(static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
}

// Redis exits when it cannot honour appendfsync always (aof.c flushAppendOnlyFile):
// acknowledging writes it could not persist would break the promise silently.
[[noreturn]] void fatal(const char* what, int err) {
  std::fprintf(stderr, "duet-kv: can't persist the AOF (%s: %s) with appendfsync always; exiting\n", what,
               std::strerror(err));
  std::_Exit(1);
}

}  // namespace

FsyncPolicy parse_fsync_policy(std::string_view text) noexcept {
  if (text == "always") return FsyncPolicy::always;
  if (text == "no") return FsyncPolicy::no;
  return FsyncPolicy::everysec;
}

AofWriter::AofWriter(EventLoop& loop, AofWorker& worker, const ServerConfig& config, UniqueFd fd, std::uint64_t size)
    : loop_(loop), worker_(worker), config_(config), fd_(std::move(fd)), file_offset_(size),
      last_sync_ms_(ServerState::system_now_ms()) {
  kick_op_.kind_ = OpKind::nop;
  kick_op_.context_ = this;
  kick_op_.complete_ = &AofWriter::on_kick;
  write_op_.context_ = this;
  write_op_.complete_ = &AofWriter::on_written;
  sync_op_.context_ = this;
  sync_op_.complete_ = &AofWriter::on_synced;
}

std::uint64_t AofWriter::released_upto() const noexcept {
  return policy() == FsyncPolicy::always ? durable_ : written_;
}

void AofWriter::append(int db, std::string_view records) {
  const std::size_t before = pending_.size();
  pending_.append_records(db, records);
  appended_ += pending_.size() - before;
  if (capturing_) captured_.append_records(db, records);
}

void AofWriter::begin_capture() {
  captured_.clear();
  captured_.reset_db();  // the capture starts a file's tail: SELECT first
  capturing_ = true;
}

void AofWriter::end_capture() noexcept {
  capturing_ = false;
  captured_.clear();
}

void AofWriter::wait(DurableWaiter& waiter) {
  waiter.target_ = appended_;
  waiter.next_ = waiters_;
  waiters_ = &waiter;
  // Defer the write by one turn: every connection served in this turn adds its
  // records first, and one write (and one fsync) covers them all.
  if (!kick_op_.in_flight() && !write_op_.in_flight() && !stopped_) loop_.submit(kick_op_);
}

void AofWriter::on_kick(IoOp* op, int) noexcept { static_cast<AofWriter*>(op->context_)->start_write(); }

void AofWriter::start_write() {
  if (paused_ || stopped_ || write_op_.in_flight()) return;
  if (pending_.empty()) {
    if (policy() == FsyncPolicy::always) start_sync();
    release();
    return;
  }
  writing_ = pending_.take();
  writing_done_ = 0;
  writing_end_ = appended_;
  write_op_.kind_ = OpKind::write;
  write_op_.fd_ = fd_.get();
  write_op_.buf_ = writing_.data();
  write_op_.len_ = writing_.size();
  write_op_.offset_ = static_cast<std::int64_t>(file_offset_);
  loop_.submit(write_op_);
}

void AofWriter::on_written(IoOp* op, int res) noexcept {
  auto* self = static_cast<AofWriter*>(op->context_);
  try {
    self->write_done(res);
  } catch (...) {
    fatal("write", ENOMEM);
  }
}

void AofWriter::write_done(int res) {
  last_write_ok_ = res >= 0 || res == -EINTR || res == -EAGAIN;
  if (res == -EINTR || res == -EAGAIN || res > 0) {
    writing_done_ += static_cast<std::size_t>(std::max(res, 0));
    file_offset_ += static_cast<std::uint64_t>(std::max(res, 0));
    if (writing_done_ < writing_.size()) {
      write_op_.buf_ = writing_.data() + writing_done_;
      write_op_.len_ = writing_.size() - writing_done_;
      write_op_.offset_ = static_cast<std::int64_t>(file_offset_);
      loop_.submit(write_op_);
      return;
    }
    written_ = writing_end_;
    writing_.clear();
  } else {
    // Disk full, EIO, ...: keep the bytes, retry from tick(). Under always the
    // promise cannot be kept, so stop like Redis does.
    if (policy() == FsyncPolicy::always) fatal("write", res < 0 ? -res : EIO);
    std::fprintf(stderr, "duet-kv: AOF write failed (%s), will retry\n", std::strerror(res < 0 ? -res : EIO));
    pending_.prepend_raw(std::string_view(writing_).substr(writing_done_));
    writing_.clear();
    check_idle();
    return;
  }
  if (policy() == FsyncPolicy::always) start_sync();
  release();
  if (!pending_.empty() && waiters_ != nullptr) start_write();
  check_idle();
}

void AofWriter::start_sync() {
  // Paused for a rewrite's switch: the fd may be replaced any moment; the new
  // file arrives fsynced, and switch_file() releases the waiters.
  if (sync_in_flight_ || durable_ >= written_ || stopped_ || paused_) return;
  sync_in_flight_ = true;
  const std::uint64_t target = written_;
  const int fd = fd_.get();
  if (loop_.backend() != Backend::epoll) {
    // IORING_OP_FSYNC: the kernel's io-wq does the fdatasync and the loop reaps
    // it with the turn's other completions, no thread hop, no eventfd (under
    // simulation the op waits a seeded delay, as a disk would).
    sync_target_ = target;
    describe_fsync(sync_op_, fd, true);
    loop_.submit(sync_op_);
    return;
  }
  // epoll: a regular file's fdatasync cannot be waited for, only done: the worker does it.
  worker_.post([fd] { return sys::fdatasync(fd) == 0 ? 0 : -errno; },
               [this, target](int res) { sync_done(res, target); });
}

void AofWriter::on_synced(IoOp* op, int res) noexcept {
  auto* self = static_cast<AofWriter*>(op->context_);
  try {
    self->sync_done(res, self->sync_target_);
  } catch (...) {
    fatal("fsync", ENOMEM);
  }
}

void AofWriter::sync_done(int res, std::uint64_t target) {
  sync_in_flight_ = false;
  ++fsyncs_;
  if (res < 0) {
    if (policy() == FsyncPolicy::always) fatal("fsync", -res);
    std::fprintf(stderr, "duet-kv: AOF fsync failed (%s)\n", std::strerror(-res));
  } else {
    durable_ = std::max(durable_, target);
    last_sync_ms_ = ServerState::system_now_ms();
  }
  release();
  if (policy() == FsyncPolicy::always && durable_ < written_) start_sync();
  check_idle();
}

void AofWriter::release() {
  const std::uint64_t upto = released_upto();
  DurableWaiter* ready = nullptr;
  DurableWaiter** link = &waiters_;
  while (DurableWaiter* w = *link) {
    if (w->target_ <= upto) {
      *link = w->next_;
      w->next_ = ready;
      ready = w;
    } else {
      link = &w->next_;
    }
  }
  // Resume only after the list is consistent: a resumed coroutine may wait again.
  while (ready != nullptr) {
    DurableWaiter* w = ready;
    ready = w->next_;
    w->next_ = nullptr;
    w->resume_(w);
  }
}

void AofWriter::forget(DurableWaiter& waiter) noexcept {
  for (DurableWaiter** link = &waiters_; *link != nullptr; link = &(*link)->next_) {
    if (*link == &waiter) {
      *link = waiter.next_;
      return;
    }
  }
}

void AofWriter::tick(std::int64_t now_ms) {
  if (stopped_) return;
  if (!pending_.empty()) start_write();
  if (policy() == FsyncPolicy::everysec && durable_ < written_ && now_ms - last_sync_ms_ >= 1000) start_sync();
  if (policy() == FsyncPolicy::always && durable_ < written_) start_sync();
}

void AofWriter::pause(std::function<void()> on_idle) {
  paused_ = true;
  // Test-only: the capture once ended here, while records kept coming until
  // freeze(); they were then in neither file, yet acknowledged (a0a01d4).
  if (sim_reintroduces("aof_rewrite_loss")) capturing_ = false;
  on_idle_ = std::move(on_idle);
  check_idle();
}

void AofWriter::check_idle() {
  if (!paused_ || !on_idle_ || write_op_.in_flight() || sync_in_flight_) return;
  auto callback = std::move(on_idle_);
  on_idle_ = nullptr;
  callback();
}

AofWriter::Frozen AofWriter::freeze() {
  frozen_upto_ = appended_;
  Frozen frozen{pending_.take(), captured_.take()};
  capturing_ = false;
  pending_.reset_db();  // the next bytes go to another file: SELECT again
  return frozen;
}

void AofWriter::switch_file(UniqueFd fd, std::uint64_t size) {
  fd_ = std::move(fd);
  file_offset_ = size;
  written_ = std::max(written_, frozen_upto_);
  durable_ = std::max(durable_, frozen_upto_);
  paused_ = false;
  release();
  if (!pending_.empty()) start_write();
}

void AofWriter::unfreeze(std::string frozen) {
  pending_.prepend_raw(frozen);
  paused_ = false;
  release();
  if (!pending_.empty()) start_write();
}

void AofWriter::shutdown() {
  if (stopped_) return;
  loop_.abandon(kick_op_);
  if (write_op_.in_flight()) {
    int res = loop_.abandon(write_op_);
    if (res > 0) {
      writing_done_ += static_cast<std::size_t>(res);
      file_offset_ += static_cast<std::uint64_t>(res);
    }
  }
  pending_.prepend_raw(std::string_view(writing_).substr(std::min(writing_done_, writing_.size())));
  writing_.clear();
  if (sync_op_.in_flight()) {  // the fdatasync below covers what it would have
    loop_.abandon(sync_op_);
    sync_in_flight_ = false;
  }
  stopped_ = true;   // nothing new reaches the loop from here on
  worker_.drain();  // queued fsyncs and a finishing rewrite complete here
  std::string rest = pending_.take();
  write_all(fd_.get(), rest, file_offset_);
  file_offset_ += rest.size();
  written_ = appended_;
  if (sys::fdatasync(fd_.get()) == 0) durable_ = written_;
  paused_ = false;
  release();
}

}  // namespace duet::kv
