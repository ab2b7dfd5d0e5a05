// asio_udp_echo_server — the baseline: Asio's C++20-coroutine UDP echo shape.
//
//   asio_udp_echo_server [--port 7700] [--count N]
//
// One thread, one io_context (concurrency hint 1), one coroutine:
// async_receive_from then async_send_to with use_awaitable and the same 64 KiB
// buffer as duet's udp_echo_server, so the two differ only in the framework.
// --count N: exit after N echoes (for callgrind.sh); 0 = forever.
#include <asio.hpp>

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

using asio::ip::udp;

asio::awaitable<void> echo(udp::socket& socket, long count) {
  static char buf[64 * 1024];
  udp::endpoint peer;
  for (long left = count; count == 0 || left > 0; --left) {
    try {
      const std::size_t n = co_await socket.async_receive_from(asio::buffer(buf), peer, asio::use_awaitable);
      co_await socket.async_send_to(asio::buffer(buf, n), peer, asio::use_awaitable);
    } catch (const std::exception&) {
      // ICMP port unreachable from a client gone: keep serving.
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  unsigned short port = 7700;
  long count = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string_view(argv[i]) == "--port") port = static_cast<unsigned short>(std::atoi(argv[i + 1]));
    if (std::string_view(argv[i]) == "--count") count = std::atol(argv[i + 1]);
  }
  asio::io_context context(1);
  udp::socket socket(context, {asio::ip::make_address("127.0.0.1"), port});
  std::printf("asio udp echo on port %u\n", port);
  std::fflush(stdout);
  asio::co_spawn(context, echo(socket, count), asio::detached);
  context.run();
}
