// duet file ops — how a file call is described as an IoOp, and the blocking
// syscall behind each description (for the blocking pool and the epoll loop).
//
// Contract
// - describe_*(op, ...) fill an IoOp's description for one file call (kind_,
//   fd_, buf_, len_, offset_, flags_); the caller sets complete_/context_ and
//   keeps the path, buffer and struct statx alive until the op completes.
//   Offsets: >= 0 a position in the file; -1 the file's current position.
// - file_syscall(op) runs the described call synchronously on the calling
//   thread and returns the syscall-style result (>= 0, or -errno), exactly what
//   io_uring's IORING_OP_ of the same name gives. It blocks: never call it on
//   a loop's thread for a file that may be slow (use duet::File, which runs it
//   on the blocking pool on epoll). Any thread; pure syscall, no state.
//
//   IoOp op;  duet::describe_read(op, fd, buf, sizeof buf, 0);
//   int n = duet::file_syscall(op);           // on a pool thread
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "duet/io/io_op.hpp"

namespace duet {

void describe_openat(IoOp& op, int dir_fd, const char* path, int flags, mode_t mode) noexcept;
void describe_read(IoOp& op, int fd, void* buf, std::size_t len, std::int64_t offset) noexcept;
void describe_write(IoOp& op, int fd, const void* buf, std::size_t len, std::int64_t offset) noexcept;
void describe_fsync(IoOp& op, int fd, bool data_only) noexcept;
// mask: STATX_* fields wanted (STATX_SIZE | STATX_MTIME ...); into: a struct statx.
void describe_statx(IoOp& op, int fd, void* into, unsigned mask) noexcept;
void describe_close(IoOp& op, int fd) noexcept;

// True for the kinds that are file calls only (never wait for readiness).
[[nodiscard]] constexpr bool is_file_only_kind(OpKind kind) noexcept {
  return kind == OpKind::openat || kind == OpKind::fsync || kind == OpKind::statx || kind == OpKind::close;
}

int file_syscall(IoOp& op) noexcept;

}  // namespace duet
