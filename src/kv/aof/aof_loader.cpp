// Loading mirrors Redis's loadSingleAppendOnlyFile: read "*N", then N times
// "$len" + bytes + CRLF, run the command, repeat. Two Redis rules matter:
// an incomplete final record (aof-load-truncated yes) is dropped and the file
// cut there; anything malformed before the end stops the load with the offset.
#include "kv/aof/aof_loader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <vector>

#include "duet/io/unique_fd.hpp"
#include "duet/io/sys.hpp"
#include "kv/command_table.hpp"
#include "kv/detail/args.hpp"
#include "kv/detail/command_util.hpp"
#include "kv/detail/numbers.hpp"

namespace duet::kv {
namespace {

constexpr std::int64_t max_args = 1024 * 1024;
constexpr std::int64_t max_bulk = 512ll * 1024 * 1024;

enum class Step { record, comment, incomplete, error };

// Reads one record at a time from the file's bytes; argv views point into them.
class RecordReader {
 public:
  explicit RecordReader(std::string_view data) noexcept : data_(data) {}

  Step next() {
    start_ = pos_;
    argv_.clear();
    if (data_[pos_] == '#') return skip_comment();
    std::int64_t n = 0;
    if (Step s = number('*', 1, max_args, n); s != Step::record) return s;
    for (std::int64_t i = 0; i < n; ++i) {
      std::int64_t len = 0;
      if (Step s = number('$', 0, max_bulk, len); s != Step::record) return s;
      auto size = static_cast<std::size_t>(len);
      if (data_.size() - pos_ < size + 2) return Step::incomplete;
      if (data_[pos_ + size] != '\r' || data_[pos_ + size + 1] != '\n') return fail(pos_ + size, "bulk string not terminated by CRLF");
      argv_.push_back(data_.substr(pos_, size));
      pos_ += size + 2;
    }
    return Step::record;
  }

  [[nodiscard]] bool done() const noexcept { return pos_ >= data_.size(); }
  [[nodiscard]] std::size_t pos() const noexcept { return pos_; }
  [[nodiscard]] std::size_t start() const noexcept { return start_; }
  [[nodiscard]] std::size_t error_at() const noexcept { return error_at_; }
  [[nodiscard]] const std::string& error() const noexcept { return error_; }
  [[nodiscard]] std::span<const std::string_view> argv() const noexcept { return argv_; }

 private:
  Step fail(std::size_t at, std::string why) {
    error_at_ = at;
    error_ = std::move(why);
    return Step::error;
  }

  Step skip_comment() {
    std::size_t end = data_.find("\r\n", pos_);
    if (end == std::string_view::npos) return Step::incomplete;
    pos_ = end + 2;
    return Step::comment;
  }

  // "<prefix><digits>\r\n" with min <= value <= max.
  Step number(char prefix, std::int64_t min, std::int64_t max, std::int64_t& out) {
    if (pos_ >= data_.size()) return Step::incomplete;
    if (data_[pos_] != prefix) {
      return fail(pos_, std::string("expected '") + prefix + "', got '" + printable(data_[pos_]) + "'");
    }
    std::size_t end = data_.find("\r\n", pos_ + 1);
    if (end == std::string_view::npos || end - pos_ > 24) {
      if (end == std::string_view::npos && data_.size() - pos_ <= 24) return Step::incomplete;
      return fail(pos_, std::string("invalid length after '") + prefix + "'");
    }
    if (!detail::parse_i64(data_.substr(pos_ + 1, end - pos_ - 1), out) || out < min || out > max) {
      return fail(pos_, std::string("invalid length after '") + prefix + "'");
    }
    pos_ = end + 2;
    return Step::record;
  }

  static std::string printable(char c) {
    if (c >= 0x20 && c < 0x7f) return std::string(1, c);
    static constexpr char hex[] = "0123456789abcdef";
    auto u = static_cast<unsigned char>(c);
    return std::string("\\x") + hex[u >> 4] + hex[u & 15];
  }

  std::string_view data_;
  std::size_t pos_ = 0;
  std::size_t start_ = 0;
  std::size_t error_at_ = 0;
  std::string error_;
  std::vector<std::string_view> argv_;
};

bool arity_ok(const Command& cmd, std::size_t argc) noexcept {
  auto n = static_cast<std::ptrdiff_t>(argc);
  return cmd.arity >= 0 ? n == cmd.arity : n >= -cmd.arity;
}

std::string at_offset(std::size_t offset) { return " at byte offset " + std::to_string(offset); }

// Runs one record; an empty string means success, otherwise why it was refused.
std::string apply(ServerState& state, ClientInfo& client, std::span<const std::string_view> argv, std::string& scratch) {
  const Command* cmd = find_command(argv[0]);
  if (cmd == nullptr) return "unknown command '" + std::string(argv[0].substr(0, 64)) + "'";
  if (!arity_ok(*cmd, argv.size())) return "wrong number of arguments for '" + std::string(cmd->name) + "'";
  scratch.clear();
  CommandContext ctx{state, client, argv, Reply(scratch), 0};  // now = 0: nothing expires while loading
  ctx.silent = true;  // the keyspace as it was: no keyspace events
  cmd->handler(ctx);
  return {};
}

// Applies the records of a file window by window, so a large log is never
// read into memory whole: feed() takes the bytes read so far that were not
// used yet, applies the complete records and says how many bytes it used.
class Replayer {
 public:
  explicit Replayer(ServerState& state) : state_(state) {
    client_.authenticated = true;
    result_.status = AofLoadStatus::loaded;
  }

