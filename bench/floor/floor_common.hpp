// Shared by the two floor servers: flag parsing, the listening socket, and
// the "reply" rule. The floor servers exist to measure what the kernel's
// loopback TCP work costs with no framework and no parsing: each answers every
// line it receives (redis-benchmark -t ping_inline sends "PING\r\n") with
// "+PONG\r\n", so the KV benchmark can show how close each server gets.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace duet::floor {

inline constexpr std::string_view pong = "+PONG\r\n";

// --port N (default 6399). Anything else is an error with a usage line.
inline int parse_port(int argc, char** argv) {
  int port = 6399;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--port" && i + 1 < argc) {
      std::string_view value = argv[++i];
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), port);
      if (ec == std::errc{} && end == value.data() + value.size() && port > 0 && port < 65536) continue;
    }
    std::fprintf(stderr, "usage: %s [--port 1-65535]\n", argv[0]);
    std::exit(2);
  }
  return port;
}

inline int listen_on(int port, int flags) {
  int fd = ::socket(AF_INET, SOCK_STREAM | flags, 0);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 4096) != 0) {
    std::perror("floor: listen");
    std::exit(1);
  }
  return fd;
}

// Fills out with one "+PONG\r\n" per '\n' in the received bytes; returns its size.
inline std::size_t replies_for(std::string_view received, std::string& out) {
  auto lines = static_cast<std::size_t>(std::count(received.begin(), received.end(), '\n'));
  out.clear();
  for (std::size_t i = 0; i < lines; ++i) out.append(pong);
  return out.size();
}

}  // namespace duet::floor
