// The opening handshake over header values: the accept key of RFC 6455's
// example, what a server refuses and with which status, subprotocols, the
// client's checks, and permessage-deflate negotiation (RFC 7692 §7).
#include <catch2/catch.hpp>

#include <openssl/evp.h>

#include "duet/http/websocket_handshake.hpp"

using duet::WsDeflateConfig;

namespace {

duet::WsUpgradeRequest good_request() {
  return {"websocket", "Upgrade", "13", "dGhlIHNhbXBsZSBub25jZQ==", "", ""};
}

}  // namespace

TEST_CASE("the accept key of RFC 6455's example", "[websocket][handshake]") {
  CHECK(duet::ws_accept_key("dGhlIHNhbXBsZSBub25jZQ==").view() == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST_CASE("a valid upgrade request is accepted with its accept key", "[websocket][handshake]") {
  const auto hs = duet::ws_accept_upgrade(good_request());
  CHECK(hs.status == 101);
  CHECK(hs.accept.view() == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  CHECK(hs.subprotocol.empty());
  CHECK_FALSE(hs.deflate);
  // Tokens in any case, lists with other members and whitespace.
  auto r = good_request();
  r.upgrade = "WebSocket";
  r.connection = "keep-alive,  UPGRADE ";
  r.version = " 13 ";
  CHECK(duet::ws_accept_upgrade(r).status == 101);
}

TEST_CASE("a malformed upgrade is refused with 400, another version with 426", "[websocket][handshake]") {
  struct Case {
    const char* what;
    duet::WsUpgradeRequest request;
    int status;
  };
  auto with = [](auto change) {
    auto r = good_request();
    change(r);
    return r;
  };
  const std::vector<Case> cases = {
      {"no Upgrade", with([](auto& r) { r.upgrade = ""; }), 400},
      {"Upgrade: h2c", with([](auto& r) { r.upgrade = "h2c"; }), 400},
      {"Upgrade: websocketx", with([](auto& r) { r.upgrade = "websocketx"; }), 400},
      {"no Connection", with([](auto& r) { r.connection = ""; }), 400},
      {"Connection: keep-alive", with([](auto& r) { r.connection = "keep-alive"; }), 400},
      {"version 8", with([](auto& r) { r.version = "8"; }), 426},
      {"no version", with([](auto& r) { r.version = ""; }), 426},
      {"no key", with([](auto& r) { r.key = ""; }), 400},
      {"a key of 15 bytes", with([](auto& r) { r.key = "dGhlIHNhbXBsZSBub25j"; }), 400},
      {"a key of 17 bytes", with([](auto& r) { r.key = "dGhlIHNhbXBsZSBub25jZTE="; }), 400},
      {"a key with a bad character", with([](auto& r) { r.key = "dGhlIHNhbXBsZSBub25j*Q=="; }), 400},
      {"a key with stray low bits", with([](auto& r) { r.key = "dGhlIHNhbXBsZSBub25jZR=="; }), 400},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const auto hs = duet::ws_accept_upgrade(c.request);
    CHECK(hs.status == c.status);
    CHECK_FALSE(hs.reason.empty());
  }
}

TEST_CASE("the server picks its most preferred subprotocol the client offers", "[websocket][handshake]") {
  const std::string_view ours[] = {"v2.chat", "chat"};
  CHECK(duet::ws_select_subprotocol("chat, v2.chat", ours) == "v2.chat");
  CHECK(duet::ws_select_subprotocol("chat", ours) == "chat");
  CHECK(duet::ws_select_subprotocol("Chat, other", ours).empty());  // names are case-sensitive
  CHECK(duet::ws_select_subprotocol("", ours).empty());
  auto r = good_request();
  r.protocols = "soap, chat";
  CHECK(duet::ws_accept_upgrade(r, {ours, {}}).subprotocol == "chat");
}

TEST_CASE("a client key is 16 random bytes in base64, and the client checks the answer", "[websocket][handshake]") {
  const auto a = duet::ws_make_client_key();
  const auto b = duet::ws_make_client_key();
  CHECK(a.view().size() == 24);
  CHECK(a.view() != b.view());
  unsigned char raw[24];
  CHECK(EVP_DecodeBlock(raw, reinterpret_cast<const unsigned char*>(a.view().data()), 24) == 18);  // 16 + padding
  // A server accepts the client's key, and the client accepts the server's answer.
  auto r = good_request();
  r.key = a.view();
  const auto hs = duet::ws_accept_upgrade(r);
  REQUIRE(hs.status == 101);
  const std::string_view protocols[] = {"chat"};
  duet::WsUpgradeResponse resp{101, "websocket", "Upgrade", hs.accept.view(), "chat", ""};
  const auto ok = duet::ws_check_upgrade_response(resp, a.view(), protocols);
  CHECK(ok.ok);
  CHECK(ok.subprotocol == "chat");
  CHECK_FALSE(duet::ws_check_upgrade_response(resp, b.view(), protocols).ok);  // another key
  CHECK_FALSE(duet::ws_check_upgrade_response(resp, a.view()).ok);             // a protocol not offered
  resp.protocol = "";
  resp.status = 200;
  CHECK_FALSE(duet::ws_check_upgrade_response(resp, a.view()).ok);
  resp.status = 101;
  resp.upgrade = "";
  CHECK_FALSE(duet::ws_check_upgrade_response(resp, a.view()).ok);
  resp.upgrade = "websocket";
  resp.extensions = "permessage-deflate";
  CHECK_FALSE(duet::ws_check_upgrade_response(resp, a.view()).ok);  // an extension not offered
}

TEST_CASE("permessage-deflate offers are accepted or declined as RFC 7692 says", "[websocket][handshake][deflate]") {
  struct Case {
    const char* offer;
    const char* response;  // nullptr: declined
  };
  const std::vector<Case> cases = {
      {"permessage-deflate", "permessage-deflate"},
      {"permessage-deflate; client_max_window_bits", "permessage-deflate"},
      {"permessage-deflate; server_max_window_bits=10", "permessage-deflate; server_max_window_bits=10"},
      {"permessage-deflate; client_max_window_bits=8", "permessage-deflate; client_max_window_bits=8"},
      {"permessage-deflate; client_max_window_bits=\"9\"", "permessage-deflate; client_max_window_bits=9"},
      {"PerMessage-Deflate ;Server_No_Context_Takeover ; client_no_context_takeover",
       "permessage-deflate; server_no_context_takeover; client_no_context_takeover"},
      {"x-webkit-deflate-frame, permessage-deflate", "permessage-deflate"},
      {"permessage-deflate; unknown, permessage-deflate; server_max_window_bits=12",
       "permessage-deflate; server_max_window_bits=12"},
      {"permessage-deflate; unknown", nullptr},
      {"permessage-deflate; server_max_window_bits", nullptr},
      {"permessage-deflate; server_max_window_bits=7", nullptr},
      {"permessage-deflate; server_max_window_bits=16", nullptr},
      {"permessage-deflate; server_max_window_bits=08", nullptr},
      {"permessage-deflate; client_max_window_bits=1x", nullptr},
      {"permessage-deflate; server_no_context_takeover=1", nullptr},
      {"permessage-deflate; client_no_context_takeover; client_no_context_takeover", nullptr},
      {"permessage-deflate; server_max_window_bits=10; server_max_window_bits=10", nullptr},
      {"permessage-deflate; client_max_window_bits; client_max_window_bits=10", nullptr},
      {"x-webkit-deflate-frame", nullptr},
      {"", nullptr},
  };
  const WsDeflateConfig config{.enabled = true};
  for (const Case& c : cases) {
    INFO(c.offer);
    const auto a = duet::ws_negotiate_deflate(c.offer, config);
    REQUIRE(a.has_value() == (c.response != nullptr));
    if (a) CHECK(a->response == c.response);
  }
  CHECK_FALSE(duet::ws_negotiate_deflate("permessage-deflate", WsDeflateConfig{}));  // not enabled
}

TEST_CASE("the server's own limits shape the agreement", "[websocket][handshake][deflate]") {
  WsDeflateConfig config{.enabled = true, .own_max_window_bits = 11, .peer_max_window_bits = 10,
                         .own_no_context_takeover = true};
  const auto a = duet::ws_negotiate_deflate("permessage-deflate; client_max_window_bits", config);
  REQUIRE(a);
  CHECK(a->response ==
        "permessage-deflate; server_no_context_takeover; server_max_window_bits=11; client_max_window_bits=10");
  CHECK(a->params.server_max_window_bits == 11);
  CHECK(a->params.client_max_window_bits == 10);
  // Without client_max_window_bits in the offer the client keeps 15 and the response does not name it.
  const auto b = duet::ws_negotiate_deflate("permessage-deflate", config);
  REQUIRE(b);
  CHECK(b->params.client_max_window_bits == 15);
  CHECK(b->response.find("client_max_window_bits") == std::string::npos);
  // The offer's smaller server window wins over ours.
  CHECK(duet::ws_negotiate_deflate("permessage-deflate; server_max_window_bits=9", config)->params.server_max_window_bits == 9);
}

TEST_CASE("a client's offer and its check of the server's response", "[websocket][handshake][deflate]") {
  const WsDeflateConfig plain{.enabled = true};
  CHECK(duet::ws_deflate_offer(plain) == "permessage-deflate; client_max_window_bits");
  CHECK(duet::ws_deflate_offer(WsDeflateConfig{}).empty());
  const WsDeflateConfig asks{.enabled = true, .own_max_window_bits = 12, .peer_max_window_bits = 10,
                             .own_no_context_takeover = true, .peer_no_context_takeover = true};
  CHECK(duet::ws_deflate_offer(asks) ==
        "permessage-deflate; client_no_context_takeover; server_no_context_takeover; server_max_window_bits=10; "
        "client_max_window_bits=12");

  auto accepted = duet::ws_check_deflate_response("permessage-deflate; server_max_window_bits=12", plain);
  REQUIRE(accepted.ok);
  REQUIRE(accepted.params);
  CHECK(accepted.params->server_max_window_bits == 12);
  CHECK(accepted.params->client_max_window_bits == 15);
  const auto none = duet::ws_check_deflate_response("", plain);
  CHECK(none.ok);
  CHECK_FALSE(none.params);

  for (const char* bad : {"x-other", "permessage-deflate, permessage-deflate", "permessage-deflate; client_max_window_bits",
                          "permessage-deflate; bogus", "permessage-deflate; server_no_context_takeover=x"}) {
    INFO(bad);
    CHECK_FALSE(duet::ws_check_deflate_response(bad, plain).ok);
  }
  // Beyond what was asked: a larger window, a missing server_no_context_takeover.
  CHECK_FALSE(duet::ws_check_deflate_response(
                  "permessage-deflate; server_no_context_takeover; server_max_window_bits=11", asks)
                  .ok);
  CHECK_FALSE(duet::ws_check_deflate_response("permessage-deflate; server_max_window_bits=10", asks).ok);
  CHECK_FALSE(duet::ws_check_deflate_response(
                  "permessage-deflate; server_no_context_takeover; server_max_window_bits=10; client_max_window_bits=13",
                  asks)
                  .ok);
  const auto ok = duet::ws_check_deflate_response(
      "permessage-deflate; server_no_context_takeover; server_max_window_bits=10; client_max_window_bits=9", asks);
  REQUIRE(ok.ok);
  CHECK(ok.params->client_max_window_bits == 9);
  CHECK(ok.params->client_no_context_takeover);  // we said we would
  CHECK(ok.params->server_no_context_takeover);
}

TEST_CASE("a client's offer, a server's answer and the client's check agree end to end", "[websocket][handshake][deflate]") {
  const WsDeflateConfig client{.enabled = true, .own_max_window_bits = 10, .peer_no_context_takeover = true};
  const WsDeflateConfig server{.enabled = true, .peer_max_window_bits = 9};
  const std::string offer = duet::ws_deflate_offer(client);
  const auto key = duet::ws_make_client_key();
  auto req = good_request();
  req.key = key.view();
  req.extensions = offer;
  const auto hs = duet::ws_accept_upgrade(req, {{}, server});
  REQUIRE(hs.deflate);
  const auto check = duet::ws_check_upgrade_response(
      {101, "websocket", "Upgrade", hs.accept.view(), "", hs.deflate->response}, key.view(), {}, client);
  REQUIRE(check.ok);
  REQUIRE(check.deflate);
  CHECK(check.deflate->client_max_window_bits == 9);
  CHECK(check.deflate->server_no_context_takeover);
  CHECK(check.deflate->client_max_window_bits == hs.deflate->params.client_max_window_bits);
  CHECK(check.deflate->server_max_window_bits == hs.deflate->params.server_max_window_bits);
}
