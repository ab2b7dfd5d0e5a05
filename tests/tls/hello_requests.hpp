// A TLS 1.2 server that asks for renegotiation (HelloRequest) again and again,
// for the tests of a stream whose reader must send: a peer whose context
// refuses renegotiation (every TlsContext does) answers each HelloRequest
// with a no_renegotiation warning alert from its recv. A test that never
// reads those alerts leaves the peer's reader stuck in its send.
//
//   duet::test::allow_renegotiation(server.engine());   // before the handshake
//   std::string flood;
//   duet::test::hello_requests(server.engine(), 100, flood);  // then send `flood` over server.tcp()
#pragma once

#include <openssl/ssl.h>
#include <sys/socket.h>

#include <string>

#include "duet/tls/tls_engine.hpp"

namespace duet::test {

// On the server's engine, before its handshake: TLS 1.2 (1.3 has no
// renegotiation), and renegotiation allowed on this connection only.
inline void allow_renegotiation(TlsEngine& server) {
  SSL_set_max_proto_version(server.native_handle(), TLS1_2_VERSION);
  SSL_clear_options(server.native_handle(), SSL_OP_NO_RENEGOTIATION);
}

// Appends n HelloRequest records to `out`, taken from the engine's output
// (the test sends them over the TCP stream itself). False if OpenSSL refused.
inline bool hello_requests(TlsEngine& server, int n, std::string& out) {
  for (int i = 0; i < n; ++i) {
    if (SSL_renegotiate(server.native_handle()) != 1) return false;
    (void)SSL_do_handshake(server.native_handle());  // writes the HelloRequest; its answer is never read
    const auto bytes = server.begin_send();
    out.append(bytes.data(), bytes.size());
    server.end_send();
  }
  return true;
}

// Small fixed socket buffers on both ends (no autotuning): a peer that stops
// reading fills them after a few KiB, not megabytes.
inline void shrink_socket_buffers(int a, int b) {
  const int size = 4096;
  for (int fd : {a, b}) {
    ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  }
}

}  // namespace duet::test
