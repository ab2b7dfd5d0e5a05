// The hash type's two encodings and the writes that move between them.
#include "kv/types/hash.hpp"

#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "kv/server_state.hpp"

namespace duet::kv {
namespace {

using detail::get_varint;
using detail::put_varint;
using detail::varint_size;

// Walks a listpack payload pair by pair.
struct PairCursor {
  const char* p;
  const char* end;

  [[nodiscard]] bool done() const noexcept { return p >= end; }
  // The pair at p, and where it starts; advances past it.
  HashObject::Record next(const char** start = nullptr) noexcept {
    if (start != nullptr) *start = p;
    std::size_t flen = 0;
    std::size_t vlen = 0;
    const char* f = get_varint(p, flen);
    const char* v = get_varint(f + flen, vlen);
    p = v + vlen;
    return {{f, flen}, {v, vlen}};
  }
};

void append_pair(std::string& out, std::string_view field, std::string_view value) {
  char len[10];
  out.append(len, static_cast<std::size_t>(put_varint(len, field.size()) - len));
  out.append(field);
  out.append(len, static_cast<std::size_t>(put_varint(len, value.size()) - len));
  out.append(value);
}

class ListpackHash final : public HashObject {
 public:
  // A new object holding `payload` (pairs as append_pair writes them).
  static ObjectPtrOf<ListpackHash> make(std::string_view payload) {
    const std::size_t bytes = sizeof(ListpackHash) + varint_size(payload.size()) + payload.size();
    void* memory = HeapString::allocate(bytes);
    auto* object = ::new (memory) ListpackHash();
    char* p = put_varint(object->bytes(), payload.size());
    if (!payload.empty()) std::memcpy(p, payload.data(), payload.size());
    return ObjectPtrOf<ListpackHash>(object);
  }
  // The object is as long as its payload: free exactly what make() took
  // (HashObject::destroy deletes a ListpackHash*, which lands here).
  static void operator delete(ListpackHash* p, std::destroying_delete_t) noexcept {
    const std::size_t bytes = p->memory_usage();
    p->~ListpackHash();
    HeapString::release(p, bytes);
  }

  [[nodiscard]] std::string_view payload() const noexcept {
    std::size_t n = 0;
    const char* p = get_varint(bytes(), n);
    return {p, n};
  }
  [[nodiscard]] PairCursor pairs() const noexcept {
    const std::string_view all = payload();
    return {all.data(), all.data() + all.size()};
  }

  [[nodiscard]] std::size_t size() const noexcept {
    std::size_t n = 0;
    for (PairCursor c = pairs(); !c.done(); c.next()) ++n;
    return n;
  }
  [[nodiscard]] std::size_t memory_usage() const noexcept {
    const std::size_t n = payload().size();
    return sizeof(ListpackHash) + varint_size(n) + n;
  }
  [[nodiscard]] ObjectPtr clone() const { return make(payload()); }
  [[nodiscard]] std::optional<std::string_view> find(std::string_view field) const noexcept {
    for (PairCursor c = pairs(); !c.done();) {
      const Record r = c.next();
      if (r.key == field) return r.value;
    }
    return std::nullopt;
  }
  void for_each(Visit visit) const {
    for (PairCursor c = pairs(); !c.done();) visit(c.next());
  }
  [[nodiscard]] Record random(std::uint64_t random_bits) const noexcept {
    std::size_t skip = random_bits % size();
    PairCursor c = pairs();
    while (skip-- > 0) c.next();
    return c.next();
  }
  // Overwrites field's value if it has the same length: no new object.
  bool overwrite(std::string_view field, std::string_view value) noexcept {
    auto old = find(field);
    if (!old || old->size() != value.size()) return false;
    std::memcpy(const_cast<char*>(old->data()), value.data(), value.size());
    return true;
  }

