#include "kv/multi/watch_table.hpp"

#include <algorithm>

namespace duet::kv {

WatchTable::~WatchTable() {
  for (Keys& keys : dbs_) {
    for (auto& [key, watchers] : keys) {
      for (Watcher& w : watchers) w.ticket->unref();
    }
  }
}

void WatchTable::watch(int db, std::string_view key, WatchTicket* ticket, bool expired) {
  Keys& keys = dbs_[static_cast<std::size_t>(db)];
  auto it = keys.find(key);
  if (it == keys.end()) it = keys.emplace(std::string(key), std::vector<Watcher>{}).first;
  entries_ -= drop_released(it->second);
  for (const Watcher& w : it->second) {
    if (w.ticket == ticket) return;  // already watched (WATCH k k)
  }
  ticket->ref();
  it->second.push_back({ticket, expired});
  ++entries_;
}

void WatchTable::unwatch(int db, std::string_view key, const WatchTicket* ticket) {
  Keys& keys = dbs_[static_cast<std::size_t>(db)];
  auto it = keys.find(key);
  if (it == keys.end()) return;
  auto& watchers = it->second;
  auto w = std::find_if(watchers.begin(), watchers.end(), [&](const Watcher& x) { return x.ticket == ticket; });
  if (w != watchers.end()) {
    WatchTicket* t = w->ticket;
    watchers.erase(w);
    --entries_;
    t->unref();
  }
  if (watchers.empty()) keys.erase(it);
}

void WatchTable::touch(int db, std::string_view key, bool present_now) {
  Keys& keys = dbs_[static_cast<std::size_t>(db)];
  auto it = keys.find(key);
  if (it == keys.end()) return;
  entries_ -= drop_released(it->second);
  touch_watchers(it->second, present_now);
  if (it->second.empty()) keys.erase(it);
}

// multi.c touchWatchedKey: a watcher that saw the key already expired is
// not changed by its removal (the key is gone now: "no logical change", and
// it now watches an absent key); any other change makes the ticket dirty.
void WatchTable::touch_watchers(std::vector<Watcher>& watchers, bool present_now) noexcept {
  for (Watcher& w : watchers) {
    if (w.expired && !present_now) {
      w.expired = false;
      continue;
    }
    w.ticket->mark_dirty();
  }
}

bool WatchTable::watched_alive(int db, std::string_view key, const WatchTicket* ticket) const {
  const Keys& keys = dbs_[static_cast<std::size_t>(db)];
  auto it = keys.find(key);
  if (it == keys.end()) return false;
  for (const Watcher& w : it->second) {
    if (w.ticket == ticket) return !w.expired;
  }
  return false;
}

std::size_t WatchTable::drop_released(std::vector<Watcher>& watchers) noexcept {
  const auto live = std::partition(watchers.begin(), watchers.end(), [](const Watcher& w) { return !w.ticket->released(); });
  const auto dropped = static_cast<std::size_t>(watchers.end() - live);
  for (auto w = live; w != watchers.end(); ++w) w->ticket->unref();
  watchers.erase(live, watchers.end());
  return dropped;
}

void WatchTable::purge() {
  for (Keys& keys : dbs_) {
    for (auto it = keys.begin(); it != keys.end();) {
      entries_ -= drop_released(it->second);
      if (it->second.empty()) {
        keys.erase(it++);
      } else {
        ++it;
      }
    }
  }
}

}  // namespace duet::kv
