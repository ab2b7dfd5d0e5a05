// duet::kv::Value — what one key holds, in 16 bytes: a string (inline, an
// integer, or on the heap) or a type object (list, hash, set, ...).
//
// Contract
// - Byte 15 is the kind. 0..15: a string of that many bytes inside the value
//   (no allocation); `int_kind`: a canonical decimal integer kept as int64
//   (Redis's OBJ_ENCODING_INT); `embstr_kind` / `raw_kind`: a HeapString,
//   written whole (SET) or grown in place (APPEND, SETRANGE, SETBIT) — OBJECT
//   ENCODING tells them apart as Redis does (embstr up to 44 bytes); and
//   `object_kind`: an owned Object (kv/value/object.hpp).
// - set_string() picks the encoding as Redis's tryObjectEncoding does: an
//   integer of at most 20 characters in canonical form becomes an int, other
//   values are stored as given. str() reads any string encoding (an int is
//   formatted into the caller's scratch).
// - Move-only. A default Value is the empty string. One thread, the owner's.
//
//   Value v;  v.set_string("42");                 // encoding "int"
//   Value::Scratch s;  std::string_view text = v.str(s);
//   char* p = v.resize_raw(4);                    // "42\0\0", encoding "raw"
//   if (auto* list = v.as<ListObject>()) ...
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

#include "kv/value/heap_string.hpp"
#include "kv/value/object.hpp"

namespace duet::kv {

class Value {
 public:
  struct Scratch {
    char bytes[24];
  };
  static constexpr std::size_t inline_capacity = 15;
  static constexpr std::size_t embstr_limit = 44;  // OBJ_ENCODING_EMBSTR_SIZE_LIMIT

  Value() noexcept { bytes_[kind_byte] = 0; }
  Value(const Value&) = delete;
  Value& operator=(const Value&) = delete;
  Value(Value&& other) noexcept {
    std::memcpy(bytes_, other.bytes_, sizeof(bytes_));
    other.bytes_[kind_byte] = 0;
  }
  Value& operator=(Value&& other) noexcept {
    if (this != &other) {
      release();
      std::memcpy(bytes_, other.bytes_, sizeof(bytes_));
      other.bytes_[kind_byte] = 0;
    }
    return *this;
  }
  ~Value() { release(); }
  void swap(Value& other) noexcept {
    char tmp[16];
    std::memcpy(tmp, bytes_, 16);
    std::memcpy(bytes_, other.bytes_, 16);
    std::memcpy(other.bytes_, tmp, 16);
  }

  [[nodiscard]] bool is_string() const noexcept { return kind() != object_kind; }
  [[nodiscard]] ValueType type() const noexcept { return is_string() ? ValueType::string : object()->type(); }

  // --- strings ---
  [[nodiscard]] std::string_view str(Scratch& scratch) const noexcept {
    unsigned k = kind();
    if (k <= inline_capacity) return {bytes_, k};
    if (k == int_kind) return format_int(scratch);
    return heap()->view();
  }
  [[nodiscard]] std::size_t string_size() const noexcept;
  // True when the value is stored as an integer (INCR's fast path).
  [[nodiscard]] bool int_value(std::int64_t& out) const noexcept {
    if (kind() != int_kind) return false;
    std::memcpy(&out, bytes_, sizeof(out));
    return true;
  }
  void set_string(std::string_view s);
  void set_int(std::int64_t v) noexcept {
    release();
    std::memcpy(bytes_, &v, sizeof(v));
    bytes_[kind_byte] = static_cast<char>(int_kind);
  }
  // Makes the value a raw string of `n` bytes: the first min(old, n) bytes
  // kept, new ones zero; returns its bytes, valid until the value changes.
  char* resize_raw(std::size_t n);

  // --- type objects ---
  [[nodiscard]] Object* object() const noexcept {
    if (kind() != object_kind) return nullptr;
    Object* o = nullptr;
    std::memcpy(&o, bytes_, sizeof(o));
    return o;
  }
  template <class T>
  [[nodiscard]] T* as() const noexcept {
    Object* o = object();
    return o != nullptr && o->type() == T::value_type ? static_cast<T*>(o) : nullptr;
  }
  void set_object(ObjectPtr o) noexcept {
    release();
    Object* raw = o.release();
    std::memcpy(bytes_, &raw, sizeof(raw));
    bytes_[kind_byte] = static_cast<char>(object_kind);
  }

  // --- every kind ---
  void reset() noexcept {
    release();
    bytes_[kind_byte] = 0;
  }
  [[nodiscard]] std::string_view encoding() const noexcept;  // OBJECT ENCODING
  [[nodiscard]] std::size_t allocated() const noexcept;      // heap bytes held (MEMORY USAGE)
  [[nodiscard]] Value clone() const;                          // COPY: a deep copy
  // The heap bytes a read will touch first, or nullptr (Keyspace::prefetch).
  [[nodiscard]] const void* data_hint() const noexcept {
    unsigned k = kind();
    return k == embstr_kind || k == raw_kind || k == object_kind ? pointer() : nullptr;
  }

 private:
  static constexpr std::size_t kind_byte = 15;
  static constexpr unsigned int_kind = 0x10;
  static constexpr unsigned embstr_kind = 0x11;
  static constexpr unsigned raw_kind = 0x12;
  static constexpr unsigned object_kind = 0x20;

  [[nodiscard]] unsigned kind() const noexcept { return static_cast<unsigned char>(bytes_[kind_byte]); }
  [[nodiscard]] void* pointer() const noexcept {
    void* p = nullptr;
    std::memcpy(&p, bytes_, sizeof(p));
    return p;
  }
  [[nodiscard]] HeapString* heap() const noexcept { return static_cast<HeapString*>(pointer()); }
  void set_heap(HeapString* h, unsigned k) noexcept {
    std::memcpy(bytes_, &h, sizeof(h));
    bytes_[kind_byte] = static_cast<char>(k);
  }
  [[nodiscard]] std::string_view format_int(Scratch& scratch) const noexcept;
  void release() noexcept {
    unsigned k = kind();
    if (k == embstr_kind || k == raw_kind) {
      HeapString::destroy(heap());
    } else if (k == object_kind) {
      ObjectDeleter{}(object());  // the object's own type frees it (object.hpp)
    }
  }

  alignas(8) char bytes_[16];
};
static_assert(sizeof(Value) == 16);

}  // namespace duet::kv
