// duet::fiber::File — a regular file for the stackful voice: plain blocking calls.
//
// Contract
// - The same calls and values as the stackless duet::File (task/file.hpp):
//   open/open_at -> IoResult<File>; read/read_at -> IoResult<size_t> (a read
//   past the end is io_errc::eof, near the end short); write/write_at,
//   read_all -> IoResult<std::string>, write_all, fsync, fdatasync,
//   stat -> IoResult<FileStat>, close -> IoResult<void>. Errors are std::errc
//   values (no_such_file_or_directory, is_a_directory, operation_canceled ...).
// - Each call blocks only the calling fiber. On io_uring it is a ring op; on
//   epoll it runs on a blocking pool (default_blocking_pool() or the one given
//   to open) and the fiber resumes on its own scheduler. Every call takes an
//   optional std::stop_token (request_stop on the scheduler's thread), except
//   close: a stop cancels the call unless it had finished; on epoll too it
//   reaches a call running on the pool that waits without bound (a FIFO's
//   read or open), and such a call does not hold one of the pool's threads.
// - O_DIRECT: flags | O_DIRECT and an AlignedBuffer (io/aligned_buffer.hpp).
// - Owns its fd; move-only; the destructor closes with close(2), close() goes
//   through the loop. The scheduler's thread only; calls must be made on a
//   fiber (std::logic_error otherwise).
//
//   auto f = duet::fiber::File::open("data.txt", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
//   if (!f) return;                                    // f.error(): ENOENT, EACCES, ...
//   f->write_all(std::string_view("hello"), 0);
//   duet::IoResult<std::string> text = f->read_all();
#pragma once

#include <fcntl.h>
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <stop_token>
#include <string>

#include "duet/io/event_loop.hpp"
#include "duet/io/file_stat.hpp"
#include "duet/io/io_result.hpp"
#include "duet/runtime/blocking_pool.hpp"

namespace duet::fiber {

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

  static IoResult<File> open(const std::string& path, int flags = O_RDONLY, mode_t mode = 0644,
                             std::stop_token token = {}, BlockingPool* pool = nullptr) {
    return open_at(AT_FDCWD, path, flags, mode, std::move(token), pool);
  }
  static IoResult<File> open_at(int dir_fd, const std::string& path, int flags, mode_t mode = 0644,
                                std::stop_token token = {}, BlockingPool* pool = nullptr);

  IoResult<std::size_t> read_at(std::span<char> buf, std::uint64_t offset, std::stop_token token = {}) {
    return transfer(false, buf.data(), buf.size(), static_cast<std::int64_t>(offset), token);
  }
  IoResult<std::size_t> read_at(std::span<std::byte> buf, std::uint64_t offset, std::stop_token token = {}) {
    return transfer(false, buf.data(), buf.size(), static_cast<std::int64_t>(offset), token);
  }
  IoResult<std::size_t> read(std::span<char> buf, std::stop_token token = {}) {
    return transfer(false, buf.data(), buf.size(), -1, token);
  }
  IoResult<std::size_t> write_at(std::span<const char> buf, std::uint64_t offset, std::stop_token token = {}) {
    return transfer(true, buf.data(), buf.size(), static_cast<std::int64_t>(offset), token);
  }
  IoResult<std::size_t> write_at(std::span<const std::byte> buf, std::uint64_t offset,
                                 std::stop_token token = {}) {
    return transfer(true, buf.data(), buf.size(), static_cast<std::int64_t>(offset), token);
  }
  IoResult<std::size_t> write(std::span<const char> buf, std::stop_token token = {}) {
    return transfer(true, buf.data(), buf.size(), -1, token);
  }

  // Reads from offset 0 to the end of the file (an empty file gives "").
  IoResult<std::string> read_all(std::stop_token token = {});
  // Writes all of buf at offset (-1: at the current position), finishing short writes.
  IoResult<std::size_t> write_all(std::span<const char> buf, std::int64_t offset = -1, std::stop_token token = {});

  IoResult<void> fsync(std::stop_token token = {}) { return sync(false, token); }
  IoResult<void> fdatasync(std::stop_token token = {}) { return sync(true, token); }
  IoResult<FileStat> stat(std::stop_token token = {});
  // Closes through the loop; the File is closed from here on whatever the
  // result (no stop token: a close is never left half done).
  IoResult<void> close();

  [[nodiscard]] bool is_open() const noexcept { return fd_ >= 0; }
  [[nodiscard]] int native_handle() const noexcept { return fd_; }
  [[nodiscard]] EventLoop& loop() const noexcept { return *loop_; }

 private:
  IoResult<std::size_t> transfer(bool write, const void* data, std::size_t len, std::int64_t offset,
                                 const std::stop_token& token);
  IoResult<void> sync(bool data_only, const std::stop_token& token);
  void reset() noexcept;

  EventLoop* loop_ = nullptr;
  BlockingPool* pool_ = nullptr;
  int fd_ = -1;
};

}  // namespace duet::fiber
