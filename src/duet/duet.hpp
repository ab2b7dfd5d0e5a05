// duet — both voices in one header: the stackless voice (<duet/task.hpp>), the
// stackful voice (<duet/stackful.hpp>) and the bridge between them (a task
// co_awaits a function run on a fiber: run_on_fiber; a fiber blocks on a Task:
// await_task). A program that uses one voice may include that voice's header
// alone and compile less.
//
//   #include <duet/duet.hpp>
//   duet::Task<int> answer() { co_return 42; }
//   int main() { return duet::sync_wait(answer()) == 42 ? 0 : 1; }
#pragma once

#include "duet/task.hpp"
#include "duet/stackful.hpp"
#include "duet/stackful/await_task.hpp"
#include "duet/stackful/run_on_fiber.hpp"
