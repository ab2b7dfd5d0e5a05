// The opening handshake. SHA-1 and base64 come from OpenSSL (already what
// TLS links); the key check is done here because a valid key is exactly
// 22 base64 characters and "==", the last character carrying 2 bits of data
// and 4 zero bits (so one of A, Q, g, w).
#include "duet/http/websocket_handshake.hpp"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <cstring>
#include <stdexcept>

#include "duet/http/detail/header_tokens.hpp"

namespace duet {
namespace {

constexpr std::string_view guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

bool is_base64_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
}

bool valid_key(std::string_view key) {
  if (key.size() != 24 || key[22] != '=' || key[23] != '=') return false;
  for (std::size_t i = 0; i < 22; ++i) {
    if (!is_base64_char(key[i])) return false;
  }
  const char last = key[21];
  return last == 'A' || last == 'Q' || last == 'g' || last == 'w';
}

WsKeyText base64(const unsigned char* bytes, std::size_t n) {
  WsKeyText out;
  unsigned char buf[33];  // EVP_EncodeBlock writes a NUL after the text
  const int len = EVP_EncodeBlock(buf, bytes, static_cast<int>(n));
  out.size = static_cast<std::size_t>(len);
  std::memcpy(out.data.data(), buf, out.size);
  return out;
}

bool list_has(std::string_view list, std::string_view token) {
  return !detail::for_each_item(list, [&](std::string_view item) { return !detail::iequals(item, token); });
}

}  // namespace

WsKeyText ws_accept_key(std::string_view key) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  const bool ok = ctx != nullptr && EVP_DigestInit_ex(ctx, EVP_sha1(), nullptr) == 1 &&
                  EVP_DigestUpdate(ctx, key.data(), key.size()) == 1 &&
                  EVP_DigestUpdate(ctx, guid.data(), guid.size()) == 1 && EVP_DigestFinal_ex(ctx, digest, &size) == 1;
  EVP_MD_CTX_free(ctx);
  if (!ok) throw std::runtime_error("SHA-1 unavailable in OpenSSL");
  return base64(digest, size);
}

std::string_view ws_select_subprotocol(std::string_view offered, std::span<const std::string_view> ours) {
  for (const std::string_view mine : ours) {
    // Subprotocol names are tokens compared exactly (RFC 6455 §4.1: case-sensitive).
    const bool found = !detail::for_each_item(offered, [&](std::string_view item) { return item != mine; });
    if (found) return mine;
  }
  return {};
}

WsServerHandshake ws_accept_upgrade(const WsUpgradeRequest& request, const WsAcceptOptions& options) {
  WsServerHandshake hs;
  auto refuse = [&](int status, std::string_view reason) {
    hs.status = status;
    hs.reason = reason;
    return hs;
  };
  if (!list_has(request.upgrade, "websocket")) return refuse(400, "Upgrade does not name websocket");
  if (!list_has(request.connection, "upgrade")) return refuse(400, "Connection does not hold upgrade");
  if (detail::trim_ows(request.version) != "13") return refuse(426, "Sec-WebSocket-Version is not 13");
  const std::string_view key = detail::trim_ows(request.key);
  if (!valid_key(key)) return refuse(400, "Sec-WebSocket-Key is not base64 of 16 bytes");
  hs.accept = ws_accept_key(key);
  hs.subprotocol = ws_select_subprotocol(request.protocols, options.subprotocols);
  hs.deflate = ws_negotiate_deflate(request.extensions, options.deflate);
  return hs;
}

WsKeyText ws_make_client_key() {
  unsigned char nonce[16];
  if (RAND_bytes(nonce, sizeof nonce) != 1) throw std::runtime_error("OpenSSL's random generator failed");
  return base64(nonce, sizeof nonce);
}

WsClientHandshake ws_check_upgrade_response(const WsUpgradeResponse& response, std::string_view key,
                                            std::span<const std::string_view> protocols,
                                            const WsDeflateConfig& deflate) {
  WsClientHandshake hs;
  auto fail = [&](std::string_view error) {
    hs.error = error;
    return hs;
  };
  if (response.status != 101) return fail("the server did not switch protocols");
  if (!list_has(response.upgrade, "websocket")) return fail("Upgrade does not name websocket");
  if (!list_has(response.connection, "upgrade")) return fail("Connection does not hold upgrade");
  if (detail::trim_ows(response.accept) != ws_accept_key(key).view()) return fail("Sec-WebSocket-Accept does not match the key");
  const std::string_view protocol = detail::trim_ows(response.protocol);
  if (!protocol.empty()) {
    bool offered = false;
    for (const std::string_view p : protocols) offered = offered || p == protocol;
    if (!offered) return fail("the server chose a subprotocol not offered");
    hs.subprotocol = protocol;
  }
  const WsDeflateResponseCheck ext = ws_check_deflate_response(response.extensions, deflate);
  if (!ext.ok) return fail(ext.error);
  hs.deflate = ext.params;
  hs.ok = true;
  return hs;
}

}  // namespace duet
