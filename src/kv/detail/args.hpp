// duet::kv::Args — a command's arguments packed in one string, for commands
// kept past the input they came in (a job's part, a queued MULTI command).
//
// Contract
// - push() appends an argument; operator[] views it. Views stay valid until
//   the next push/assign (the bytes may move). No allocation per argument (a
//   16-byte key is past std::string's inline capacity). Any thread; not shared.
//
//   Args argv{"set", "k", "v"};
//   std::string_view key = argv[1];
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace duet::kv {

class Args {
 public:
  Args() = default;
  Args(std::initializer_list<std::string_view> argv) { assign(argv); }
  void push(std::string_view arg) {
    bytes_.append(arg);
    ends_.push_back(static_cast<std::uint32_t>(bytes_.size()));
  }
  void reserve(std::size_t bytes, std::size_t count) {
    bytes_.reserve(bytes);
    ends_.reserve(count);
  }
  void assign(std::span<const std::string_view> argv) {
    bytes_.clear();
    ends_.clear();
    for (std::string_view arg : argv) push(arg);
  }
  void assign(std::initializer_list<std::string_view> argv) { assign(std::span(argv.begin(), argv.size())); }
  [[nodiscard]] std::size_t size() const noexcept { return ends_.size(); }
  [[nodiscard]] bool empty() const noexcept { return ends_.empty(); }
  [[nodiscard]] std::string_view operator[](std::size_t i) const noexcept {
    const std::uint32_t begin = i == 0 ? 0 : ends_[i - 1];
    return {bytes_.data() + begin, ends_[i] - begin};
  }
  // Every argument's view, into `out` (cleared first).
  void views(std::vector<std::string_view>& out) const {
    out.clear();
    for (std::size_t i = 0; i < size(); ++i) out.push_back((*this)[i]);
  }
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_.size(); }

 private:
  std::string bytes_;
  std::vector<std::uint32_t> ends_;
};

}  // namespace duet::kv
