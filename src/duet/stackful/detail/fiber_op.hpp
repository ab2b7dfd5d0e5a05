// duet::fiber::detail::FiberOp — one blocking call's IoOp, living on the calling fiber's stack.
//
// Contract
// - run_op(op, token) submits op on the current scheduler's loop and parks the
//   calling fiber (WAITING) until op's completion makes it READY again; returns
//   the syscall-style result (>= 0, or -errno: -ETIMEDOUT for op.timeout_,
//   -ECANCELED for a stop request). The wait is keyed by the operation, not by
//   the fd: any number of fibers may wait on one fd.
// - A token already stopped returns -ECANCELED without submitting. A stop
//   request cancels the op in the kernel; request_stop() must run on the
//   scheduler's thread (the loop's rule).
// - The fiber cannot go away while parked (a scheduler never drops a waiting
//   fiber), so the op and its buffer outlive the kernel's use of them.
// - Called outside a fiber: throws std::logic_error.
//
//   FiberOp op;
//   op.kind_ = OpKind::recv; op.fd_ = fd; op.buf_ = buf; op.len_ = n;
//   int res = run_op(op, token);
#pragma once

#include <cstddef>
#include <stop_token>

#include "duet/io/io_op.hpp"
#include "duet/io/io_result.hpp"

namespace duet::fiber::detail {

class FiberRecord;

struct FiberOp : IoOp {
  FiberRecord* fiber_ = nullptr;
  int result_ = 0;
  bool done_ = false;
};

int run_op(FiberOp& op, const std::stop_token& token = {});

// res -> IoResult with the stackless voice's rules: 0 bytes into a non-empty
// buffer is io_errc::eof; -errno is a generic_category error code.
inline IoResult<std::size_t> size_result(int res, std::size_t requested) noexcept {
  if (res < 0) return error_from_res(res);
  if (res == 0 && requested != 0) return io_errc::eof;
  return static_cast<std::size_t>(res);
}

inline IoResult<void> void_result(int res) noexcept {
  if (res < 0) return error_from_res(res);
  return {};
}

}  // namespace duet::fiber::detail
