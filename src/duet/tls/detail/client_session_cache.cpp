// The client session cache: OpenSSL hands each new session (a TLS 1.3 ticket
// arrives after the handshake, read by a later recv) to on_new_session, which
// files it under the connection's server name. A connection that ends
// without close_notify (shutdown()) makes OpenSSL mark its session not
// resumable when the SSL is freed, as TLS requires: only clean ends resume.
#include "duet/tls/detail/client_session_cache.hpp"

#include <openssl/ssl.h>

#include <mutex>
#include <unordered_map>

namespace duet::detail {

namespace {

struct Cache {
  std::mutex mutex;
  std::unordered_map<std::string, SSL_SESSION*> sessions;  // one reference each
  Cache() = default;
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;
  ~Cache() { clear(); }
  void clear() {
    for (auto& [host, session] : sessions) SSL_SESSION_free(session);
    sessions.clear();
  }
};

void free_cache(void*, void* ptr, CRYPTO_EX_DATA*, int, long, void*) { delete static_cast<Cache*>(ptr); }

int cache_index() {
  static const int index = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, free_cache);
  return index;
}

Cache* cache_of(SSL* ssl) { return static_cast<Cache*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), cache_index())); }

// Returns 1 when we keep OpenSSL's reference to `session`, 0 when we do not.
int on_new_session(SSL* ssl, SSL_SESSION* session) {
  const auto* host = static_cast<const std::string*>(SSL_get_app_data(ssl));
  Cache* cache = cache_of(ssl);
  if (host == nullptr || cache == nullptr) return 0;
  std::lock_guard lock(cache->mutex);
  if (cache->sessions.size() >= max_hosts && !cache->sessions.contains(*host)) cache->clear();
  SSL_SESSION*& slot = cache->sessions[*host];
  if (slot != nullptr) SSL_SESSION_free(slot);
  slot = session;
  return 1;
}

}  // namespace

void enable_client_session_cache(SSL_CTX* ctx) {
  SSL_CTX_set_ex_data(ctx, cache_index(), new Cache);
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
  SSL_CTX_sess_set_new_cb(ctx, on_new_session);
}

void offer_cached_session(SSL* ssl, const std::string* host) {
  SSL_set_app_data(ssl, const_cast<std::string*>(host));
  Cache* cache = cache_of(ssl);
  if (cache == nullptr) return;
  std::lock_guard lock(cache->mutex);
  if (auto it = cache->sessions.find(*host); it != cache->sessions.end()) SSL_set_session(ssl, it->second);
}

}  // namespace duet::detail
