// duet — umbrella header: the stackless voice, the I/O layer it stands on and
// the runtime of many cores (ShardSet, BlockingPool) with its stackless calls.
// The stackful voice has its own headers under stackful/ (scheduler.hpp,
// tcp_stream.hpp, ...), so a program pulls in only the voice it uses; the
// bridge between the two (stackful/run_on_fiber.hpp: a task co_awaits a function
// run on a fiber; stackful/await_task.hpp: a fiber blocks on a Task) is not
// included here either: it pulls in the scheduler, so a program asks for it.
//
//   #include <duet.hpp>
//   duet::Task<int> answer() { co_return 42; }
//   int main() { return duet::sync_wait(answer()) == 42 ? 0 : 1; }
#pragma once

#include "io/backend.hpp"
#include "io/event_loop.hpp"
#include "io/io_result.hpp"
#include "io/socket_address.hpp"
#include "io/mutex_guard.hpp"
#include "runtime/blocking_pool.hpp"
#include "runtime/shard.hpp"
#include "runtime/shard_set.hpp"
#include "task/channel.hpp"
#include "task/event.hpp"
#include "task/latch.hpp"
#include "task/mutex.hpp"
#include "task/offload.hpp"
#include "task/on_shard.hpp"
#include "task/resume_on.hpp"
#include "task/run.hpp"
#include "task/semaphore.hpp"
#include "task/sleep.hpp"
#include "task/sync_wait.hpp"
#include "task/task.hpp"
#include "task/task_scope.hpp"
#include "task/tcp_listener.hpp"
#include "task/tcp_stream.hpp"
#include "task/when_all.hpp"
#include "task/when_any.hpp"
#include "task/with_timeout.hpp"
