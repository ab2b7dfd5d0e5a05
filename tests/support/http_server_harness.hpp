// with_http_server(server, client[, stop_when]): runs duet::HttpServer on each
// backend (a Catch2 GENERATE) until client(port), run on a thread of its own,
// returns — or until *stop_when becomes true — then stops the server, checks
// that no operation is left in flight, and returns client's result. For the
// stackless HTTP server's tests (tests/task/http_server*_test.cpp, the GUIDE's
// snippets); fiber_http_server_harness.hpp is the fiber voice's.
//
//   auto r = duet::test::with_http_server(server, [](std::uint16_t port) { return RawHttpClient(port).get("/"); });
#pragma once

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <stop_token>

#include "duet/io/event_loop.hpp"
#include "duet/task/http_server.hpp"
#include "duet/task/run.hpp"
#include "duet/task/sleep.hpp"
#include "duet/task/when_all.hpp"
#include "support/client_thread.hpp"

namespace duet::test {

// Stops `stop` once the client is done or *stop_when is true (polled every 2 ms on `loop`).
template <typename R>
Task<void> stop_when_done(EventLoop& loop, ClientThread<R>& client, std::stop_source stop,
                          const bool* stop_when = nullptr) {
  while (!client.done() && (stop_when == nullptr || !*stop_when)) {
    co_await sleep_for(loop, std::chrono::milliseconds(2));
  }
  stop.request_stop();
}

template <typename Client>
auto with_http_server(HttpServer& server, Client client, const bool* stop_when = nullptr) {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << backend_name(backend));
  EventLoop loop(backend);
  auto listener = TcpListener::bind(loop, SocketAddress::parse("127.0.0.1", 0).value());
  const std::uint16_t port = listener.local_address().port();
  ClientThread<decltype(client(port))> thread([client, port] { return client(port); });
  std::stop_source stop;
  run_until_complete(loop, when_all(server.serve(listener, stop.get_token()),
                                    stop_when_done(loop, thread, stop, stop_when)));
  CHECK(loop.in_flight() == 0);
  return thread.result();
}

}  // namespace duet::test
