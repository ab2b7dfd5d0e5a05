// The TLS tests' certificates, made once per test process by make_certs.sh
// (openssl req/x509) in a temporary directory: nothing that expires is committed.
//
//   const auto& certs = duet::test::tls_certs();
//   duet::TlsContext server(certs.server_options());
#pragma once

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "support/temp_dir.hpp"
#include "duet/tls/tls_context.hpp"

namespace duet::test {

class TlsCerts {
 public:
  TlsCerts() : dir_("duet-tls") {
    const std::string cmd = std::string(DUET_MAKE_CERTS) + " " + dir_.path();
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("make_certs.sh failed");
  }
  [[nodiscard]] std::string file(const char* name) const { return dir_.file(name); }

  // A server for localhost / 127.0.0.1 signed by ca.crt; verify = whether it asks clients for certificates.
  [[nodiscard]] TlsOptions server(TlsVerify verify = TlsVerify::none) const {
    TlsOptions o;
    o.role = TlsRole::server;
    o.cert_chain_file = file("server.crt");
    o.key_file = file("server.key");
    o.ca_file = file("ca.crt");
    o.verify = verify;
    o.alpn = {"duet/1", "redis"};
    return o;
  }
  // A client trusting ca.crt; with_cert adds client.crt (mutual TLS).
  [[nodiscard]] TlsOptions client(bool with_cert = false) const {
    TlsOptions o;
    o.ca_file = file("ca.crt");
    o.alpn = {"redis"};
    if (with_cert) o.cert_chain_file = file("client.crt"), o.key_file = file("client.key");
    return o;
  }

 private:
  TempDir dir_;
};

inline const TlsCerts& tls_certs() {
  static const TlsCerts certs;
  return certs;
}

}  // namespace duet::test
