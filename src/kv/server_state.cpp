#include "kv/server_state.hpp"

#include <chrono>

namespace duet::kv {

ServerState::ServerState(ServerConfig config) : config_(std::move(config)), start_ms_(system_now_ms()) {}

std::int64_t ServerState::system_now_ms() noexcept {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

void ServerState::request_shutdown() {
  shutdown_ = true;
  if (shutdown_hook_) shutdown_hook_();
}

}  // namespace duet::kv
