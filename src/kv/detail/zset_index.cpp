// ZsetIndex: linear probing with a 16-bit hash tag beside each 48-bit entry
// pointer, and backward-shift deletion (no tombstones).
#include "kv/detail/zset_index.hpp"

#include <algorithm>
#include <cassert>

#include "kv/detail/counting_allocator.hpp"

namespace duet::kv::detail {
namespace {

constexpr std::uint64_t pointer_bits = (std::uint64_t{1} << 48) - 1;

std::uint64_t tag_of(std::size_t hash) noexcept { return static_cast<std::uint64_t>(hash) << 48; }
ZsetEntry* entry_of(std::uint64_t slot) noexcept { return reinterpret_cast<ZsetEntry*>(slot & pointer_bits); }

}  // namespace

ZsetEntry* ZsetIndex::find(std::string_view member) const noexcept {
  if (size_ == 0) return nullptr;
  std::size_t hash = key_hash(member);
  std::uint64_t tag = tag_of(hash);
  for (std::size_t i = home(hash); slots_[i] != 0; i = next(i)) {
    if ((slots_[i] & ~pointer_bits) == tag && key_equal(entry_of(slots_[i])->member(), member)) {
      return entry_of(slots_[i]);
    }
  }
  return nullptr;
}

void ZsetIndex::place(std::uint64_t slot, std::size_t hash) noexcept {
  std::size_t i = home(hash);
  while (slots_[i] != 0) i = next(i);
  slots_[i] = slot;
}

void ZsetIndex::insert(ZsetEntry* e) {
  auto bits = reinterpret_cast<std::uintptr_t>(e);
  assert((bits & ~pointer_bits) == 0);
  if ((size_ + 1) * 5 > capacity_ * 4) resize(std::max<std::size_t>(16, capacity_ + capacity_ / 2));
  std::size_t hash = key_hash(e->member());
  place(tag_of(hash) | bits, hash);
  ++size_;
}

void ZsetIndex::erase(const ZsetEntry* e) noexcept {
  std::size_t hole = home(key_hash(e->member()));
  while (entry_of(slots_[hole]) != e) hole = next(hole);
  // Backward shift: a later slot of the run moves into the hole unless its
  // home lies cyclically in (hole, j] — it would then sit before its home.
  for (std::size_t j = next(hole); slots_[j] != 0; j = next(j)) {
    std::size_t h = home(key_hash(entry_of(slots_[j])->member()));
    bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
    if (stays) continue;
    slots_[hole] = slots_[j];
    hole = j;
  }
  slots_[hole] = 0;
  if (--size_ == 0) {
    clear();
  } else if (capacity_ > 64 && size_ * 8 < capacity_) {
    resize(size_ * 2);  // as Redis's dict under 1/10 full; half full after
  }
}

void ZsetIndex::resize(std::size_t capacity) {
  std::uint64_t* old = slots_;
  std::size_t old_capacity = capacity_;
  slots_ = CountingAllocator<std::uint64_t>{}.allocate(capacity);
  std::fill_n(slots_, capacity, 0);
  capacity_ = capacity;
  for (std::size_t i = 0; i < old_capacity; ++i) {
    if (old[i] != 0) place(old[i], key_hash(entry_of(old[i])->member()));
  }
  if (old != nullptr) CountingAllocator<std::uint64_t>{}.deallocate(old, old_capacity);
}

void ZsetIndex::clear() noexcept {
  if (slots_ != nullptr) CountingAllocator<std::uint64_t>{}.deallocate(slots_, capacity_);
  slots_ = nullptr;
  capacity_ = 0;
  size_ = 0;
}

std::uint64_t ZsetIndex::scan(std::uint64_t cursor, std::size_t count,
                              absl::FunctionRef<void(const ZsetEntry*)> visit) const {
  constexpr std::uint64_t space = std::uint64_t{1} << 32;
  if (size_ == 0 || cursor >= space) return 0;
  const std::size_t first = home(static_cast<std::size_t>(cursor << 32));
  const std::size_t end = count < capacity_ - first ? first + std::max<std::size_t>(count, 1) : capacity_;
  // The smallest 32-bit prefix whose home is at or past `end`: > cursor,
  // since cursor's home is first < end.
  const std::uint64_t hi = end == capacity_ ? space : ((static_cast<std::uint64_t>(end) << 32) + capacity_ - 1) / capacity_;
  // Entries homed in [first, end) sit between it and the first empty slot
  // after it (wrapping); those from other homes are told apart by hash.
  for (std::size_t n = 0, pos = first; n < capacity_; ++n, pos = next(pos)) {
    if (slots_[pos] == 0) {
      if (first + n >= end) break;
      continue;
    }
    const ZsetEntry* e = entry_of(slots_[pos]);
    const std::uint64_t h32 = static_cast<std::uint64_t>(key_hash(e->member())) >> 32;
    if (h32 >= cursor && h32 < hi) visit(e);
  }
  return hi == space ? 0 : hi;
}

}  // namespace duet::kv::detail
