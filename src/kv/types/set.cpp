#include "kv/types/set.hpp"

#include <string>
#include <vector>

#include "kv/detail/numbers.hpp"

namespace duet::kv {

SetObject::~SetObject() {
  if (is_intset()) {
    ints().~IntSet();
    return;
  }
  SetTable* t = &table();
  t->~SetTable();
  HeapString::release(t, sizeof(SetTable));
}

std::size_t SetObject::memory_usage() const noexcept {
  if (is_intset()) return sizeof(SetObject) + ints().allocated();
  return sizeof(SetObject) + sizeof(SetTable) + table().allocated();
}

ObjectPtr SetObject::clone() const {
  auto copy = make_object<SetObject>();
  if (is_intset()) {
    copy->ints() = ints().clone();
  } else {
    copy->make_table(table().clone());
  }
  return copy;
}

void SetObject::make_table(SetTable&& table) {
  void* place = HeapString::allocate(sizeof(SetTable));
  SetTable* t = new (place) SetTable(std::move(table));
  ints().~IntSet();
  std::memcpy(storage_, &t, sizeof(t));
  storage_[IntSet::tag_byte] = table_tag;
}

// SADD key m1 ... m64, as many as it takes (Redis's rewriteSetObject).
void SetObject::write_records(std::string_view key, RecordSink sink) const {
  std::vector<std::string> members;
  members.reserve(max_record_elements);
  std::vector<std::string_view> argv;
  auto flush = [&] {
    argv.assign({"SADD", key});
    argv.insert(argv.end(), members.begin(), members.end());
    sink(argv);
    members.clear();
  };
  for_each([&](std::string_view m) {
    members.emplace_back(m);
    if (members.size() == max_record_elements) flush();
  });
  if (!members.empty()) flush();
}

void SetObject::convert_to_table() {
  SetTable table;
  const IntSet& ints = this->ints();
  table.reserve(ints.size() + 1);
  Scratch scratch;
  for (std::size_t i = 0; i < ints.size(); ++i) table.insert(format(ints.at(i), scratch));
  make_table(std::move(table));
}

bool SetObject::add(std::string_view member, std::int64_t max_intset_entries) {
  if (is_intset()) {
    std::int64_t value = 0;
    if (detail::parse_i64(member, value)) {
      if (!ints().insert(value)) return false;
      if (static_cast<std::int64_t>(ints().size()) > max_intset_entries) convert_to_table();
      return true;
    }
    convert_to_table();
  }
  return table().insert(member);
}

bool SetObject::remove(std::string_view member) {
  if (!is_intset()) return table().erase(member);
  std::int64_t value = 0;
  return detail::parse_i64(member, value) && ints().erase(value);
}

bool SetObject::contains(std::string_view member) const noexcept {
  if (!is_intset()) return table().contains(member);
  std::int64_t value = 0;
  return detail::parse_i64(member, value) && ints().contains(value);
}

std::string_view SetObject::random_member(std::uint64_t random_bits, Scratch& scratch) const noexcept {
  if (!is_intset()) return table().random_member(random_bits);
  return format(ints().at(random_bits % ints().size()), scratch);
}

}  // namespace duet::kv
