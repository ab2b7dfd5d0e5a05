// duet::kv::Object — what a key holds when its value is not a string: the
// base of the type modules (list, hash, set, ...).
//
// Contract
// - A type module (kv/types/<type>.hpp) derives its object from Object and
//   owns its encodings (compact while small, a table beyond, as Redis
//   converts by its *-max-listpack-* thresholds). Value owns the object.
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
//   class ListObject final : public Object { ... ValueType type() const noexcept override { return ValueType::list; } };
#pragma once

#include <absl/functional/function_ref.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "kv/value/heap_string.hpp"

namespace duet::kv {

enum class ValueType : std::uint8_t { string, list, hash, set, zset };

// TYPE's answer: "string", "list", "hash", "set", "zset".
[[nodiscard]] std::string_view type_name(ValueType type) noexcept;

using RecordSink = absl::FunctionRef<void(std::span<const std::string_view> argv)>;

class Object {
 public:
  static constexpr std::size_t max_record_elements = 64;

  Object() = default;
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;
  Object(Object&&) = delete;
  Object& operator=(Object&&) = delete;
  virtual ~Object() = default;

  [[nodiscard]] virtual ValueType type() const noexcept = 0;
  [[nodiscard]] virtual std::string_view encoding() const noexcept = 0;  // OBJECT ENCODING
  [[nodiscard]] virtual std::size_t size() const noexcept = 0;          // elements
  // Heap bytes the object holds, itself included (MEMORY USAGE).
  [[nodiscard]] virtual std::size_t memory_usage() const noexcept = 0;
  [[nodiscard]] virtual std::unique_ptr<Object> clone() const = 0;      // COPY
  virtual void write_records(std::string_view key, RecordSink sink) const = 0;

  static void* operator new(std::size_t bytes) { return HeapString::allocate(bytes); }
  static void operator delete(void* p, std::size_t bytes) noexcept { HeapString::release(p, bytes); }
};

}  // namespace duet::kv
