#include "kv/blocking/block_table.hpp"

#include <algorithm>

namespace duet::kv {

// O(keys) per block and per unblock of a queue's first waiter (the usual
// case: the served one), not O(waiters): a key with 1,000 blocked clients
// cost ~2 µs a hand-off when both scanned the queue.
void BlockTable::block(BlockState& b) {
  Keys& keys = dbs_[static_cast<std::size_t>(b.request.db)];
  const auto& names = b.request.keys;
  for (auto k = names.begin(); k != names.end(); ++k) {
    if (std::find(names.begin(), k, *k) != k) continue;  // BLPOP k k: queued once
    keys[*k].queue.push_back(&b);
  }
  b.blocked = true;
  b.answered = false;
  b.reply.clear();
  ++blocked_;
}

void BlockTable::unblock(BlockState& b) {
  if (!b.blocked) return;
  Keys& keys = dbs_[static_cast<std::size_t>(b.request.db)];
  for (const std::string& key : b.request.keys) {
    auto it = keys.find(key);
    if (it == keys.end()) continue;
    auto& waiters = it->second.queue;
    if (!waiters.empty() && waiters.front() == &b) {
      waiters.pop_front();
    } else if (auto w = std::find(waiters.begin(), waiters.end(), &b); w != waiters.end()) {
      waiters.erase(w);
    }
    if (waiters.empty() && !it->second.ready) keys.erase(it);
  }
  b.blocked = false;
  --blocked_;
}

void BlockTable::signal(int db, std::string_view key) {
  Keys& keys = dbs_[static_cast<std::size_t>(db)];
  auto it = keys.find(key);
  if (it == keys.end() || it->second.ready || it->second.queue.empty()) return;
  it->second.ready = true;
  ready_.push_back({db, std::string(key)});
}

std::optional<BlockTable::ReadyKey> BlockTable::take_ready() {
  if (ready_.empty()) return std::nullopt;
  ReadyKey key = std::move(ready_.front());
  ready_.erase(ready_.begin());
  Keys& keys = dbs_[static_cast<std::size_t>(key.db)];
  if (auto it = keys.find(key.name); it != keys.end()) {
    it->second.ready = false;
    if (it->second.queue.empty()) keys.erase(it);
  }
  return key;
}

BlockState* BlockTable::first(int db, std::string_view key, bool on_zset) const {
  const Keys& keys = dbs_[static_cast<std::size_t>(db)];
  auto it = keys.find(key);
  if (it == keys.end()) return nullptr;
  for (BlockState* b : it->second.queue) {  // the front one, unless a key has both kinds of waiters
    if (b->request.on_zset() == on_zset) return b;
  }
  return nullptr;
}

}  // namespace duet::kv
