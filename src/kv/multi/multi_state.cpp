#include "kv/multi/multi_state.hpp"

#include "kv/client_registry.hpp"
#include "kv/store.hpp"

#include <utility>

namespace duet::kv {

void MultiStateDeleter::operator()(MultiState* m) const noexcept { delete m; }

MultiState::~MultiState() {
  if (ticket_ != nullptr) ticket_->release();  // entries left anywhere drop it lazily
}

void MultiState::queue(const Command& cmd, std::span<const std::string_view> argv, bool may_grow) {
  if (dirty_exec || watch_dirty()) return;  // EXEC will fail anyway: keep no memory (queueMultiCommand)
  QueuedCommand& q = queued.emplace_back(QueuedCommand{&cmd, {}});
  std::size_t bytes = 0;
  for (std::string_view a : argv) bytes += a.size();
  q.argv.reserve(bytes, argv.size());
  q.argv.assign(argv);
  denyoom = denyoom || may_grow;
}

void MultiState::discard(Store& local) {
  queued.clear();
  queued.shrink_to_fit();
  active = false;
  dirty_exec = false;
  denyoom = false;
  unwatch_all(local);
}

WatchTicket& MultiState::ticket() {
  if (ticket_ == nullptr) ticket_ = WatchTicket::make();
  return *ticket_;
}

void MultiState::unwatch_all(Store& local) {
  if (ticket_ == nullptr) return;
  for (const WatchedKey& w : watched) {
    if (w.local) local.unwatch(w.db, w.key, ticket_);
  }
  watched.clear();
  std::exchange(ticket_, nullptr)->release();
}

MultiState& ensure_multi(ClientInfo& client) {
  if (client.multi == nullptr) client.multi.reset(new MultiState());
  return *client.multi;
}

bool in_multi(const ClientInfo& client) noexcept { return client.multi != nullptr && client.multi->active; }

}  // namespace duet::kv
