// TlsContext: an SSL_CTX set up from TlsOptions. Everything here runs once per
// context; the per-connection state lives in TlsEngine.
#include "duet/tls/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <system_error>
#include <utility>

#include "duet/tls/detail/client_session_cache.hpp"
#include "duet/tls/tls_error.hpp"

namespace duet {

namespace {

[[noreturn]] void fail(const std::string& what) {
  char reason[256] = "no further detail";
  if (unsigned long e = ERR_get_error(); e != 0) ERR_error_string_n(e, reason, sizeof reason);
  ERR_clear_error();
  throw std::system_error(make_error_code(tls_errc::configuration), what + ": " + reason);
}

// The server's protocol list lives in the SSL_CTX's ex_data, freed with it:
// streams may outlive the TlsContext object, never the SSL_CTX they hold.
void free_alpn(void*, void* ptr, CRYPTO_EX_DATA*, int, long, void*) { delete static_cast<std::string*>(ptr); }

int alpn_index() {
  static const int index = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, free_alpn);
  return index;
}

// The server's ALPN choice: its own first protocol that the client offered.
int select_alpn(SSL* ssl, const unsigned char** out, unsigned char* outlen, const unsigned char* in, unsigned inlen,
                void*) {
  const auto* mine = static_cast<const std::string*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), alpn_index()));
  unsigned char* chosen = nullptr;
  const int r = SSL_select_next_proto(&chosen, outlen, reinterpret_cast<const unsigned char*>(mine->data()),
                                      static_cast<unsigned>(mine->size()), in, inlen);
  if (r != OPENSSL_NPN_NEGOTIATED) return SSL_TLSEXT_ERR_NOACK;  // no overlap: go on without ALPN
  *out = chosen;
  return SSL_TLSEXT_ERR_OK;
}

}  // namespace

TlsContext::TlsContext(const TlsOptions& options) : role_(options.role) {
  ctx_ = SSL_CTX_new(options.role == TlsRole::server ? TLS_server_method() : TLS_client_method());
  if (ctx_ == nullptr) fail("SSL_CTX_new");
  SSL_CTX_set_min_proto_version(ctx_, options.min_version == TlsVersion::tls1_3 ? TLS1_3_VERSION : TLS1_2_VERSION);
  // Idle connections give their 17 KiB record buffers back; renegotiation (a
  // TLS 1.2 feature with a history of CVEs) is refused.
  SSL_CTX_set_mode(ctx_, SSL_MODE_RELEASE_BUFFERS);
  SSL_CTX_set_options(ctx_, SSL_OP_NO_RENEGOTIATION);
  try {
    load_identity(options);
    load_trust(options);
    set_alpn(options);
  } catch (...) {
    SSL_CTX_free(ctx_);
    throw;
  }
  if (options.role == TlsRole::server && options.session_resumption) {
    static const unsigned char id[] = "duet";
    SSL_CTX_set_session_id_context(ctx_, id, sizeof id - 1);
    SSL_CTX_set_session_cache_mode(ctx_, SSL_SESS_CACHE_SERVER);
  } else if (options.session_resumption) {
    detail::enable_client_session_cache(ctx_);
  } else if (options.role == TlsRole::server) {
    SSL_CTX_set_session_cache_mode(ctx_, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(ctx_, SSL_OP_NO_TICKET);
    SSL_CTX_set_num_tickets(ctx_, 0);
  }
}

void TlsContext::load_identity(const TlsOptions& options) {
  if (options.cert_chain_file.empty() && options.key_file.empty()) {
    if (options.role == TlsRole::server) fail("a TLS server needs cert_chain_file and key_file");
    return;
  }
  if (SSL_CTX_use_certificate_chain_file(ctx_, options.cert_chain_file.c_str()) != 1) {
    fail("cannot load certificate chain '" + options.cert_chain_file + "'");
  }
  if (SSL_CTX_use_PrivateKey_file(ctx_, options.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    fail("cannot load private key '" + options.key_file + "'");
  }
  if (SSL_CTX_check_private_key(ctx_) != 1) fail("the private key does not match the certificate");
}

void TlsContext::load_trust(const TlsOptions& options) {
  const char* file = options.ca_file.empty() ? nullptr : options.ca_file.c_str();
  const char* dir = options.ca_dir.empty() ? nullptr : options.ca_dir.c_str();
  if (file != nullptr || dir != nullptr) {
    if (SSL_CTX_load_verify_locations(ctx_, file, dir) != 1) fail("cannot load CA file/dir");
  } else if (options.verify != TlsVerify::none && options.role == TlsRole::client) {
    SSL_CTX_set_default_verify_paths(ctx_);
  }
  int mode = SSL_VERIFY_NONE;
  if (options.role == TlsRole::client && options.verify != TlsVerify::none) mode = SSL_VERIFY_PEER;
  if (options.role == TlsRole::server && options.verify == TlsVerify::optional) mode = SSL_VERIFY_PEER;
  if (options.role == TlsRole::server && options.verify == TlsVerify::peer) {
    mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
  }
  if (options.role == TlsRole::server && mode != SSL_VERIFY_NONE && file == nullptr && dir == nullptr) {
    fail("verifying client certificates needs ca_file or ca_dir");
  }
  SSL_CTX_set_verify(ctx_, mode, nullptr);
}

void TlsContext::set_alpn(const TlsOptions& options) {
  std::string wire;  // length-prefixed protocol names
  for (const std::string& p : options.alpn) {
    if (p.empty() || p.size() > 255) fail("an ALPN protocol name is 1..255 bytes");
    wire += static_cast<char>(p.size());
    wire += p;
  }
  if (wire.empty()) return;
  if (options.role == TlsRole::client) {
    // Note the inverted convention: SSL_CTX_set_alpn_protos returns 0 on success.
    if (SSL_CTX_set_alpn_protos(ctx_, reinterpret_cast<const unsigned char*>(wire.data()),
                                static_cast<unsigned>(wire.size())) != 0) {
      fail("SSL_CTX_set_alpn_protos");
    }
    return;
  }
  SSL_CTX_set_ex_data(ctx_, alpn_index(), new std::string(std::move(wire)));
  SSL_CTX_set_alpn_select_cb(ctx_, select_alpn, nullptr);
}

TlsContext::TlsContext(TlsContext&& other) noexcept
    : ctx_(std::exchange(other.ctx_, nullptr)), role_(other.role_) {}

TlsContext& TlsContext::operator=(TlsContext&& other) noexcept {
  if (this != &other) {
    if (ctx_ != nullptr) SSL_CTX_free(ctx_);
    ctx_ = std::exchange(other.ctx_, nullptr);
    role_ = other.role_;
  }
  return *this;
}

TlsContext::~TlsContext() {
  if (ctx_ != nullptr) SSL_CTX_free(ctx_);
}

}  // namespace duet
