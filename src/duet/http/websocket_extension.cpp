// permessage-deflate negotiation. An extension in the header is
// `name; param; param=value` (RFC 6455 §9.1); a value is a token or a quoted
// string whose unescaped content must be a token (RFC 7692 §7.1). Both sides
// read the parameters through parse_params, which refuses what no valid offer
// or response holds: an unknown name, a name twice, a bad window size.
#include "duet/http/websocket_extension.hpp"

#include <algorithm>

#include "duet/http/detail/header_tokens.hpp"

namespace duet {
namespace {

constexpr std::string_view extension_name = "permessage-deflate";

// The parameters as written; window bits: 0 absent, -1 present without a value.
struct Params {
  bool server_no_context_takeover = false;
  bool client_no_context_takeover = false;
  int server_max_window_bits = 0;
  int client_max_window_bits = 0;
};

// "8".."15", no leading zero, no sign; else 0.
int window_bits(std::string_view v) {
  if (v.empty() || v.size() > 2 || v[0] == '0') return 0;
  int n = 0;
  for (const char c : v) {
    if (c < '0' || c > '9') return 0;
    n = n * 10 + (c - '0');
  }
  return n >= 8 && n <= 15 ? n : 0;
}

// Unquotes a quoted-string value into `buf` (a window size is two characters,
// so a short buffer is enough; longer is invalid anyway).
std::string_view unquote(std::string_view v, std::string& buf) {
  if (v.size() < 2 || v.front() != '"' || v.back() != '"') return v;
  buf.clear();
  for (std::size_t i = 1; i + 1 < v.size(); ++i) {
    if (v[i] == '\\' && i + 2 < v.size()) ++i;
    buf.push_back(v[i]);
  }
  return buf;
}

// The parameters after the extension's name; nullopt when invalid.
std::optional<Params> parse_params(std::string_view rest) {
  Params p;
  std::string buf;
  while (!rest.empty()) {
    const std::string_view item = detail::next_item(rest, ';');
    const std::size_t eq = item.find('=');
    const std::string_view name = detail::trim_ows(item.substr(0, eq));
    const bool has_value = eq != std::string_view::npos;
    const std::string_view value = has_value ? unquote(detail::trim_ows(item.substr(eq + 1)), buf) : std::string_view{};
    if (detail::iequals(name, "server_no_context_takeover") || detail::iequals(name, "client_no_context_takeover")) {
      bool& flag = detail::iequals(name, "server_no_context_takeover") ? p.server_no_context_takeover
                                                                       : p.client_no_context_takeover;
      if (flag || has_value) return std::nullopt;
      flag = true;
    } else if (detail::iequals(name, "server_max_window_bits") || detail::iequals(name, "client_max_window_bits")) {
      const bool server = detail::iequals(name, "server_max_window_bits");
      int& bits = server ? p.server_max_window_bits : p.client_max_window_bits;
      if (bits != 0) return std::nullopt;
      if (has_value) {
        bits = window_bits(value);
        if (bits == 0) return std::nullopt;
      } else {
        if (server) return std::nullopt;  // server_max_window_bits always has a value
        bits = -1;
      }
    } else {
      return std::nullopt;
    }
  }
  return p;
}

// Splits "name; params" and tells whether it is permessage-deflate.
bool is_deflate(std::string_view item, std::string_view& params) {
  std::string_view rest = item;
  const std::string_view name = detail::next_item(rest, ';');
  params = rest;
  return detail::iequals(name, extension_name);
}

std::uint8_t clamp_bits(int bits) { return static_cast<std::uint8_t>(std::clamp(bits, 8, 15)); }

std::string response_for(const WsDeflateParams& a, bool offered_client_bits) {
  std::string r(extension_name);
  if (a.server_no_context_takeover) r += "; server_no_context_takeover";
  if (a.client_no_context_takeover) r += "; client_no_context_takeover";
  if (a.server_max_window_bits < 15) r += "; server_max_window_bits=" + std::to_string(a.server_max_window_bits);
  if (offered_client_bits && a.client_max_window_bits < 15) {
    r += "; client_max_window_bits=" + std::to_string(a.client_max_window_bits);
  }
  return r;
}

}  // namespace

std::optional<WsDeflateAgreement> ws_negotiate_deflate(std::string_view extensions, const WsDeflateConfig& config) {
  std::optional<WsDeflateAgreement> result;
  if (!config.enabled) return result;
  detail::for_each_item(extensions, [&](std::string_view item) {
    std::string_view rest;
    if (!is_deflate(item, rest)) return true;
    const std::optional<Params> offer = parse_params(rest);
    if (!offer) return true;  // declined: try the next offer
    WsDeflateParams a;
    a.server_no_context_takeover = offer->server_no_context_takeover || config.own_no_context_takeover;
    a.client_no_context_takeover = offer->client_no_context_takeover || config.peer_no_context_takeover;
    const int own = clamp_bits(config.own_max_window_bits);
    a.server_max_window_bits = clamp_bits(offer->server_max_window_bits > 0 ? std::min(offer->server_max_window_bits, own) : own);
    // Without client_max_window_bits in the offer the client may use 15 bits,
    // and the response must not name it (RFC 7692 §7.1.2.2).
    const bool client_bits = offer->client_max_window_bits != 0;
    if (client_bits) {
      const int offered = offer->client_max_window_bits > 0 ? offer->client_max_window_bits : 15;
      a.client_max_window_bits = clamp_bits(std::min<int>(offered, config.peer_max_window_bits));
    }
    result = WsDeflateAgreement{a, response_for(a, client_bits)};
    return false;
  });
  return result;
}

std::string ws_deflate_offer(const WsDeflateConfig& config) {
  if (!config.enabled) return {};
  std::string r(extension_name);
  if (config.own_no_context_takeover) r += "; client_no_context_takeover";
  if (config.peer_no_context_takeover) r += "; server_no_context_takeover";
  if (config.peer_max_window_bits < 15) {
    r += "; server_max_window_bits=" + std::to_string(clamp_bits(config.peer_max_window_bits));
  }
  // Always say that we accept a smaller window for our compressor.
  r += "; client_max_window_bits";
  if (config.own_max_window_bits < 15) r += "=" + std::to_string(clamp_bits(config.own_max_window_bits));
  return r;
}

WsDeflateResponseCheck ws_check_deflate_response(std::string_view extensions, const WsDeflateConfig& offered) {
  WsDeflateResponseCheck check;
  detail::for_each_item(extensions, [&](std::string_view item) {
    std::string_view rest;
    if (!offered.enabled || !is_deflate(item, rest)) {
      check = {false, std::nullopt, "the server answered with an extension not offered"};
      return false;
    }
    const std::optional<Params> p = parse_params(rest);
    if (check.params || !p) {
      check = {false, std::nullopt, check.params ? "permessage-deflate answered twice" : "invalid permessage-deflate response"};
      return false;
    }
    const int asked_server = offered.peer_max_window_bits < 15 ? clamp_bits(offered.peer_max_window_bits) : 15;
    const int own = offered.own_max_window_bits < 15 ? clamp_bits(offered.own_max_window_bits) : 15;
    if (p->client_max_window_bits == -1 || p->client_max_window_bits > own ||
        p->server_max_window_bits > asked_server || (asked_server < 15 && p->server_max_window_bits == 0) ||
        (offered.peer_no_context_takeover && !p->server_no_context_takeover)) {
      check = {false, std::nullopt, "permessage-deflate response outside the offer"};
      return false;
    }
    WsDeflateParams a;
    a.server_no_context_takeover = p->server_no_context_takeover;
    a.client_no_context_takeover = p->client_no_context_takeover || offered.own_no_context_takeover;
    a.server_max_window_bits = static_cast<std::uint8_t>(p->server_max_window_bits > 0 ? p->server_max_window_bits : asked_server);
    a.client_max_window_bits = static_cast<std::uint8_t>(p->client_max_window_bits > 0 ? p->client_max_window_bits : own);
    check.params = a;
    return true;
  });
  return check;
}

}  // namespace duet
