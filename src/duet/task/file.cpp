// File and its awaiters: each call is one FileRequest in the awaiting frame;
// FileRequest picks the ring or the blocking pool, so nothing here depends on
// the backend. read_all/write_all are loops of those calls.
#include "duet/task/file.hpp"

#include <unistd.h>

#include <cerrno>
#include <utility>

#include "duet/io/sys.hpp"

namespace duet {

namespace detail {

FileAwaiter::FileAwaiter(EventLoop& loop, BlockingPool* pool, std::stop_token token) noexcept
    : loop_(&loop), token_(std::move(token)) {
  request_.set_pool(pool);
}

bool FileAwaiter::await_suspend(std::coroutine_handle<> waiter) noexcept {
  awaited_ = true;
  if (token_.stop_requested()) {
    res_ = -ECANCELED;
    return false;
  }
  waiter_ = waiter;
  request_.start(*loop_, &FileAwaiter::on_done, this);
  // Registered once the call is in flight, so a stop always finds it there.
  if (token_.stop_possible()) on_stop_.emplace(token_, Canceller{this});
  return true;
}

void FileAwaiter::on_done(FileRequest* request, int res) noexcept {
  auto* self = static_cast<FileAwaiter*>(request->owner());
  self->res_ = res;
  self->on_stop_.reset();
  self->waiter_.resume();
}

bool FileAwaiter::abandon() noexcept {
  if (!request_.in_flight()) return false;
  on_stop_.reset();
  res_ = request_.abandon();
  return true;
}

FileSizeAwaiter::FileSizeAwaiter(EventLoop& loop, BlockingPool* pool, bool write, int fd, const void* data,
                                 std::size_t len, std::int64_t offset, std::stop_token token) noexcept
    : FileAwaiter(loop, pool, std::move(token)) {
  if (write) {
    describe_write(op(), fd, data, len, offset);
  } else {
    describe_read(op(), fd, const_cast<void*>(data), len, offset);
  }
}

IoResult<std::size_t> FileSizeAwaiter::await_resume() noexcept {
  if (result() < 0) return error_from_res(result());
  if (result() == 0 && op().kind_ == OpKind::read && op().len_ > 0) return io_errc::eof;
  return static_cast<std::size_t>(result());
}

FileVoidAwaiter::FileVoidAwaiter(EventLoop& loop, BlockingPool* pool, OpKind kind, int fd, bool data_only,
                                 std::stop_token token) noexcept
    : FileAwaiter(loop, pool, std::move(token)) {
  if (kind == OpKind::close) {
    describe_close(op(), fd);
  } else {
    describe_fsync(op(), fd, data_only);
  }
}

// A close that never ran (never awaited, or withdrawn before it started by a
// frame going away) must still close: the File already let go of the fd.
FileVoidAwaiter::~FileVoidAwaiter() {
  const bool withdrawn = abandon() && result() == -ECANCELED;
  if (op().kind_ == OpKind::close && op().fd_ >= 0 && (!awaited() || withdrawn)) sys::close(op().fd_);
}

IoResult<void> FileVoidAwaiter::await_resume() const noexcept {
  if (result() < 0) return error_from_res(result());
  return {};
}

FileStatAwaiter::FileStatAwaiter(EventLoop& loop, BlockingPool* pool, int fd, std::stop_token token) noexcept
    : FileAwaiter(loop, pool, std::move(token)) {
  describe_statx(op(), fd, &stat_, file_stat_mask);
}

IoResult<FileStat> FileStatAwaiter::await_resume() const noexcept {
  if (result() < 0) return error_from_res(result());
  return file_stat_from(stat_);
}

FileOpenAwaiter::FileOpenAwaiter(EventLoop& loop, BlockingPool* pool, int dir_fd, std::string path, int flags,
                                 mode_t mode, std::stop_token token)
    : FileAwaiter(loop, pool, std::move(token)), path_(std::move(path)), pool_(pool) {
  describe_openat(op(), dir_fd, path_.c_str(), flags, mode);
}

// The open may have won against the cancel: nobody will see that fd.
FileOpenAwaiter::~FileOpenAwaiter() {
  if (abandon() && result() >= 0) sys::close(result());
}

IoResult<File> FileOpenAwaiter::await_resume() noexcept {
  if (result() < 0) return error_from_res(result());
  return File(*loop_, result(), pool_);
}

}  // namespace detail

File::File(File&& other) noexcept
    : loop_(other.loop_), pool_(other.pool_), fd_(std::exchange(other.fd_, -1)) {}

File& File::operator=(File&& other) noexcept {
  if (this != &other) {
    reset();
    loop_ = other.loop_;
    pool_ = other.pool_;
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

void File::reset() noexcept {
  if (fd_ >= 0) sys::close(std::exchange(fd_, -1));
}

detail::FileVoidAwaiter File::close() noexcept {
  return {*loop_, pool_, OpKind::close, std::exchange(fd_, -1), false, {}};
}

Task<IoResult<std::string>> File::read_all(std::stop_token token) {
  constexpr std::size_t chunk = 64 * 1024;
  std::string out;
  for (;;) {
    const std::size_t have = out.size();
    out.resize(have + chunk);
    IoResult<std::size_t> n = co_await read_at(std::span<char>(out.data() + have, chunk), have, token);
    if (n.eof()) {
      out.resize(have);
      co_return out;
    }
    if (!n) co_return n.error();
    out.resize(have + *n);
  }
}

Task<IoResult<std::size_t>> File::write_all(std::span<const char> buf, std::int64_t offset, std::stop_token token) {
  std::size_t done = 0;
  while (done < buf.size()) {
    const std::span<const char> rest = buf.subspan(done);
    IoResult<std::size_t> n = offset < 0 ? co_await write(rest, token)
                                         : co_await write_at(rest, static_cast<std::uint64_t>(offset) + done, token);
    if (!n) co_return n.error();
    if (*n == 0) co_return std::make_error_code(std::errc::io_error);  // no progress: never spin
    done += *n;
  }
  co_return done;
}

}  // namespace duet
