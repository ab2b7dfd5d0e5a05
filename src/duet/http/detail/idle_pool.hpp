// duet::http::detail::IdlePool<Conn> — the idle keep-alive connections of an
// HTTP client, keyed by "host:port", bounded per key and in all. Holds the
// voice's stream type (duet::TcpStream or duet::fiber::TcpStream), so both
// clients share the policy.
//
// Contract
// - take(key, now): the most recently returned connection for key (the
//   likeliest to be still open) that has been idle less than max_idle, or
//   nothing; older ones of any key are dropped on the way (servers close
//   idle connections: one idle for long is likely dead, and a request sent
//   on it would need the retry). put(key, conn, now): keeps it; past
//   max_per_key or max_total the oldest (of the key, then in all) is
//   dropped, which closes it. A bound of 0 keeps nothing. `now` comes from
//   the caller (duet::now()), so the pool reads no clock itself.
// - Destroying the pool closes every connection it holds. One thread.
//
//   IdlePool<TcpStream> pool(4, 32, std::chrono::seconds(30));
//   if (auto c = pool.take("h:80", duet::now())) use(std::move(*c));
//   pool.put("h:80", std::move(conn), duet::now());
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace duet::http::detail {

template <typename Conn>
class IdlePool {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  IdlePool(std::size_t max_per_key, std::size_t max_total, std::chrono::nanoseconds max_idle) noexcept
      : max_per_key_(max_per_key), max_total_(max_total), max_idle_(max_idle) {}

  std::optional<Conn> take(std::string_view key, TimePoint now) {
    drop_expired(now);
    for (std::size_t i = entries_.size(); i-- > 0;) {
      if (entries_[i].key != key) continue;
      Conn c = std::move(entries_[i].conn);
      entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
      return c;
    }
    return std::nullopt;
  }

  void put(std::string_view key, Conn conn, TimePoint now) {
    if (max_per_key_ == 0 || max_total_ == 0) return;
    if (count(key) >= max_per_key_) erase_oldest(key);
    if (entries_.size() >= max_total_) entries_.erase(entries_.begin());
    entries_.push_back({std::string(key), std::move(conn), now});
  }

  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  void clear() noexcept { entries_.clear(); }

 private:
  struct Entry {
    std::string key;
    Conn conn;
    TimePoint since;
  };

  // Entries are in the order they were put, so the expired ones lead.
  void drop_expired(TimePoint now) {
    std::size_t n = 0;
    while (n < entries_.size() && now - entries_[n].since >= max_idle_) ++n;
    entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(n));
  }
  std::size_t count(std::string_view key) const noexcept {
    std::size_t n = 0;
    for (const Entry& e : entries_) n += e.key == key;
    return n;
  }
  void erase_oldest(std::string_view key) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->key == key) {
        entries_.erase(it);
        return;
      }
  }

  std::size_t max_per_key_;
  std::size_t max_total_;
  std::chrono::nanoseconds max_idle_;
  std::vector<Entry> entries_;  // oldest first
};

}  // namespace duet::http::detail
