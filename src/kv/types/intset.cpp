#include "kv/types/intset.hpp"

#include "kv/value/heap_string.hpp"

namespace duet::kv {
namespace {

constexpr std::size_t npos = ~std::size_t{0};

}  // namespace

unsigned IntSet::width_for(std::int64_t value) noexcept {
  if (value >= INT16_MIN && value <= INT16_MAX) return 2;
  if (value >= INT32_MIN && value <= INT32_MAX) return 4;
  return 8;
}

std::int64_t IntSet::get(const char* data, unsigned width, std::size_t i) noexcept {
  const char* p = data + i * width;
  if (width == 2) {
    std::int16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  if (width == 4) {
    std::int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  std::int64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

void IntSet::put(char* data, unsigned width, std::size_t i, std::int64_t value) noexcept {
  char* p = data + i * width;
  if (width == 2) {
    auto v = static_cast<std::int16_t>(value);
    std::memcpy(p, &v, 2);
  } else if (width == 4) {
    auto v = static_cast<std::int32_t>(value);
    std::memcpy(p, &v, 4);
  } else {
    std::memcpy(p, &value, 8);
  }
}

bool IntSet::search(std::int64_t value, std::size_t& pos) const noexcept {
  std::size_t lo = 0;
  std::size_t hi = size();
  const char* d = data();
  const unsigned w = width();
  while (lo < hi) {
    std::size_t mid = lo + (hi - lo) / 2;
    std::int64_t v = get(d, w, mid);
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
  std::size_t pos = 0;
  return width_for(value) <= width() && search(value, pos);
}

char* IntSet::reshape(std::size_t count, unsigned width, std::size_t skip, std::size_t gap) {
  // Gather the values first: the new storage may be these very bytes.
  IntSet old(std::move(*this));
  char* to = nullptr;
  if (width == 2 && count <= inline_max) {
    to = reinterpret_cast<char*>(bytes_);
    bytes_[count_byte] = static_cast<unsigned char>(count);
  } else {
    auto* h = static_cast<Header*>(HeapString::allocate(bytes_for(count, width)));
    h->count = static_cast<std::uint32_t>(count);
    h->width = width;
    std::memcpy(bytes_, &h, sizeof(h));
    bytes_[tag_byte] = 1;
    to = reinterpret_cast<char*>(h + 1);
  }
  std::size_t out = 0;
  for (std::size_t i = 0; i < old.size(); ++i) {
    if (i == skip) continue;
    if (out == gap) ++out;
    put(to, width, out++, old.at(i));
  }
  return to;
}

bool IntSet::insert(std::int64_t value) {
  std::size_t pos = 0;
  if (search(value, pos)) return false;
  const unsigned w = width_for(value) > width() ? width_for(value) : width();
  char* to = reshape(size() + 1, w, npos, pos);
  put(to, w, pos, value);
  return true;
}

bool IntSet::erase(std::int64_t value) {
  std::size_t pos = 0;
  if (!contains(value) || !search(value, pos)) return false;
  reshape(size() - 1, width(), pos, npos);
  return true;
}

IntSet IntSet::clone() const {
  IntSet copy;
  if (!is_heap()) {
    std::memcpy(copy.bytes_, bytes_, sizeof(bytes_));
    return copy;
  }
  const std::size_t bytes = bytes_for(size(), width());
  void* h = HeapString::allocate(bytes);
  std::memcpy(h, block(), bytes);
  std::memcpy(copy.bytes_, &h, sizeof(h));
  copy.bytes_[tag_byte] = 1;
  return copy;
}

void IntSet::clear() noexcept {
  if (is_heap()) HeapString::release(block(), bytes_for(size(), width()));
  std::memset(bytes_, 0, sizeof(bytes_));
}

}  // namespace duet::kv
