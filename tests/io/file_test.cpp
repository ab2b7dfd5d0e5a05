// The file ops as raw IoOps on both backends (io_uring: IORING_OP_OPENAT, READ,
// WRITE, FSYNC, STATX, CLOSE; epoll: the syscall inline), and file_syscall,
// what the blocking pool runs for duet::File on epoll. Same results on both.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <string_view>

#include <catch2/catch.hpp>

#include "duet/io/event_loop.hpp"
#include "duet/io/file_ops.hpp"
#include "duet/io/file_stat.hpp"
#include "duet/io/io_op.hpp"
#include "support/temp_dir.hpp"

using namespace std::chrono_literals;
using duet::Backend;
using duet::EventLoop;
using duet::IoOp;

namespace {

struct FileOp : IoOp {
  bool done = false;
  int res = 0;
  FileOp() {
    complete_ = [](IoOp* op, int r) noexcept {
      auto* self = static_cast<FileOp*>(op);
      self->done = true;
      self->res = r;
    };
  }
};

// Submits op on loop and turns it until op completes (5 s at most).
int run(EventLoop& loop, FileOp& op) {
  op.done = false;
  loop.submit(op);
  const auto give_up = std::chrono::steady_clock::now() + 5s;
  while (!op.done && std::chrono::steady_clock::now() < give_up) loop.run_once(give_up);
  REQUIRE(op.done);
  return op.res;
}

}  // namespace

TEST_CASE("file ops open, write, fsync, statx, read and close a file as IoOps", "[file]") {
  EventLoop loop(GENERATE(Backend::io_uring, Backend::epoll));
  duet::test::TempDir dir("duet-io-file");
  const std::string path = dir.file("f");
  FileOp op;
  duet::describe_openat(op, AT_FDCWD, path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
  const int fd = run(loop, op);
  REQUIRE(fd >= 0);
  duet::describe_write(op, fd, "hello file", 10, 0);
  CHECK(run(loop, op) == 10);
  duet::describe_fsync(op, fd, true);
  CHECK(run(loop, op) == 0);
  duet::describe_fsync(op, fd, false);
  CHECK(run(loop, op) == 0);
  struct statx st {};
  duet::describe_statx(op, fd, &st, duet::file_stat_mask);
  CHECK(run(loop, op) == 0);
  CHECK(duet::file_stat_from(st).size == 10);
  CHECK((duet::file_stat_from(st).mode & 0777) == 0640);
  char buf[32];
  duet::describe_read(op, fd, buf, sizeof buf, 6);
  CHECK(run(loop, op) == 4);
  CHECK(std::string_view(buf, 4) == "file");
  duet::describe_read(op, fd, buf, sizeof buf, -1);  // the position is still 0: the ops used offsets
  CHECK(run(loop, op) == 10);
  duet::describe_close(op, fd);
  CHECK(run(loop, op) == 0);
  CHECK(::fcntl(fd, F_GETFD) == -1);
  CHECK(loop.in_flight() == 0);
}

TEST_CASE("file ops report ENOENT, EEXIST and EBADF as negative results", "[file]") {
  EventLoop loop(GENERATE(Backend::io_uring, Backend::epoll));
  duet::test::TempDir dir("duet-io-file");
  FileOp op;
  const std::string missing = dir.file("missing");
  duet::describe_openat(op, AT_FDCWD, missing.c_str(), O_RDONLY, 0);
  CHECK(run(loop, op) == -ENOENT);
  duet::describe_openat(op, AT_FDCWD, dir.path().c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  CHECK(run(loop, op) == -EEXIST);
  duet::describe_fsync(op, 1'000'000, false);
  CHECK(run(loop, op) == -EBADF);
}

TEST_CASE("file_syscall gives the same results as the ring, on the calling thread", "[file]") {
  duet::test::TempDir dir("duet-io-file");
  const std::string path = dir.file("g");
  IoOp op;
  duet::describe_openat(op, AT_FDCWD, path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  const int fd = duet::file_syscall(op);
  REQUIRE(fd >= 0);
  duet::describe_write(op, fd, "abc", 3, -1);
  CHECK(duet::file_syscall(op) == 3);
  char buf[8];
  duet::describe_read(op, fd, buf, sizeof buf, 0);
  CHECK(duet::file_syscall(op) == 3);
  duet::describe_read(op, fd, buf, sizeof buf, 3);
  CHECK(duet::file_syscall(op) == 0);
  duet::describe_close(op, fd);
  CHECK(duet::file_syscall(op) == 0);
  op.kind_ = duet::OpKind::recv;
  CHECK(duet::file_syscall(op) == -EINVAL);
}
