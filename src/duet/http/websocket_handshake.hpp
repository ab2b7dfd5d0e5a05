// duet::ws_accept_upgrade / ws_check_upgrade_response — the opening
// handshake of RFC 6455 §4 over header values the HTTP layer has parsed.
//
// Contract
// - The HTTP parser is not needed here: the caller passes the header values
//   as strings (a header sent on several lines joined by ", "; absent: empty)
//   and writes the answer with its own serialiser. The request's method (GET)
//   and version (HTTP/1.1) are the HTTP layer's to check.
// - Server: ws_accept_upgrade() checks Upgrade (the token "websocket", any
//   case), Connection (a list holding "upgrade"), Sec-WebSocket-Version (13,
//   else status 426 and the response must carry "Sec-WebSocket-Version: 13")
//   and Sec-WebSocket-Key (base64 of 16 bytes), else status 400; on success
//   (status 101) it gives the Sec-WebSocket-Accept value, the chosen
//   subprotocol and the permessage-deflate agreement.
// - Client: ws_make_client_key() draws 16 random bytes (OpenSSL's RAND_bytes);
//   ws_check_upgrade_response() checks the 101 answer against what was sent.
// - Pure functions (but the random key); any thread.
//
//   auto hs = duet::ws_accept_upgrade({.upgrade = up, .connection = conn, .version = v, .key = k});
//   if (hs.status != 101) reply(hs.status, hs.reason);
//   else reply_101("Sec-WebSocket-Accept", hs.accept.view());
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "duet/http/websocket_extension.hpp"

namespace duet {

// Sec-WebSocket-Key (24 characters) and Sec-WebSocket-Accept (28): base64 text
// in place, no allocation.
struct WsKeyText {
  std::array<char, 28> data{};
  std::size_t size = 0;
  [[nodiscard]] std::string_view view() const noexcept { return {data.data(), size}; }
};

// base64(SHA-1(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")), RFC 6455 §4.2.2.
[[nodiscard]] WsKeyText ws_accept_key(std::string_view key);

// The request's header values.
struct WsUpgradeRequest {
  std::string_view upgrade;     // Upgrade
  std::string_view connection;  // Connection
  std::string_view version;     // Sec-WebSocket-Version
  std::string_view key;         // Sec-WebSocket-Key
  std::string_view protocols;   // Sec-WebSocket-Protocol (the client's list)
  std::string_view extensions;  // Sec-WebSocket-Extensions
};

struct WsAcceptOptions {
  std::span<const std::string_view> subprotocols;  // ours, in order of preference
  WsDeflateConfig deflate;                         // deflate.enabled: accept permessage-deflate
};

struct WsServerHandshake {
  int status = 101;                        // 101, 400 (malformed) or 426 (another version)
  std::string_view reason;                 // why not 101
  WsKeyText accept;                        // Sec-WebSocket-Accept
  std::string_view subprotocol;            // Sec-WebSocket-Protocol to send (views the options' list)
  std::optional<WsDeflateAgreement> deflate;  // its response: Sec-WebSocket-Extensions
};

[[nodiscard]] WsServerHandshake ws_accept_upgrade(const WsUpgradeRequest& request, const WsAcceptOptions& options = {});

// The first of `ours` (our preference) that the client's comma list offers; empty when none.
[[nodiscard]] std::string_view ws_select_subprotocol(std::string_view offered, std::span<const std::string_view> ours);

// Client side.
[[nodiscard]] WsKeyText ws_make_client_key();

struct WsUpgradeResponse {
  int status = 0;               // the status line's code: must be 101
  std::string_view upgrade;     // Upgrade
  std::string_view connection;  // Connection
  std::string_view accept;      // Sec-WebSocket-Accept
  std::string_view protocol;    // Sec-WebSocket-Protocol
  std::string_view extensions;  // Sec-WebSocket-Extensions
};

struct WsClientHandshake {
  bool ok = false;
  std::string_view error;                 // why not
  std::string_view subprotocol;           // the server's choice (one of ours), or empty
  std::optional<WsDeflateParams> deflate;
};

// `key` is what we sent; `protocols` the subprotocols we offered; `deflate` our offer's config.
[[nodiscard]] WsClientHandshake ws_check_upgrade_response(const WsUpgradeResponse& response, std::string_view key,
                                                          std::span<const std::string_view> protocols = {},
                                                          const WsDeflateConfig& deflate = {});

}  // namespace duet
