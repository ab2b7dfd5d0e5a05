// duet::kv::AofWriter — appends records to the append-only file and tells
// waiting connections when their records are written, or on disk.
//
// Contract
// - append(db, records): buffers bytes (SELECT added as needed); appended()
//   grows by their size. Nothing is written yet.
// - Writes go through the event loop as OpKind::write IoOps at explicit file
//   offsets: on io_uring a real asynchronous write (the loop never blocks), on
//   epoll the backend's immediate pwrite into the page cache (regular files are
//   always "ready"; documented choice: microseconds, and no thread hop). One
//   write is in flight at a time; records arriving meanwhile form the next one.
// - fdatasync goes through the loop on io_uring (OpKind::fsync, one at a time:
//   IORING_OP_FSYNC, reaped with the turn's other completions), and on the
//   AofWorker thread on epoll (a regular file's fdatasync can only be done, not
//   waited for). Policies (read from the config each time, so CONFIG SET
//   appendfsync applies at once):
//     always    a waiter is released once its records are on disk; one fsync
//               covers every record written before it started (group commit);
//     everysec  released once written (a process crash loses nothing acked);
//               fsync from tick() about once a second, never on the request path;
//     no        released once written; the OS flushes when it likes.
// - wait(w): w.target_ = appended() now; the first waiter of a loop turn
//   schedules the flush with a nop op, so every connection served in that turn
//   joins the same write (and the same fsync).
// - Rewrite support: begin_capture() at the rewrite's snapshot point makes
//   append() also copy every record into a capture buffer (the rewrite's
//   incremental tail). pause(on_idle) stops new writes and calls on_idle once no
//   write or fsync is in flight; commands keep running meanwhile, and their
//   records are captured too. freeze() then ends the capture and takes the
//   unwritten bytes at the same byte, so every record appended before it is in
//   the capture (or the snapshot) and every record after it stays pending for
//   the new file: one copy of each, none lost. switch_file() installs the
//   rewritten file (all frozen bytes are in it, on disk); unfreeze() puts them
//   back if the rewrite failed; end_capture() drops an aborted rewrite's copy.
// - shutdown(): finishes in-flight work, writes the rest and fsyncs
//   synchronously. The loop must be alive. Loop thread only.
//
//   AofWriter writer(loop, worker, config, std::move(fd), size);
//   writer.append(0, staged);
//   writer.wait(waiter);   // resume_ runs when the record is safe per the policy
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "duet/io/event_loop.hpp"
#include "duet/io/unique_fd.hpp"
#include "kv/aof/aof_buffer.hpp"
#include "kv/aof/aof_worker.hpp"
#include "kv/aof/durable_waiter.hpp"
#include "kv/server_state.hpp"

namespace duet::kv {

enum class FsyncPolicy { always, everysec, no };
[[nodiscard]] FsyncPolicy parse_fsync_policy(std::string_view text) noexcept;  // unknown → everysec

class AofWriter {
 public:
  AofWriter(EventLoop& loop, AofWorker& worker, const ServerConfig& config, UniqueFd fd, std::uint64_t size);
  AofWriter(const AofWriter&) = delete;
  AofWriter& operator=(const AofWriter&) = delete;
  AofWriter(AofWriter&&) = delete;
  AofWriter& operator=(AofWriter&&) = delete;
  ~AofWriter() = default;

  void append(int db, std::string_view records);
  void wait(DurableWaiter& waiter);
  void forget(DurableWaiter& waiter) noexcept;  // a waiter going away before its resume
  // Whether a connection about to send replies must wait first.
  [[nodiscard]] bool must_wait() const noexcept { return appended_ > released_upto(); }
  void tick(std::int64_t now_ms);
  void shutdown();

  struct Frozen {
    std::string unwritten;  // appended, not yet written to the current file
    std::string captured;   // every record appended since begin_capture()
  };
  void begin_capture();
  void end_capture() noexcept;
  void pause(std::function<void()> on_idle);
  [[nodiscard]] Frozen freeze();  // ends the capture; appended() so far becomes covered
  void switch_file(UniqueFd fd, std::uint64_t size);
  void unfreeze(std::string frozen);

  [[nodiscard]] std::uint64_t appended() const noexcept { return appended_; }
  [[nodiscard]] std::uint64_t written() const noexcept { return written_; }
  [[nodiscard]] std::uint64_t durable() const noexcept { return durable_; }
  [[nodiscard]] std::uint64_t file_size() const noexcept { return file_offset_ + pending_.size(); }
  [[nodiscard]] std::uint64_t fsync_count() const noexcept { return fsyncs_; }
  [[nodiscard]] bool last_write_ok() const noexcept { return last_write_ok_; }
  [[nodiscard]] bool paused() const noexcept { return paused_; }  // a rewrite is switching files
  [[nodiscard]] int fd() const noexcept { return fd_.get(); }

 private:
  static void on_kick(IoOp* op, int res) noexcept;
  static void on_written(IoOp* op, int res) noexcept;
  static void on_synced(IoOp* op, int res) noexcept;
  [[nodiscard]] FsyncPolicy policy() const noexcept { return parse_fsync_policy(config_.appendfsync); }
  [[nodiscard]] std::uint64_t released_upto() const noexcept;
  void start_write();
  void write_done(int res);
  void start_sync();
  void sync_done(int res, std::uint64_t target);
  void release();
  void check_idle();

  EventLoop& loop_;
  AofWorker& worker_;
  const ServerConfig& config_;
  UniqueFd fd_;
  std::uint64_t file_offset_;    // where the next write lands in the current file
  AofBuffer pending_;            // appended, not yet handed to a write
  AofBuffer captured_;           // a rewrite's copy of the records since its snapshot
  bool capturing_ = false;
  std::string writing_;          // the write in flight
  std::size_t writing_done_ = 0;
  std::uint64_t writing_end_ = 0;  // logical offset once writing_ is written
  std::uint64_t appended_ = 0;   // logical offsets: bytes since start, across files
  std::uint64_t written_ = 0;
  std::uint64_t durable_ = 0;
  std::uint64_t fsyncs_ = 0;
  std::uint64_t frozen_upto_ = 0;
  std::int64_t last_sync_ms_ = 0;
  IoOp kick_op_;
  IoOp write_op_;
  IoOp sync_op_;                 // io_uring: the fdatasync in flight (OpKind::fsync)
  std::uint64_t sync_target_ = 0;  // written_ when sync_op_ started
  bool sync_in_flight_ = false;
  bool last_write_ok_ = true;
  bool paused_ = false;
  bool stopped_ = false;
  std::function<void()> on_idle_;
  DurableWaiter* waiters_ = nullptr;
};

}  // namespace duet::kv
