// duet::http::detail::IdlePool<Conn> — the idle keep-alive connections of an
// HTTP client, keyed by "host:port", bounded per key and in all. Holds the
// voice's stream type (duet::TcpStream or duet::fiber::TcpStream), so both
// clients share the policy.
//
// Contract
// - take(key): the most recently returned connection for key (the likeliest
//   to be still open), or nothing. put(key, conn): keeps it; past
//   max_per_key or max_total the oldest (of the key, then in all) is
//   dropped, which closes it. A bound of 0 keeps nothing.
// - Destroying the pool closes every connection it holds. One thread.
//
//   IdlePool<TcpStream> pool(4, 32);
//   if (auto c = pool.take("h:80")) use(std::move(*c));
//   pool.put("h:80", std::move(conn));
#pragma once

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
  IdlePool(std::size_t max_per_key, std::size_t max_total) noexcept
      : max_per_key_(max_per_key), max_total_(max_total) {}

  std::optional<Conn> take(std::string_view key) {
    for (std::size_t i = entries_.size(); i-- > 0;) {
      if (entries_[i].key != key) continue;
      Conn c = std::move(entries_[i].conn);
      entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
      return c;
    }
    return std::nullopt;
  }

  void put(std::string_view key, Conn conn) {
    if (max_per_key_ == 0 || max_total_ == 0) return;
    if (count(key) >= max_per_key_) erase_oldest(key);
    if (entries_.size() >= max_total_) entries_.erase(entries_.begin());
    entries_.push_back({std::string(key), std::move(conn)});
  }

  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  void clear() noexcept { entries_.clear(); }

 private:
  struct Entry {
    std::string key;
    Conn conn;
  };

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
  std::vector<Entry> entries_;  // oldest first
};

}  // namespace duet::http::detail
