// duet::SocketAddress — an IPv4 or IPv6 address plus port, or a Unix domain
// socket's name, as the kernel wants it.
//
// Contract
// - A value type wrapping sockaddr_storage. parse() accepts numeric literals only
//   ("127.0.0.1", "::1", "[::1]" with the port given apart) and "localhost"
//   (-> 127.0.0.1; use "::1" for IPv6 loopback). No DNS: nothing here blocks.
// - parse_endpoint("host:port") splits "127.0.0.1:8080", "[::1]:8080",
//   "localhost:8080".
// - unix_domain("/run/app.sock") names a Unix domain socket by its filesystem
//   path; unix_domain("@app") (or a leading '\0') names it in Linux's abstract
//   namespace, which has no file and vanishes with the last socket. Either form
//   is at most 107 bytes (sun_path less its terminating NUL, or the abstract
//   name's leading one); longer or empty names give nullopt.
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
  // AF_UNIX: a filesystem path, or "@name" / "\0name" for an abstract name.
  static std::optional<SocketAddress> unix_domain(std::string_view name) noexcept;

  [[nodiscard]] int family() const noexcept { return storage_.ss_family; }
  [[nodiscard]] std::uint16_t port() const noexcept;  // 0 for AF_UNIX
  // AF_UNIX bound to a file: its path (what bind creates and unlink removes);
  // empty for an abstract or unnamed socket and for IP addresses.
  [[nodiscard]] std::string unix_path() const;
  [[nodiscard]] const sockaddr* data() const noexcept {
    return reinterpret_cast<const sockaddr*>(&storage_);
  }
  [[nodiscard]] sockaddr* data() noexcept { return reinterpret_cast<sockaddr*>(&storage_); }
  [[nodiscard]] socklen_t size() const noexcept { return len_; }
  // "1.2.3.4:80", "[::1]:80", a Unix path, "@name" (abstract) or "@" (unnamed).
  [[nodiscard]] std::string to_string() const;

 private:
  sockaddr_storage storage_;
  socklen_t len_;
};

}  // namespace duet
