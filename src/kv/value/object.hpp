// duet::kv::Object — what a key holds when its value is not a string: the
// base of the type modules (list, hash, set, ...).
//
// Contract
// - A type module (kv/types/<type>.hpp) derives its object from Object and
//   owns its encodings (compact while small, a table beyond, as Redis
//   converts by its *-max-listpack-* thresholds). Value owns the object.
// - No virtual functions: the base is ONE byte, the ValueType in the low four
//   bits and the module's encoding tag in the high four (a vtable pointer
//   would be 8 of the 32 bytes a 5-field listpack hash takes). type() reads
//   it inline; encoding(), size(), memory_usage(), clone() and
//   write_records() switch over it to the module's member of the same name
//   (kv/types/object_dispatch.cpp, the one place that knows every type: this
//   layer does not include the modules).
// - Destruction too: an object is freed only through ObjectDeleter (ObjectPtr,
//   ObjectPtrOf<T>, Value), which calls the concrete class's destruction with
//   its real size. Object's destructor is protected, so a plain
//   std::unique_ptr<Object> does not compile.
// - Objects and everything they hold are counted in CountingAllocator's
//   per-thread counter (INFO used_memory): the class operators below count the
//   object itself; containers inside use CountingAllocator or HeapString.
// - An object is never empty while a key holds it: a command that removes the
//   last element deletes the key (Redis's rule), so size() > 0 for live keys.
// - write_records() emits commands that rebuild the object under `key` when
//   replayed in order (the AOF rewrite, and how a value crosses shards): at
//   most 64 elements per command, as Redis's rewrite.
// - One thread: the shard's that owns the key.
//
//   class ListObject final : public Object {
//    public:
//     ListObject() noexcept : Object(ValueType::list) {}
//     std::size_t size() const noexcept;  // ... and the other five, found by the dispatch
//   };
//   ObjectPtrOf<ListObject> list = make_object<ListObject>();
#pragma once

#include <absl/functional/function_ref.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <utility>

#include "kv/value/heap_string.hpp"

namespace duet::kv {

enum class ValueType : std::uint8_t { string, list, hash, set, zset };

// TYPE's answer: "string", "list", "hash", "set", "zset".
[[nodiscard]] std::string_view type_name(ValueType type) noexcept;

using RecordSink = absl::FunctionRef<void(std::span<const std::string_view> argv)>;

class Object;

// Frees an object of any type, as its module says (object_dispatch.cpp).
struct ObjectDeleter {
  void operator()(Object* object) const noexcept;
};
template <class T>
using ObjectPtrOf = std::unique_ptr<T, ObjectDeleter>;
using ObjectPtr = ObjectPtrOf<Object>;

class Object {
 public:
  static constexpr std::size_t max_record_elements = 64;

  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;
  Object(Object&&) = delete;
  Object& operator=(Object&&) = delete;

  [[nodiscard]] ValueType type() const noexcept { return static_cast<ValueType>(tag_ & type_mask); }
  [[nodiscard]] std::string_view encoding() const noexcept;  // OBJECT ENCODING
  [[nodiscard]] std::size_t size() const noexcept;           // elements
  // Heap bytes the object holds, itself included (MEMORY USAGE).
  [[nodiscard]] std::size_t memory_usage() const noexcept;
  [[nodiscard]] ObjectPtr clone() const;  // COPY
  void write_records(std::string_view key, RecordSink sink) const;

  static void* operator new(std::size_t bytes) { return HeapString::allocate(bytes); }
  static void operator delete(void* p, std::size_t bytes) noexcept { HeapString::release(p, bytes); }

 protected:
  // `encoding_tag` (0..15) is the module's own: which of its encodings this is.
  explicit Object(ValueType type, unsigned encoding_tag = 0) noexcept
      : tag_(static_cast<std::uint8_t>(static_cast<unsigned>(type) | encoding_tag << 4)) {}
  ~Object() = default;  // not virtual: ObjectDeleter knows the concrete type

  [[nodiscard]] unsigned encoding_tag() const noexcept { return tag_ >> 4; }

 private:
  static constexpr std::uint8_t type_mask = 0x0f;

  std::uint8_t tag_;
};
static_assert(sizeof(Object) == 1 && alignof(Object) == 1, "the header is one byte");

// A new T (a type module's object) owned with the deleter, counted as above.
template <class T, class... Args>
[[nodiscard]] ObjectPtrOf<T> make_object(Args&&... args) {
  return ObjectPtrOf<T>(new T(std::forward<Args>(args)...));
}

}  // namespace duet::kv
