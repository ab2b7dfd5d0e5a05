// CompactTable: linear probing over tagged record pointers. Why linear
// probing with the hash's top bits as the home slot: the slots are then in
// hash order (but for the short displacement of a cluster), which is what
// gives scan() a cursor that survives a resize; erase's backward shift keeps
// every record reachable from its home with no tombstones to clean.
#include "kv/types/compact_table.hpp"

#include <cassert>
#include <cstring>
#include <utility>

#include "kv/detail/key_hash.hpp"
#include "kv/value/heap_string.hpp"

namespace duet::kv {

namespace detail {

std::size_t varint_size(std::size_t n) noexcept {
  std::size_t bytes = 1;
  while (n >= 0x80) {
    n >>= 7;
    ++bytes;
  }
  return bytes;
}

char* put_varint(char* out, std::size_t n) noexcept {
  while (n >= 0x80) {
    *out++ = static_cast<char>((n & 0x7f) | 0x80);
    n >>= 7;
  }
  *out++ = static_cast<char>(n);
  return out;
}

const char* get_varint(const char* in, std::size_t& n) noexcept {
  n = 0;
  for (unsigned shift = 0;; shift += 7) {
    const auto byte = static_cast<unsigned char>(*in++);
    n |= static_cast<std::size_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return in;
  }
}

}  // namespace detail

namespace {

char* block_of(std::uint64_t slot) noexcept {
  return reinterpret_cast<char*>(static_cast<std::uintptr_t>(slot & ((std::uint64_t{1} << 48) - 1)));
}

CompactTable::Record read_block(const char* block) noexcept {
  std::size_t klen = 0;
  std::size_t vlen = 0;
  const char* p = detail::get_varint(detail::get_varint(block, klen), vlen);
  return {{p, klen}, {p + klen, vlen}};
}

std::size_t block_size(std::size_t klen, std::size_t vlen) noexcept {
  return detail::varint_size(klen) + detail::varint_size(vlen) + klen + vlen;
}

std::size_t block_size(const char* block) noexcept {
  const CompactTable::Record r = read_block(block);
  return block_size(r.key.size(), r.value.size());
}

char* make_block(std::string_view key, std::string_view value) {
  auto* block = static_cast<char*>(HeapString::allocate(block_size(key.size(), value.size())));
  char* p = detail::put_varint(detail::put_varint(block, key.size()), value.size());
  std::memcpy(p, key.data(), key.size());
  std::memcpy(p + key.size(), value.data(), value.size());
  return block;
}

std::uint64_t key_hash_of(std::uint64_t slot) noexcept { return detail::key_hash(read_block(block_of(slot)).key); }

}  // namespace

CompactTable::CompactTable(CompactTable&& other) noexcept
    : slots_(std::exchange(other.slots_, nullptr)),
      capacity_(std::exchange(other.capacity_, 0)),
      bits_(std::exchange(other.bits_, 0)),
      size_(std::exchange(other.size_, 0)),
      record_bytes_(std::exchange(other.record_bytes_, 0)) {}

CompactTable& CompactTable::operator=(CompactTable&& other) noexcept {
  if (this != &other) {
    release_all();
    slots_ = std::exchange(other.slots_, nullptr);
    capacity_ = std::exchange(other.capacity_, 0);
    bits_ = std::exchange(other.bits_, 0);
    size_ = std::exchange(other.size_, 0);
    record_bytes_ = std::exchange(other.record_bytes_, 0);
  }
  return *this;
}

CompactTable::~CompactTable() { release_all(); }

void CompactTable::release_all() noexcept {
  for (std::size_t i = 0; i < capacity_; ++i) {
    if (slots_[i] != 0) HeapString::release(block_of(slots_[i]), block_size(block_of(slots_[i])));
  }
  if (slots_ != nullptr) HeapString::release(slots_, capacity_ * sizeof(std::uint64_t));
  slots_ = nullptr;
  capacity_ = size_ = record_bytes_ = 0;
  bits_ = 0;
}

std::size_t CompactTable::probe(std::string_view key, std::uint64_t hash, bool& found) const noexcept {
  const std::uint64_t tag = hash << tag_shift;
  for (std::size_t pos = home(hash);; pos = (pos + 1) & mask()) {
    const std::uint64_t s = slots_[pos];
    if (s == 0) return found = false, pos;
    if ((s & ~pointer_mask) == tag && read_block(block_of(s)).key == key) return found = true, pos;
  }
}

std::optional<CompactTable::Record> CompactTable::find(std::string_view key) const noexcept {
  if (size_ == 0) return std::nullopt;
  bool found = false;
  const std::size_t pos = probe(key, detail::key_hash(key), found);
  if (!found) return std::nullopt;
  return read_block(block_of(slots_[pos]));
}

bool CompactTable::assign(std::string_view key, std::string_view value) {
  if (capacity_ == 0) rehash(min_capacity);
  const std::uint64_t hash = detail::key_hash(key);
  bool found = false;
  std::size_t pos = probe(key, hash, found);
  if (!found && (size_ + 1) * 4 > capacity_ * 3) {  // only an insert grows the table
    rehash(capacity_ * 2);
    pos = probe(key, hash, found);
  }
  char* block = make_block(key, value);
  assert((reinterpret_cast<std::uintptr_t>(block) & ~pointer_mask) == 0 && "a record address fits in 48 bits");
  record_bytes_ += block_size(key.size(), value.size());
  if (found) {
    char* old = block_of(slots_[pos]);
    const std::size_t old_size = block_size(old);
    record_bytes_ -= old_size;
    HeapString::release(old, old_size);
  } else {
    ++size_;
  }
  slots_[pos] = (hash << tag_shift) | reinterpret_cast<std::uintptr_t>(block);
  return !found;
}

bool CompactTable::erase(std::string_view key) {
  if (size_ == 0) return false;
  bool found = false;
  const std::size_t pos = probe(key, detail::key_hash(key), found);
  if (!found) return false;
  char* block = block_of(slots_[pos]);
  const std::size_t bytes = block_size(block);
  record_bytes_ -= bytes;
  HeapString::release(block, bytes);
  remove_at(pos);
  --size_;
  if (capacity_ > min_capacity && size_ * 8 < capacity_) rehash(capacity_ / 2);
  return true;
}

// Backward-shift deletion: each later record of the cluster moves into the
// hole unless the hole lies before its home (cyclically), where it would
// become unreachable.
void CompactTable::remove_at(std::size_t pos) noexcept {
  std::size_t hole = pos;
  for (std::size_t j = (pos + 1) & mask(); slots_[j] != 0; j = (j + 1) & mask()) {
    const std::size_t h = home(key_hash_of(slots_[j]));
    const bool home_after_hole = hole <= j ? (h > hole && h <= j) : (h > hole || h <= j);
    if (home_after_hole) continue;
    slots_[hole] = slots_[j];
    hole = j;
  }
  slots_[hole] = 0;
}

void CompactTable::reserve(std::size_t records) {
  std::size_t capacity = capacity_ == 0 ? min_capacity : capacity_;
  while (records * 4 > capacity * 3) capacity *= 2;
  if (capacity != capacity_) rehash(capacity);
}

void CompactTable::place(std::uint64_t slot_value, std::uint64_t hash) noexcept {
  std::size_t pos = home(hash);
  while (slots_[pos] != 0) pos = (pos + 1) & mask();
  slots_[pos] = slot_value;
}

void CompactTable::rehash(std::size_t capacity) {
  std::uint64_t* old = slots_;
  const std::size_t old_capacity = capacity_;
  slots_ = static_cast<std::uint64_t*>(HeapString::allocate(capacity * sizeof(std::uint64_t)));
  std::memset(slots_, 0, capacity * sizeof(std::uint64_t));
  capacity_ = capacity;
  bits_ = 0;
  while ((std::size_t{1} << bits_) < capacity) ++bits_;
  for (std::size_t i = 0; i < old_capacity; ++i) {
    if (old[i] != 0) place(old[i], key_hash_of(old[i]));
  }
  if (old != nullptr) HeapString::release(old, old_capacity * sizeof(std::uint64_t));
}

void CompactTable::for_each(Visit visit) const {
  for (std::size_t i = 0; i < capacity_; ++i) {
    if (slots_[i] != 0) visit(read_block(block_of(slots_[i])));
  }
}

std::uint64_t CompactTable::scan(std::uint64_t cursor, std::size_t count, Visit visit) const {
  constexpr std::uint64_t space = std::uint64_t{1} << 32;  // cursors are the top 32 bits of a hash
  if (size_ == 0 || cursor >= space) return 0;
  const unsigned shift = 32 - bits_;
  const std::size_t first = static_cast<std::size_t>(cursor >> shift);
  const std::size_t end = count < capacity_ - first ? first + count : capacity_;  // COUNT may be near 2^63
  const std::uint64_t hi = end == capacity_ ? space : static_cast<std::uint64_t>(end) << shift;
  // Records whose home is in [first, end) sit between it and the first empty
  // slot after it; those from earlier homes are told apart by their hash.
  for (std::size_t n = 0; n < capacity_; ++n) {
    const std::size_t pos = (first + n) & mask();
    const std::uint64_t s = slots_[pos];
    if (s == 0) {
      if (first + n >= end) break;
      continue;
    }
    const std::uint64_t h32 = key_hash_of(s) >> 32;
    if (h32 >= cursor && h32 < hi) visit(read_block(block_of(s)));
  }
  return hi == space ? 0 : hi;
}

CompactTable::Record CompactTable::random(std::uint64_t random_bits) const noexcept {
  std::size_t pos = random_bits & mask();
  while (slots_[pos] == 0) pos = (pos + 1) & mask();
  return read_block(block_of(slots_[pos]));
}

}  // namespace duet::kv
