// The code docs/GUIDE.md quotes in "Testing under simulation" (checked by
// tests/io/check_guide.py and tests/stackful/check_guide_stackful.py), as
// tests that run.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include <duet/io/event_loop.hpp>
#include <duet/io/sim_world.hpp>
#include <duet/stackful/scheduler.hpp>
#include <duet/stackful/sleep.hpp>
#include <duet/stackful/tcp_listener.hpp>
#include <duet/stackful/tcp_stream.hpp>
#include <duet/task/run.hpp>
#include <duet/task/task_scope.hpp>
#include <duet/task/tcp_listener.hpp>
#include <duet/task/tcp_stream.hpp>

using namespace std::chrono_literals;

namespace {

const duet::SocketAddress addr = duet::SocketAddress::parse("127.0.0.1", 6000).value();

// Echoes until the client shuts its side down.
duet::Task<void> echo_once(duet::TcpListener& listener) {
  auto conn = co_await listener.accept();
  char buf[64];
  while (auto n = co_await conn->recv(buf)) {
    if (!co_await conn->send_all(std::span<const char>(buf, *n))) break;
  }
}

duet::Task<std::string> ask(duet::EventLoop& loop, std::string question) {
  auto conn = co_await duet::TcpStream::connect(loop, addr);
  (void)co_await conn->send_all(std::span<const char>(question));
  (void)conn->shutdown(SHUT_WR);
  std::string answer;
  char buf[64];
  while (auto n = co_await conn->recv(buf)) answer.append(buf, *n);
  co_return answer;
}

// guide:begin sim_stackless
std::uint64_t run_echo_under_simulation(std::uint64_t seed) {
  duet::SimWorld world({.seed = seed, .short_transfer = 0.5});  // half the transfers split
  duet::EventLoop loop(duet::Backend::sim);                      // the world's network and clock
  auto listener = duet::TcpListener::bind(loop, addr);
  auto test = [](duet::EventLoop& l, duet::TcpListener& ls) -> duet::Task<std::string> {
    duet::TaskScope scope;
    scope.spawn(echo_once(ls));
    std::string answer = co_await ask(l, "hello, simulation");
    co_await scope.join();
    co_return answer;
  };
  REQUIRE(duet::run_until_complete(loop, test(loop, listener)) == "hello, simulation");
  return world.trace_hash();  // same seed, same run: compare to replay
}
// guide:end

}  // namespace

TEST_CASE("the guide's stackless simulation test replays by seed", "[sim][guide]") {
  // guide:begin sim_replay
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    INFO("replay with run_echo_under_simulation(" << seed << ")");
    CHECK(run_echo_under_simulation(seed) == run_echo_under_simulation(seed));
  }
  // guide:end
}

TEST_CASE("the guide's stackful simulation test runs fibers in virtual time", "[sim][guide]") {
  // guide:begin sim_stackful
  duet::SimWorld world({.seed = 7});
  duet::fiber::Scheduler scheduler({.backend = duet::Backend::sim});
  auto listener = duet::fiber::TcpListener::bind(addr);
  auto server = scheduler.spawn([&] {
    auto conn = listener.accept();
    char buf[64];
    while (auto n = conn->recv(buf)) (void)conn->send_all(std::span<const char>(buf, *n));
  });
  auto client = scheduler.spawn([&] {
    auto conn = duet::fiber::TcpStream::connect(addr);
    (void)conn->send_all(std::string_view("ping"));
    char buf[4];
    auto n = conn->recv(buf, 1s);  // timed_out after 1 s of virtual time, if no echo came
    duet::fiber::sleep_for(1h);    // an hour of idle connection, in no real time
    return n ? *n : std::size_t{0};
  });
  CHECK(client.join() > 0);
  server.join();  // its recv saw EOF when the client's stream closed
  CHECK(world.elapsed() >= 1h);
  // guide:end
}
