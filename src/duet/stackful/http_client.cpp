// fiber::HttpClient: the waiting around http::detail::ClientExchange. The
// request's timeout becomes a deadline; each blocking call gets what is left
// of it (the calls' own timeout overloads: no extra fiber per request).
#include "duet/stackful/http_client.hpp"

#include <chrono>
#include <string>
#include <utility>
#include <variant>

#include "duet/io/clock.hpp"
#include "duet/stackful/resolve.hpp"
#include "duet/tls/tls_context.hpp"

namespace duet::fiber {

using http::detail::ClientExchange;
using Step = ClientExchange::Step;

namespace {


// What is left until the deadline (none: 0, which the calls read as "no
// timeout"); timed_out once it has passed.
struct Deadline {
  std::chrono::steady_clock::time_point at;
  bool set;
  bool passed() const noexcept { return set && duet::now() >= at; }
  TcpStream::Timeout left() const noexcept {
    if (!set) return TcpStream::Timeout{0};
    auto d = std::chrono::duration_cast<TcpStream::Timeout>(at - duet::now());
    return d.count() > 0 ? d : TcpStream::Timeout{1};
  }
};

// Sends the request and reads the answer on one stream (TcpStream or TlsStream).
template <typename Stream>
Step exchange(Stream& conn, ClientExchange& ex, const Deadline& deadline, const std::stop_token& token) {
  auto sent = conn.send_all(ex.request_bytes(), deadline.left(), token);
  Step step = ex.on_sent(sent.error());
  while (step == Step::more) {
    auto n = conn.recv(ex.prepare(), deadline.left(), token);
    step = ex.on_recv(n.error(), n ? *n : 0);
  }
  return step;
}

using Connection = http::detail::ClientConnection<TcpStream, TlsStream>;

// The host's addresses in turn, each with what is left of the deadline (not
// TcpStream::connect(host, ...)'s full timeout per address). The lookup
// itself is not bounded: see the header.
IoResult<TcpStream> connect_within(const http::detail::RequestPlan& plan, const Deadline& deadline,
                                   const std::stop_token& token) {
  auto addrs = resolve(plan.host, std::to_string(plan.port), token);
  if (!addrs) return addrs.error();
  std::error_code last = std::make_error_code(std::errc::timed_out);
  for (const SocketAddress& addr : *addrs) {
    if (deadline.passed()) break;
    auto tcp = TcpStream::connect(addr, deadline.left(), token);
    if (tcp) return tcp;
    last = tcp.error();
    if (last == std::errc::operation_canceled) break;  // stopped: do not try the rest
  }
  return deadline.passed() ? std::make_error_code(std::errc::timed_out) : last;
}

IoResult<Connection> open(const http::detail::RequestPlan& plan, const TlsContext* tls, const Deadline& deadline,
                          const std::stop_token& token) {
  auto tcp = connect_within(plan, deadline, token);
  if (!tcp) return tcp.error();
  if (!plan.tls) return Connection(std::move(*tcp));
  TlsStream stream(std::move(*tcp), *tls, plan.host);  // the name the certificate must carry
  auto shaken = stream.handshake(deadline.left(), token);
  if (!shaken) return shaken.error();
  return Connection(std::move(stream));
}

}  // namespace

const TlsContext& HttpClient::tls_context() {
  if (options_.tls != nullptr) return *options_.tls;
  if (!own_tls_) own_tls_ = std::make_unique<TlsContext>(TlsOptions{});  // the system's CAs, peer verification
  return *own_tls_;
}

HttpClient::HttpClient(http::ClientOptions options)
    : options_(options), pool_(options.max_idle_per_host, options.max_idle_total, options.max_idle_time) {}

IoResult<http::ClientResponse> HttpClient::request(std::string method, std::string url,
                                                   std::vector<http::OwnedField> headers, std::string body,
                                                   http::RequestOptions options) {
  auto planned = http::detail::plan_request(method, url, headers, body);
  if (auto* ec = std::get_if<std::error_code>(&planned)) return *ec;
  const http::detail::RequestPlan& plan = std::get<http::detail::RequestPlan>(planned);
  const Deadline deadline{duet::now() + options.timeout, options.timeout.count() > 0};
  for (int attempt = 0;; ++attempt) {
    // The retry takes a fresh connection: the pool's others may be as stale.
    std::optional<Connection> conn = attempt == 0 ? pool_.take(plan.pool_key, duet::now()) : std::nullopt;
    const bool reused = conn.has_value();
    if (!reused) {
      auto opened = open(plan, plan.tls ? &tls_context() : nullptr, deadline, options.stop);
      if (!opened) return opened.error();
      conn.emplace(std::move(*opened));
    }
    ClientExchange ex(plan, options_.limits, reused);
    TcpStream* tcp = conn->tcp();
    Step step = tcp ? exchange(*tcp, ex, deadline, options.stop) : exchange(*conn->tls(), ex, deadline, options.stop);
    if (step == Step::retry) continue;
    if (step == Step::failed) return ex.error();
    if (ex.keep_alive()) pool_.put(plan.pool_key, std::move(*conn), duet::now());
    return ex.take_response();
  }
}

IoResult<http::ClientResponse> HttpClient::get(std::string url, http::RequestOptions options) {
  return request("GET", std::move(url), {}, {}, std::move(options));
}

IoResult<http::ClientResponse> HttpClient::post(std::string url, std::string body, std::string content_type,
                                                http::RequestOptions options) {
  std::vector<http::OwnedField> headers{{"Content-Type", std::move(content_type)}};
  return request("POST", std::move(url), std::move(headers), std::move(body), std::move(options));
}

}  // namespace duet::fiber
