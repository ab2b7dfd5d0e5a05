// HttpClient (stackless): the waiting around http::detail::ClientExchange.
// A timeout runs the whole request under with_timeout(stop, ...), so resolve
// and connect are bounded too; the caller's stop token is linked to the
// same stop_source.
#include "duet/task/http_client.hpp"

#include <utility>
#include <variant>

#include "duet/io/clock.hpp"
#include "duet/task/with_timeout.hpp"
#include "duet/tls/tls_context.hpp"

namespace duet {

using http::detail::ClientExchange;
using Step = ClientExchange::Step;

HttpClient::HttpClient(EventLoop& loop, http::ClientOptions options)
    : loop_(loop), options_(options), pool_(options.max_idle_per_host, options.max_idle_total, options.max_idle_time) {}

namespace {

struct StopLink {
  std::stop_source* source;
  void operator()() const noexcept { source->request_stop(); }
};

}  // namespace

Task<IoResult<http::ClientResponse>> HttpClient::request(std::string method, std::string url,
                                                         std::vector<http::OwnedField> headers, std::string body,
                                                         http::RequestOptions options) {
  auto planned = http::detail::plan_request(method, url, headers, body);
  if (auto* ec = std::get_if<std::error_code>(&planned)) co_return *ec;
  http::detail::RequestPlan plan = std::get<http::detail::RequestPlan>(std::move(planned));
  if (options.timeout.count() <= 0) {
    auto r = co_await run(std::move(plan), options.stop);
    co_return r;
  }
  std::stop_source stop;
  std::stop_callback link(options.stop, StopLink{&stop});
  auto r = co_await with_timeout(loop_, stop, run(std::move(plan), stop.get_token()), options.timeout);
  if (r.timed_out()) co_return std::make_error_code(std::errc::timed_out);
  co_return std::move(*r);
}

Task<IoResult<http::ClientResponse>> HttpClient::get(std::string url, http::RequestOptions options) {
  auto r = co_await request("GET", std::move(url), {}, {}, std::move(options));
  co_return r;
}

Task<IoResult<http::ClientResponse>> HttpClient::post(std::string url, std::string body, std::string content_type,
                                                      http::RequestOptions options) {
  std::vector<http::OwnedField> headers{{"Content-Type", std::move(content_type)}};
  auto r = co_await request("POST", std::move(url), std::move(headers), std::move(body), std::move(options));
  co_return r;
}

namespace {

// One request and its response over one stream (TcpStream or TlsStream).
template <typename Stream>
Task<Step> exchange(Stream& stream, ClientExchange& ex, std::stop_token token) {
  auto sent = co_await stream.send_all(ex.request_bytes(), token);
  Step step = ex.on_sent(sent.error());
  while (step == Step::more) {
    auto n = co_await stream.recv(ex.prepare(), token);
    step = ex.on_recv(n.error(), n ? *n : 0);
  }
  co_return step;
}

}  // namespace

const TlsContext& HttpClient::tls_context() {
  if (options_.tls != nullptr) return *options_.tls;
  if (!own_tls_) own_tls_ = std::make_unique<TlsContext>(TlsOptions{});  // the system's CAs, peer verification
  return *own_tls_;
}

Task<IoResult<HttpClient::Connection>> HttpClient::open(const http::detail::RequestPlan& plan, std::stop_token token) {
  auto tcp = co_await TcpStream::connect(loop_, plan.host, plan.port, token);
  if (!tcp) co_return tcp.error();
  if (!plan.tls) co_return Connection(std::move(*tcp));
  TlsStream tls(std::move(*tcp), tls_context(), plan.host);  // the name the certificate must carry
  auto shaken = co_await tls.handshake({}, token);
  if (!shaken) co_return shaken.error();
  co_return Connection(std::move(tls));
}

Task<IoResult<http::ClientResponse>> HttpClient::run(http::detail::RequestPlan plan, std::stop_token token) {
  for (int attempt = 0;; ++attempt) {
    // The retry takes a fresh connection: the pool's others may be as stale.
    std::optional<Connection> conn = attempt == 0 ? pool_.take(plan.pool_key, duet::now()) : std::nullopt;
    const bool reused = conn.has_value();
    if (!reused) {
      auto opened = co_await open(plan, token);
      if (!opened) co_return opened.error();
      conn.emplace(std::move(*opened));
    }
    ClientExchange ex(plan, options_.limits, reused);
    Step step = Step::failed;
    if (TcpStream* tcp = conn->tcp()) {
      step = co_await exchange(*tcp, ex, token);
    } else {
      step = co_await exchange(*conn->tls(), ex, token);
    }
    if (step == Step::retry) continue;
    if (step == Step::failed) co_return ex.error();
    if (ex.keep_alive()) pool_.put(plan.pool_key, std::move(*conn), duet::now());
    co_return ex.take_response();
  }
}

}  // namespace duet
