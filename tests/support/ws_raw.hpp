// Raw WebSocket bytes for the I/O tests of both voices (tests/task/websocket_task_test.cpp,
// tests/stackful/websocket_fiber_test.cpp): what a minimal peer written by hand
// sends, so the tests do not trust duet's own writer for the other end.
//
//   std::string in = duet::test::ws_upgrade_request() + duet::test::ws_client_frame(0x81, "hi");
#pragma once

#include <string>
#include <string_view>

namespace duet::test {

// RFC 6455 §1.3's sample key, whose accept value is "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=".
inline std::string ws_upgrade_request(std::string_view version = "13", std::string_view extra = {}) {
  std::string r = "GET /chat HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n";
  r.append("Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: ").append(version).append("\r\n");
  r.append(extra).append("\r\n");
  return r;
}

// A client's frame (first byte: FIN, RSV, opcode) with a payload under 126
// bytes, masked with the all-zero key: valid, and the payload reads as sent.
inline std::string ws_client_frame(unsigned char first, std::string_view payload) {
  std::string f;
  f.push_back(static_cast<char>(first));
  f.push_back(static_cast<char>(0x80U | payload.size()));
  f.append(4, '\0');
  f.append(payload);
  return f;
}

// A server's frame (unmasked), payload under 126 bytes.
inline std::string ws_server_frame(unsigned char first, std::string_view payload) {
  std::string f;
  f.push_back(static_cast<char>(first));
  f.push_back(static_cast<char>(payload.size()));
  f.append(payload);
  return f;
}

}  // namespace duet::test
