// duet::FileStat — what File::stat() gives in both voices (from statx(2)).
//
// Contract: a plain value; size in bytes, the last modification time, the
// st_mode bits (file type and permissions). file_stat_from converts the
// struct statx the STATX op filled (mask STATX_SIZE | STATX_MTIME | STATX_MODE).
//
//   duet::IoResult<duet::FileStat> st = co_await file.stat();
//   if (st) std::printf("%llu bytes\n", static_cast<unsigned long long>(st->size));
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>

namespace duet {

struct FileStat {
  std::uint64_t size = 0;
  std::chrono::system_clock::time_point mtime{};
  mode_t mode = 0;
};

inline constexpr unsigned file_stat_mask = STATX_SIZE | STATX_MTIME | STATX_MODE;

inline FileStat file_stat_from(const struct statx& st) noexcept {
  const auto since_epoch = std::chrono::seconds{st.stx_mtime.tv_sec} + std::chrono::nanoseconds{st.stx_mtime.tv_nsec};
  return {st.stx_size,
          std::chrono::system_clock::time_point{std::chrono::duration_cast<std::chrono::system_clock::duration>(
              since_epoch)},
          static_cast<mode_t>(st.stx_mode)};
}

}  // namespace duet
