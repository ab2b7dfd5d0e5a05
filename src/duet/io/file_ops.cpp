// The file ops' descriptions and their blocking syscalls. A transfer is capped
// at 1 GiB so every result fits an int (as both backends cap sockets').
#include "duet/io/file_ops.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace duet {

namespace {
constexpr std::size_t max_transfer = std::size_t{1} << 30;

int result(long r) noexcept { return r >= 0 ? static_cast<int>(r) : -errno; }

void describe(IoOp& op, OpKind kind, int fd) noexcept {
  op.kind_ = kind;
  op.fd_ = fd;
  op.buf_ = nullptr;
  op.len_ = 0;
  op.flags_ = 0;
  op.offset_ = -1;
}
}  // namespace

void describe_openat(IoOp& op, int dir_fd, const char* path, int flags, mode_t mode) noexcept {
  describe(op, OpKind::openat, dir_fd);
  op.buf_ = const_cast<char*>(path);
  op.flags_ = flags;
  op.len_ = mode;
}

void describe_read(IoOp& op, int fd, void* buf, std::size_t len, std::int64_t offset) noexcept {
  describe(op, OpKind::read, fd);
  op.buf_ = buf;
  op.len_ = len;
  op.offset_ = offset;
}

void describe_write(IoOp& op, int fd, const void* buf, std::size_t len, std::int64_t offset) noexcept {
  describe(op, OpKind::write, fd);
  op.buf_ = const_cast<void*>(buf);
  op.len_ = len;
  op.offset_ = offset;
}

void describe_fsync(IoOp& op, int fd, bool data_only) noexcept {
  describe(op, OpKind::fsync, fd);
  op.flags_ = data_only ? fsync_datasync : 0;
}

void describe_statx(IoOp& op, int fd, void* into, unsigned mask) noexcept {
  describe(op, OpKind::statx, fd);
  op.buf_ = into;
  op.len_ = mask;
}

void describe_close(IoOp& op, int fd) noexcept { describe(op, OpKind::close, fd); }

int file_syscall(IoOp& op) noexcept {
  const std::size_t len = std::min(op.len_, max_transfer);
  switch (op.kind_) {
    case OpKind::openat:
      return result(::openat(op.fd_, static_cast<const char*>(op.buf_), op.flags_, static_cast<mode_t>(op.len_)));
    case OpKind::read:
      return result(op.offset_ < 0 ? ::read(op.fd_, op.buf_, len) : ::pread(op.fd_, op.buf_, len, op.offset_));
    case OpKind::write:
      return result(op.offset_ < 0 ? ::write(op.fd_, op.buf_, len) : ::pwrite(op.fd_, op.buf_, len, op.offset_));
    case OpKind::fsync:
      return result((op.flags_ & fsync_datasync) != 0 ? ::fdatasync(op.fd_) : ::fsync(op.fd_));
    case OpKind::statx:
      return result(::statx(op.fd_, "", AT_EMPTY_PATH | op.flags_, static_cast<unsigned>(op.len_),
                            static_cast<struct statx*>(op.buf_)));
    case OpKind::close:
      return result(::close(op.fd_));
    default:
      return -EINVAL;  // not a file call
  }
}

}  // namespace duet
