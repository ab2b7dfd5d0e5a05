// bridge_hiredis — stackless tasks calling blocking hiredis through fibers.
//
//   bridge_hiredis [PORT [io_uring|epoll]]      (a Redis-protocol server on 127.0.0.1:PORT, 6379 by default)
//
// Each of 20 clients is a stackless Task in a TaskScope, but hiredis only blocks.
// duet::run_on_fiber runs each hiredis call on a fiber, where libduet_hook
// (linked in) turns its socket waits into waits of that fiber only, and the task
// co_awaits the reply. The other way round, main's fiber waits for the whole
// stackless part with duet::fiber::await(scope.join()). Every INCR is checked:
// a task's i-th of 100 must answer i. Exits 0 only if all were right.
#include <hiredis/hiredis.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <duet/stackful/await_task.hpp>
#include <duet/stackful/hook/hook.hpp>
#include <duet/stackful/run_on_fiber.hpp>
#include <duet/task/task_scope.hpp>

namespace {

constexpr int tasks = 20;
constexpr long long requests = 100;

// One blocking hiredis command on a fiber; the task gets the integer or an exception.
// The strings travel as arguments, not as captures: GCC 12 miscompiles a lambda
// with non-trivial captures written inside a co_await expression (see run_on_fiber.hpp).
duet::Task<long long> command(duet::fiber::Scheduler& s, redisContext* c, std::string cmd, std::string key) {
  co_return co_await duet::run_on_fiber(s, [c](const std::string& name, const std::string& arg) {
    auto* reply = static_cast<redisReply*>(redisCommand(c, "%s %s", name.c_str(), arg.c_str()));
    if (reply == nullptr) throw std::runtime_error(c->errstr);
    const long long v = reply->type == REDIS_REPLY_INTEGER ? reply->integer : -1;
    freeReplyObject(reply);
    return v;
  }, std::move(cmd), std::move(key));
}

duet::Task<void> client(duet::fiber::Scheduler& s, int port, int id, long& wrong) {
  redisContext* c = co_await duet::run_on_fiber(s, [port] { return redisConnect("127.0.0.1", port); });
  if (c == nullptr || c->err != 0) throw std::runtime_error(c != nullptr ? c->errstr : "out of memory");
  const std::string key = "duet:bridge_hiredis:" + std::to_string(::getpid()) + ":" + std::to_string(id);
  for (long long i = 1; i <= requests; ++i) {
    if (co_await command(s, c, "INCR", key) != i) ++wrong;
  }
  co_await command(s, c, "DEL", key);
  co_await duet::run_on_fiber(s, [c] { redisFree(c); });  // its close() is hooked too
}

}  // namespace

int main(int argc, char** argv) {
  duet_hook_installed();  // keeps the linked hook library (--as-needed)
  const int port = argc > 1 ? std::atoi(argv[1]) : 6379;
  const duet::Backend backend =
      argc > 2 ? duet::parse_backend(argv[2]).value_or(duet::Backend::io_uring) : duet::Backend::io_uring;
  duet::fiber::Scheduler scheduler({.backend = backend});
  duet::TaskScope scope;
  long wrong = 0;
  for (int id = 0; id < tasks; ++id) scope.spawn(client(scheduler, port, id, wrong));
  try {
    scheduler.spawn([&] { duet::fiber::await(scope.join()); }).join();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%zu task(s) failed, the first with: %s\n", scope.failed_count(), e.what());
    return 1;
  }
  std::printf("%d tasks x %lld INCR through fibers: %ld wrong (%s)\n", tasks, requests, wrong,
              duet::backend_name(backend).data());
  return wrong == 0 ? 0 : 1;
}
