// duet::kv::ServerLog — Redis-style log lines on stdout.
//
// Contract
// - write(level, message) prints "pid:M 29 Nov 2026 12:00:00.123 * message" when
//   level is at or above the configured --loglevel (read at each call, so CONFIG
//   SET loglevel applies at once). Level marks are Redis's: . - * #
// - The server's thread only (no locking); each line is flushed.
//
//   ServerLog log(state.config());
//   log.write(LogLevel::notice, "Ready to accept connections");
#pragma once

#include <string_view>

#include "kv/server_state.hpp"

namespace duet::kv {

enum class LogLevel { debug, verbose, notice, warning };

class ServerLog {
 public:
  explicit ServerLog(const ServerConfig& config) noexcept : config_(&config) {}
  void write(LogLevel level, std::string_view message) const;
  [[nodiscard]] bool enabled(LogLevel level) const noexcept;

 private:
  const ServerConfig* config_;
};

}  // namespace duet::kv
