// duet::resolve(host, service) — every address of a host name, for a task,
// without blocking its loop.
//
// Contract
// - co_await resolve(host, service, token): getaddrinfo runs on the blocking
//   pool (default_blocking_pool(); see io/resolve.hpp for what it returns);
//   the task resumes on its own loop with IoResult<std::vector<SocketAddress>>.
//   A bad name is an error in resolve_category() whose message() is
//   gai_strerror's text.
// - Cancellation: a stop request before the lookup has started removes it
//   (errc::operation_canceled); once getaddrinfo runs it runs to the end (it
//   cannot be interrupted) and its answer is used. A stopped token fails at once.
// - Await it on a loop's thread. host and service are copied into the frame.
//
//   auto addrs = co_await duet::resolve("localhost", "6379");
//   if (!addrs) co_return;                 // addrs.error().message(): "Name or service not known"
//   auto conn = co_await duet::TcpStream::connect(loop, addrs->front());
#pragma once

#include <stop_token>
#include <string>
#include <vector>

#include "duet/io/io_result.hpp"
#include "duet/io/resolve.hpp"
#include "duet/io/socket_address.hpp"
#include "duet/task/offload.hpp"
#include "duet/task/task.hpp"

namespace duet {

inline Task<IoResult<std::vector<SocketAddress>>> resolve(std::string host, std::string service,
                                                          std::stop_token token = {}) {
  // Written by the pool thread, read here after the loop's reply (which orders the two).
  IoResult<std::vector<SocketAddress>> found = std::vector<SocketAddress>{};
  auto ran = co_await offload([&] { found = resolve_blocking(host, service); }, token);
  if (!ran) co_return ran.error();  // cancelled before it started, or the pool refused
  co_return found;
}

}  // namespace duet