 private:
  ListpackHash() noexcept : HashObject(listpack_tag) {}
  [[nodiscard]] char* bytes() noexcept { return reinterpret_cast<char*>(this + 1); }
  [[nodiscard]] const char* bytes() const noexcept { return reinterpret_cast<const char*>(this + 1); }
};
// 5 small fields: 1 + 1 + 30 bytes, a 32-byte block where a vtable made it 40.
static_assert(sizeof(ListpackHash) == 1, "the payload follows the 1-byte header");

// One scratch buffer per thread: a write builds the new payload here first.
std::string& scratch_payload() {
  thread_local std::string buffer;
  buffer.clear();
  return buffer;
}

// The bytes [start, end) of field's pair in a payload, end == 0 if absent.
struct PairSpan {
  std::size_t start = 0;
  std::size_t end = 0;
};

PairSpan locate(std::string_view payload, std::string_view field) noexcept {
  PairCursor c{payload.data(), payload.data() + payload.size()};
  while (!c.done()) {
    const char* start = nullptr;
    if (c.next(&start).key == field) {
      return {static_cast<std::size_t>(start - payload.data()), static_cast<std::size_t>(c.p - payload.data())};
    }
  }
  return {};
}

// Sets field in a payload being built: in its place if present, else at the
// end (insertion order); true when the field is new.
bool payload_set(std::string& payload, std::string_view field, std::string_view value) {
  const PairSpan at = locate(payload, field);
  if (at.end == 0) {
    append_pair(payload, field, value);
    return true;
  }
  thread_local std::string pair;
  pair.clear();
  append_pair(pair, field, value);
  payload.replace(at.start, at.end - at.start, pair);
  return false;
}

bool payload_erase(std::string& payload, std::string_view field) {
  const PairSpan at = locate(payload, field);
  if (at.end == 0) return false;
  payload.erase(at.start, at.end - at.start);
  return true;
}

class TableHash final : public HashObject {
 public:
  CompactTable table;

  TableHash() noexcept : HashObject(table_tag) {}

  [[nodiscard]] std::size_t memory_usage() const noexcept { return sizeof(TableHash) + table.memory_usage(); }

