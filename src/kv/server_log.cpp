#include "kv/server_log.hpp"

#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>

namespace duet::kv {
namespace {

LogLevel level_of(std::string_view name) noexcept {
  if (name == "debug") return LogLevel::debug;
  if (name == "verbose") return LogLevel::verbose;
  if (name == "warning") return LogLevel::warning;
  return LogLevel::notice;
}

}  // namespace

bool ServerLog::enabled(LogLevel level) const noexcept { return level >= level_of(config_->loglevel); }

void ServerLog::write(LogLevel level, std::string_view message) const {
  if (!enabled(level)) return;
  timeval tv{};
  ::gettimeofday(&tv, nullptr);
  tm local{};
  ::localtime_r(&tv.tv_sec, &local);
  char when[64];
  std::size_t n = std::strftime(when, sizeof(when), "%d %b %Y %H:%M:%S", &local);
  static constexpr char marks[] = {'.', '-', '*', '#'};
  std::printf("%d:M %.*s.%03d %c %.*s\n", static_cast<int>(::getpid()), static_cast<int>(n), when,
              static_cast<int>(tv.tv_usec / 1000), marks[static_cast<int>(level)], static_cast<int>(message.size()),
              message.data());
  std::fflush(stdout);
}

}  // namespace duet::kv
