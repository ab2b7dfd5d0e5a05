// TlsEngine: OpenSSL over a BIO of our own that reads from the engine's input
// buffer and appends to its output string.
//
// Why not a socket BIO: OpenSSL would then call read(2)/write(2) itself,
// which on io_uring is not how bytes move and on either backend could block
// the loop. Why not a pair of BIO_s_mem: the memory BIO reallocates as it is
// written, and the voice may be sending from it at that moment; our BIO
// appends to `pending_` while the kernel reads `in_flight_` (see the header).
// The BIO is the record layer's only seam: kernel TLS would, after the
// handshake, give the keys to the socket and let the voice send plaintext.
#include "duet/tls/tls_engine.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "duet/tls/detail/client_session_cache.hpp"
#include "duet/tls/tls_error.hpp"

namespace duet {

struct EngineBio {
  static TlsEngine& engine(BIO* bio) { return *static_cast<TlsEngine*>(BIO_get_data(bio)); }

  static int write(BIO* bio, const char* data, int len) {
    engine(bio).pending_.append(data, static_cast<std::size_t>(len));
    return len;
  }
  // Kept bytes first, then the lent ones. Empty input is "retry later" (the
  // voice receives), never EOF: TCP's EOF is seen by the voice, which then
  // fails the engine with unexpected_eof.
  static int read(BIO* bio, char* buf, int len) {
    TlsEngine& e = engine(bio);
    BIO_clear_retry_flags(bio);
    const bool kept = e.kept_pos_ < e.kept_.size();
    const std::string_view from = kept ? std::string_view(e.kept_).substr(e.kept_pos_) : e.lent_;
    const std::size_t n = std::min(from.size(), static_cast<std::size_t>(len));
    if (n == 0) {
      BIO_set_retry_read(bio);
      return -1;
    }
    std::memcpy(buf, from.data(), n);
    if (kept) {
      e.kept_pos_ += n;
    } else {
      e.lent_.remove_prefix(n);
    }
    return static_cast<int>(n);
  }
  static long ctrl(BIO*, int cmd, long, void*) { return cmd == BIO_CTRL_FLUSH ? 1 : 0; }
  static int create(BIO* bio) {
    BIO_set_init(bio, 1);
    return 1;
  }

  static const BIO_METHOD* method() {
    static BIO_METHOD* const m = [] {
      BIO_METHOD* bm = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "duet engine");
      BIO_meth_set_write(bm, write);
      BIO_meth_set_read(bm, read);
      BIO_meth_set_ctrl(bm, ctrl);
      BIO_meth_set_create(bm, create);
      return bm;
    }();
    return m;
  }
};

namespace {

bool is_ip_literal(const std::string& host) {
  ASN1_OCTET_STRING* ip = a2i_IPADDRESS(host.c_str());
  if (ip == nullptr) return false;
  ASN1_OCTET_STRING_free(ip);
  return true;
}

}  // namespace

TlsEngine::TlsEngine(const TlsContext& context, std::string_view server_name) {
  ssl_ = SSL_new(context.native_handle());
  if (ssl_ == nullptr) throw std::system_error(make_error_code(tls_errc::configuration), "SSL_new");
  BIO* bio = BIO_new(EngineBio::method());
  BIO_set_data(bio, this);
  SSL_set_bio(ssl_, bio, bio);  // one reference, owned by ssl_ from here
  if (context.role() == TlsRole::server) {
    SSL_set_accept_state(ssl_);
    return;
  }
  SSL_set_connect_state(ssl_);
  if (server_name.empty()) return;
  server_name_ = server_name;
  const std::string& host = server_name_;
  detail::offer_cached_session(ssl_, &server_name_);
  if (is_ip_literal(host)) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), host.c_str());  // no SNI for addresses (RFC 6066)
  } else {
    SSL_set_tlsext_host_name(ssl_, host.c_str());
    SSL_set1_host(ssl_, host.c_str());
  }
}

TlsEngine::~TlsEngine() { SSL_free(ssl_); }

// Copies what OpenSSL left of the lent bytes (records after the one a read
// returned), and gives the kept string's memory back once it is all read.
void TlsEngine::return_input() {
  if (kept_pos_ == kept_.size() && !kept_.empty()) {
    kept_.clear();
    kept_pos_ = 0;
  }
  if (!lent_.empty()) {
    kept_.erase(0, kept_pos_);
    kept_pos_ = 0;
    kept_.append(lent_);
    lent_ = {};
  }
  if (kept_.empty() && kept_.capacity() > 0) std::string().swap(kept_);
}

std::span<const char> TlsEngine::begin_send() noexcept {
  in_flight_.swap(pending_);
  return {in_flight_.data(), in_flight_.size()};
}

void TlsEngine::end_send() noexcept {
  in_flight_.clear();
  send_ended_.set();  // grants who waits now; reset() keeps later waits waiting for the next one
  send_ended_.reset();
}

