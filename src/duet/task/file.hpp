// duet::File — a regular file for the stackless voice.
//
// Contract
// - open/open_at/read/read_at/write/write_at/fsync/fdatasync/stat/close return
//   awaiters (await them at once, as prvalues); read_all/write_all are Tasks.
//   Each takes an optional std::stop_token: a stop request (made on the loop's
//   thread) cancels the call (std::errc::operation_canceled, unless it had
//   finished); a token already stopped fails at once. On both backends a stop
//   reaches a call that is waiting without bound (a FIFO's or a terminal's
//   read, a FIFO's open); a regular file's syscall may finish first.
// - Where calls run: on io_uring as ring ops (IORING_OP_OPENAT, READ, WRITE,
//   FSYNC, STATX, CLOSE), the loop never blocks; on epoll on a blocking pool
//   (default_blocking_pool(), or the pool given to open), since a regular file
//   is always "ready" there. The task resumes on its loop either way. A call
//   stuck on a FIFO or device does not hold one of the pool's threads (the
//   pool starts more, up to BlockingPoolOptions::max_threads), so it stalls
//   no other file call.
// - Results are values as for sockets: a missing file is
//   std::errc::no_such_file_or_directory, a directory opened for writing
//   is_a_directory, ... A read past the end is io_errc::eof (r.eof()); a read
//   near the end is short. Offsets: read_at/write_at at an explicit offset
//   (any number may be in flight at once); read/write at the file's current
//   position (one at a time).
// - O_DIRECT: pass it in flags and use AlignedBuffer (io/aligned_buffer.hpp):
//   buffer address, length and offset multiples of 4096. read_all does not
//   support O_DIRECT (its buffer is a std::string).
// - Owns its fd; move-only. close() closes through the loop (or the pool);
//   the destructor closes at once with close(2). Loop thread only. The File
//   must outlive the calls awaited on it.
//
//   auto f = co_await duet::File::open(loop, "data.txt", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
//   if (!f) co_return;                               // f.error(): ENOENT, EACCES, ...
//   co_await f->write_all(std::string_view("hello"), 0);
//   duet::IoResult<std::string> text = co_await f->read_all();
//   co_await f->fdatasync();
#pragma once

#include <fcntl.h>
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <stop_token>
#include <string>

#include "duet/io/event_loop.hpp"
#include "duet/io/file_ops.hpp"
#include "duet/io/io_result.hpp"
#include "duet/runtime/blocking_pool.hpp"
#include "duet/task/detail/file_awaiters.hpp"
#include "duet/task/task.hpp"

namespace duet {

class File {
 public:
  File() noexcept = default;
  // Adopts an open fd (pool: the epoll path's pool; null = the default one).
  File(EventLoop& loop, int fd, BlockingPool* pool = nullptr) noexcept : loop_(&loop), pool_(pool), fd_(fd) {}
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  File(File&& other) noexcept;
  File& operator=(File&& other) noexcept;
  ~File() { reset(); }

  // openat(AT_FDCWD, path, flags, mode). Add O_CLOEXEC yourself if you want it.
  [[nodiscard]] static detail::FileOpenAwaiter open(EventLoop& loop, std::string path, int flags = O_RDONLY,
                                                    mode_t mode = 0644, std::stop_token token = {},
                                                    BlockingPool* pool = nullptr) {
    return {loop, pool, AT_FDCWD, std::move(path), flags, mode, std::move(token)};
  }
  // Relative to a directory fd (openat(2)); an absolute path ignores dir_fd.
  [[nodiscard]] static detail::FileOpenAwaiter open_at(EventLoop& loop, int dir_fd, std::string path, int flags,
                                                       mode_t mode = 0644, std::stop_token token = {},
                                                       BlockingPool* pool = nullptr) {
    return {loop, pool, dir_fd, std::move(path), flags, mode, std::move(token)};
  }

  [[nodiscard]] detail::FileSizeAwaiter read_at(std::span<char> buf, std::uint64_t offset,
                                                std::stop_token token = {}) noexcept {
    return {*loop_, pool_, false, fd_, buf.data(), buf.size(), static_cast<std::int64_t>(offset), std::move(token)};
  }
  [[nodiscard]] detail::FileSizeAwaiter read_at(std::span<std::byte> buf, std::uint64_t offset,
                                                std::stop_token token = {}) noexcept {
    return {*loop_, pool_, false, fd_, buf.data(), buf.size(), static_cast<std::int64_t>(offset), std::move(token)};
  }
  [[nodiscard]] detail::FileSizeAwaiter read(std::span<char> buf, std::stop_token token = {}) noexcept {
    return {*loop_, pool_, false, fd_, buf.data(), buf.size(), -1, std::move(token)};
  }
  [[nodiscard]] detail::FileSizeAwaiter write_at(std::span<const char> buf, std::uint64_t offset,
                                                 std::stop_token token = {}) noexcept {
    return {*loop_, pool_, true, fd_, buf.data(), buf.size(), static_cast<std::int64_t>(offset), std::move(token)};
  }
  [[nodiscard]] detail::FileSizeAwaiter write_at(std::span<const std::byte> buf, std::uint64_t offset,
                                                 std::stop_token token = {}) noexcept {
    return {*loop_, pool_, true, fd_, buf.data(), buf.size(), static_cast<std::int64_t>(offset), std::move(token)};
  }
  [[nodiscard]] detail::FileSizeAwaiter write(std::span<const char> buf, std::stop_token token = {}) noexcept {
    return {*loop_, pool_, true, fd_, buf.data(), buf.size(), -1, std::move(token)};
  }

  // Reads from offset 0 to the end of the file (an empty file gives "").
  Task<IoResult<std::string>> read_all(std::stop_token token = {});
  // Writes all of buf at offset (-1: at the current position), finishing short
  // writes; returns buf.size() or the first error.
  Task<IoResult<std::size_t>> write_all(std::span<const char> buf, std::int64_t offset = -1,
                                        std::stop_token token = {});

  [[nodiscard]] detail::FileVoidAwaiter fsync(std::stop_token token = {}) noexcept {
    return {*loop_, pool_, OpKind::fsync, fd_, false, std::move(token)};
  }
  [[nodiscard]] detail::FileVoidAwaiter fdatasync(std::stop_token token = {}) noexcept {
    return {*loop_, pool_, OpKind::fsync, fd_, true, std::move(token)};
  }
  [[nodiscard]] detail::FileStatAwaiter stat(std::stop_token token = {}) noexcept {
    return {*loop_, pool_, fd_, std::move(token)};
  }
  // Closes through the loop; the File is closed from here on whatever the
  // result. No stop token: a close is never left half done (an awaiter
  // dropped unawaited, or withdrawn before it ran, closes with close(2)).
  [[nodiscard]] detail::FileVoidAwaiter close() noexcept;

  [[nodiscard]] bool is_open() const noexcept { return fd_ >= 0; }
  [[nodiscard]] int native_handle() const noexcept { return fd_; }
  [[nodiscard]] EventLoop& loop() const noexcept { return *loop_; }

 private:
  void reset() noexcept;

  EventLoop* loop_ = nullptr;
  BlockingPool* pool_ = nullptr;
  int fd_ = -1;
};

}  // namespace duet
