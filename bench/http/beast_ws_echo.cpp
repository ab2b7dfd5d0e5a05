// beast_ws_echo — the WebSocket benchmark's baseline: Boost.Beast's idiomatic
// WebSocket echo server (one C++20 coroutine per connection over Boost.Asio,
// one thread): every message goes back, text as text and binary as binary,
// as examples/ws_echo_stackless does.
//
//   beast_ws_echo [--port 8081]
//
// Written as Beast's own examples write it (websocket::stream over a
// beast::tcp_stream with the suggested server timeouts, async_accept, then
// async_read into a flat_buffer and async_write of its data). Beast leaves
// permessage-deflate off unless asked; the benchmark's client does not offer
// it to duet's servers either, so both sides echo plain frames.
#include <utility>  // before Asio: Boost 1.74's awaitable.hpp uses std::exchange without it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

namespace {

asio::awaitable<void> session(tcp::socket socket) {
  websocket::stream<beast::tcp_stream> ws(std::move(socket));
  ws.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
  beast::error_code error;
  co_await ws.async_accept(asio::redirect_error(asio::use_awaitable, error));
  if (error) co_return;
  beast::flat_buffer buffer;
  for (;;) {
    co_await ws.async_read(buffer, asio::redirect_error(asio::use_awaitable, error));
    if (error) co_return;  // closed by the peer (Beast answered the close), or broken
    ws.text(ws.got_text());
    co_await ws.async_write(buffer.data(), asio::redirect_error(asio::use_awaitable, error));
    if (error) co_return;
    buffer.consume(buffer.size());
  }
}

asio::awaitable<void> listen(tcp::acceptor& acceptor) {
  for (;;) {
    beast::error_code error;
    tcp::socket socket = co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, error));
    if (error) continue;
    socket.set_option(tcp::no_delay(true));
    asio::co_spawn(acceptor.get_executor(), session(std::move(socket)), asio::detached);
  }
}

}  // namespace

int main(int argc, char** argv) {
  unsigned short port = 8081;
  if (argc == 3 && std::string_view(argv[1]) == "--port") port = static_cast<unsigned short>(std::atoi(argv[2]));
  asio::io_context io(1);
  tcp::acceptor acceptor(io, {asio::ip::make_address("0.0.0.0"), port});
  std::printf("ws_echo on port %u (beast)\n", acceptor.local_endpoint().port());
  std::fflush(stdout);
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](auto, auto) { io.stop(); });
  asio::co_spawn(io, listen(acceptor), asio::detached);
  io.run();
}
