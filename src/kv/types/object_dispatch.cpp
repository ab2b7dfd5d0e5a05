// Object's members and ObjectDeleter (kv/value/object.hpp): a switch over the
// one-byte header to the type module's member of the same name. This is the
// one place that knows every type module; the value layer below only declares.
//
// Why a switch and not virtual functions: a vtable pointer is 8 bytes in every
// object, a quarter of a 5-field listpack hash. The cost is one predictable
// branch per call, and a new module adds a case here.
#include <cstdlib>
#include <type_traits>

#include "kv/types/hash.hpp"
#include "kv/types/list.hpp"
#include "kv/types/set.hpp"
#include "kv/types/zset.hpp"
#include "kv/value/object.hpp"

namespace duet::kv {
namespace {

// A module that forgot one of these would resolve T::member to Object's and
// recurse forever: the member's class must be T itself.
template <class T>
constexpr bool defines_object_members =
    !std::is_same_v<decltype(&T::encoding), decltype(&Object::encoding)> &&
    !std::is_same_v<decltype(&T::size), decltype(&Object::size)> &&
    !std::is_same_v<decltype(&T::memory_usage), decltype(&Object::memory_usage)> &&
    !std::is_same_v<decltype(&T::clone), decltype(&Object::clone)> &&
    !std::is_same_v<decltype(&T::write_records), decltype(&Object::write_records)>;
static_assert(defines_object_members<ListObject>);
static_assert(defines_object_members<HashObject>);
static_assert(defines_object_members<SetObject>);
static_assert(defines_object_members<ZsetObject>);

// Calls f with the object as its module's class.
template <class F>
decltype(auto) visit(const Object* o, F&& f) {
  switch (o->type()) {
    case ValueType::list: return f(static_cast<const ListObject*>(o));
    case ValueType::hash: return f(static_cast<const HashObject*>(o));
    case ValueType::set: return f(static_cast<const SetObject*>(o));
    case ValueType::zset: return f(static_cast<const ZsetObject*>(o));
    case ValueType::string: break;
  }
  std::abort();  // no module makes such an object: the header is corrupt
}

}  // namespace

std::string_view Object::encoding() const noexcept {
  return visit(this, [](const auto* o) { return o->encoding(); });
}

std::size_t Object::size() const noexcept {
  return visit(this, [](const auto* o) { return o->size(); });
}

std::size_t Object::memory_usage() const noexcept {
  return visit(this, [](const auto* o) { return o->memory_usage(); });
}

ObjectPtr Object::clone() const {
  return visit(this, [](const auto* o) -> ObjectPtr { return o->clone(); });
}

void Object::write_records(std::string_view key, RecordSink sink) const {
  visit(this, [&](const auto* o) { o->write_records(key, sink); });
}

void ObjectDeleter::operator()(Object* object) const noexcept {
  if (object == nullptr) return;
  switch (object->type()) {
    case ValueType::list: delete static_cast<ListObject*>(object); return;
    case ValueType::hash: HashObject::destroy(static_cast<HashObject*>(object)); return;
    case ValueType::set: delete static_cast<SetObject*>(object); return;
    case ValueType::zset: ZsetObject::destroy(static_cast<ZsetObject*>(object)); return;
    case ValueType::string: break;
  }
  std::abort();
}

}  // namespace duet::kv
