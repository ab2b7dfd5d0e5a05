// with_fiber_http_server(server, client[, tls][, stop_when]): runs
// duet::fiber::HttpServer on a fiber, on each backend (a Catch2 GENERATE),
// until client(port), run on a thread of its own, returns — or until
// *stop_when becomes true — then stops the server and returns client's
// result (no operation left in flight: on_fibers checks). With `tls`, over
// TLS on deeper stacks (OpenSSL's handshake runs on the connection's fiber).
// The fiber voice's twin of http_server_harness.hpp.
//
//   auto r = duet::test::with_fiber_http_server(server, [](std::uint16_t port) { ... });
#pragma once

#include <catch2/catch.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stop_token>

#include "duet/stackful/http_server.hpp"
#include "duet/stackful/sleep.hpp"
#include "duet/stackful/this_fiber.hpp"
#include "support/client_thread.hpp"
#include "support/on_fibers.hpp"

namespace duet::test {

template <typename Client>
auto with_fiber_http_server(fiber::HttpServer& server, Client client, const TlsContext* tls = nullptr,
                            const bool* stop_when = nullptr) {
  const Backend backend = GENERATE(Backend::io_uring, Backend::epoll);
  INFO("backend " << backend_name(backend));
  const std::size_t stack_size = tls != nullptr ? 256 * 1024 : 64 * 1024;
  return on_fibers(backend, [&server, client, tls, stop_when] {
    auto listener = fiber::TcpListener::bind(SocketAddress::parse("127.0.0.1", 0).value());
    const std::uint16_t port = listener.local_address().port();
    ClientThread<decltype(client(port))> thread([client, port] { return client(port); });
    std::stop_source stop;
    auto watch = fiber::spawn([&thread, &stop, stop_when] {
      while (!thread.done() && (stop_when == nullptr || !*stop_when)) fiber::sleep_for(std::chrono::milliseconds(2));
      stop.request_stop();
    });
    if (tls != nullptr) server.serve(listener, *tls, stop.get_token());
    else server.serve(listener, stop.get_token());
    watch.join();
    return thread.result();
  }, stack_size);
}

}  // namespace duet::test
