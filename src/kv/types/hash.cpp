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
  static std::unique_ptr<ListpackHash> make(std::string_view payload) {
    const std::size_t bytes = sizeof(ListpackHash) + varint_size(payload.size()) + payload.size();
    void* memory = HeapString::allocate(bytes);
    auto* object = ::new (memory) ListpackHash();
    char* p = put_varint(object->bytes(), payload.size());
    if (!payload.empty()) std::memcpy(p, payload.data(), payload.size());
    return std::unique_ptr<ListpackHash>(object);
  }
  // The object is as long as its payload: free exactly what make() took.
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

  [[nodiscard]] std::string_view encoding() const noexcept override { return "listpack"; }
  [[nodiscard]] std::size_t size() const noexcept override {
    std::size_t n = 0;
    for (PairCursor c = pairs(); !c.done(); c.next()) ++n;
    return n;
  }
  [[nodiscard]] std::size_t memory_usage() const noexcept override {
    const std::size_t n = payload().size();
    return sizeof(ListpackHash) + varint_size(n) + n;
  }
  [[nodiscard]] std::unique_ptr<Object> clone() const override { return make(payload()); }
  [[nodiscard]] bool is_listpack() const noexcept override { return true; }
  [[nodiscard]] std::optional<std::string_view> find(std::string_view field) const noexcept override {
    for (PairCursor c = pairs(); !c.done();) {
      const Record r = c.next();
      if (r.key == field) return r.value;
    }
    return std::nullopt;
  }
  void for_each(Visit visit) const override {
    for (PairCursor c = pairs(); !c.done();) visit(c.next());
  }
  std::uint64_t scan(std::uint64_t, std::size_t, Visit visit) const override {
    for_each(visit);
    return 0;
  }
  [[nodiscard]] Record random(std::uint64_t random_bits) const noexcept override {
    std::size_t skip = random_bits % size();
    PairCursor c = pairs();
    while (skip-- > 0) c.next();
    return c.next();
  }
  // A value of the same length is overwritten in place; anything else builds
  // the payload anew. Returns the replacement object, or null if none is needed.
  std::unique_ptr<ListpackHash> set(std::string_view field, std::string_view value, bool& created);
  std::unique_ptr<ListpackHash> erase(std::string_view field, bool& erased) const;

 private:
  ListpackHash() = default;
  [[nodiscard]] char* bytes() noexcept { return reinterpret_cast<char*>(this + 1); }
  [[nodiscard]] const char* bytes() const noexcept { return reinterpret_cast<const char*>(this + 1); }
};
static_assert(sizeof(ListpackHash) == sizeof(void*), "the payload follows the vtable pointer");

// One scratch buffer per thread: a write builds the new payload here first.
std::string& scratch_payload() {
  thread_local std::string buffer;
  buffer.clear();
  return buffer;
}

std::unique_ptr<ListpackHash> ListpackHash::set(std::string_view field, std::string_view value, bool& created) {
  const std::string_view all = payload();
  PairCursor c = pairs();
  while (!c.done()) {
    const char* start = nullptr;
    const Record r = c.next(&start);
    if (r.key != field) continue;
    created = false;
    if (r.value.size() == value.size()) {
      std::memcpy(const_cast<char*>(r.value.data()), value.data(), value.size());
      return nullptr;
    }
    std::string& out = scratch_payload();
    out.append(all.data(), static_cast<std::size_t>(start - all.data()));
    append_pair(out, field, value);
    out.append(c.p, static_cast<std::size_t>(c.end - c.p));
    return make(out);
  }
  created = true;
  std::string& out = scratch_payload();
  out.append(all);
  append_pair(out, field, value);
  return make(out);
}

std::unique_ptr<ListpackHash> ListpackHash::erase(std::string_view field, bool& erased) const {
  const std::string_view all = payload();
  PairCursor c = pairs();
  while (!c.done()) {
    const char* start = nullptr;
    if (c.next(&start).key != field) continue;
    erased = true;
    std::string& out = scratch_payload();
    out.append(all.data(), static_cast<std::size_t>(start - all.data()));
    out.append(c.p, static_cast<std::size_t>(c.end - c.p));
    return make(out);
  }
  erased = false;
  return nullptr;
}

class TableHash final : public HashObject {
 public:
  CompactTable table;

  [[nodiscard]] std::string_view encoding() const noexcept override { return "hashtable"; }
  [[nodiscard]] std::size_t size() const noexcept override { return table.size(); }
  [[nodiscard]] std::size_t memory_usage() const noexcept override {
    return sizeof(TableHash) + table.memory_usage();
  }
  [[nodiscard]] std::unique_ptr<Object> clone() const override { return copy_of(*this); }
  [[nodiscard]] bool is_listpack() const noexcept override { return false; }
  [[nodiscard]] std::optional<std::string_view> find(std::string_view field) const noexcept override {
    auto r = table.find(field);
    if (!r) return std::nullopt;
    return r->value;
  }
  void for_each(Visit visit) const override { table.for_each(visit); }
  std::uint64_t scan(std::uint64_t cursor, std::size_t count, Visit visit) const override {
    return table.scan(cursor, count, visit);
  }
  [[nodiscard]] Record random(std::uint64_t random_bits) const noexcept override { return table.random(random_bits); }

  // A hashtable holding every pair of `from` (conversion, COPY).
  static std::unique_ptr<TableHash> copy_of(const HashObject& from) {
    auto out = std::make_unique<TableHash>();
    out->table.reserve(from.size());
    from.for_each([&](Record r) { out->table.assign(r.key, r.value); });
    return out;
  }
};

void convert_to_table(Value& v) { v.set_object(TableHash::copy_of(*v.as<HashObject>())); }

}  // namespace

HashLimits HashLimits::from(const ServerConfig& config) noexcept {
  auto clamp = [](std::int64_t n) { return n < 0 ? std::size_t{0} : static_cast<std::size_t>(n); };
  return {clamp(config.hash_max_listpack_entries), clamp(config.hash_max_listpack_value)};
}

std::unique_ptr<HashObject> HashObject::create() { return ListpackHash::make({}); }

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

bool hash_set(Value& v, std::string_view field, std::string_view value, const HashLimits& limits) {
  auto* hash = v.as<HashObject>();
  if (hash->is_listpack() && (field.size() > limits.max_value || value.size() > limits.max_value)) {
    convert_to_table(v);
    hash = v.as<HashObject>();
  }
  if (!hash->is_listpack()) return static_cast<TableHash*>(hash)->table.assign(field, value);
  bool created = false;
  if (auto replacement = static_cast<ListpackHash*>(hash)->set(field, value, created)) v.set_object(std::move(replacement));
  if (created && v.as<HashObject>()->size() > limits.max_entries) convert_to_table(v);
  return created;
}

bool hash_erase(Value& v, std::string_view field) {
  auto* hash = v.as<HashObject>();
  if (!hash->is_listpack()) return static_cast<TableHash*>(hash)->table.erase(field);
  bool erased = false;
  if (auto replacement = static_cast<ListpackHash*>(hash)->erase(field, erased)) v.set_object(std::move(replacement));
  return erased;
}

}  // namespace duet::kv
