// duet::bench::Histogram — a log-linear latency histogram (HdrHistogram's idea, small).
//
// Contract: record() values in nanoseconds in O(1) with no allocation; each power
// of two is split into 64 linear sub-buckets, so a reported percentile is within
// 1.6% of the true value. percentile(99.9) returns the bucket's upper bound.
// Not thread-safe; merge() per-thread histograms.
//
//   Histogram h;  h.record(1234);
//   std::uint64_t p99 = h.percentile(99.0);
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace duet::bench {

class Histogram {
 public:
  static constexpr int sub_bits = 6;  // 64 sub-buckets per power of two
  static constexpr int sub_count = 1 << sub_bits;

  void record(std::uint64_t value, std::uint64_t times = 1) noexcept {
    counts_[index_of(value)] += times;
    total_ += times;
  }
  void merge(const Histogram& other) noexcept {
    for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
    total_ += other.total_;
  }
  [[nodiscard]] std::uint64_t count() const noexcept { return total_; }

  [[nodiscard]] std::uint64_t percentile(double p) const noexcept {
    if (total_ == 0) return 0;
    auto rank = static_cast<std::uint64_t>(p / 100.0 * static_cast<double>(total_));
    if (rank >= total_) rank = total_ - 1;
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < counts_.size(); ++i) {
      seen += counts_[i];
      if (seen > rank) return upper_bound_of(i);
    }
    return upper_bound_of(counts_.size() - 1);
  }

 private:
  // Values below sub_count map 1:1; above, (exponent, top sub_bits of mantissa).
  static std::size_t index_of(std::uint64_t v) noexcept {
    if (v < sub_count) return static_cast<std::size_t>(v);
    const int exponent = std::bit_width(v) - 1;  // >= sub_bits
    const int shift = exponent - sub_bits;
    const auto sub = static_cast<std::size_t>((v >> shift) & (sub_count - 1));
    return static_cast<std::size_t>(shift + 1) * sub_count + sub;
  }
  static std::uint64_t upper_bound_of(std::size_t index) noexcept {
    if (index < sub_count) return index;
    const auto shift = static_cast<int>(index / sub_count) - 1;
    const std::uint64_t sub = index % sub_count;
    return ((std::uint64_t{sub_count} + sub + 1) << shift) - 1;
  }

  std::array<std::uint64_t, (64 - sub_bits + 1) * sub_count> counts_{};
  std::uint64_t total_ = 0;
};

}  // namespace duet::bench
