// duet::Backend — which kernel interface an EventLoop drives, chosen at run time.
//
// Contract
// - io_uring: a proactor over one ring (needs Linux >= 5.19 for every feature we
//   use; older kernels or a seccomp/sysctl ban make EventLoop's constructor throw
//   std::system_error, and the caller may fall back to epoll).
// - epoll: a reactor; works everywhere.
// - sim: no kernel at all — a deterministic simulation (virtual clock,
//   in-memory network, seeded order and faults) of the thread's SimWorld
//   (io/sim_world.hpp), for tests that must find rare interleavings.
// - parse_backend / backend_name convert to and from "io_uring" / "epoll" / "sim" for
//   command lines (--backend). Pure functions, any thread.
//
//   duet::Backend b = duet::parse_backend(argv[2]).value_or(duet::Backend::io_uring);
//   std::printf("%s\n", duet::backend_name(b).data());
#pragma once

#include <optional>
#include <string_view>

namespace duet {

enum class Backend { io_uring, epoll, sim };

inline constexpr std::string_view backend_name(Backend b) noexcept {
  switch (b) {
    case Backend::io_uring:
      return "io_uring";
    case Backend::epoll:
      return "epoll";
    case Backend::sim:
      return "sim";
  }
  return "epoll";
}

inline constexpr std::optional<Backend> parse_backend(std::string_view name) noexcept {
  if (name == "io_uring" || name == "uring") return Backend::io_uring;
  if (name == "epoll") return Backend::epoll;
  if (name == "sim") return Backend::sim;
  return std::nullopt;
}

}  // namespace duet
