// duet::detail client session cache — the client side of TLS session
// resumption: the last session (a TLS 1.3 ticket, or a TLS 1.2 session) each
// server name gave a client TlsContext, offered on its next connection to
// that name, which then skips the certificate exchange and signature.
//
// Contract
// - Lives in the SSL_CTX's ex_data and is freed with it; a mutex guards it,
//   since one context may serve streams on several threads. At most
//   max_hosts names are kept (past that the cache starts over).
// - enable_client_session_cache(ctx): once, when the context is built.
//   offer_cached_session(ssl, host): before the handshake; *host must outlive
//   ssl (the engine's own copy of the name), as new tickets are filed under it.
#pragma once

#include <cstddef>
#include <string>

using SSL = struct ssl_st;
using SSL_CTX = struct ssl_ctx_st;

namespace duet::detail {

inline constexpr std::size_t max_hosts = 1024;

void enable_client_session_cache(SSL_CTX* ctx);
void offer_cached_session(SSL* ssl, const std::string* host);

}  // namespace duet::detail
