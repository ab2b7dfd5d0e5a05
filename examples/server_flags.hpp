// The flags of the HTTP and WebSocket examples, validated: --port N (0-65535;
// 0 picks a free port), --backend io_uring|epoll, --threads N (1-256), and for
// the web examples --kv-port N (the KV server on 127.0.0.1). Any
// other argument, a missing value or a bad one prints the usage and exits
// with status 2 (what a command-line tool does), never a silent default.
//
//   const auto flags = examples::parse_server_flags(argc, argv, 8080, "http_hello_stackless");
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>

#include <duet/io/backend.hpp>

namespace examples {

struct ServerFlags {
  std::uint16_t port = 0;
  duet::Backend backend = duet::Backend::io_uring;
  std::size_t threads = 1;
  std::uint16_t kv_port = 6379;
};

[[noreturn]] inline void usage(const char* program, std::string_view problem) {
  std::fprintf(stderr, "%s: %.*s\nusage: %s [--port N] [--backend io_uring|epoll] [--threads N] [--kv-port N]\n", program,
               static_cast<int>(problem.size()), problem.data(), program);
  std::exit(2);
}

inline unsigned long number_flag(const char* program, std::string_view text, unsigned long lo, unsigned long hi) {
  unsigned long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < lo || value > hi)
    usage(program, "not a number in range: " + std::string(text));
  return value;
}

inline ServerFlags parse_server_flags(int argc, char** argv, std::uint16_t default_port, const char* program) {
  ServerFlags flags;
  flags.port = default_port;
  for (int i = 1; i < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) usage(program, "missing value after " + std::string(flag));
    const std::string_view value = argv[i + 1];
    if (flag == "--port") {
      flags.port = static_cast<std::uint16_t>(number_flag(program, value, 0, 65535));
    } else if (flag == "--backend") {
      const auto backend = duet::parse_backend(value);
      // (The simulator has no real sockets: not for a server on a port.)
      if (!backend || *backend == duet::Backend::sim) usage(program, "unknown backend " + std::string(value));
      flags.backend = *backend;
    } else if (flag == "--kv-port") {
      flags.kv_port = static_cast<std::uint16_t>(number_flag(program, value, 1, 65535));
    } else if (flag == "--threads") {
      flags.threads = number_flag(program, value, 1, 256);
    } else {
      usage(program, "unknown flag " + std::string(flag));
    }
  }
  return flags;
}

}  // namespace examples
