#include "kv/types/intset.hpp"

#include <cstring>

#include "kv/value/heap_string.hpp"

namespace duet::kv {

unsigned IntSet::width_for(std::int64_t value) noexcept {
  if (value >= INT16_MIN && value <= INT16_MAX) return 2;
  if (value >= INT32_MIN && value <= INT32_MAX) return 4;
  return 8;
}

IntSet::Header* IntSet::make(std::size_t count, unsigned width) {
  auto* block = static_cast<Header*>(HeapString::allocate(bytes_for(count, width)));
  block->count = static_cast<std::uint32_t>(count);
  block->width = width;
  return block;
}

void IntSet::destroy(Header* block) noexcept {
  if (block != nullptr) HeapString::release(block, bytes_for(block->count, block->width));
}

std::int64_t IntSet::get(const Header* block, std::size_t i) noexcept {
  const char* p = reinterpret_cast<const char*>(block + 1) + i * block->width;
  switch (block->width) {
    case 2: {
      std::int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case 4: {
      std::int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default: {
      std::int64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
  }
}

void IntSet::put(Header* block, std::size_t i, std::int64_t value) noexcept {
  char* p = reinterpret_cast<char*>(block + 1) + i * block->width;
  if (block->width == 2) {
    auto v = static_cast<std::int16_t>(value);
    std::memcpy(p, &v, 2);
  } else if (block->width == 4) {
    auto v = static_cast<std::int32_t>(value);
    std::memcpy(p, &v, 4);
  } else {
    std::memcpy(p, &value, 8);
  }
}

std::int64_t IntSet::at(std::size_t i) const noexcept { return get(block_, i); }

bool IntSet::search(std::int64_t value, std::size_t& pos) const noexcept {
  std::size_t lo = 0;
  std::size_t hi = size();
  while (lo < hi) {
    std::size_t mid = lo + (hi - lo) / 2;
    std::int64_t v = get(block_, mid);
    if (v == value) {
      pos = mid;
      return true;
    }
    if (v < value) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  pos = lo;
  return false;
}

bool IntSet::contains(std::int64_t value) const noexcept {
  if (block_ == nullptr || width_for(value) > block_->width) return false;
  std::size_t pos = 0;
  return search(value, pos);
}

bool IntSet::insert(std::int64_t value) {
  std::size_t pos = 0;
  if (search(value, pos)) return false;
  const std::size_t n = size();
  const unsigned old_width = width();
  const unsigned new_width = width_for(value) > old_width ? width_for(value) : old_width;
  Header* grown = make(n + 1, new_width);
  if (new_width == old_width && block_ != nullptr) {
    const char* from = values();
    char* to = reinterpret_cast<char*>(grown + 1);
    std::memcpy(to, from, pos * new_width);
    std::memcpy(to + (pos + 1) * new_width, from + pos * new_width, (n - pos) * new_width);
  } else {  // widening: every value is converted
    for (std::size_t i = 0; i < n; ++i) put(grown, i < pos ? i : i + 1, get(block_, i));
  }
  put(grown, pos, value);
  destroy(block_);
  block_ = grown;
  return true;
}

bool IntSet::erase(std::int64_t value) {
  std::size_t pos = 0;
  if (!contains(value) || !search(value, pos)) return false;
  const std::size_t n = size();
  if (n == 1) {
    clear();
    return true;
  }
  const unsigned w = width();
  Header* shrunk = make(n - 1, w);
  char* to = reinterpret_cast<char*>(shrunk + 1);
  std::memcpy(to, values(), pos * w);
  std::memcpy(to + pos * w, values() + (pos + 1) * w, (n - pos - 1) * w);
  destroy(block_);
  block_ = shrunk;
  return true;
}

IntSet IntSet::clone() const {
  IntSet copy;
  if (block_ != nullptr) {
    copy.block_ = make(block_->count, block_->width);
    std::memcpy(copy.values(), values(), block_->count * block_->width);
  }
  return copy;
}

void IntSet::clear() noexcept {
  destroy(block_);
  block_ = nullptr;
}

}  // namespace duet::kv
