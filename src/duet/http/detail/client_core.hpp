// duet::http::detail — the HTTP client written once for both voices: what a
// request is (plan_request) and one request/response exchange over one
// connection (ClientExchange). The voices (task/http_client.cpp,
// stackful/http_client.cpp) only connect, send, receive and wait.
//
// Contract
// - plan_request() checks the URL and serialises the request (RequestWriter:
//   CR/LF in a header is refused): std::errc::invalid_argument for a bad URL
//   or header. An https:// plan says tls; its pool key names the scheme, so
//   a plain and a TLS connection to one host:port never mix.
// - ClientExchange: construct per attempt; the voice sends request_bytes()
//   and reports the outcome to on_sent(), then receives into prepare() and
//   reports each result to on_recv() until it returns done, failed or retry.
//   retry means: the connection came from the pool, died before any byte of
//   the answer (EOF, a reset, EPIPE, a TLS close without close_notify), and
//   the method is idempotent (RFC 9110 §9.2.2): take a fresh
//   connection and try once more. Interim 1xx responses are skipped.
// - Errors (error()): std::errc::bad_message for a malformed response,
//   std::errc::message_size past a limit, io_errc::eof for a close that cuts
//   the response short, else the transport's own error.
// - keep_alive(): after done, whether the connection may go back to the pool
//   (the response allows it and nothing unexpected followed it).
// - One thread; owns its buffer and the ClientResponse it builds.
//
//   auto plan = plan_request("GET", "http://127.0.0.1:8080/", {}, {});
//   ClientExchange ex(*plan, limits, reused);
//   Step s = ex.on_sent(send_error);
//   while (s == Step::more) { auto n = recv(ex.prepare()); s = ex.on_recv(n.error(), *n); }
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <variant>
#include <vector>

#include "duet/http/client_response.hpp"
#include "duet/http/parse_event.hpp"
#include "duet/http/response_parser.hpp"

namespace duet::http::detail {

struct RequestPlan {
  std::string method;
  std::string host;  // for the resolver
  std::uint16_t port = 80;
  std::string pool_key;  // "http://host:port" or "https://host:port"
  std::string bytes;     // the whole request
  bool idempotent = false;
  bool tls = false;  // https: the voice wraps the connection in its TlsStream
};

[[nodiscard]] std::variant<RequestPlan, std::error_code> plan_request(std::string_view method, std::string_view url,
                                                                      std::span<const OwnedField> headers,
                                                                      std::string_view body);

class ClientExchange {
 public:
  enum class Step : std::uint8_t { more, done, failed, retry };

  ClientExchange(const RequestPlan& plan, const ResponseLimits& limits, bool reused);

  [[nodiscard]] std::string_view request_bytes() const noexcept { return plan_->bytes; }
  [[nodiscard]] Step on_sent(std::error_code ec) noexcept;
  [[nodiscard]] std::span<char> prepare();
  // ec: the recv's error (io_errc::eof for a close), else n bytes arrived.
  [[nodiscard]] Step on_recv(std::error_code ec, std::size_t n);

  [[nodiscard]] std::error_code error() const noexcept { return error_; }
  [[nodiscard]] bool keep_alive() const noexcept { return keep_alive_; }
  [[nodiscard]] ClientResponse take_response() noexcept { return std::move(response_); }

 private:
  Step fail(std::error_code ec) noexcept;
  Step transport_error(std::error_code ec) noexcept;
  Step run_parser();
  Step on_event(ParseEvent ev);

  const RequestPlan* plan_;
  bool reused_;
  ResponseParser parser_;
  std::string buf_;
  std::size_t start_ = 0, end_ = 0;  // unparsed bytes are buf_[start_, end_)
  bool any_byte_ = false;
  bool interim_ = false;
  bool keep_alive_ = false;
  ClientResponse response_;
  std::error_code error_;
};

}  // namespace duet::http::detail
