// sim_echo — an echo server and its clients under deterministic simulation,
// in both voices: what a test of your own server looks like on Backend::sim.
//
//   sim_echo [--seed 1] [--seeds 1]
//
// For each seed, a SimWorld replaces the kernel: connections, latencies,
// short reads and the order of completions come from the seed, and an hour
// of the clients' sleeps passes in no real time. Each voice's run prints its
// trace hash; the same seed prints the same hashes on any machine. Exit 1 if
// a reply is wrong (a real server would find its rare interleavings here).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <duet/io/event_loop.hpp>
#include <duet/io/sim_world.hpp>
#include <duet/stackful/scheduler.hpp>
#include <duet/stackful/sleep.hpp>
#include <duet/stackful/tcp_listener.hpp>
#include <duet/stackful/tcp_stream.hpp>
#include <duet/stackful/this_fiber.hpp>
#include <duet/task/run.hpp>
#include <duet/task/sleep.hpp>
#include <duet/task/task_scope.hpp>
#include <duet/task/tcp_listener.hpp>
#include <duet/task/tcp_stream.hpp>

namespace {

using namespace std::chrono_literals;
const duet::SocketAddress kAddress = duet::SocketAddress::parse("127.0.0.1", 7000).value();
constexpr int kClients = 3;
constexpr int kRounds = 20;

// --- stackless: the server and clients are tasks on one simulated loop ---
duet::Task<void> echo(duet::TcpStream conn) {
  char buf[1024];
  while (auto n = co_await conn.recv(buf)) {
    if (!co_await conn.send_all(std::span<const char>(buf, *n))) break;
  }
}

duet::Task<void> client(duet::EventLoop& loop, int id, int& wrong) {
  auto conn = co_await duet::TcpStream::connect(loop, kAddress);
  for (int round = 0; conn && round < kRounds; ++round) {
    const std::string ping = "ping " + std::to_string(id) + "." + std::to_string(round) + "\n";
    auto sent = co_await conn->send_all(std::span<const char>(ping));
    std::string back(ping.size(), '\0');
    for (std::size_t got = 0; sent && got < back.size();) {
      auto n = co_await conn->recv(std::span<char>(back.data() + got, back.size() - got));
      if (!n) break;
      got += *n;
    }
    if (back != ping) ++wrong;
    co_await duet::sleep_for(loop, 1min);  // virtual: costs nothing
  }
}

duet::Task<void> stackless_main(duet::EventLoop& loop, int& wrong) {
  auto listener = duet::TcpListener::bind(loop, kAddress);
  duet::TaskScope scope;
  for (int id = 0; id < kClients; ++id) scope.spawn(client(loop, id, wrong));
  for (int i = 0; i < kClients; ++i) {
    if (auto conn = co_await listener.accept()) scope.spawn(echo(std::move(*conn)));
  }
  co_await scope.join();
}

// --- stackful: the same on fibers ---
void fiber_client(int id, int& wrong) {
  auto conn = duet::fiber::TcpStream::connect(kAddress);
  for (int round = 0; conn && round < kRounds; ++round) {
    const std::string ping = "ping " + std::to_string(id) + "." + std::to_string(round) + "\n";
    auto sent = conn->send_all(std::span<const char>(ping));
    std::string back(ping.size(), '\0');
    for (std::size_t got = 0; sent && got < back.size();) {
      auto n = conn->recv(std::span<char>(back.data() + got, back.size() - got));
      if (!n) break;
      got += *n;
    }
    if (back != ping) ++wrong;
    duet::fiber::sleep_for(1min);
  }
}

void stackful_main(int& wrong) {
  auto listener = duet::fiber::TcpListener::bind(kAddress);
  for (int id = 0; id < kClients; ++id) duet::fiber::spawn(fiber_client, id, std::ref(wrong)).detach();
  for (int i = 0; i < kClients; ++i) {
    if (auto conn = listener.accept()) {
      duet::fiber::spawn([](duet::fiber::TcpStream c) {
        char buf[1024];
        while (auto n = c.recv(buf)) {
          if (!c.send_all(std::span<const char>(buf, *n))) break;
        }
      }, std::move(*conn)).detach();
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t first = 1, count = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--seed") first = std::strtoull(argv[i + 1], nullptr, 10);
    if (flag == "--seeds") count = std::strtoull(argv[i + 1], nullptr, 10);
  }
  int wrong = 0;
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    {
      duet::SimWorld world({.seed = seed});
      duet::EventLoop loop(duet::Backend::sim);
      duet::run_until_complete(loop, stackless_main(loop, wrong));
      std::printf("seed %llu stackless trace %016llx after %.0f s of virtual time\n",
                  static_cast<unsigned long long>(seed), static_cast<unsigned long long>(world.trace_hash()),
                  std::chrono::duration<double>(world.elapsed()).count());
    }
    {
      duet::SimWorld world({.seed = seed});
      duet::fiber::Scheduler scheduler({.backend = duet::Backend::sim});
      scheduler.spawn(stackful_main, std::ref(wrong)).join();
      scheduler.run();  // the detached fibers run to their end
      std::printf("seed %llu stackful trace %016llx after %.0f s of virtual time\n",
                  static_cast<unsigned long long>(seed), static_cast<unsigned long long>(world.trace_hash()),
                  std::chrono::duration<double>(world.elapsed()).count());
    }
  }
  std::printf("%d wrong replies\n", wrong);
  return wrong == 0 ? 0 : 1;
}
