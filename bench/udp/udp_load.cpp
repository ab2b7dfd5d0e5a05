// udp_load — closed-loop UDP echo load for bench/udp/run.sh.
//
//   udp_load [--port 7700] [--flows 1] [--size 64] [--duration 3] [--warmup 1] [--label name]
//
// `flows` tasks on one io_uring EventLoop, each with its own connected UDP
// socket: send one datagram, wait for its echo (100 ms timeout: a lost one is
// counted and the flow goes on), repeat. Counts echoes after the warm-up and
// prints one JSON line: {"label", "flows", "size", "seconds", "requests", "rps", "lost"}.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "duet/io/event_loop.hpp"
#include "duet/task/run.hpp"
#include "duet/task/task.hpp"
#include "duet/task/task_scope.hpp"
#include "duet/task/udp_socket.hpp"
#include "duet/task/with_timeout.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

struct Counts {
  Clock::time_point start;  // counting starts here (after the warm-up)
  Clock::time_point stop;
  std::uint64_t requests = 0;
  std::uint64_t lost = 0;
};

duet::Task<void> flow(duet::EventLoop& loop, duet::SocketAddress server, std::size_t size, Counts& counts) {
  auto sock = duet::UdpSocket::open(loop, AF_INET);
  if (!sock.connect(server)) co_return;
  std::vector<char> out(size, 'u');
  std::vector<char> in(size + 1);
  for (auto now = Clock::now(); now < counts.stop; now = Clock::now()) {
    auto sent = co_await sock.send(out);
    auto back = sent ? co_await duet::with_timeout(sock.recv(in), 100ms) : duet::IoResult<duet::Datagram>(sent.error());
    if (Clock::now() < counts.start) continue;
    if (back && back->size == size) {
      ++counts.requests;
    } else {
      ++counts.lost;
    }
  }
}

duet::Task<void> run(duet::EventLoop& loop, duet::SocketAddress server, int flows, std::size_t size, Counts& counts) {
  duet::TaskScope scope;
  for (int i = 0; i < flows; ++i) scope.spawn(flow(loop, server, size, counts));
  co_await scope.join();
}

}  // namespace

int main(int argc, char** argv) {
  unsigned short port = 7700;
  int flows = 1;
  std::size_t size = 64;
  double duration = 3;
  double warmup = 1;
  std::string label = "udp";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--port") port = static_cast<unsigned short>(std::atoi(argv[i + 1]));
    if (flag == "--flows") flows = std::atoi(argv[i + 1]);
    if (flag == "--size") size = static_cast<std::size_t>(std::atoi(argv[i + 1]));
    if (flag == "--duration") duration = std::atof(argv[i + 1]);
    if (flag == "--warmup") warmup = std::atof(argv[i + 1]);
    if (flag == "--label") label = argv[i + 1];
  }
  duet::EventLoop loop(duet::Backend::io_uring);
  Counts counts;
  const auto seconds = [](double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  counts.start = Clock::now() + seconds(warmup);
  counts.stop = counts.start + seconds(duration);
  duet::run_until_complete(loop, run(loop, duet::SocketAddress::parse("127.0.0.1", port).value(), flows, size, counts));
  std::printf("{\"label\":\"%s\",\"flows\":%d,\"size\":%zu,\"seconds\":%.3f,"
              "\"requests\":%llu,\"rps\":%.0f,\"lost\":%llu}\n",
              label.c_str(), flows, size, duration, static_cast<unsigned long long>(counts.requests),
              static_cast<double>(counts.requests) / duration, static_cast<unsigned long long>(counts.lost));
}
