// port_holder — the server that tests/io/port_free_test.cpp kills and restarts:
// it listens on a fixed port and echoes, with an accept and a connection's
// recv in flight when it dies, so that whatever the backend keeps in the
// kernel at that moment is there.
//
//   port_holder --port 7000 --backend io_uring --voice task|fiber|spread-task|spread-fiber [--graceful]
//
// It prints "holder on port N" once the accept is in the kernel. Without
// --graceful SIGTERM kills it (the default action: nothing is cancelled, as a
// program with no signal handling); with --graceful SIGTERM stops it cleanly
// (every wait cancelled through its stop token, the listener closed, exit 0).
// spread-*: a ConnectionSpreader with two SO_REUSEPORT listeners, one per shard.
// Binding fails with exit 1 and the error on stderr (no retry: the test wants
// to see it).
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stop_token>
#include <string_view>
#include <thread>

#include <duet/duet.hpp>

namespace {

struct Args {
  std::uint16_t port = 0;
  duet::Backend backend = duet::Backend::io_uring;
  std::string_view voice = "task";
  bool graceful = false;
};

void banner(std::uint16_t port) {
  std::printf("holder on port %u\n", port);
  std::fflush(stdout);
}

// SIGTERM, once the process blocks it: the graceful modes' stop.
sigset_t term_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  return set;
}
void wait_for_term() {
  const sigset_t set = term_set();
  int sig = 0;
  sigwait(&set, &sig);
}

// Runs request_stop on the loop's thread (stop callbacks touch the loop).
struct StopMessage : duet::LoopMessage {
  std::stop_source* stop = nullptr;
};
std::thread stop_on_term(duet::EventLoop& loop, StopMessage& msg) {
  msg.run_ = [](duet::LoopMessage* self) noexcept { static_cast<StopMessage*>(self)->stop->request_stop(); };
  return std::thread([&loop, &msg] {
    wait_for_term();
    loop.send(msg);
  });
}

duet::Task<void> echo(duet::TcpStream conn, std::stop_token stop) {
  char buf[256];
  for (;;) {
    auto n = co_await conn.recv(buf, stop);
    if (!n || !co_await conn.send_all(std::span<const char>(buf, *n), stop)) co_return;
  }
}

duet::Task<void> accept_all(duet::TcpListener& listener, std::stop_token stop) {
  duet::TaskScope scope;
  for (;;) {
    auto conn = co_await listener.accept(stop);
    if (!conn) break;  // stopped
    scope.spawn(echo(std::move(*conn), stop));
  }
  co_await scope.join();
}

int run_task(const Args& args) {
  duet::EventLoop loop(args.backend);
  auto listener = duet::TcpListener::bind(loop, duet::SocketAddress::parse("127.0.0.1", args.port).value());
  std::stop_source stop;
  StopMessage msg;
  msg.stop = &stop;
  std::thread watcher = args.graceful ? stop_on_term(loop, msg) : std::thread();
  duet::TaskScope top;
  top.spawn(accept_all(listener, stop.get_token()));
  loop.run_once();  // the accept reaches the kernel
  banner(args.port);
  duet::run_until_complete(loop, top.join());
  if (watcher.joinable()) watcher.join();
  return 0;
}

void echo_fiber(duet::fiber::TcpStream conn, std::stop_token stop) {
  char buf[256];
  for (;;) {
    auto n = conn.recv(buf, stop);
    if (!n || !conn.send_all(std::span<const char>(buf, *n), stop)) return;
  }
}

int run_fiber(const Args& args) {
  duet::fiber::Scheduler scheduler({.backend = args.backend});
  auto listener = duet::fiber::TcpListener::bind(duet::SocketAddress::parse("127.0.0.1", args.port).value());
  std::stop_source stop;
  StopMessage msg;
  msg.stop = &stop;
  std::thread watcher = args.graceful ? stop_on_term(scheduler.loop(), msg) : std::thread();
  scheduler.spawn([&] {
    for (;;) {
      auto conn = listener.accept(stop.get_token());
      if (!conn) break;  // stopped
      scheduler.spawn(echo_fiber, std::move(*conn), stop.get_token()).detach();
    }
  }).detach();
  scheduler.spawn([&] { banner(args.port); }).detach();  // after the acceptor parked: its accept is in the kernel
  scheduler.run();
  if (watcher.joinable()) watcher.join();
  return 0;
}

// Graceful or not, SIGTERM's fate is settled before the shards start: the
// threads inherit the mask (blocked: only sigwait sees it) or the default.
int run_spread(const Args& args) {
  duet::ConnectionSpreader spreader(2, duet::SocketAddress::parse("127.0.0.1", args.port).value(),
                                    {.mode = duet::AcceptMode::reuse_port});
  const bool tasks = args.voice == "spread-task";
  duet::ShardSet set = tasks ? duet::ShardSet({.shards = 2, .backend = args.backend})
                             : duet::ShardSet({.shards = 2, .backend = args.backend}, duet::fiber::shard_runner());
  for (std::size_t i = 0; i < 2; ++i) {
    if (tasks) {
      duet::spawn_on(set.shard(i), [&] { return duet::serve_shard(spreader, echo); });
    } else {
      duet::fiber::spawn_on(set.shard(i), [&] { duet::fiber::serve_shard(spreader, echo_fiber); });
    }
  }
  banner(args.port);  // the test's echoes tell when the shards serve
  if (!args.graceful) {
    for (;;) pause();
  }
  wait_for_term();
  set.stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--graceful") args.graceful = true;
    if (i + 1 >= argc) continue;
    if (flag == "--port") args.port = static_cast<std::uint16_t>(std::atoi(argv[i + 1]));
    if (flag == "--backend") args.backend = duet::parse_backend(argv[i + 1]).value_or(args.backend);
    if (flag == "--voice") args.voice = argv[i + 1];
  }
  if (args.graceful) {
    const sigset_t set = term_set();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);  // before any thread starts
  }
  try {
    if (args.voice.starts_with("spread")) return run_spread(args);
    return args.voice == "fiber" ? run_fiber(args) : run_task(args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "port_holder: %s\n", e.what());
    return 1;
  }
}
