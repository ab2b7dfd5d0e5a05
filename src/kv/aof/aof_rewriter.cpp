// AofRewriter: see the header for why pre-images make the slice-by-slice
// snapshot point-in-time. The temp file's I/O all runs on the AofWorker, in
// FIFO order: snapshot chunks, then the final job (tail, fdatasync, rename,
// directory fsync), so the loop thread never touches the disk.
#include "kv/aof/aof_rewriter.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include <absl/strings/string_view.h>

#include "kv/aof/aof_propagation.hpp"
#include "duet/io/sys.hpp"

namespace duet::kv {
namespace {

// Debian's abseil has its own string_view; its string hash takes that one.
absl::string_view key_arg(std::string_view key) noexcept { return {key.data(), key.size()}; }

int write_all(int fd, std::string_view bytes, std::uint64_t offset) {
  while (!bytes.empty()) {
    ssize_t n = sys::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -errno;
    bytes.remove_prefix(static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
  return 0;
}

// The rename is durable only once the directory entry is on disk.
int fsync_dir(const std::string& dir) {
  int fd = sys::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -errno;
  int r = sys::fsync(fd) == 0 ? 0 : -errno;
  sys::close(fd);
  return r;
}

}  // namespace

AofRewriter::AofRewriter(EventLoop& loop, AofWorker& worker, AofWriter& writer, ServerState& state, std::string dir,
                         std::string file_name, Log log)
    : loop_(loop), worker_(worker), writer_(writer), state_(state), dir_(std::move(dir)),
      path_(dir_ + "/" + file_name), temp_path_(dir_ + "/temp-rewriteaof-" + std::to_string(::getpid()) + ".aof"),
      log_(std::move(log)) {
  slice_op_.kind_ = OpKind::nop;
  slice_op_.context_ = this;
  slice_op_.complete_ = &AofRewriter::on_slice;
}

AofRewriter::~AofRewriter() { abort(); }

bool AofRewriter::start(std::string& message, std::string snapshot) {
  if (!start(message)) return false;
  snapshot_.append_raw(snapshot);
  snapshot_.reset_db();  // the snapshot's SELECTs leave the database unknown
  done_.fill(true);  // nothing to scan here: the slices only write it out
  return true;
}

bool AofRewriter::start(std::string& message) {
  if (running_) {
    message = "ERR Background append only file rewriting already in progress";
    return false;
  }
  auto temp = std::make_shared<TempFile>();
  temp->fd.reset(sys::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!temp->fd) {
    message = "ERR Can't open the temp append only file " + temp_path_ + ": " + std::strerror(errno);
    return false;
  }
  reset();
  temp_ = std::move(temp);
  running_ = true;
  writer_.begin_capture();  // the snapshot point S: every record from here on
  loop_.submit(slice_op_);
  message = "Background append only file rewriting started";
  log_(false, message);
  return true;
}

void AofRewriter::reset() {
  ++generation_;
  cursor_.fill(0);
  done_.fill(false);
  for (auto& keys : handled_) keys.clear();
  snapshot_.clear();
  snapshot_.reset_db();
  temp_.reset();
  temp_size_ = 0;
  in_flight_ = 0;
  switching_ = false;
}

void AofRewriter::on_slice(IoOp* op, int) noexcept {
  auto* self = static_cast<AofRewriter*>(op->context_);
  try {
    self->slice();
  } catch (const std::exception& e) {
    self->log_(true, std::string("Background AOF rewrite failed: ") + e.what());
    self->abort();
  }
}

// One bounded step: at most keys_per_slice keys, then back to the loop.
void AofRewriter::slice() {
  if (!running_ || switching_) return;
  if (in_flight_ < 4 * chunk_bytes) {  // else let the worker catch up first
    std::size_t budget = keys_per_slice;
    for (int db = 0; db < Store::db_count && budget > 0; ++db) {
      if (done_[db]) continue;
      std::size_t visited = 0;
      cursor_[db] = state_.store().db(db).scan(cursor_[db], budget, 0, [&](Entry& e) {
        ++visited;
        if (!handled_[db].contains(key_arg(as_view(e.key)))) dump(db, e);
      });
      if (cursor_[db] == 0) {
        done_[db] = true;
        handled_[db].clear();
      }
      budget -= std::min(budget, std::max<std::size_t>(visited, 1));
    }
    if (snapshot_.size() >= chunk_bytes) write_chunk();
  }
  bool all_done = true;
  for (bool d : done_) all_done = all_done && d;
  if (all_done) return finish();
  loop_.submit(slice_op_);
}

void AofRewriter::dump(int db, const Entry& entry) {
  const Keyspace& keys = state_.store().db(db);
  if (entry.has_expiry && keys.expire_at(entry) < state_.now_ms()) return;  // gone already
  staged_.clear();
  state_record(keys, entry, staged_);
  snapshot_.append_records(db, staged_.bytes());
}

void AofRewriter::touch(int db, std::string_view key) {
  if (done_[db] || handled_[db].contains(key_arg(key))) return;
  Entry* e = state_.store().db(db).find(key, 0);  // now = 0: look without expiring
  if (e != nullptr && e->slot < cursor_[db]) return;  // scanned already
  if (e != nullptr) dump(db, *e);                     // its state at S, before the write
  handled_[db].emplace(key);                          // the scan must not dump it again
}

void AofRewriter::dump_rest(int db) {
  if (done_[db]) return;
  state_.store().db(db).scan(cursor_[db], std::numeric_limits<std::size_t>::max(), 0, [&](Entry& e) {
    if (!handled_[db].contains(key_arg(as_view(e.key)))) dump(db, e);
  });
  done_[db] = true;
  handled_[db].clear();
}

void AofRewriter::before_write(const Command& cmd, CommandContext& ctx) {
  if (!running_ || switching_) return;
  const int db = ctx.client.db;
  if (cmd.name == "flushdb") return dump_rest(db);
  if (cmd.first_key <= 0) {  // FLUSHALL, or a write whose keys the table does not name: finish every scan
    for (int i = 0; i < Store::db_count; ++i) dump_rest(i);
    return;
  }
  const auto argc = static_cast<int>(ctx.argv.size());
  const int last = cmd.last_key < 0 ? argc + cmd.last_key : cmd.last_key;
  const int step = cmd.key_step > 0 ? cmd.key_step : 1;
  for (int i = cmd.first_key; i <= last && i < argc; i += step) touch(db, ctx.argv[static_cast<std::size_t>(i)]);
  if (cmd.written_key != nullptr) {  // SORT ... STORE dst
    if (const std::size_t at = cmd.written_key(ctx.argv); at != 0) touch(db, ctx.argv[at]);
  }
}

void AofRewriter::write_chunk() {
  if (snapshot_.empty()) return;
  auto bytes = std::make_shared<std::string>(snapshot_.take());
  const std::uint64_t offset = temp_size_;
  const std::uint64_t size = bytes->size();
  temp_size_ += size;
  in_flight_ += size;
  worker_.post(
      [temp = temp_, bytes, offset] {
        int r = temp->error.load() != 0 ? 0 : write_all(temp->fd.get(), *bytes, offset);
        if (r < 0) temp->error.store(-r);
        return r;
      },
      [this, size, generation = generation_](int) {
        if (generation == generation_) in_flight_ -= size;
      });
}

// The snapshot is complete: stop the writer at a record boundary and switch.
// Until the pause is idle, commands still run and the writer still captures.
void AofRewriter::finish() {
  switching_ = true;
  writer_.pause([this] { switch_files(); });
}

void AofRewriter::switch_files() {
  AofWriter::Frozen frozen = writer_.freeze();  // unwritten: in the snapshot or the capture
  frozen_ = std::move(frozen.unwritten);
  auto tail = std::make_shared<std::string>(snapshot_.take());
  tail->append(frozen.captured);
  const std::uint64_t offset = temp_size_;
  const std::uint64_t size = offset + tail->size();
  worker_.post(
      [temp = temp_, tail, offset, temp_path = temp_path_, path = path_, dir = dir_] {
        if (int e = temp->error.load(); e != 0) return -e;
        if (int r = write_all(temp->fd.get(), *tail, offset); r < 0) return r;
        if (sys::fdatasync(temp->fd.get()) != 0) return -errno;
        if (sys::rename(temp_path.c_str(), path.c_str()) != 0) return -errno;
        // Past the rename the new file *is* the AOF: a failed directory fsync
        // cannot be undone, so it only costs the rename's crash-durability.
        [[maybe_unused]] int dir_synced = fsync_dir(dir);
        return 0;
      },
      [this, size](int res) { switched(res, size); });
}

void AofRewriter::switched(int res, std::uint64_t size) {
  running_ = false;
  last_ok_ = res == 0;
  if (res == 0) {
    writer_.switch_file(std::move(temp_->fd), size);
    ++completed_;
    last_size_ = size;
    log_(false, "Background AOF rewrite finished successfully (" + std::to_string(size) + " bytes)");
  } else {
    writer_.unfreeze(std::move(frozen_));
    sys::unlink(temp_path_.c_str());
    log_(true, std::string("Background AOF rewrite failed: ") + std::strerror(-res));
  }
  frozen_.clear();
  reset();
  if (on_end_) on_end_();
}

void AofRewriter::abort() noexcept {
  if (!running_ || switching_) return;  // a switch in progress completes in AofWorker::drain()
  loop_.abandon(slice_op_);
  writer_.end_capture();
  running_ = false;
  sys::unlink(temp_path_.c_str());
  reset();
  if (on_end_) on_end_();
}

}  // namespace duet::kv
