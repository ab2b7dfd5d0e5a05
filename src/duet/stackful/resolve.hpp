// duet::fiber::resolve(host, service) — every address of a host name; blocks
// only the calling fiber.
//
// Contract: task/resolve.hpp's, as a blocking call on a fiber: getaddrinfo runs
// on the blocking pool (default_blocking_pool()), the fiber resumes on its own
// scheduler with IoResult<std::vector<SocketAddress>>; a bad name is an error
// in resolve_category() with gai_strerror's text; a stop request before the
// lookup starts gives errc::operation_canceled. Outside a fiber:
// std::logic_error.
//
//   auto addrs = duet::fiber::resolve("localhost", "6379");
//   if (addrs) for (const auto& a : *addrs) std::puts(a.to_string().c_str());
#pragma once

#include <stop_token>
#include <string>
#include <vector>

#include "duet/io/io_result.hpp"
#include "duet/io/socket_address.hpp"

namespace duet::fiber {

IoResult<std::vector<SocketAddress>> resolve(const std::string& host, const std::string& service,
                                             std::stop_token token = {});

}  // namespace duet::fiber
