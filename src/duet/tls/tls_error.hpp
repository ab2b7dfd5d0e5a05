// duet::tls_errc — the errors a TLS stream adds to errno's and duet.io's.
//
// Contract
// - Every TLS failure reaches the caller as a std::error_code in the
//   "duet.tls" category (IoResult's error()); the stream's error_message()
//   adds OpenSSL's own words (which certificate check failed, which alert).
// - Compare with the enum: `r.error() == duet::tls_errc::hostname_mismatch`.
//   Pure values; any thread.
//
//   auto hs = co_await tls.handshake(2s);
//   if (hs.error() == duet::tls_errc::certificate_verify_failed) log(tls.error_message());
#pragma once

#include <system_error>
#include <type_traits>

namespace duet {

enum class tls_errc {
  configuration = 1,          // a certificate, key or CA file could not be loaded
  certificate_verify_failed,  // the peer's chain does not lead to a trusted CA (or is missing)
  hostname_mismatch,          // the chain is good but names another host
  protocol,                   // not TLS (plain text, garbage) or a fatal alert
  unexpected_eof,             // the peer closed TCP without close_notify
};

const std::error_category& tls_category() noexcept;

inline std::error_code make_error_code(tls_errc e) noexcept { return {static_cast<int>(e), tls_category()}; }

}  // namespace duet

template <>
struct std::is_error_code_enum<duet::tls_errc> : std::true_type {};
