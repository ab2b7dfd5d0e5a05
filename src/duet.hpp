// duet — umbrella header: the stackless voice and the I/O layer it stands on.
//
//   #include <duet.hpp>
//   duet::Task<int> answer() { co_return 42; }
//   int main() { return duet::sync_wait(answer()) == 42 ? 0 : 1; }
#pragma once

#include "task/task.hpp"
#include "task/sync_wait.hpp"
#include "task/when_all.hpp"
#include "task/task_scope.hpp"
