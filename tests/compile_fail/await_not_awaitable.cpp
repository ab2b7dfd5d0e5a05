// Awaiting a plain value inside a Task.
// expect: co_await in a Task needs an awaitable
#include <duet/task/task.hpp>

int answer() { return 42; }

duet::Task<int> wrong() { co_return co_await answer(); }
