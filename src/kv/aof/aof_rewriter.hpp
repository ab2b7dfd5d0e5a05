// duet::kv::AofRewriter — BGREWRITEAOF without fork: a compact log built from
// the live keyspace in bounded slices, one slice per loop turn, while the
// server keeps serving; then switched in atomically.
//
// Why not just "scan + append the writes that happened meanwhile": a key
// scanned after some write W already contains W, and replaying W again on top
// doubles INCR/APPEND. So the snapshot is made point-in-time (the instant S of
// start), the way a fork's copy-on-write would: before a write command touches
// a key the scan has not reached yet, that key's pre-image is dumped first
// (before_write), and the key is then skipped by the scan. Keys created after S
// are skipped too. The result is the state at S, and every write since S is
// captured by the writer itself (AofWriter::begin_capture): snapshot + capture
// = the data now. The capture lives in the writer, not here, so that it ends
// at exactly the byte where the writer's unwritten bytes are frozen; a copy
// kept beside the writer once stopped one pause early, and the records of
// commands run while the switch waited for an fsync were in neither file.
// A key's position is its slot, which never moves (Keyspace), so "not reached
// yet" is slot >= the scan cursor of its database.
//
// Contract
// - start() creates <dir>/temp-rewriteaof-<pid>.aof and begins; false with a
//   Redis-style message when one is already running or the file cannot be made.
// - Snapshot bytes go to the temp file through the AofWorker in chunks. At the
//   end the writer is paused, its unwritten bytes frozen with the capture,
//   and the worker writes the captured tail, fdatasyncs the temp file, renames
//   it over the AOF and fsyncs the directory; the writer then continues on the
//   new file. On failure the temp file is removed and the old AOF continues
//   untouched.
// - Loop thread only. abort() (shutdown) drops a rewrite that has not reached
//   the switch; one that has is completed by AofWorker::drain().
//
//   AofRewriter rw(loop, worker, writer, state, "dir", "appendonly.aof", log);
//   std::string msg; rw.start(msg);   // "Background append only file rewriting started"
#pragma once

#include <absl/container/flat_hash_set.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <functional>
#include <string>

#include "duet/io/event_loop.hpp"
#include "duet/io/unique_fd.hpp"
#include "kv/aof/aof_buffer.hpp"
#include "kv/aof/aof_worker.hpp"
#include "kv/aof/aof_writer.hpp"
#include "kv/command_table.hpp"
#include "kv/server_state.hpp"

namespace duet::kv {

class AofRewriter {
 public:
  using Log = std::function<void(bool warning, const std::string& line)>;

  AofRewriter(EventLoop& loop, AofWorker& worker, AofWriter& writer, ServerState& state, std::string dir,
              std::string file_name, Log log);
  AofRewriter(const AofRewriter&) = delete;
  AofRewriter& operator=(const AofRewriter&) = delete;
  AofRewriter(AofRewriter&&) = delete;
  AofRewriter& operator=(AofRewriter&&) = delete;
  ~AofRewriter();

  bool start(std::string& message);
  // Many shards (kv/aof/shard_rewrite.hpp): the snapshot is every shard's
  // keyspace, made while every shard stood still, and handed over whole; the
  // capture starts now, which the sharded keyspace makes the same instant.
  bool start(std::string& message, std::string snapshot);
  [[nodiscard]] bool running() const noexcept { return running_; }
  void before_write(const Command& cmd, CommandContext& ctx);
  void abort() noexcept;
  // Called when a rewrite ends, switched in, failed or aborted (loop thread).
  void set_on_end(std::function<void()> on_end) { on_end_ = std::move(on_end); }

  [[nodiscard]] std::uint64_t completed() const noexcept { return completed_; }
  [[nodiscard]] bool last_ok() const noexcept { return last_ok_; }
  [[nodiscard]] std::uint64_t last_size() const noexcept { return last_size_; }  // bytes of the last rewrite

 private:
  static constexpr std::size_t keys_per_slice = 1000;
  static constexpr std::size_t chunk_bytes = 4 * 1024 * 1024;

  // Shared with the worker's jobs, so aborting never closes an fd a job still uses.
  struct TempFile {
    UniqueFd fd;
    std::atomic<int> error{0};  // first failed chunk write (errno)
  };

  static void on_slice(IoOp* op, int res) noexcept;
  void slice();
  void touch(int db, std::string_view key);
  void dump(int db, const Entry& entry);
  void dump_rest(int db);
  void write_chunk();
  void finish();
  void switch_files();
  void switched(int res, std::uint64_t size);
  void reset();

  EventLoop& loop_;
  AofWorker& worker_;
  AofWriter& writer_;
  ServerState& state_;
  std::string dir_;
  std::string path_;
  std::string temp_path_;
  Log log_;
  std::shared_ptr<TempFile> temp_;
  std::uint64_t temp_size_ = 0;    // bytes handed to the temp file so far
  std::uint64_t in_flight_ = 0;    // chunk bytes the worker has not written yet
  AofBuffer snapshot_;
  AofBuffer staged_;
  std::string frozen_;
  std::array<std::uint64_t, Store::db_count> cursor_{};
  std::array<bool, Store::db_count> done_{};
  std::array<absl::flat_hash_set<std::string>, Store::db_count> handled_;
  IoOp slice_op_;
  bool running_ = false;
  bool switching_ = false;
  std::uint64_t generation_ = 0;  // ignores late chunk results of an aborted run
  std::uint64_t completed_ = 0;
  bool last_ok_ = true;
  std::uint64_t last_size_ = 0;
  std::function<void()> on_end_;
};

}  // namespace duet::kv
