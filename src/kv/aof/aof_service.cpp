// AofService: glue. Records flow Session → after_write → translate_write →
// writer (which also captures them for a running rewrite); expiries arrive
// through the Keyspace hook as DELs.
#include "kv/aof/aof_service.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <system_error>

#include "kv/aof/aof_propagation.hpp"
#include "duet/io/sys.hpp"

namespace duet::kv {

AofService::AofService(ServerState& state, EventLoop& loop, Log log)
    : state_(state), loop_(loop), log_(std::move(log)), worker_(loop) {}

AofService::~AofService() {
  if (writer_ && !stopped_) shutdown();
}

std::string AofService::path() const { return state_.config().dir + "/" + state_.config().appendfilename; }

AofLoadResult AofService::open() {
  const std::string file = path();
  AofLoadResult loaded = load_aof(state_, file);
  switch (loaded.status) {
    case AofLoadStatus::corrupt:
      throw std::runtime_error("Bad file format reading the append only file " + file + ": " + loaded.message +
                               ". Make a backup of the file, then fix it (redis-check-aof --fix) or remove it.");
    case AofLoadStatus::truncated:
      log_(true, "!!! Warning: short read while loading the AOF file " + file + ": " + loaded.message +
                     "; AOF loaded anyway, truncated to " + std::to_string(loaded.valid_bytes) + " bytes");
      break;
    case AofLoadStatus::loaded:
      log_(false, "DB loaded from append only file: " + std::to_string(loaded.commands) + " records, " +
                      std::to_string(loaded.valid_bytes) + " bytes");
      break;
    case AofLoadStatus::missing:
      break;
  }
  UniqueFd fd(sys::open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  if (!fd) throw std::system_error(errno, std::generic_category(), "open " + file);
  const off_t file_size = sys::file_size(fd.get());
  if (file_size < 0) throw std::system_error(errno, std::generic_category(), "fstat " + file);
  if (loaded.status == AofLoadStatus::missing) {  // make the new file's name durable
    int dir = sys::open(state_.config().dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      sys::fsync(dir);
      sys::close(dir);
    }
  }
  const auto size = static_cast<std::uint64_t>(file_size);
  writer_ = std::make_unique<AofWriter>(loop_, worker_, state_.config(), std::move(fd), size);
  rewriter_ = std::make_unique<AofRewriter>(loop_, worker_, *writer_, state_, state_.config().dir,
                                            state_.config().appendfilename, log_);
  base_size_ = size;
  state_.set_write_observer(this);
  for (int db = 0; db < Store::db_count; ++db) {
    hooks_[static_cast<std::size_t>(db)] = DbHook{this, db};
    state_.store().db(db).set_expire_hook(&AofService::expired_thunk, &hooks_[static_cast<std::size_t>(db)]);
  }
  return loaded;
}

void AofService::expired_thunk(void* context, const Entry& entry) {
  auto* hook = static_cast<DbHook*>(context);
  hook->self->on_expired(hook->db, entry);
}

void AofService::before_write(const Command& cmd, CommandContext& ctx) { rewriter_->before_write(cmd, ctx); }

void AofService::after_write(const Command& cmd, CommandContext& ctx, std::string_view reply) {
  staged_.clear();
  translate_write(cmd, ctx, reply, staged_);
  log_records(ctx.client.db, staged_.bytes());
}

void AofService::log_block(const LoggedBlock& block) {
  block.emit([this](int db, std::string_view records) { log_records(db, records); });
}

void AofService::on_expired(int db, const Entry& entry) {
  AofBuffer del;  // not staged_: an expiry can fire while a command is being translated
  expired_record(as_view(entry.key), del);
  log_records(db, del.bytes());
}

void AofService::log_records(int db, std::string_view staged) {
  if (staged.empty() || stopped_) return;
  writer_->append(db, staged);
}

bool AofService::request_rewrite(std::string& message) {
  return launcher_ ? launcher_(message) : rewriter_->start(message);
}

bool AofService::start_rewrite_from(std::string snapshot, std::string& message) {
  return rewriter_->start(message, std::move(snapshot));
}

// The aof_* fields of Redis's INFO persistence that apply, plus aof_fsyncs
// (duet's: how many fsyncs the group commit needed).
void AofService::info(std::string& out) const {
  auto line = [&out](std::string_view key, const std::string& value) {
    out.append(key).append(":").append(value).append("\r\n");
  };
  line("aof_enabled", "1");
  line("aof_rewrite_in_progress", rewriter_->running() ? "1" : "0");
  line("aof_rewrites", std::to_string(rewriter_->completed()));
  line("aof_last_bgrewrite_status", rewriter_->last_ok() ? "ok" : "err");
  line("aof_last_write_status", writer_->last_write_ok() ? "ok" : "err");
  line("aof_current_size", std::to_string(writer_->file_size()));
  line("aof_base_size", std::to_string(base_size_));
  line("aof_buffer_length", std::to_string(writer_->appended() - writer_->written()));
  line("aof_fsyncs", std::to_string(writer_->fsync_count()));
}

void AofService::tick() {
  if (stopped_ || !writer_) return;
  writer_->tick(ServerState::system_now_ms());
  maybe_auto_rewrite();
}

// aof.c serverCron: growth = size * 100 / base - 100, against the size after
// the last rewrite (or load), once the file is at least the minimum size.
void AofService::maybe_auto_rewrite() {
  if (rewriter_->completed() != rewrites_seen_) {
    rewrites_seen_ = rewriter_->completed();
    base_size_ = rewriter_->last_size();
  }
  const ServerConfig& c = state_.config();
  const std::uint64_t size = writer_->file_size();
  if (c.auto_aof_rewrite_percentage <= 0 || rewriter_->running() || size < c.auto_aof_rewrite_min_size) return;
  const std::uint64_t base = base_size_ != 0 ? base_size_ : 1;
  const std::uint64_t growth = size * 100 / base - 100;
  if (size <= base || growth < static_cast<std::uint64_t>(c.auto_aof_rewrite_percentage)) return;
  log_(false, "Starting automatic rewriting of AOF on " + std::to_string(growth) + "% growth");
  std::string message;
  if (!request_rewrite(message)) log_(true, message);
}

void AofService::shutdown() {
  if (stopped_) return;
  if (writer_) {
    rewriter_->abort();
    writer_->shutdown();
  } else {
    worker_.drain();
  }
  stopped_ = true;
  if (state_.write_observer() == this) state_.set_write_observer(nullptr);
  for (int db = 0; db < Store::db_count; ++db) state_.store().db(db).set_expire_hook(nullptr, nullptr);
}

}  // namespace duet::kv
