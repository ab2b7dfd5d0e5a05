#include "kv/value/value.hpp"

#include <charconv>

#include "kv/detail/numbers.hpp"

namespace duet::kv {

std::string_view type_name(ValueType type) noexcept {
  switch (type) {
    case ValueType::string: return "string";
    case ValueType::list: return "list";
    case ValueType::hash: return "hash";
    case ValueType::set: return "set";
    case ValueType::zset: return "zset";
  }
  return "none";
}

std::string_view Value::format_int(Scratch& scratch) const noexcept {
  std::int64_t v = 0;
  std::memcpy(&v, bytes_, sizeof(v));
  auto end = std::to_chars(scratch.bytes, scratch.bytes + sizeof(scratch.bytes), v).ptr;
  return {scratch.bytes, static_cast<std::size_t>(end - scratch.bytes)};
}

std::size_t Value::string_size() const noexcept {
  Scratch scratch;
  return str(scratch).size();
}

void Value::set_string(std::string_view s) {
  std::int64_t as_int = 0;
  if (s.size() <= 20 && !s.empty() && detail::parse_i64(s, as_int)) return set_int(as_int);
  if (s.size() <= inline_capacity) {
    release();
    if (!s.empty()) std::memcpy(bytes_, s.data(), s.size());
    bytes_[kind_byte] = static_cast<char>(s.size());
    return;
  }
  unsigned k = kind();
  if ((k == embstr_kind || k == raw_kind) && heap()->capacity >= s.size() && heap()->capacity <= 2 * s.size()) {
    // An overwrite of a similar size (a benchmark's SET) reuses the block.
    HeapString* h = heap();
    std::memcpy(h->data(), s.data(), s.size());
    h->size = static_cast<std::uint32_t>(s.size());
    bytes_[kind_byte] = static_cast<char>(s.size() <= embstr_limit ? embstr_kind : raw_kind);
    return;
  }
  HeapString* h = HeapString::create(s.data(), s.size());
  release();
  set_heap(h, s.size() <= embstr_limit ? embstr_kind : raw_kind);
}

char* Value::resize_raw(std::size_t n) {
  unsigned k = kind();
  if (k == embstr_kind || k == raw_kind) {
    HeapString* h = HeapString::resize(heap(), n);
    set_heap(h, raw_kind);
    return h->data();
  }
  Scratch scratch;
  std::string_view old = is_string() ? str(scratch) : std::string_view{};
  if (old.size() > n) old = old.substr(0, n);
  HeapString* h = HeapString::create(old.data(), old.size(), n);
  if (n > old.size()) std::memset(h->data() + old.size(), 0, n - old.size());
  h->size = static_cast<std::uint32_t>(n);
  release();
  set_heap(h, raw_kind);
  return h->data();
}

std::string_view Value::encoding() const noexcept {
  unsigned k = kind();
  if (k <= inline_capacity || k == embstr_kind) return "embstr";
  if (k == int_kind) return "int";
  if (k == raw_kind) return "raw";
  return object()->encoding();
}

std::size_t Value::allocated() const noexcept {
  unsigned k = kind();
  if (k == embstr_kind || k == raw_kind) return heap()->allocated();
  if (k == object_kind) return object()->memory_usage();
  return 0;
}

Value Value::clone() const {
  Value copy;
  unsigned k = kind();
  if (k == embstr_kind || k == raw_kind) {
    copy.set_heap(HeapString::create(heap()->data(), heap()->size), k);
  } else if (k == object_kind) {
    copy.set_object(object()->clone());
  } else {
    std::memcpy(copy.bytes_, bytes_, sizeof(bytes_));
  }
  return copy;
}

}  // namespace duet::kv
