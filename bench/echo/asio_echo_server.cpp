// asio_echo_server — the baseline: Asio's own C++20-coroutine echo server shape.
//
//   asio_echo_server [--port 7000]
//
// One thread, one io_context (concurrency hint 1), co_spawn per connection,
// async_read_some + async_write with use_awaitable and the same 16 KiB buffer and
// TCP_NODELAY as duet's echo_stackless, so the two differ only in the framework.
#include <asio.hpp>

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

using asio::ip::tcp;

asio::awaitable<void> echo(tcp::socket socket) {
  char buf[16 * 1024];
  try {
    for (;;) {
      const std::size_t n = co_await socket.async_read_some(asio::buffer(buf), asio::use_awaitable);
      co_await asio::async_write(socket, asio::buffer(buf, n), asio::use_awaitable);
    }
  } catch (const std::exception&) {
    // EOF or reset: the socket closes as the frame goes.
  }
}

asio::awaitable<void> listen(tcp::acceptor& acceptor) {
  for (;;) {
    tcp::socket socket = co_await acceptor.async_accept(asio::use_awaitable);
    socket.set_option(tcp::no_delay(true));
    asio::co_spawn(acceptor.get_executor(), echo(std::move(socket)), asio::detached);
  }
}

}  // namespace

int main(int argc, char** argv) {
  unsigned short port = 7000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string_view(argv[i]) == "--port") port = static_cast<unsigned short>(std::atoi(argv[i + 1]));
  }
  asio::io_context context(1);
  tcp::acceptor acceptor(context, {tcp::v4(), port});
  std::printf("asio echo on port %u\n", port);
  std::fflush(stdout);
  asio::co_spawn(context, listen(acceptor), asio::detached);
  context.run();
}
