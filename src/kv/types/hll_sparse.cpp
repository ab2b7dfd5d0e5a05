// The sparse body, walked opcode by opcode. set() follows hllSparseSet's
// steps exactly — locate the opcode covering the register, split it into at
// most three (ZERO/XZERO - VAL - ZERO/XZERO, or VAL - VAL - VAL), then merge
// equal VAL neighbours over up to five opcodes from the one before — because
// PFADD's result must be Redis's bytes, not merely the same registers: a GET
// of the key is compared with Redis's, and Redis must read ours.
#include "kv/types/hll_sparse.hpp"

#include <cstring>

namespace duet::kv::hll::sparse {
namespace {

bool is_zero(std::uint8_t b) noexcept { return (b & 0xc0) == 0; }
bool is_xzero(std::uint8_t b) noexcept { return (b & 0xc0) == 0x40; }
bool is_val(std::uint8_t b) noexcept { return (b & 0x80) != 0; }
std::uint32_t val_value(std::uint8_t b) noexcept { return ((b >> 2) & 0x1f) + 1; }
std::uint32_t val_run(std::uint8_t b) noexcept { return (b & 0x3) + 1; }

std::uint8_t val_op(std::uint32_t value, std::uint32_t run) noexcept {
  return static_cast<std::uint8_t>(0x80 | (value - 1) << 2 | (run - 1));
}

struct Op {
  std::uint32_t run;
  std::uint32_t value;  // 0 for ZERO and XZERO
  std::uint32_t size;   // bytes
};

// The opcode at p; `second` is the byte after it (0 past the end).
Op decode(std::uint8_t first, std::uint8_t second) noexcept {
  if (is_zero(first)) return {static_cast<std::uint32_t>(first & 0x3f) + 1, 0, 1};
  if (is_xzero(first)) return {(static_cast<std::uint32_t>(first & 0x3f) << 8 | second) + 1, 0, 2};
  return {val_run(first), val_value(first), 1};
}

// Visits each opcode of a read-only body: visit(op) returns false to stop.
template <class Visit>
void walk(Body body, Visit&& visit) {
  for (std::size_t at = 0; at < body.size();) {
    const Op op = decode(body[at], at + 1 < body.size() ? body[at + 1] : 0);
    if (!visit(op)) return;
    at += op.size;
  }
}

// Writes a run of `run` zero registers: ZERO up to 64, XZERO beyond.
std::uint8_t* put_zeros(std::uint8_t* out, std::uint32_t run) noexcept {
  if (run > zero_max_run) {
    *out++ = static_cast<std::uint8_t>(0x40 | (run - 1) >> 8);
    *out++ = static_cast<std::uint8_t>((run - 1) & 0xff);
  } else {
    *out++ = static_cast<std::uint8_t>(run - 1);
  }
  return out;
}

// Step 4 of hllSparseSet: adjacent VALs of one value whose runs fit one
// opcode become one, scanning up to five opcodes from `from`.
void merge_neighbours(std::uint8_t* hll, std::size_t& len, std::uint8_t* from) noexcept {
  std::uint8_t* end = hll + len;
  std::uint8_t* p = from;
  int scan = 5;
  while (p < end && scan-- != 0) {
    if (is_xzero(*p)) {
      p += 2;
      continue;
    }
    if (is_zero(*p)) {
      ++p;
      continue;
    }
    if (p + 1 < end && is_val(p[1]) && val_value(*p) == val_value(p[1])) {
      const std::uint32_t run = val_run(*p) + val_run(p[1]);
      if (run <= val_max_run) {
        p[1] = val_op(val_value(*p), run);
        std::memmove(p, p + 1, static_cast<std::size_t>(end - p));  // the byte past the end comes along
        --end;
        hll[--len] = 0;
        continue;  // the merged opcode may merge with the next one too
      }
    }
    ++p;
  }
}

}  // namespace

bool histogram(Body body, Histogram& histogram) noexcept {
  std::size_t covered = 0;
  walk(body, [&](const Op& op) {
    histogram[op.value] += static_cast<int>(op.run);
    covered += op.run;
    return true;
  });
  return covered == register_count;
}

bool merge(Body body, Registers& max) noexcept {
  std::size_t at = 0;
  bool overflow = false;
  walk(body, [&](const Op& op) {
    if (op.value == 0) {
      at += op.run;
      return true;
    }
    if (at + op.run > register_count) return !(overflow = true);
    for (std::uint32_t i = 0; i < op.run; ++i, ++at) {
      if (op.value > max[at]) max[at] = static_cast<std::uint8_t>(op.value);
    }
    return true;
  });
  return !overflow && at == register_count;
}

SetResult set(std::uint8_t* hll, std::size_t& len, std::size_t index, std::uint8_t value,
              std::size_t max_bytes) noexcept {
  if (value > val_max_value) return SetResult::promote;
  std::uint8_t* const body = hll + header_size;
  std::uint8_t* end = hll + len;

  // Step 1: the opcode covering `index` (the buffer's zero byte after the
  // end stands for Redis's terminator when an XZERO is cut short).
  std::uint8_t* p = body;
  std::uint8_t* prev = nullptr;
  std::size_t first = 0;
  Op op{0, 0, 0};
  while (p < end) {
    op = decode(p[0], p[1]);
    if (index < first + op.run) break;
    prev = p;
    p += op.size;
    first += op.run;
  }
  if (op.run == 0 || p >= end) return SetResult::corrupted;
  std::uint8_t* next = p + op.size < end ? p + op.size : nullptr;

  // Step 2: the easy cases, and the split into at most three opcodes.
  if (op.value != 0) {
    if (op.value >= value) return SetResult::unchanged;
    if (op.run == 1) {
      *p = val_op(value, 1);
      merge_neighbours(hll, len, prev != nullptr ? prev : body);
      hll[cache_at + 7] |= 0x80;
      return SetResult::changed;
    }
  }
  if (op.size == 1 && op.value == 0 && op.run == 1) {  // a ZERO of one register
    *p = val_op(value, 1);
    merge_neighbours(hll, len, prev != nullptr ? prev : body);
    hll[cache_at + 7] |= 0x80;
    return SetResult::changed;
  }
  std::uint8_t seq[5];
  std::uint8_t* out = seq;
  const std::size_t last = first + op.run - 1;
  const auto before = static_cast<std::uint32_t>(index - first);
  const auto after = static_cast<std::uint32_t>(last - index);
  if (op.value == 0) {
    if (before != 0) out = put_zeros(out, before);
    *out++ = val_op(value, 1);
    if (after != 0) out = put_zeros(out, after);
  } else {
    if (before != 0) *out++ = val_op(op.value, before);
    *out++ = val_op(value, 1);
    if (after != 0) *out++ = val_op(op.value, after);
  }

  // Step 3: the new opcodes replace the old one, moving the tail.
  const auto seq_len = static_cast<std::ptrdiff_t>(out - seq);
  const std::ptrdiff_t delta = seq_len - static_cast<std::ptrdiff_t>(op.size);
  if (delta > 0 && len + static_cast<std::size_t>(delta) > max_bytes) return SetResult::promote;
  if (delta != 0 && next != nullptr) std::memmove(next + delta, next, static_cast<std::size_t>(end - next));
  len = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(len) + delta);
  hll[len] = 0;
  std::memcpy(p, seq, static_cast<std::size_t>(seq_len));
  merge_neighbours(hll, len, prev != nullptr ? prev : body);
  hll[cache_at + 7] |= 0x80;  // the cached cardinality is stale
  return SetResult::changed;
}

}  // namespace duet::kv::hll::sparse
