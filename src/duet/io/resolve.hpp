// duet::resolve_blocking(host, service) — getaddrinfo as a value: every
// address of a host name, for the voices' resolve (task/resolve.hpp,
// stackful/resolve.hpp), which run it on the blocking pool.
//
// Contract
// - Returns every address getaddrinfo gives for TCP (SOCK_STREAM), in its
//   order (RFC 6724's preference: try them first to last), duplicates removed;
//   service is a port number ("6379") or a name from /etc/services ("http").
//   Numeric hosts ("127.0.0.1", "::1") resolve without any lookup.
// - Failure is an error value in resolve_category(): its value is the EAI_*
//   code and message() is gai_strerror's text ("Name or service not known");
//   EAI_SYSTEM becomes the errno it carries, in std::generic_category().
// - It blocks (DNS, /etc/hosts, NSS modules): never call it on a loop's thread.
//   Any thread; no shared state.
//
//   auto addrs = duet::resolve_blocking("localhost", "6379");   // on a pool thread
//   if (!addrs) std::puts(addrs.error().message().c_str());
#pragma once

#include <string>
#include <system_error>
#include <vector>

#include "duet/io/io_result.hpp"
#include "duet/io/socket_address.hpp"

namespace duet {

const std::error_category& resolve_category() noexcept;

IoResult<std::vector<SocketAddress>> resolve_blocking(const std::string& host, const std::string& service);

}  // namespace duet
