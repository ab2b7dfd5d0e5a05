// The awaiters behind duet::File's calls. Each holds one FileRequest in the
// coroutine frame (no allocation per call), runs it on the loop (io_uring) or
// the blocking pool (epoll) and converts its result. See task/file.hpp.
//
//   IoResult<std::size_t> n = co_await detail::FileSizeAwaiter(loop, pool, {});  // after describe_read
#pragma once

#include <sys/stat.h>

#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>

#include "duet/io/event_loop.hpp"
#include "duet/io/file_stat.hpp"
#include "duet/io/io_result.hpp"
#include "duet/runtime/blocking_pool.hpp"
#include "duet/runtime/detail/file_request.hpp"

namespace duet {
class File;
}

namespace duet::detail {

// One file call awaited by a coroutine. A stop request (on the loop's thread)
// cancels it; a token already stopped fails at once. Destroying the frame while
// suspended abandons the call (waits until nothing touches the buffer).
class FileAwaiter {
 public:
  FileAwaiter(EventLoop& loop, BlockingPool* pool, std::stop_token token) noexcept;
  FileAwaiter(const FileAwaiter&) = delete;
  FileAwaiter& operator=(const FileAwaiter&) = delete;
  FileAwaiter(FileAwaiter&&) = delete;
  FileAwaiter& operator=(FileAwaiter&&) = delete;
  ~FileAwaiter() { on_stop_.reset(); }  // request_ abandons itself next

  [[nodiscard]] bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> waiter) noexcept;

  [[nodiscard]] IoOp& op() noexcept { return request_.op(); }

 protected:
  [[nodiscard]] bool awaited() const noexcept { return awaited_; }
  [[nodiscard]] int result() const noexcept { return res_; }
  // Derived destructors: withdraw an in-flight call before their members go.
  // True if one was in flight; result() is then how it ended (undelivered).
  bool abandon() noexcept;

  FileRequest request_;
  EventLoop* loop_;

 private:
  struct Canceller {
    FileAwaiter* self_;
    void operator()() const noexcept { self_->request_.cancel(); }
  };
  static void on_done(FileRequest* request, int res) noexcept;

  std::coroutine_handle<> waiter_;
  std::stop_token token_;
  std::optional<std::stop_callback<Canceller>> on_stop_;
  int res_ = 0;
  bool awaited_ = false;
};

// read / write: IoResult<size_t>; a read of 0 bytes into a non-empty buffer is io_errc::eof.
class FileSizeAwaiter : public FileAwaiter {
 public:
  FileSizeAwaiter(EventLoop& loop, BlockingPool* pool, bool write, int fd, const void* data, std::size_t len,
                  std::int64_t offset, std::stop_token token) noexcept;
  [[nodiscard]] IoResult<std::size_t> await_resume() noexcept;
};

// fsync / fdatasync / close: IoResult<void>. A close never awaited still
// closes its fd (with close(2), from the destructor): File gave it up already.
class FileVoidAwaiter : public FileAwaiter {
 public:
  // kind: OpKind::fsync (data_only: fdatasync) or OpKind::close.
  FileVoidAwaiter(EventLoop& loop, BlockingPool* pool, OpKind kind, int fd, bool data_only,
                  std::stop_token token) noexcept;
  FileVoidAwaiter(const FileVoidAwaiter&) = delete;
  FileVoidAwaiter& operator=(const FileVoidAwaiter&) = delete;
  FileVoidAwaiter(FileVoidAwaiter&&) = delete;
  FileVoidAwaiter& operator=(FileVoidAwaiter&&) = delete;
  ~FileVoidAwaiter();
  [[nodiscard]] IoResult<void> await_resume() const noexcept;
};

// statx: IoResult<FileStat>.
class FileStatAwaiter : public FileAwaiter {
 public:
  FileStatAwaiter(EventLoop& loop, BlockingPool* pool, int fd, std::stop_token token) noexcept;
  FileStatAwaiter(const FileStatAwaiter&) = delete;
  FileStatAwaiter& operator=(const FileStatAwaiter&) = delete;
  FileStatAwaiter(FileStatAwaiter&&) = delete;
  FileStatAwaiter& operator=(FileStatAwaiter&&) = delete;
  ~FileStatAwaiter() { abandon(); }  // the kernel may still write stat_
  [[nodiscard]] IoResult<FileStat> await_resume() const noexcept;

 private:
  struct statx stat_ {};
};

// openat: IoResult<File>. Owns the path until the kernel has read it; an fd
// opened for a frame destroyed meanwhile is closed, never leaked.
class FileOpenAwaiter : public FileAwaiter {
 public:
  FileOpenAwaiter(EventLoop& loop, BlockingPool* pool, int dir_fd, std::string path, int flags, mode_t mode,
                  std::stop_token token);
  FileOpenAwaiter(const FileOpenAwaiter&) = delete;
  FileOpenAwaiter& operator=(const FileOpenAwaiter&) = delete;
  FileOpenAwaiter(FileOpenAwaiter&&) = delete;
  FileOpenAwaiter& operator=(FileOpenAwaiter&&) = delete;
  ~FileOpenAwaiter();
  [[nodiscard]] IoResult<File> await_resume() noexcept;

 private:
  std::string path_;
  BlockingPool* pool_;
};

}  // namespace duet::detail