  // `window` starts at file offset `base`; at the end of the file (eof) an
  // incomplete record is the truncated tail.
  std::size_t feed(std::string_view window, std::uint64_t base, bool eof) {
    RecordReader reader(window);
    while (!reader.done()) {
      Step step = reader.next();
      if (step == Step::incomplete) {
        if (eof && block_) {
          stop(AofLoadStatus::truncated, "an unfinished MULTI/EXEC block" + at_offset(block_start_) +
                                             " (a crash before its EXEC was written): it was dropped");
        } else if (eof) {
          stop(AofLoadStatus::truncated, "the last record is incomplete (" + std::to_string(window.size() - reader.start()) +
                                             " bytes" + at_offset(base + reader.start()) + "): it was dropped");
        }
        return reader.start();
      }
      if (step == Step::error) {
        stop(AofLoadStatus::corrupt, "Bad file format" + at_offset(base + reader.error_at()) + " (record starting" +
                                         at_offset(base + reader.start()) + "): " + reader.error());
        return reader.start();
      }
      if (step == Step::record) {
        if (std::string why = record(reader.argv(), base + reader.start()); !why.empty()) {
          stop(AofLoadStatus::corrupt, "Bad record" + at_offset(base + reader.start()) + ": " + why);
          return reader.start();
        }
      }
      if (!block_) result_.valid_bytes = base + reader.pos();  // inside MULTI the good data ends before it
    }
    if (eof && block_ && !stopped()) {  // the file ends right after a complete record inside the block
      stop(AofLoadStatus::truncated, "an unfinished MULTI/EXEC block" + at_offset(block_start_) +
                                         " (a crash before its EXEC was written): it was dropped");
    }
    return reader.pos();
  }

  [[nodiscard]] bool stopped() const noexcept { return result_.status != AofLoadStatus::loaded; }
  [[nodiscard]] AofLoadResult& result() noexcept { return result_; }

 private:
  void stop(AofLoadStatus status, std::string message) {
    result_.status = status;
    result_.message = std::move(message);
  }

  // MULTI ... EXEC (a transaction, kv/multi/) applies whole or not at all:
  // its records wait until EXEC; a file that ends inside one is truncated
  // before its MULTI, as Redis reverts an incomplete MULTI/EXEC block.
  std::string record(std::span<const std::string_view> argv, std::uint64_t offset) {
    if (detail::equals_ci(argv[0], "multi")) {
      if (block_) return "MULTI inside MULTI";
      block_ = true;
      block_start_ = offset;
      return {};
    }
    if (detail::equals_ci(argv[0], "exec")) {
      if (!block_) return "EXEC without MULTI";
      block_ = false;
      std::vector<std::string_view> views;
      for (const Args& queued : queued_) {
        queued.views(views);
        if (std::string why = apply(state_, client_, views, scratch_); !why.empty()) return why;
        ++result_.commands;
      }
      queued_.clear();
      return {};
    }
    if (block_) {
      if (find_command(argv[0]) == nullptr) return "unknown command '" + std::string(argv[0].substr(0, 64)) + "'";
      queued_.emplace_back().assign(argv);
      return {};
    }
    if (std::string why = apply(state_, client_, argv, scratch_); !why.empty()) return why;
    ++result_.commands;
    return {};
  }

  ServerState& state_;
  ClientInfo client_;
  std::string scratch_;
  AofLoadResult result_;
  bool block_ = false;
  std::uint64_t block_start_ = 0;
  std::vector<Args> queued_;
};

// Appends up to chunk bytes read at `offset`; false at the end of the file.
bool read_chunk(int fd, std::string& buf, std::uint64_t offset, const std::string& path) {
  constexpr std::size_t chunk = 4 * 1024 * 1024;
  const std::size_t old = buf.size();
  buf.resize(old + chunk);
  ssize_t n = -1;
  do {
    n = sys::pread(fd, buf.data() + old, chunk, static_cast<off_t>(offset));
  } while (n < 0 && errno == EINTR);
  if (n < 0) throw std::system_error(errno, std::generic_category(), "read " + path);
  buf.resize(old + static_cast<std::size_t>(n));
  return n > 0;
}

}  // namespace

AofLoadResult replay_aof(ServerState& state, std::string_view bytes) {
  Replayer replayer(state);
  replayer.feed(bytes, 0, true);
  replayer.result().file_bytes = bytes.size();
  return replayer.result();
}

AofLoadResult load_aof(ServerState& state, const std::string& path) {
  UniqueFd fd(sys::open(path.c_str(), O_RDWR | O_CLOEXEC));
  if (!fd) {
    if (errno == ENOENT) return {};
    throw std::system_error(errno, std::generic_category(), "open " + path);
  }
  const off_t file_size = sys::file_size(fd.get());
  if (file_size < 0) throw std::system_error(errno, std::generic_category(), "fstat " + path);
  Replayer replayer(state);
  std::string buf;
  std::uint64_t base = 0;
  bool eof = false;
  while (!eof && !replayer.stopped()) {
    eof = !read_chunk(fd.get(), buf, base + buf.size(), path);
    const std::size_t used = replayer.feed(buf, base, eof);
    buf.erase(0, used);
    base += used;
  }
  AofLoadResult result = replayer.result();
  result.file_bytes = static_cast<std::uint64_t>(file_size);
  if (result.status == AofLoadStatus::truncated) {
    if (sys::ftruncate(fd.get(), static_cast<off_t>(result.valid_bytes)) != 0 || sys::fsync(fd.get()) != 0) {
      throw std::system_error(errno, std::generic_category(), "truncate " + path);
    }
  }
  return result;
}

}  // namespace duet::kv
