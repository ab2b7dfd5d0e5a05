// beast_http_hello — the HTTP benchmark's baseline: Boost.Beast's idiomatic
// server (one C++20 coroutine per connection over Boost.Asio, one thread):
// GET / answers 200 "hello", keep-alive, as http_hello_stackless does.
//
//   beast_http_hello [--port 8080]
//
// Written as Beast's own examples write it (http::async_read into a
// flat_buffer, a string_body response, async_write), with the same headers
// as duet's (Content-Type, Date) so both send the same bytes' worth.
#include <utility>  // before Asio: Boost 1.74's awaitable.hpp uses std::exchange without it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

std::string http_date() {
  char buf[64];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  return {buf, std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm)};
}

asio::awaitable<void> session(tcp::socket socket) {
  beast::flat_buffer buffer;
  for (;;) {
    http::request<http::string_body> request;
    beast::error_code error;
    co_await http::async_read(socket, buffer, request, asio::redirect_error(asio::use_awaitable, error));
    if (error) co_return;
    http::response<http::string_body> response;
    response.version(request.version());
    response.keep_alive(request.keep_alive());
    if (request.method() == http::verb::get && request.target() == "/") {
      response.result(http::status::ok);
      response.body() = "hello";
    } else {
      response.result(http::status::not_found);
      response.body() = "no route for this path\n";
    }
    response.set(http::field::content_type, "text/plain");
    response.set(http::field::date, http_date());
    response.prepare_payload();
    co_await http::async_write(socket, response, asio::redirect_error(asio::use_awaitable, error));
    if (error || !response.keep_alive()) co_return;
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
  unsigned short port = 8080;
  if (argc == 3 && std::string_view(argv[1]) == "--port") port = static_cast<unsigned short>(std::atoi(argv[2]));
  asio::io_context io(1);
  tcp::acceptor acceptor(io, {asio::ip::make_address("0.0.0.0"), port});
  std::printf("http on port %u (beast)\n", acceptor.local_endpoint().port());
  std::fflush(stdout);
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](auto, auto) { io.stop(); });
  asio::co_spawn(io, listen(acceptor), asio::detached);
  io.run();
}
