// duet::TlsContext — the configuration every TLS stream of one side shares:
// certificates, trust, verification, versions, ALPN, session resumption.
//
// Contract
// - Built once from TlsOptions; throws std::system_error (tls_errc::configuration,
//   with OpenSSL's reason in what()) when a file cannot be loaded or the key
//   does not match the certificate. Move-only.
// - Wraps one OpenSSL SSL_CTX, which OpenSSL reference-counts and locks:
//   streams keep it alive, so the context may be destroyed before them, and
//   one context may serve streams on several threads.
// - Server side: cert_chain_file + key_file are required; verify chooses
//   whether clients must present a certificate (Redis's tls-auth-clients).
//   Client side: verify (default peer) checks the server's chain against
//   ca_file/ca_dir (the system store when both are empty) and its name
//   against the host given to the stream (SNI is sent for names, not IPs).
//
//   duet::TlsContext server({.role = duet::TlsRole::server, .cert_chain_file = "server.crt",
//                            .key_file = "server.key"});
//   duet::TlsContext client({.ca_file = "ca.crt", .alpn = {"redis"}});
#pragma once

#include <string>
#include <vector>

using SSL_CTX = struct ssl_ctx_st;

namespace duet {

enum class TlsRole { client, server };

// none: no certificate is checked. optional (server): a client certificate is
// asked for and checked if sent. peer: the server's certificate is checked
// (client), a client certificate is required and checked (server).
enum class TlsVerify { none, optional, peer };

enum class TlsVersion { tls1_2, tls1_3 };

struct TlsOptions {
  TlsRole role = TlsRole::client;
  std::string cert_chain_file;  // PEM, leaf first (required on the server, for mutual TLS on the client)
  std::string key_file;         // PEM private key of the leaf
  std::string ca_file;          // PEM bundle of trusted CAs
  std::string ca_dir;           // c_rehash'ed directory of trusted CAs
  TlsVerify verify = TlsVerify::peer;
  TlsVersion min_version = TlsVersion::tls1_2;
  std::vector<std::string> alpn;  // in preference order; the server picks its first that the client offers
  // Server: a session cache and TLS 1.3 tickets. Client: the last session
  // each server name gave, offered on the next connection to that name.
  bool session_resumption = true;
};

class TlsContext {
 public:
  explicit TlsContext(const TlsOptions& options);
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;
  TlsContext(TlsContext&& other) noexcept;
  TlsContext& operator=(TlsContext&& other) noexcept;
  ~TlsContext();

  [[nodiscard]] TlsRole role() const noexcept { return role_; }
  [[nodiscard]] SSL_CTX* native_handle() const noexcept { return ctx_; }

 private:
  void load_identity(const TlsOptions& options);
  void load_trust(const TlsOptions& options);
  void set_alpn(const TlsOptions& options);

  SSL_CTX* ctx_ = nullptr;
  TlsRole role_ = TlsRole::client;
};

}  // namespace duet
