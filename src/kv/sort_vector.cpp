#include "kv/sort_vector.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "kv/detail/command_util.hpp"
#include "kv/types/hash.hpp"

namespace duet::kv {
namespace {

// Redis scans patterns and compares strcoll's operands as C strings.
std::string_view c_string(std::string_view text) noexcept { return text.substr(0, text.find('\0')); }

int bytewise(std::string_view a, std::string_view b) noexcept {
  const int c = a.compare(b);  // memcmp over the shorter, then the length: compareStringObjects
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

// sortCommandGeneric's strtod: the whole text (up to a NUL, which ends the C
// string Redis hands it), not NaN, not out of range. Leading spaces, hex,
// "inf" and "" (0) pass, as they do in Redis. `buffer` gives the text its NUL.
bool parse_weight(std::string_view text, std::string& buffer, double& out) {
  buffer.assign(text);
  char* end = nullptr;
  errno = 0;
  out = std::strtod(buffer.c_str(), &end);
  return *end == '\0' && errno != ERANGE && !std::isnan(out);
}

}  // namespace

std::optional<std::string_view> SortLookup::find(CommandContext& ctx, std::string_view pattern,
                                                 std::string_view element) {
  if (!pattern.empty() && pattern[0] == '#' && (pattern.size() == 1 || pattern[1] == '\0')) return element;
  const std::string_view text = c_string(pattern);
  const std::size_t star = text.find('*');
  if (star == std::string_view::npos) return std::nullopt;  // GET of a fixed key means nothing
  const std::size_t arrow = text.find("->", star + 1);
  const bool field = arrow != std::string_view::npos && arrow + 2 < text.size();
  const std::size_t key_end = field ? arrow : pattern.size();
  key_.assign(pattern.substr(0, star)).append(element).append(pattern.substr(star + 1, key_end - star - 1));
  const Entry* e = detail::read_key(ctx, key_);
  if (e == nullptr) return std::nullopt;
  if (field) {
    const HashObject* hash = e->value.as<HashObject>();
    if (hash == nullptr) return std::nullopt;
    return hash->find(pattern.substr(arrow + 2));
  }
  if (!e->value.is_string()) return std::nullopt;
  return e->value.str(scratch_);
}

void SortVector::add(std::string_view element) {
  items_.push_back(Item{arena_.size(), element.size()});
  arena_.append(element);
}

bool SortVector::weigh(CommandContext& ctx, const std::string_view* by, bool alpha) {
  by_pattern_ = by != nullptr;
  SortLookup lookup;
  std::string buffer;
  bool converted = true;
  for (Item& item : items_) {
    std::string_view weight = view(item.at, item.size);
    if (by != nullptr) {
      std::optional<std::string_view> found = lookup.find(ctx, *by, weight);
      if (!found) continue;  // weight 0; no ALPHA key
      weight = *found;
    }
    if (!alpha) {
      converted = parse_weight(weight, buffer, item.score) && converted;
    } else if (by != nullptr) {
      // Appended before any view of the arena is taken again: `weight` is
      // the looked-up value, never the arena's own bytes (BY "#" has no '*').
      item.key_at = arena_.size();
      item.key_size = weight.size();
      arena_.append(weight);
    }
  }
  return converted;
}

int SortVector::compare(const Item& a, const Item& b, SortOrder order) const noexcept {
  const std::string_view x = view(a.at, a.size);
  const std::string_view y = view(b.at, b.size);
  if (!order.alpha) {
    if (a.score != b.score) return a.score < b.score ? -1 : 1;
    return bytewise(x, y);  // equal scores: the elements decide, so the order is deterministic
  }
  auto strings = [&](std::string_view p, std::string_view q) {
    return order.binary ? bytewise(p, q) : bytewise(c_string(p), c_string(q));
  };
  if (!by_pattern_) return strings(x, y);
  const bool has_a = a.key_at != no_key;
  const bool has_b = b.key_at != no_key;
  if (!has_a || !has_b) return has_a == has_b ? 0 : has_a ? 1 : -1;  // a missing key sorts first
  return strings(view(a.key_at, a.key_size), view(b.key_at, b.key_size));
}

void SortVector::sort(SortOrder order) {
  std::stable_sort(items_.begin(), items_.end(), [&](const Item& a, const Item& b) {
    const int c = compare(a, b, order);
    return (order.desc ? -c : c) < 0;
  });
}

}  // namespace duet::kv
