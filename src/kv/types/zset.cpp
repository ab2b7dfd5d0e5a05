// ZsetObject's members (a two-way switch over the encoding tag) and the
// writes that move a set between its encodings.
#include "kv/types/zset.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "kv/detail/numbers.hpp"
#include "kv/server_state.hpp"
#include "kv/types/zset_encodings.hpp"

namespace duet::kv {
namespace {

using zset_detail::EntryCursor;
using zset_detail::ListpackZset;
using zset_detail::TreeZset;

const ListpackZset* as_listpack(const ZsetObject* z) noexcept { return static_cast<const ListpackZset*>(z); }
const TreeZset* as_tree(const ZsetObject* z) noexcept { return static_cast<const TreeZset*>(z); }
TreeZset* as_tree(ZsetObject* z) noexcept { return static_cast<TreeZset*>(z); }

// One scratch buffer per thread: a listpack write builds its payload here.
std::string& scratch_payload() {
  thread_local std::string buffer;
  buffer.clear();
  return buffer;
}

ObjectPtrOf<TreeZset> tree_of(const ZsetObject& from) {
  auto out = make_object<TreeZset>();
  from.visit(0, from.size(), false, [&](std::string_view m, double s) {
    out->tree.insert(m, s);
    return true;
  });
  return out;
}

}  // namespace

ZsetLimits ZsetLimits::from(const ServerConfig& config) noexcept {
  auto clamp = [](std::int64_t n) { return n < 0 ? std::size_t{0} : static_cast<std::size_t>(n); };
  return {clamp(config.zset_max_listpack_entries), clamp(config.zset_max_listpack_value)};
}

ObjectPtrOf<ZsetObject> ZsetObject::create(std::size_t size_hint, std::size_t value_len_hint,
                                           const ZsetLimits& limits) {
  if (size_hint <= limits.max_entries && value_len_hint <= limits.max_value) return ListpackZset::make({});
  return make_object<TreeZset>();
}

void ZsetObject::destroy(ZsetObject* zset) noexcept {
  if (zset->is_listpack()) {
    delete static_cast<ListpackZset*>(zset);  // its destroying delete: the exact size
  } else {
    delete static_cast<TreeZset*>(zset);
  }
}

std::size_t ZsetObject::size() const noexcept {
  return is_listpack() ? as_listpack(this)->size() : as_tree(this)->tree.size();
}

std::size_t ZsetObject::memory_usage() const noexcept {
  return is_listpack() ? as_listpack(this)->memory_usage() : as_tree(this)->memory_usage();
}

ObjectPtr ZsetObject::clone() const {
  if (is_listpack()) return ListpackZset::make(as_listpack(this)->payload());
  return tree_of(*this);
}

void ZsetObject::write_records(std::string_view key, RecordSink sink) const {
  std::vector<std::string> scores;  // the views below point into these
  scores.reserve(max_record_elements);
  std::vector<std::string_view> argv{"ZADD", key};
  auto flush = [&] {
    sink(argv);
    argv.resize(2);
    scores.clear();
  };
  visit(0, size(), false, [&](std::string_view m, double s) {
    char text[32];
    scores.emplace_back(detail::format_double_17g(s, text));
    argv.push_back(scores.back());
    argv.push_back(m);
    if (scores.size() == max_record_elements) flush();
    return true;
  });
  if (argv.size() > 2) flush();
}

std::optional<double> ZsetObject::score(std::string_view member) const {
  if (!is_listpack()) return as_tree(this)->tree.score_of(member);
  auto found = as_listpack(this)->find(member);
  if (!found) return std::nullopt;
  return found->second;
}

std::optional<std::size_t> ZsetObject::rank(std::string_view member) const {
  if (!is_listpack()) return as_tree(this)->tree.rank_of(member);
  auto found = as_listpack(this)->find(member);
  if (!found) return std::nullopt;
  return found->first;
}

ZsetObject::Element ZsetObject::at(std::size_t rank) const noexcept {
  return is_listpack() ? as_listpack(this)->at(rank) : as_tree(this)->tree.select(rank);
}

void ZsetObject::visit(std::size_t from_rank, std::size_t count, bool reverse, Visit visit) const {
  if (is_listpack()) return as_listpack(this)->visit(from_rank, count, reverse, visit);
  as_tree(this)->tree.visit(from_rank, count, reverse, [&](std::string_view m, double s) { return visit(m, s); });
}

std::uint64_t ZsetObject::scan(std::uint64_t cursor, std::size_t count, Visit visit) const {
  if (!is_listpack()) return as_tree(this)->tree.scan(cursor, count, [&](std::string_view m, double s) { visit(m, s); });
  this->visit(0, size(), false, visit);
  return 0;
}

std::size_t ZsetObject::first_rank_with_score(double x, bool exclusive) const {
  if (!is_listpack()) return as_tree(this)->tree.first_rank_with_score(x, exclusive);
  if (exclusive) return as_listpack(this)->count_while([x](Element e) { return e.score <= x; });
  return as_listpack(this)->count_while([x](Element e) { return e.score < x; });
}

std::optional<std::size_t> ZsetObject::last_rank_with_score(double x, bool exclusive) const {
  if (!is_listpack()) return as_tree(this)->tree.last_rank_with_score(x, exclusive);
  const std::size_t n = first_rank_with_score(x, !exclusive);  // elements <= x (< x)
  if (n == 0) return std::nullopt;
  return n - 1;
}

std::size_t ZsetObject::first_rank_with_member(std::string_view m, bool exclusive) const {
  if (!is_listpack()) return as_tree(this)->tree.first_rank_with_member(m, exclusive);
  if (exclusive) return as_listpack(this)->count_while([m](Element e) { return e.member <= m; });
  return as_listpack(this)->count_while([m](Element e) { return e.member < m; });
}

std::optional<std::size_t> ZsetObject::last_rank_with_member(std::string_view m, bool exclusive) const {
  if (!is_listpack()) return as_tree(this)->tree.last_rank_with_member(m, exclusive);
  const std::size_t n = first_rank_with_member(m, !exclusive);
  if (n == 0) return std::nullopt;
  return n - 1;
}

// ---- writes ----

ZaddResult zset_add(Value& v, std::string_view member, double score, unsigned flags, double& new_score,
                    const ZsetLimits& limits) {
  auto* zset = v.as<ZsetObject>();
  const std::optional<double> current = zset->score(member);
  if (current) {
    new_score = *current;
    if ((flags & zadd_nx) != 0) return ZaddResult::unchanged;
    if ((flags & zadd_incr) != 0) {
      score += *current;
      if (std::isnan(score)) return ZaddResult::nan;
    }
    if (((flags & zadd_lt) != 0 && score >= *current) || ((flags & zadd_gt) != 0 && score <= *current)) {
      return ZaddResult::unchanged;
    }
    new_score = score;
    if (score == *current) return ZaddResult::same;
    if (zset->is_listpack()) {
      std::string& payload = scratch_payload();
      payload.assign(as_listpack(zset)->payload());
      const zset_detail::EntrySpan at = zset_detail::locate(payload, member);
      payload.erase(at.start, at.end - at.start);
      zset_detail::insert_sorted(payload, member, score);
      v.set_object(ListpackZset::make(payload));
    } else {
      as_tree(zset)->tree.update_score(member, score);
    }
    return ZaddResult::updated;
  }
  if ((flags & zadd_xx) != 0) return ZaddResult::unchanged;
  new_score = score;
  if (zset->is_listpack()) {
    const auto* lp = as_listpack(zset);
    if (lp->size() + 1 <= limits.max_entries && member.size() <= limits.max_value) {
      std::string& payload = scratch_payload();
      payload.assign(lp->payload());
      zset_detail::insert_sorted(payload, member, score);
      v.set_object(ListpackZset::make(payload));
      return ZaddResult::added;
    }
    v.set_object(tree_of(*zset));
    zset = v.as<ZsetObject>();
  }
  as_tree(zset)->tree.insert(member, score);
  return ZaddResult::added;
}

bool zset_remove(Value& v, std::string_view member) {
  auto* zset = v.as<ZsetObject>();
  if (!zset->is_listpack()) return as_tree(zset)->tree.erase(member);
  const std::string_view old = as_listpack(zset)->payload();
  const zset_detail::EntrySpan at = zset_detail::locate(old, member);
  if (at.end == 0) return false;
  std::string& payload = scratch_payload();
  payload.assign(old.substr(0, at.start));
  payload.append(old.substr(at.end));
  v.set_object(ListpackZset::make(payload));
  return true;
}

std::size_t zset_remove_ranks(Value& v, std::size_t start, std::size_t stop) {
  auto* zset = v.as<ZsetObject>();
  if (!zset->is_listpack()) return as_tree(zset)->tree.erase_range_by_rank(start, stop);
  const std::string_view old = as_listpack(zset)->payload();
  const zset_detail::EntrySpan span = zset_detail::rank_span(old, start, stop);
  std::string& payload = scratch_payload();
  payload.assign(old.substr(0, span.start));
  payload.append(old.substr(span.end));
  v.set_object(ListpackZset::make(payload));
  return stop - start + 1;
}

void zset_fit_encoding(Value& v, const ZsetLimits& limits) {
  const auto* zset = v.as<ZsetObject>();
  if (zset->is_listpack() || zset->size() > limits.max_entries) return;
  std::string& payload = scratch_payload();
  bool fits = true;
  zset->visit(0, zset->size(), false, [&](std::string_view m, double s) {
    fits = m.size() <= limits.max_value;
    if (fits) zset_detail::append_entry(payload, m, s);
    return fits;
  });
  if (fits) v.set_object(ListpackZset::make(payload));
}

}  // namespace duet::kv
