// A large test payload whose bytes follow a pattern (no long runs of one
// value), so a transfer that drops, repeats or reorders a chunk is caught.
//
//   std::string data = duet::test::patterned_payload(64u << 20);
#pragma once

#include <cstddef>
#include <string>

namespace duet::test {

inline std::string patterned_payload(std::size_t size) {
  std::string payload(size, '\0');
  for (std::size_t i = 0; i < size; ++i) payload[i] = static_cast<char>(i * 2654435761u >> 24);
  return payload;
}

}  // namespace duet::test
