// duet::WsDeflateConfig / ws_negotiate_deflate — permessage-deflate
// negotiation (RFC 7692 §7): the client's offer, the server's choice and
// response, the client's check of that response.
//
// Contract
// - A server calls ws_negotiate_deflate(header, config) with the request's
//   Sec-WebSocket-Extensions value (several header lines joined by ", "). It
//   takes the first permessage-deflate offer it can accept and declines, as
//   RFC 7692 §7 requires, an offer with an unknown parameter, a parameter
//   twice or a value that is not a window size 8..15 (an invalid offer is not
//   an error: the connection goes on uncompressed). The result holds the
//   agreed parameters and the response header's value.
// - A client sends ws_deflate_offer(config) and checks the server's answer
//   with ws_check_deflate_response(); anything the offer did not allow
//   (another extension, a parameter twice, a window larger than offered, a
//   missing server_no_context_takeover that was asked for) fails the
//   connection (RFC 6455 §9.1).
// - "own" is the side holding the config (its compressor), "peer" the other.
//   zlib cannot compress raw deflate with an 8-bit window: where 8 is agreed
//   the compressor uses 9, as other implementations do, which stays within a
//   256-byte window (zlib's deflate never reaches back more than the window
//   less 262 bytes: 250 with 9 bits); see WsDeflater.
// - Pure functions; any thread.
//
//   duet::WsDeflateConfig cfg{.enabled = true};
//   auto agreed = duet::ws_negotiate_deflate(request_extensions, cfg);
//   if (agreed) response.set("Sec-WebSocket-Extensions", agreed->response);
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "duet/http/websocket_frame.hpp"

namespace duet {

struct WsDeflateConfig {
  bool enabled = false;                    // offer (client) or accept (server) permessage-deflate
  std::uint8_t own_max_window_bits = 15;   // our compressor's window, 8..15
  std::uint8_t peer_max_window_bits = 15;  // the window we ask the peer's compressor to keep to
  bool own_no_context_takeover = false;    // we start each message with an empty window
  bool peer_no_context_takeover = false;   // we ask the peer to
  int level = 6;                           // zlib's compression level, 1..9
  int mem_level = 8;                       // zlib's memLevel (its memory against speed), 1..9
  std::size_t min_compress_size = 32;      // smaller messages go out uncompressed (RSV1 clear)
};

// What was agreed, by the names on the wire.
struct WsDeflateParams {
  bool server_no_context_takeover = false;
  bool client_no_context_takeover = false;
  std::uint8_t server_max_window_bits = 15;
  std::uint8_t client_max_window_bits = 15;

  // The compressor's and decompressor's settings for one side.
  [[nodiscard]] std::uint8_t send_window_bits(WsRole r) const noexcept {
    return r == WsRole::server ? server_max_window_bits : client_max_window_bits;
  }
  [[nodiscard]] std::uint8_t receive_window_bits(WsRole r) const noexcept {
    return r == WsRole::server ? client_max_window_bits : server_max_window_bits;
  }
  [[nodiscard]] bool send_no_context_takeover(WsRole r) const noexcept {
    return r == WsRole::server ? server_no_context_takeover : client_no_context_takeover;
  }
  [[nodiscard]] bool receive_no_context_takeover(WsRole r) const noexcept {
    return r == WsRole::server ? client_no_context_takeover : server_no_context_takeover;
  }
};

struct WsDeflateAgreement {
  WsDeflateParams params;
  std::string response;  // the server's Sec-WebSocket-Extensions value
};

// Server: the agreement, or nothing (no acceptable offer, or config disabled).
[[nodiscard]] std::optional<WsDeflateAgreement> ws_negotiate_deflate(std::string_view extensions,
                                                                     const WsDeflateConfig& config);

// Client: the Sec-WebSocket-Extensions value to send ("" when disabled).
[[nodiscard]] std::string ws_deflate_offer(const WsDeflateConfig& config);

// Client: the server's Sec-WebSocket-Extensions value checked against our offer.
struct WsDeflateResponseCheck {
  bool ok = true;                          // false: fail the connection (error says why)
  std::optional<WsDeflateParams> params;   // set when the server accepted
  std::string_view error;
};
[[nodiscard]] WsDeflateResponseCheck ws_check_deflate_response(std::string_view extensions,
                                                               const WsDeflateConfig& offered);

}  // namespace duet
