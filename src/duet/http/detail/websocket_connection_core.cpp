// The connection's semantics, once for both voices. An operation is a small
// state machine (Phase) that next() advances as far as it can without I/O and
// then asks the driver for one send, one receive or closing the stream. What
// is queued to send always goes first (sends_), so a reply the session made
// (a pong, the close echo) leaves before anything else happens.
#include "duet/http/detail/websocket_connection_core.hpp"

#include <algorithm>
#include <cstring>

#include "duet/http/detail/header_tokens.hpp"
#include "duet/http/request_parser.hpp"
#include "duet/http/response_writer.hpp"
#include "duet/http/websocket_handshake.hpp"

namespace duet::http::detail {
namespace {

constexpr std::size_t min_buffer = 16 * 1024;

std::error_code errc(std::errc e) { return std::make_error_code(e); }

// A field sent on several lines, joined by ", " (RFC 9110 §5.3).
std::string join_fields(std::span<const HeaderField> fields, std::string_view name) {
  std::string out;
  for (const HeaderField& f : fields) {
    if (!duet::detail::iequals(f.name, name)) continue;
    if (!out.empty()) out += ", ";
    out += f.value;
  }
  return out;
}

// A host or target we put on a request line or in a field: no controls, no spaces.
bool plain_token(std::string_view s) {
  return !s.empty() && std::none_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u <= 0x20 || u == 0x7f;
  });
}

}  // namespace

WsConnectionCore::WsConnectionCore(WsRole role, const WsOptions& options)
    : role_(role), options_(options), in_(std::max(min_buffer, options.max_head_bytes + 1)) {}

WsConnectionCore::~WsConnectionCore() = default;

// --- the opening handshake, server side ---

void WsConnectionCore::begin_accept() {
  deadline_ = duet::detail::Deadline(options_.handshake_timeout);
  phase_ = Phase::accept_head;
}

void WsConnectionCore::begin_accept(const RequestHead& head, std::string_view leftover) {
  deadline_ = duet::detail::Deadline(options_.handshake_timeout);
  if (leftover.size() > in_.size()) in_.resize(leftover.size());
  std::memcpy(in_.data(), leftover.data(), leftover.size());
  begin_ = 0;
  end_ = leftover.size();
  answer_upgrade(head);
}

WsConnectionCore::Action WsConnectionCore::step_accept_head() {
  RequestLimits limits;
  limits.max_head_bytes = options_.max_head_bytes;
  limits.max_request_line = std::min(limits.max_request_line, options_.max_head_bytes);
  RequestParser parser(limits);  // rescans the head on each arrival: heads are small
  const ParseEvent ev = parser.parse(std::string_view(in_.data(), end_));
  if (ev == ParseEvent::need_more) return receive_action();
  if (ev == ParseEvent::error) {
    refuse(parser.error().status, parser.error().detail, false);
  } else {
    begin_ = parser.consumed();  // what follows the head is the first frames
    answer_upgrade(parser.head());
  }
  return next();
}

void WsConnectionCore::answer_upgrade(const RequestHead& head) {
  if (head.method != "GET" || head.version != HttpVersion::http_1_1 || head.body != BodyKind::none) {
    return refuse(400, "a WebSocket upgrade is a GET over HTTP/1.1 without a body", false);
  }
  const std::string protocols = join_fields(head.headers, "sec-websocket-protocol");
  const std::string extensions = join_fields(head.headers, "sec-websocket-extensions");
  const WsUpgradeRequest request{head.find("upgrade"), head.find("connection"), head.find("sec-websocket-version"),
                                 head.find("sec-websocket-key"), protocols, extensions};
  const WsServerHandshake hs = ws_accept_upgrade(request, {options_.subprotocols, options_.session.deflate});
  if (hs.status != 101) return refuse(hs.status, hs.reason, hs.status == 426);
  out_.clear();
  ResponseWriter w(out_, ResponseContext::from(head));
  w.start(101);
  w.header("Upgrade", "websocket");
  w.header("Sec-WebSocket-Accept", hs.accept.view());
  if (!hs.subprotocol.empty()) w.header("Sec-WebSocket-Protocol", hs.subprotocol);
  if (hs.deflate) w.header("Sec-WebSocket-Extensions", hs.deflate->response);
  w.end();
  subprotocol_ = hs.subprotocol;
  open_session(hs.deflate ? std::optional(hs.deflate->params) : std::nullopt);
  queue(out_);
  phase_ = Phase::accept_reply;
}

