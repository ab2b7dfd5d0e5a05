// The sorted set's listpack encoding (layout in zset_encodings.hpp).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

#include "kv/types/compact_table.hpp"
#include "kv/types/zset_encodings.hpp"

namespace duet::kv::zset_detail {
namespace {

using detail::get_varint;
using detail::put_varint;
using detail::varint_size;

constexpr double max_exact_integer = 9007199254740992.0;  // 2^53

// Bytes of the smallest signed little-endian integer holding v (1..7), or 0
// when the score is kept as a double.
unsigned int_bytes(double score, std::int64_t& v) noexcept {
  // NaN and ±inf fail the first test. -0.0 is kept as the integer 0 and
  // reads back as 0.0, as Redis 7.0's listpack does (zzlInsertAt stores a
  // score that double2ll takes as an integer), so ZSCORE answers "0" there.
  if (!(std::fabs(score) <= max_exact_integer) || score != std::trunc(score)) return 0;
  v = static_cast<std::int64_t>(score);
  unsigned n = 1;
  while (n < 7 && (v < -(std::int64_t{1} << (8 * n - 1)) || v >= (std::int64_t{1} << (8 * n - 1)))) ++n;
  return n;
}

char* put_score(char* out, double score) noexcept {
  std::int64_t v = 0;
  const unsigned n = int_bytes(score, v);
  *out++ = static_cast<char>(n);
  if (n == 0) {
    std::memcpy(out, &score, sizeof score);
    return out + sizeof score;
  }
  for (unsigned i = 0; i < n; ++i) *out++ = static_cast<char>(static_cast<std::uint64_t>(v) >> (8 * i));
  return out;
}

const char* get_score(const char* in, double& score) noexcept {
  const unsigned n = static_cast<unsigned char>(*in++);
  if (n == 0) {
    std::memcpy(&score, in, sizeof score);
    return in + sizeof score;
  }
  std::uint64_t u = 0;
  for (unsigned i = 0; i < n; ++i) u |= static_cast<std::uint64_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  const unsigned unused = 64 - 8 * n;  // sign-extend from n bytes
  score = static_cast<double>(static_cast<std::int64_t>(u << unused) >> unused);
  return in + n;
}

bool key_less(std::string_view m1, double s1, std::string_view m2, double s2) noexcept {
  return s1 < s2 || (s1 == s2 && m1 < m2);
}

}  // namespace

ZsetObject::Element EntryCursor::next(const char** start) noexcept {
  if (start != nullptr) *start = p;
  std::size_t len = 0;
  const char* m = get_varint(p, len);
  double score = 0;
  p = get_score(m + len, score);
  return {{m, len}, score};
}

std::size_t entry_bytes(std::string_view member, double score) noexcept {
  std::int64_t v = 0;
  const unsigned n = int_bytes(score, v);
  return varint_size(member.size()) + member.size() + 1 + (n == 0 ? sizeof(double) : n);
}

void append_entry(std::string& out, std::string_view member, double score) {
  char head[10];
  out.append(head, static_cast<std::size_t>(put_varint(head, member.size()) - head));
  out.append(member);
  char tail[9];
  out.append(tail, static_cast<std::size_t>(put_score(tail, score) - tail));
}

// ---- ListpackZset ----

ObjectPtrOf<ListpackZset> ListpackZset::make(std::string_view payload) {
  const std::size_t bytes = sizeof(ListpackZset) + varint_size(payload.size()) + payload.size();
  void* memory = HeapString::allocate(bytes);
  auto* object = ::new (memory) ListpackZset();
  char* p = put_varint(object->bytes(), payload.size());
  if (!payload.empty()) std::memcpy(p, payload.data(), payload.size());
  return ObjectPtrOf<ListpackZset>(object);
}

void ListpackZset::operator delete(ListpackZset* p, std::destroying_delete_t) noexcept {
  const std::size_t bytes = p->memory_usage();
  p->~ListpackZset();
  HeapString::release(p, bytes);
}

std::string_view ListpackZset::payload() const noexcept {
  std::size_t n = 0;
  const char* p = get_varint(bytes(), n);
  return {p, n};
}

std::size_t ListpackZset::size() const noexcept {
  std::size_t n = 0;
  for (EntryCursor c = entries(); !c.done(); c.next()) ++n;
  return n;
}

std::size_t ListpackZset::memory_usage() const noexcept {
  const std::size_t n = payload().size();
  return sizeof(ListpackZset) + varint_size(n) + n;
}

std::optional<std::pair<std::size_t, double>> ListpackZset::find(std::string_view member) const noexcept {
  std::size_t rank = 0;
  for (EntryCursor c = entries(); !c.done(); ++rank) {
    const Element e = c.next();
    if (e.member == member) return std::pair{rank, e.score};
  }
  return std::nullopt;
}

ZsetObject::Element ListpackZset::at(std::size_t rank) const noexcept {
  EntryCursor c = entries();
  while (rank-- > 0) c.next();
  return c.next();
}

void ListpackZset::visit(std::size_t from_rank, std::size_t count, bool reverse, Visit visit) const {
  EntryCursor c = entries();
  if (!reverse) {
    for (std::size_t skip = from_rank; skip > 0 && !c.done(); --skip) c.next();
    for (; count > 0 && !c.done(); --count) {
      const Element e = c.next();
      if (!visit(e.member, e.score)) return;
    }
    return;
  }
  // Downward: the entries up to from_rank, then back from the end.
  thread_local std::vector<Element> upto;
  upto.clear();
  for (std::size_t r = 0; r <= from_rank && !c.done(); ++r) upto.push_back(c.next());
  if (upto.size() <= from_rank) return;  // from_rank past the end
  for (std::size_t i = upto.size(); i-- > 0 && count > 0; --count) {
    if (!visit(upto[i].member, upto[i].score)) return;
  }
}

// ---- payload edits ----

EntrySpan locate(std::string_view payload, std::string_view member) noexcept {
  EntryCursor c{payload.data(), payload.data() + payload.size()};
  while (!c.done()) {
    const char* start = nullptr;
    if (c.next(&start).member == member) {
      return {static_cast<std::size_t>(start - payload.data()), static_cast<std::size_t>(c.p - payload.data())};
    }
  }
  return {};
}

void insert_sorted(std::string& payload, std::string_view member, double score) {
  EntryCursor c{payload.data(), payload.data() + payload.size()};
  const char* at = c.end;
  while (!c.done()) {
    const char* start = nullptr;
    const ZsetObject::Element e = c.next(&start);
    if (key_less(member, score, e.member, e.score)) {
      at = start;
      break;
    }
  }
  thread_local std::string entry;
  entry.clear();
  append_entry(entry, member, score);
  payload.insert(static_cast<std::size_t>(at - payload.data()), entry);
}

EntrySpan rank_span(std::string_view payload, std::size_t start, std::size_t stop) noexcept {
  EntryCursor c{payload.data(), payload.data() + payload.size()};
  for (std::size_t r = 0; r < start; ++r) c.next();
  const char* from = c.p;
  for (std::size_t r = start; r <= stop && !c.done(); ++r) c.next();
  return {static_cast<std::size_t>(from - payload.data()), static_cast<std::size_t>(c.p - payload.data())};
}

}  // namespace duet::kv::zset_detail
