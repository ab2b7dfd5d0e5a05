// duet::kv::detail::CommandWindow — a pipeline's next commands, parsed
// ahead of running them (Session::parse_window, kv/session_window.cpp).
//
// Contract
// - Argument views point into the input Session::run_commands was given;
//   valid until that input changes.
// - One per thread (this_thread()), borrowed by one session at a time
// (`in_use`); the owning thread only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "kv/command_table.hpp"
#include "kv/keyspace.hpp"

namespace duet::kv::detail {

// Commands parsed ahead of running them, so the keys of a pipeline's next
// commands start their cache misses together (Keyspace::prefetch) without
// reading the input twice. Argument views point into the input
// run_commands was given. One per thread, not per session: sessions on a
// thread run their commands one at a time, and an idle connection should not
// carry ~400 bytes it only needs while it runs.
struct CommandWindow {
  struct Parsed {
    std::uint32_t first_arg;  // into args
    std::uint32_t arg_count;
    std::size_t end;          // input offset just past the command
    const Command* command;   // null: unknown, or no arguments
  };
  static constexpr std::size_t max_commands = Keyspace::max_prefetch;

  std::array<Parsed, max_commands> commands;
  std::size_t size = 0;
  std::vector<std::string_view> args;
  bool in_use = false;

  // The thread's window (Session::run_commands borrows it while it runs).
  [[nodiscard]] static CommandWindow& this_thread() noexcept {
    thread_local CommandWindow window;
    return window;
  }
  [[nodiscard]] std::span<const std::string_view> argv(const Parsed& c) const noexcept {
    return std::span<const std::string_view>(args).subspan(c.first_arg, c.arg_count);
  }
};


}  // namespace duet::kv::detail
