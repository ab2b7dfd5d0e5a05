// How many file descriptors this process has open, from /proc/self/fd: tests
// compare it before and after a stretch of work to catch a leaked socket.
//
//   const std::size_t before = duet::test::open_fd_count();
//   ... many accept/cancel races ...
//   CHECK(duet::test::open_fd_count() == before);
#pragma once

#include <cstddef>
#include <filesystem>
#include <iterator>

namespace duet::test {

// The directory iterator holds one fd of its own while counting, the same in
// every call, so two counts compare exactly.
inline std::size_t open_fd_count() {
  return static_cast<std::size_t>(
      std::distance(std::filesystem::directory_iterator("/proc/self/fd"), std::filesystem::directory_iterator{}));
}

}  // namespace duet::test
