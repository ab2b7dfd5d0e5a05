// duet::bench::CliArgs — the load generators' `--flag value` parsing: the
// flags they all share (ClientFlags), whole numbers and seconds within a range,
// and one usage message for any mistake.
//
// Contract
// - Every failed check prints "argv0: what", then "usage: argv0 " and the
//   tool's flag summary, on stderr, and exits with status 2. Nothing throws.
// - parse() takes --host, --port, --backend, --duration and --label itself and
//   hands every other pair to the tool's callback, which returns false for a
//   flag it does not know; afterwards the host must parse and --duration be > 0.
// - Holds only the two pointers it was given (argv[0] and a string literal).
//
//   struct Options : duet::bench::ClientFlags { int connections = 100; };
//   duet::bench::CliArgs args(argv[0], "--port N [--connections 1-10000]\n");
//   args.parse(argc, argv, opt, [&](std::string_view f, const char* v) {
//     if (f != "--connections") return false;
//     opt.connections = static_cast<int>(args.number(f, v, 1, 10000));
//     return true;
//   });
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "duet/io/backend.hpp"
#include "duet/io/socket_address.hpp"

namespace duet::bench {

// The flags every load generator has; a tool's Options derive from it and set
// their own defaults for port and label.
struct ClientFlags {
  const char* host = "127.0.0.1";  // argv strings: (GCC 12 -Wrestrict misfires on std::string =)
  std::uint16_t port = 7000;
  duet::Backend backend = duet::Backend::io_uring;
  double duration = 10;
  const char* label = "load";
};

class CliArgs {
 public:
  CliArgs(const char* argv0, const char* usage) noexcept : argv0_(argv0), usage_(usage) {}

  [[noreturn]] void fail(std::string_view what) const {
    std::fprintf(stderr, "%s: %.*s\nusage: %s %s", argv0_, static_cast<int>(what.size()), what.data(), argv0_,
                 usage_);
    std::exit(2);
  }

  // A whole number in [lo, hi], or a usage error naming the flag.
  [[nodiscard]] long long number(std::string_view flag, std::string_view v, long long lo, long long hi) const {
    long long x = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (ec != std::errc{} || end != v.data() + v.size() || x < lo || x > hi) {
      fail(std::string(flag) + " wants a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
           ", not '" + std::string(v) + "'");
    }
    return x;
  }

  // 0 to 3600 seconds, fractions allowed.
  [[nodiscard]] double seconds(std::string_view flag, const char* v) const {
    char* end = nullptr;
    const double x = std::strtod(v, &end);
    if (end == v || *end != '\0' || !(x >= 0 && x <= 3600)) fail(std::string(flag) + " wants 0-3600 seconds");
    return x;
  }

  template <typename OnFlag>
  void parse(int argc, char** argv, ClientFlags& common, OnFlag on_flag) const {
    for (int i = 1; i < argc; i += 2) {
      const std::string_view f = argv[i];
      if (f == "--help" || f == "-h") {
        std::printf("usage: %s %s", argv0_, usage_);
        std::exit(0);
      }
      if (i + 1 >= argc) fail(std::string(f) + " needs a value");
      const char* v = argv[i + 1];
      if (f == "--host") common.host = v;
      else if (f == "--port") common.port = static_cast<std::uint16_t>(number(f, v, 1, 65535));
      else if (f == "--duration") common.duration = seconds(f, v);
      else if (f == "--label") common.label = v;
      else if (f == "--backend" && duet::parse_backend(v)) common.backend = *duet::parse_backend(v);
      else if (!on_flag(f, v)) fail(std::string("bad option ").append(f).append(" ").append(v));
    }
    if (common.duration <= 0) fail("--duration must be above 0");
    if (!duet::SocketAddress::parse(common.host, common.port)) fail("--host wants a numeric address or localhost");
  }

 private:
  const char* argv0_;
  const char* usage_;
};

}  // namespace duet::bench
