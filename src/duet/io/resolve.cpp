// getaddrinfo for stream sockets, without AI_ADDRCONFIG: that flag ignores
// loopback, so on a host whose only interface is lo "localhost" would resolve
// to nothing. The list is copied into SocketAddress values and freed.
#include "duet/io/resolve.hpp"

#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

namespace duet {

namespace {

class ResolveCategory final : public std::error_category {
 public:
  [[nodiscard]] const char* name() const noexcept override { return "resolve"; }
  [[nodiscard]] std::string message(int code) const override { return ::gai_strerror(code); }
};

bool same(const SocketAddress& a, const SocketAddress& b) noexcept {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

const std::error_category& resolve_category() noexcept {
  static const ResolveCategory category;
  return category;
}

IoResult<std::vector<SocketAddress>> resolve_blocking(const std::string& host, const std::string& service) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
  if (rc == EAI_SYSTEM) return std::error_code(errno, std::generic_category());
  if (rc != 0) return std::error_code(rc, resolve_category());
  const std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(found, &::freeaddrinfo);
  std::vector<SocketAddress> out;
  for (const addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
    if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6) continue;
    SocketAddress addr(ai->ai_addr, ai->ai_addrlen);
    if (std::none_of(out.begin(), out.end(), [&](const SocketAddress& a) { return same(a, addr); })) {
      out.push_back(addr);
    }
  }
  if (out.empty()) return std::error_code(EAI_NONAME, resolve_category());
  return out;
}

}  // namespace duet
