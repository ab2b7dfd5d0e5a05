#include "kv/types/set.hpp"

#include <string>
#include <vector>

#include "kv/detail/numbers.hpp"

namespace duet::kv {

std::size_t SetObject::memory_usage() const noexcept {
  return sizeof(SetObject) + ints_.allocated() + table_.allocated();
}

std::unique_ptr<Object> SetObject::clone() const {
  auto copy = std::make_unique<SetObject>();
  copy->ints_ = ints_.clone();
  copy->table_ = table_.clone();
  return copy;
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
  table_.reserve(ints_.size() + 1);
  Scratch scratch;
  for (std::size_t i = 0; i < ints_.size(); ++i) table_.insert(format(ints_.at(i), scratch));
  ints_.clear();
}

bool SetObject::add(std::string_view member, std::int64_t max_intset_entries) {
  if (is_intset()) {
    std::int64_t value = 0;
    if (detail::parse_i64(member, value)) {
      if (!ints_.insert(value)) return false;
      if (static_cast<std::int64_t>(ints_.size()) > max_intset_entries) convert_to_table();
      return true;
    }
    convert_to_table();
  }
  return table_.insert(member);
}

bool SetObject::remove(std::string_view member) {
  if (!is_intset()) return table_.erase(member);
  std::int64_t value = 0;
  return detail::parse_i64(member, value) && ints_.erase(value);
}

bool SetObject::contains(std::string_view member) const noexcept {
  if (!is_intset()) return table_.contains(member);
  std::int64_t value = 0;
  return detail::parse_i64(member, value) && ints_.contains(value);
}

std::string_view SetObject::random_member(std::uint64_t random_bits, Scratch& scratch) const noexcept {
  if (!is_intset()) return table_.random_member(random_bits);
  return format(ints_.at(random_bits % ints_.size()), scratch);
}

}  // namespace duet::kv
