// The "duet.tls" error category.
#include "duet/tls/tls_error.hpp"

#include <string>

namespace duet {

namespace {
class TlsCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "duet.tls"; }
  std::string message(int value) const override {
    switch (static_cast<tls_errc>(value)) {
      case tls_errc::configuration: return "TLS configuration error";
      case tls_errc::certificate_verify_failed: return "TLS certificate verification failed";
      case tls_errc::hostname_mismatch: return "TLS certificate does not match the host name";
      case tls_errc::protocol: return "TLS protocol error";
      case tls_errc::unexpected_eof: return "TLS peer closed the connection without close_notify";
    }
    return "unknown duet.tls error";
  }
};
}  // namespace

const std::error_category& tls_category() noexcept {
  static const TlsCategory category;
  return category;
}

}  // namespace duet
