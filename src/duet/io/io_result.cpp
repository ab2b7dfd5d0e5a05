// The "duet.io" error category: the one error duet adds to errno's (EOF).
#include "duet/io/io_result.hpp"

#include <string>

namespace duet {

namespace {
class IoCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "duet.io"; }
  std::string message(int value) const override {
    return value == static_cast<int>(io_errc::eof) ? "end of file" : "unknown duet.io error";
  }
};
}  // namespace

const std::error_category& io_category() noexcept {
  static const IoCategory category;
  return category;
}

}  // namespace duet
