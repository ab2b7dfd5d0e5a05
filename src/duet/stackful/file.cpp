// fiber::File: each call is one FileRequest on the calling fiber's stack (the
// fiber cannot go away while parked, so the request and its buffer outlive the
// kernel's or the pool's use of them). FileRequest picks ring or pool.
#include "duet/stackful/file.hpp"

#include <unistd.h>

#include <cerrno>
#include <optional>
#include <stdexcept>
#include <utility>

#include "duet/io/file_ops.hpp"
#include "duet/io/sys.hpp"
#include "duet/runtime/detail/file_request.hpp"
#include "duet/stackful/detail/fiber_record.hpp"
#include "duet/stackful/scheduler.hpp"

namespace duet::fiber {

namespace {

using duet::detail::FileRequest;

struct Parked {
  detail::FiberRecord* fiber = nullptr;
  int res = 0;
  bool done = false;
};

void on_done(FileRequest* request, int res) noexcept {
  auto& parked = *static_cast<Parked*>(request->owner());
  parked.res = res;
  parked.done = true;
  parked.fiber->scheduler_->make_ready(*parked.fiber);
}

// Runs the described request, blocking the calling fiber; the syscall-style result.
int run_file(FileRequest& request, BlockingPool* pool, const std::stop_token& token) {
  Scheduler* scheduler = Scheduler::current();
  if (scheduler == nullptr || scheduler->running() == nullptr) {
    throw std::logic_error("duet: a fiber file call was made outside any fiber");
  }
  if (token.stop_requested()) return -ECANCELED;
  Parked parked{scheduler->running()};
  request.set_pool(pool);
  request.start(scheduler->loop(), &on_done, &parked);
  auto cancel = [&request]() noexcept { request.cancel(); };
  std::optional<std::stop_callback<decltype(cancel)>> on_stop;
  if (token.stop_possible()) on_stop.emplace(token, cancel);
  while (!parked.done) scheduler->park();
  return parked.res;
}

IoResult<void> void_result(int res) noexcept {
  if (res < 0) return error_from_res(res);
  return {};
}

EventLoop& current_loop() {
  Scheduler* scheduler = Scheduler::current();
  if (scheduler == nullptr) throw std::logic_error("duet: fiber file call on a thread without a Scheduler");
  return scheduler->loop();
}

}  // namespace

IoResult<File> File::open_at(int dir_fd, const std::string& path, int flags, mode_t mode, std::stop_token token,
                             BlockingPool* pool) {
  EventLoop& loop = current_loop();
  FileRequest request;
  describe_openat(request.op(), dir_fd, path.c_str(), flags, mode);
  const int res = run_file(request, pool, token);
  if (res < 0) return error_from_res(res);
  return File(loop, res, pool);
}

IoResult<std::size_t> File::transfer(bool write, const void* data, std::size_t len, std::int64_t offset,
                                     const std::stop_token& token) {
  FileRequest request;
  if (write) {
    describe_write(request.op(), fd_, data, len, offset);
  } else {
    describe_read(request.op(), fd_, const_cast<void*>(data), len, offset);
  }
  const int res = run_file(request, pool_, token);
  if (res < 0) return error_from_res(res);
  if (res == 0 && !write && len > 0) return io_errc::eof;
  return static_cast<std::size_t>(res);
}

IoResult<void> File::sync(bool data_only, const std::stop_token& token) {
  FileRequest request;
  describe_fsync(request.op(), fd_, data_only);
  return void_result(run_file(request, pool_, token));
}

IoResult<FileStat> File::stat(std::stop_token token) {
  FileRequest request;
  struct statx st {};
  describe_statx(request.op(), fd_, &st, file_stat_mask);
  const int res = run_file(request, pool_, token);
  if (res < 0) return error_from_res(res);
  return file_stat_from(st);
}

IoResult<void> File::close() {
  FileRequest request;
  describe_close(request.op(), std::exchange(fd_, -1));
  return void_result(run_file(request, pool_, {}));
}

IoResult<std::string> File::read_all(std::stop_token token) {
  constexpr std::size_t chunk = 64 * 1024;
  std::string out;
  for (;;) {
    const std::size_t have = out.size();
    out.resize(have + chunk);
    IoResult<std::size_t> n = read_at(std::span<char>(out.data() + have, chunk), have, token);
    if (n.eof()) {
      out.resize(have);
      return out;
    }
    if (!n) return n.error();
    out.resize(have + *n);
  }
}

IoResult<std::size_t> File::write_all(std::span<const char> buf, std::int64_t offset, std::stop_token token) {
  std::size_t done = 0;
  while (done < buf.size()) {
    const std::span<const char> rest = buf.subspan(done);
    IoResult<std::size_t> n =
        offset < 0 ? write(rest, token) : write_at(rest, static_cast<std::uint64_t>(offset) + done, token);
    if (!n) return n.error();
    if (*n == 0) return std::make_error_code(std::errc::io_error);  // no progress: never spin
    done += *n;
  }
  return done;
}

File::File(File&& other) noexcept : loop_(other.loop_), pool_(other.pool_), fd_(std::exchange(other.fd_, -1)) {}

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

}  // namespace duet::fiber
