// SocketAddress: numeric parsing with inet_pton, so nothing here can block on DNS.
#include "duet/io/socket_address.hpp"

#include <arpa/inet.h>
#include <sys/un.h>

#include <charconv>
#include <cstddef>
#include <cstring>

namespace duet {

SocketAddress::SocketAddress() noexcept : storage_{}, len_(0) {}

SocketAddress::SocketAddress(const sockaddr* addr, socklen_t len) noexcept : storage_{}, len_(0) {
  if (addr != nullptr && len <= sizeof storage_) {
    std::memcpy(&storage_, addr, len);
    len_ = len;
  }
}

std::optional<SocketAddress> SocketAddress::parse(std::string_view host, std::uint16_t port) noexcept {
  if (host == "localhost") host = "127.0.0.1";
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  char text[INET6_ADDRSTRLEN + 1] = {};
  if (host.empty() || host.size() >= sizeof text) return std::nullopt;
  std::memcpy(text, host.data(), host.size());
  SocketAddress out;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&out.storage_);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&out.storage_);
  if (::inet_pton(AF_INET, text, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    out.len_ = sizeof(sockaddr_in);
    return out;
  }
  if (::inet_pton(AF_INET6, text, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    out.len_ = sizeof(sockaddr_in6);
    return out;
  }
  return std::nullopt;
}

std::optional<SocketAddress> SocketAddress::parse_endpoint(std::string_view host_port) noexcept {
  const auto colon = host_port.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string_view port_text = host_port.substr(colon + 1);
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc{} || end != port_text.data() + port_text.size() || port > 65535) return std::nullopt;
  return parse(host_port.substr(0, colon), static_cast<std::uint16_t>(port));
}

SocketAddress SocketAddress::any(std::uint16_t port, bool ipv6) noexcept {
  return *parse(ipv6 ? "::" : "0.0.0.0", port);
}

// The kernel takes an abstract name as every byte after the leading NUL up to
// the length given, so the length is exact (no padding NULs, which would be
// part of the name); a path's length counts its terminating NUL.
std::optional<SocketAddress> SocketAddress::unix_domain(std::string_view name) noexcept {
  SocketAddress out;
  auto* un = reinterpret_cast<sockaddr_un*>(&out.storage_);
  const bool abstract = !name.empty() && (name.front() == '@' || name.front() == '\0');
  if (abstract) name.remove_prefix(1);
  if (name.empty() || name.size() >= sizeof un->sun_path || name.find('\0') != std::string_view::npos) {
    return std::nullopt;
  }
  un->sun_family = AF_UNIX;
  std::memcpy(un->sun_path + (abstract ? 1 : 0), name.data(), name.size());
  out.len_ = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  return out;
}

std::string SocketAddress::unix_path() const {
  const auto* un = reinterpret_cast<const sockaddr_un*>(&storage_);
  constexpr auto header = offsetof(sockaddr_un, sun_path);
  if (family() != AF_UNIX || len_ <= header || un->sun_path[0] == '\0') return {};
  return std::string(un->sun_path, ::strnlen(un->sun_path, len_ - header));
}

std::uint16_t SocketAddress::port() const noexcept {
  if (family() == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&storage_)->sin_port);
  if (family() == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage_)->sin6_port);
  return 0;
}

std::string SocketAddress::to_string() const {
  char text[INET6_ADDRSTRLEN] = {};
  if (family() == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&storage_)->sin_addr, text, sizeof text);
    return std::string(text) + ':' + std::to_string(port());
  }
  if (family() == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&storage_)->sin6_addr, text, sizeof text);
    return '[' + std::string(text) + "]:" + std::to_string(port());
  }
  if (family() == AF_UNIX) {
    if (const std::string path = unix_path(); !path.empty()) return path;
    const auto* un = reinterpret_cast<const sockaddr_un*>(&storage_);
    constexpr auto header = offsetof(sockaddr_un, sun_path);
    if (len_ <= header + 1) return "@";  // unnamed: a connecting client, a socketpair
    return '@' + std::string(un->sun_path + 1, len_ - header - 1);
  }
  return "<unspecified>";
}

}  // namespace duet