TlsEngine::Flush TlsEngine::next_flush(Party party) const noexcept {
  if (pending_.empty()) return Flush::done;
  if (!sending()) return Flush::send;
  const std::size_t allowance = party == Party::writer ? 0 : max_reader_queue;
  return pending_.size() <= allowance ? Flush::done : Flush::wait;
}

TlsEngine::Step TlsEngine::handshake() {
  if (error_) return Step::failed;
  const int ret = SSL_do_handshake(ssl_);
  return ret == 1 ? Step::done : finish(ret);
}

TlsEngine::Step TlsEngine::read(std::span<char> out, std::size_t& n) {
  n = 0;
  if (error_) return Step::failed;
  const int ret = SSL_read_ex(ssl_, out.data(), out.size(), &n);
  return ret == 1 ? Step::done : finish(ret);
}

TlsEngine::Step TlsEngine::write(std::span<const char> in, std::size_t& n) {
  n = 0;
  if (error_) return Step::failed;
  if (in.empty()) return Step::done;
  const int ret = SSL_write_ex(ssl_, in.data(), std::min(in.size(), max_write), &n);
  return ret == 1 ? Step::done : finish(ret);
}

TlsEngine::Step TlsEngine::close() {
  if (error_) return Step::failed;
  if (!SSL_is_init_finished(ssl_)) return Step::done;  // nothing to close: no session yet
  const int ret = SSL_shutdown(ssl_);
  return ret >= 0 ? Step::done : finish(ret);  // 0: ours sent, theirs not awaited
}

IoResult<void> TlsEngine::recv_failed(std::error_code error) {
  if (error == io_errc::eof) {
    fail(tls_errc::unexpected_eof, handshake_done() ? "the peer closed TCP without close_notify"
                                                    : "the peer closed TCP during the TLS handshake");
    return error_;
  }
  return error;
}

IoResult<void> TlsEngine::after_send(IoResult<std::size_t> r) {
  end_send();
  if (r) return {};
  fail(r.error(), r.error().message());
  return r.error();
}

IoResult<void> TlsEngine::after_wait(IoResult<void> r, Party party) {
  if (!r && party == Party::writer) {
    fail(r.error(), "a write gave up with its ciphertext queued: " + r.error().message());
    pending_.clear();  // nothing goes out after the caller was told it failed
  }
  if (!r) return r;
  if (error_) return error_;
  return {};
}

IoResult<void> TlsEngine::result(Step step) const noexcept {
  if (step == Step::done) return {};
  if (step == Step::closed) return io_errc::eof;
  return error_;
}

TlsEngine::Step TlsEngine::fail(std::error_code error, std::string message) {
  if (!error_) {
    error_ = error;
    message_ = std::move(message);
  }
  return Step::failed;
}

// Turns an OpenSSL failure into a Step, and a fatal one into a named error
// with OpenSSL's reason (the verify result first: it says which check failed).
TlsEngine::Step TlsEngine::finish(int ret) {
  const int code = SSL_get_error(ssl_, ret);
  if (code == SSL_ERROR_WANT_READ) return Step::recv;
  if (code == SSL_ERROR_ZERO_RETURN) return Step::closed;
  char reason[256] = "unknown error";
  const unsigned long last = ERR_peek_last_error();
  if (last != 0) ERR_error_string_n(last, reason, sizeof reason);
  ERR_clear_error();
  const long verify = SSL_get_verify_result(ssl_);
  if (verify != X509_V_OK && !SSL_is_init_finished(ssl_)) {
    const auto errc = verify == X509_V_ERR_HOSTNAME_MISMATCH || verify == X509_V_ERR_IP_ADDRESS_MISMATCH
                          ? tls_errc::hostname_mismatch
                          : tls_errc::certificate_verify_failed;
    return fail(errc, std::string("certificate verify failed: ") + X509_verify_cert_error_string(verify));
  }
  if (ERR_GET_REASON(last) == SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE) {
    return fail(tls_errc::certificate_verify_failed, reason);
  }
  return fail(tls_errc::protocol, reason);
}

bool TlsEngine::handshake_done() const noexcept { return SSL_is_init_finished(ssl_) == 1; }

std::string_view TlsEngine::alpn() const noexcept {
  const unsigned char* p = nullptr;
  unsigned len = 0;
  SSL_get0_alpn_selected(ssl_, &p, &len);
  return {reinterpret_cast<const char*>(p), len};
}

bool TlsEngine::session_reused() const noexcept { return SSL_session_reused(ssl_) == 1; }

bool TlsEngine::peer_certificate_verified() const noexcept {
  X509* peer = SSL_get0_peer_certificate(ssl_);
  return peer != nullptr && SSL_get_verify_result(ssl_) == X509_V_OK;
}

std::string_view TlsEngine::version() const noexcept { return SSL_get_version(ssl_); }

}  // namespace duet
