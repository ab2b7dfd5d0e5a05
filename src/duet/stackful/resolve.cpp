// fiber::resolve: getaddrinfo through fiber::offload (the pool's job answers on
// the fiber's own loop), the two layers of IoResult flattened into one.
#include "duet/stackful/resolve.hpp"

#include <utility>

#include "duet/io/resolve.hpp"
#include "duet/stackful/offload.hpp"

namespace duet::fiber {

IoResult<std::vector<SocketAddress>> resolve(const std::string& host, const std::string& service,
                                             std::stop_token token) {
  // Written by the pool thread, read here after the loop's reply (which orders the two).
  IoResult<std::vector<SocketAddress>> found = std::vector<SocketAddress>{};
  auto ran = offload([&] { found = resolve_blocking(host, service); }, std::move(token));
  if (!ran) return ran.error();  // cancelled before it started, or the pool refused
  return found;
}

}  // namespace duet::fiber