// The answer names the defect and closes the connection (426 says which version we speak).
void WsConnectionCore::refuse(int status, std::string_view reason, bool version_header) {
  refused_status_ = status;
  refused_reason_ = reason;
  out_.clear();
  ResponseWriter w(out_, ResponseContext::after_error());
  w.start(status);
  if (version_header) w.header("Sec-WebSocket-Version", "13");
  w.header("Content-Type", "text/plain");
  w.body(refused_reason_ + "\n");
  queue(out_);
  phase_ = Phase::accept_reply;
}

// --- the opening handshake, client side ---

void WsConnectionCore::begin_connect(std::string_view host, std::string_view target) {
  deadline_ = duet::detail::Deadline(options_.handshake_timeout);
  if (!plain_token(host) || !plain_token(target) || target.front() != '/') {
    refused_reason_ = "the host or target cannot go on a request line";
    return fail(errc(std::errc::invalid_argument));
  }
  key_ = ws_make_client_key().view();
  out_.clear();
  out_.append("GET ").append(target).append(" HTTP/1.1\r\nHost: ").append(host);
  out_.append("\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ").append(key_);
  out_.append("\r\nSec-WebSocket-Version: 13\r\n");
  if (!options_.subprotocols.empty()) {
    out_.append("Sec-WebSocket-Protocol: ");
    for (std::size_t i = 0; i < options_.subprotocols.size(); ++i) {
      out_.append(i == 0 ? "" : ", ").append(options_.subprotocols[i]);
    }
    out_.append("\r\n");
  }
  if (const std::string offer = ws_deflate_offer(options_.session.deflate); !offer.empty()) {
    out_.append("Sec-WebSocket-Extensions: ").append(offer).append("\r\n");
  }
  out_.append("\r\n");
  queue(out_);
  phase_ = Phase::connect_reply;
}

WsConnectionCore::Action WsConnectionCore::step_connect_reply() {
  std::vector<HeaderField> fields;
  UpgradeResponse head;
  const UpgradeResponseParse p = parse_upgrade_response(std::string_view(in_.data(), end_), options_.max_head_bytes,
                                                  fields, head);
  if (p.status == UpgradeResponseParse::Status::need_more) return receive_action();
  if (p.status == UpgradeResponseParse::Status::error) {
    refused_reason_ = p.error;
    fail(errc(std::errc::protocol_error));
    return next();
  }
  begin_ = p.consumed;  // what follows the head is the server's first frames
  check_upgrade_response(head);
  return next();
}

void WsConnectionCore::check_upgrade_response(const UpgradeResponse& head) {
  const std::string protocols = join_fields(head.headers, "sec-websocket-protocol");
  const std::string extensions = join_fields(head.headers, "sec-websocket-extensions");
  const WsUpgradeResponse response{head.status,        head.find("upgrade"), head.find("connection"),
                                   head.find("sec-websocket-accept"), protocols, extensions};
  const WsClientHandshake hs =
      ws_check_upgrade_response(response, key_, options_.subprotocols, options_.session.deflate);
  if (!hs.ok) {
    refused_status_ = head.status;
    refused_reason_ = hs.error;
    return fail(errc(std::errc::protocol_error));
  }
  subprotocol_ = hs.subprotocol;
  open_session(hs.deflate);
  phase_ = Phase::done;
}

void WsConnectionCore::open_session(const std::optional<WsDeflateParams>& deflate) {
  session_.emplace(role_, options_.session, deflate);
  deflate_ = deflate.has_value();
}

}  // namespace duet::http::detail
