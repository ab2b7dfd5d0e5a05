// duet::detail::await_into — the body shared by the coroutines that run a Task
// for someone else (sync_wait's and run_until_complete's TaskRunner,
// when_all's children): await it, and store its value or exception in `out`.
// The coroutine type Runner decides what its end does (wake a waiter, count
// down a latch).
//
//   Runner runner = await_into<Runner>(std::move(task), result);
#pragma once

#include <exception>
#include <type_traits>
#include <utility>

#include "duet/task/detail/result.hpp"
#include "duet/task/task.hpp"

namespace duet::detail {

template <typename Runner, typename T>
Runner await_into(Task<T> task, Result<T>& out) {
  try {
    if constexpr (std::is_void_v<T>) {
      co_await std::move(task);
      out.set_value();
    } else {
      out.set_value(co_await std::move(task));
    }
  } catch (...) {
    out.set_exception(std::current_exception());
  }
}

}  // namespace duet::detail
