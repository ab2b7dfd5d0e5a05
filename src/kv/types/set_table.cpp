#include "kv/types/set_table.hpp"

#include <new>

#include "kv/detail/key_hash.hpp"

namespace duet::kv {
namespace {

constexpr std::size_t slot_bytes = sizeof(CompactString) + 1;  // the member and its control byte

}  // namespace

std::uint64_t SetTable::reverse_bits(std::uint64_t v) noexcept {
  v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
  v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
  v = ((v >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((v & 0x0F0F0F0F0F0F0F0Full) << 4);
  return __builtin_bswap64(v);
}

std::size_t SetTable::home_of(std::size_t slot) const noexcept {
  return detail::key_hash(slots_[slot].view()) & mask();
}

std::size_t SetTable::find(std::string_view member) const noexcept {
  if (size_ == 0) return npos;
  const std::size_t hash = detail::key_hash(member);
  const std::uint8_t tag = tag_of(hash);
  for (std::size_t i = hash & mask(); ctrl()[i] != 0; i = (i + 1) & mask()) {
    if (ctrl()[i] == tag && detail::key_equal(slots_[i].view(), member)) return i;
  }
  return npos;
}

void SetTable::place(CompactString&& member, std::size_t hash) noexcept {
  std::size_t i = hash & mask();
  while (ctrl()[i] != 0) i = (i + 1) & mask();
  new (&slots_[i]) CompactString(std::move(member));
  ctrl()[i] = tag_of(hash);
  ++size_;
}

bool SetTable::insert(std::string_view member) {
  if (contains(member)) return false;
  if ((size_ + 1) * 4 > std::size_t{capacity_} * 3) rehash(capacity_ == 0 ? min_capacity : 2 * std::size_t{capacity_});
  place(CompactString(member), detail::key_hash(member));
  return true;
}

bool SetTable::erase(std::string_view member) {
  std::size_t hole = find(member);
  if (hole == npos) return false;
  slots_[hole].~CompactString();
  ctrl()[hole] = 0;
  --size_;
  // Backward shift: a member after the hole whose probe started at or before
  // the hole moves into it, so every run stays unbroken (no tombstones).
  for (std::size_t k = (hole + 1) & mask(); ctrl()[k] != 0; k = (k + 1) & mask()) {
    const std::size_t home = home_of(k);
    if (((k - home) & mask()) < ((k - hole) & mask())) continue;
    new (&slots_[hole]) CompactString(std::move(slots_[k]));
    slots_[k].~CompactString();
    ctrl()[hole] = ctrl()[k];
    ctrl()[k] = 0;
    hole = k;
  }
  if (capacity_ > min_capacity && std::size_t{size_} * 8 < capacity_) rehash(capacity_ / 2);
  return true;
}

void SetTable::reserve(std::size_t n) {
  std::size_t capacity = capacity_ == 0 ? min_capacity : capacity_;
  while (n * 4 > capacity * 3) capacity *= 2;
  if (capacity != capacity_) rehash(capacity);
}

void SetTable::rehash(std::size_t capacity) {
  CompactString* old_slots = slots_;
  const std::size_t old_capacity = capacity_;
  const std::uint8_t* old_ctrl = ctrl();
  slots_ = static_cast<CompactString*>(HeapString::allocate(capacity * slot_bytes));
  capacity_ = static_cast<std::uint32_t>(capacity);
  size_ = 0;
  for (std::size_t i = 0; i < capacity; ++i) ctrl()[i] = 0;
  for (std::size_t i = 0; i < old_capacity; ++i) {
    if (old_ctrl[i] == 0) continue;
    const std::size_t hash = detail::key_hash(old_slots[i].view());
    place(std::move(old_slots[i]), hash);
    old_slots[i].~CompactString();
  }
  if (old_slots != nullptr) HeapString::release(old_slots, old_capacity * slot_bytes);
}

void SetTable::clear() noexcept {
  if (slots_ == nullptr) return;
  for (std::size_t i = 0; i < capacity_; ++i) {
    if (ctrl()[i] != 0) slots_[i].~CompactString();
  }
  HeapString::release(slots_, capacity_ * slot_bytes);
  slots_ = nullptr;
  capacity_ = 0;
  size_ = 0;
}

std::size_t SetTable::allocated() const noexcept {
  std::size_t bytes = std::size_t{capacity_} * slot_bytes;
  for_each([&](std::string_view member) {
    if (member.size() > CompactString::inline_capacity) bytes += sizeof(HeapString) + member.size();
  });
  return bytes;
}

SetTable SetTable::clone() const {
  SetTable copy;
  if (size_ == 0) return copy;  // an intset's empty table stays without slots
  copy.reserve(size_);
  for_each([&](std::string_view member) { copy.place(CompactString(member), detail::key_hash(member)); });
  return copy;
}

// Random slots until one holds a member: uniform over the members (a walk
// from one random slot would favour those after long empty stretches), and
// at least 1/8 of the slots are full, so a handful of tries. The walk is the
// bound if the bits keep missing.
std::string_view SetTable::random_member(std::uint64_t random_bits) const noexcept {
  std::uint64_t x = random_bits;
  for (int tries = 0; tries < 64; ++tries) {
    if (ctrl()[x & mask()] != 0) return slots_[x & mask()].view();
    x += 0x9E3779B97F4A7C15ull;  // splitmix64's step and mix
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
  }
  std::size_t i = x & mask();
  while (ctrl()[i] == 0) i = (i + 1) & mask();
  return slots_[i].view();
}

}  // namespace duet::kv
