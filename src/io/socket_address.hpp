// duet::SocketAddress — an IPv4 or IPv6 address plus port, as the kernel wants it.
//
// Contract
// - A value type wrapping sockaddr_storage. parse() accepts numeric literals only
//   ("127.0.0.1", "::1", "[::1]" with the port given apart) and "localhost"
//   (-> 127.0.0.1; use "::1" for IPv6 loopback). No DNS: nothing here blocks.
// - parse_endpoint("host:port") splits "127.0.0.1:8080", "[::1]:8080",
//   "localhost:8080".
// - Pure functions, any thread.
//
//   auto addr = duet::SocketAddress::parse("::1", 8080).value();
//   ::connect(fd, addr.data(), addr.size());
//   std::string s = addr.to_string();   // "[::1]:8080"
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace duet {

class SocketAddress {
 public:
  SocketAddress() noexcept;
  // From a kernel-filled address (accept, getsockname).
  SocketAddress(const sockaddr* addr, socklen_t len) noexcept;

  static std::optional<SocketAddress> parse(std::string_view host, std::uint16_t port) noexcept;
  static std::optional<SocketAddress> parse_endpoint(std::string_view host_port) noexcept;
  // 0.0.0.0:port or [::]:port, for listening on every interface.
  static SocketAddress any(std::uint16_t port, bool ipv6 = false) noexcept;

  [[nodiscard]] int family() const noexcept { return storage_.ss_family; }
  [[nodiscard]] std::uint16_t port() const noexcept;
  [[nodiscard]] const sockaddr* data() const noexcept {
    return reinterpret_cast<const sockaddr*>(&storage_);
  }
  [[nodiscard]] sockaddr* data() noexcept { return reinterpret_cast<sockaddr*>(&storage_); }
  [[nodiscard]] socklen_t size() const noexcept { return len_; }
  [[nodiscard]] std::string to_string() const;

 private:
  sockaddr_storage storage_;
  socklen_t len_;
};

}  // namespace duet
