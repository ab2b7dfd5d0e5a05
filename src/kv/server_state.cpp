#include "kv/server_state.hpp"

#include <chrono>

#include "kv/notify.hpp"

namespace duet::kv {

ServerState::ServerState(ServerConfig config) : config_(std::move(config)), start_ms_(system_now_ms()) {
  for (int db = 0; db < Store::db_count; ++db) {
    DbRef& ref = db_refs_[static_cast<std::size_t>(db)];
    ref = DbRef{this, db};
    store_.db(db).set_event_hook(
        [](void* context, const Entry& entry) {
          auto* r = static_cast<DbRef*>(context);
          notify_event(*r->state, r->db, notify_expired, "expired", entry.key.view());
        },
        &ref);
  }
}

std::int64_t ServerState::system_now_ms() noexcept {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// Redis's clientsCronHandleTimeout: idle means `now - lastinteraction >
// maxidletime` in whole seconds. A subscriber is never idle (it waits for
// messages by design), as in Redis. One pass per second is enough at that
// resolution and keeps a high hz from walking every client hundreds of times a
// second.
void ServerState::close_idle_clients(std::int64_t now_ms) {
  const std::int64_t now_s = now_ms / 1000;
  if (config_.timeout <= 0 || now_s == idle_check_s_) return;
  idle_check_s_ = now_s;
  clients_.for_each([&](ClientInfo& c) {
    if (c.close_after_reply || now_s - c.last_active_ms / 1000 <= config_.timeout) return;
    if (c.subscriber != nullptr && c.subscriber->subscribed()) return;
    c.close_after_reply = true;  // its session runs no more commands
    close_client(c.fd);
  });
}

void ServerState::request_shutdown() {
  shutdown_ = true;
  if (shutdown_hook_) shutdown_hook_();
}

}  // namespace duet::kv
