// duet::kv::detail::peek_keys — a look-ahead over pipelined commands, for prefetching.
//
// Contract
// - Reads up to keys.size() complete multibulk commands at the start of input
//   and stores the first argument of each that has one (the key, for nearly
//   every command) in keys; returns how many keys it stored, and in `covered`
//   how many input bytes the commands it read span.
// - Validates only what it needs to walk: it stops, without error, at the first
//   thing that is not a plain complete multibulk command (inline commands,
//   signs, an unfinished command). The real parser alone decides what input
//   means; these views are only ever used to start cache misses early.
// - Pure; the views point into input.
//
//   std::array<std::string_view, 16> keys;
//   std::size_t covered = 0;
//   std::size_t n = peek_keys(batch, keys, covered);
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace duet::kv::detail {

std::size_t peek_keys(std::string_view input, std::span<std::string_view> keys, std::size_t& covered) noexcept;

}  // namespace duet::kv::detail