  // A hashtable holding every pair of `from` (conversion, COPY).
  static ObjectPtrOf<TableHash> copy_of(const HashObject& from) {
    auto out = make_object<TableHash>();
    out->table.reserve(from.size());
    from.for_each([&](Record r) { out->table.assign(r.key, r.value); });
    return out;
  }
  static ObjectPtrOf<TableHash> from_payload(std::string_view payload, std::size_t pairs) {
    auto out = make_object<TableHash>();
    out->table.reserve(pairs);
    for (PairCursor c{payload.data(), payload.data() + payload.size()}; !c.done();) {
      const Record r = c.next();
      out->table.assign(r.key, r.value);
    }
    return out;
  }
};

void convert_to_table(Value& v) { v.set_object(TableHash::copy_of(*v.as<HashObject>())); }

const ListpackHash* as_listpack(const HashObject* h) noexcept { return static_cast<const ListpackHash*>(h); }
const TableHash* as_table(const HashObject* h) noexcept { return static_cast<const TableHash*>(h); }

}  // namespace

// HashObject's members: the two-way switch over the encoding tag.

void HashObject::destroy(HashObject* hash) noexcept {
  if (hash->is_listpack()) {
    delete static_cast<ListpackHash*>(hash);  // its destroying delete: the exact size
  } else {
    delete static_cast<TableHash*>(hash);
  }
}

std::size_t HashObject::size() const noexcept {
  return is_listpack() ? as_listpack(this)->size() : as_table(this)->table.size();
}

std::size_t HashObject::memory_usage() const noexcept {
  return is_listpack() ? as_listpack(this)->memory_usage() : as_table(this)->memory_usage();
}

ObjectPtr HashObject::clone() const {
  if (is_listpack()) return as_listpack(this)->clone();
  return TableHash::copy_of(*this);
}

std::optional<std::string_view> HashObject::find(std::string_view field) const noexcept {
  if (is_listpack()) return as_listpack(this)->find(field);
  auto r = as_table(this)->table.find(field);
  if (!r) return std::nullopt;
  return r->value;
}

void HashObject::for_each(Visit visit) const {
  if (is_listpack()) return as_listpack(this)->for_each(visit);
  as_table(this)->table.for_each(visit);
}

std::uint64_t HashObject::scan(std::uint64_t cursor, std::size_t count, Visit visit) const {
  if (!is_listpack()) return as_table(this)->table.scan(cursor, count, visit);
  as_listpack(this)->for_each(visit);
  return 0;
}

HashObject::Record HashObject::random(std::uint64_t random_bits) const noexcept {
  return is_listpack() ? as_listpack(this)->random(random_bits) : as_table(this)->table.random(random_bits);
}

HashLimits HashLimits::from(const ServerConfig& config) noexcept {
  auto clamp = [](std::int64_t n) { return n < 0 ? std::size_t{0} : static_cast<std::size_t>(n); };
  return {clamp(config.hash_max_listpack_entries), clamp(config.hash_max_listpack_value)};
}

ObjectPtrOf<HashObject> HashObject::create() { return ListpackHash::make({}); }

void HashObject::write_records(std::string_view key, RecordSink sink) const {
  std::vector<std::string_view> argv{"HSET", key};
  for_each([&](Record r) {
    argv.push_back(r.key);
    argv.push_back(r.value);
    if (argv.size() == 2 + 2 * max_record_elements) {
      sink(argv);
      argv.resize(2);
    }
  });
  if (argv.size() > 2) sink(argv);
}

std::size_t hash_set(Value& v, std::span<const std::string_view> pairs, const HashLimits& limits) {
  auto* hash = v.as<HashObject>();
  if (hash->is_listpack()) {  // hashTypeTryConversion: a long argument converts first
    for (std::string_view arg : pairs) {
      if (arg.size() > limits.max_value) {
        convert_to_table(v);
        hash = v.as<HashObject>();
        break;
      }
    }
  }
  std::size_t created = 0;
  if (!hash->is_listpack()) {
    auto& table = static_cast<TableHash*>(hash)->table;
    for (std::size_t j = 0; j + 1 < pairs.size(); j += 2) created += table.assign(pairs[j], pairs[j + 1]);
    return created;
  }
  auto* lp = static_cast<ListpackHash*>(hash);
  if (pairs.size() == 2 && lp->overwrite(pairs[0], pairs[1])) return 0;
  // One new object for the whole command, however many pairs it sets.
  std::string& payload = scratch_payload();
  payload.assign(lp->payload());
  const std::size_t before = lp->size();
  for (std::size_t j = 0; j + 1 < pairs.size(); j += 2) created += payload_set(payload, pairs[j], pairs[j + 1]);
  if (before + created > limits.max_entries) {
    v.set_object(TableHash::from_payload(payload, before + created));
  } else {
    v.set_object(ListpackHash::make(payload));
  }
  return created;
}

bool hash_set(Value& v, std::string_view field, std::string_view value, const HashLimits& limits) {
  const std::string_view pair[] = {field, value};
  return hash_set(v, pair, limits) == 1;
}

std::size_t hash_erase(Value& v, std::span<const std::string_view> fields) {
  auto* hash = v.as<HashObject>();
  std::size_t erased = 0;
  if (!hash->is_listpack()) {
    for (std::string_view field : fields) erased += static_cast<TableHash*>(hash)->table.erase(field);
    return erased;
  }
  std::string& payload = scratch_payload();
  payload.assign(static_cast<ListpackHash*>(hash)->payload());
  for (std::string_view field : fields) erased += payload_erase(payload, field);
  if (erased != 0) v.set_object(ListpackHash::make(payload));
  return erased;
}

bool hash_erase(Value& v, std::string_view field) { return hash_erase(v, std::span<const std::string_view>(&field, 1)) == 1; }

}  // namespace duet::kv
