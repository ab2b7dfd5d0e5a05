#include "duet/http/detail/client_core.hpp"

#include <cstring>
#include <stdexcept>

#include "duet/http/request_writer.hpp"
#include "duet/http/url.hpp"
#include "duet/io/io_result.hpp"
#include "duet/tls/tls_error.hpp"

namespace duet::http::detail {

namespace {

bool idempotent_method(std::string_view m) noexcept {
  return m == "GET" || m == "HEAD" || m == "PUT" || m == "DELETE" || m == "OPTIONS" || m == "TRACE";
}

std::vector<OwnedField> own(std::span<const HeaderField> fields) {
  std::vector<OwnedField> out;
  out.reserve(fields.size());
  for (const HeaderField& f : fields) out.push_back({std::string(f.name), std::string(f.value)});
  return out;
}

constexpr std::size_t recv_chunk = 16 * 1024;

}  // namespace

std::variant<RequestPlan, std::error_code> plan_request(std::string_view method, std::string_view url,
                                                        std::span<const OwnedField> headers, std::string_view body) {
  std::optional<Url> u = parse_url(url);
  if (!u) return std::make_error_code(std::errc::invalid_argument);
  RequestPlan plan{
      std::string(method),       u->host, u->port, u->scheme + "://" + u->host + ":" + std::to_string(u->port), {},
      idempotent_method(method), u->tls()};
  try {
    RequestWriter w(plan.bytes);
    w.start(method, u->target, u->authority());
    for (const OwnedField& f : headers) w.header(f.first, f.second);
    w.body(body);
  } catch (const std::invalid_argument&) {
    return std::make_error_code(std::errc::invalid_argument);
  }
  return plan;
}

ClientExchange::ClientExchange(const RequestPlan& plan, const ResponseLimits& limits, bool reused)
    : plan_(&plan), reused_(reused), parser_(limits) {
  parser_.expect(plan.method);
}

ClientExchange::Step ClientExchange::fail(std::error_code ec) noexcept {
  error_ = ec;
  keep_alive_ = false;
  return Step::failed;
}

ClientExchange::Step ClientExchange::transport_error(std::error_code ec) noexcept {
  // A pooled connection the server closed while idle shows up as EPIPE or
  // ECONNRESET on send, or EOF / ECONNRESET before the first answer byte.
  bool stale = ec == io_errc::eof || ec == std::errc::connection_reset || ec == std::errc::broken_pipe ||
               ec == tls_errc::unexpected_eof;
  if (stale && reused_ && !any_byte_ && plan_->idempotent) {
    error_ = ec;
    return Step::retry;
  }
  return fail(ec);
}

ClientExchange::Step ClientExchange::on_sent(std::error_code ec) noexcept {
  return ec ? transport_error(ec) : Step::more;
}

std::span<char> ClientExchange::prepare() {
  if (buf_.size() - end_ < recv_chunk) buf_.resize(end_ + recv_chunk);
  return {buf_.data() + end_, buf_.size() - end_};
}

ClientExchange::Step ClientExchange::on_recv(std::error_code ec, std::size_t n) {
  if (ec == io_errc::eof && any_byte_) {
    ParseEvent ev = parser_.eof();
    if (ev == ParseEvent::need_more) return fail(io_errc::eof);  // closed between an interim and the final response
    return on_event(ev);
  }
  if (ec) return transport_error(ec);
  any_byte_ = true;
  end_ += n;
  return run_parser();
}

ClientExchange::Step ClientExchange::run_parser() {
  for (;;) {
    ParseEvent ev = parser_.parse(std::string_view(buf_.data() + start_, end_ - start_));
    start_ += parser_.consumed();
    if (ev == ParseEvent::need_more) {
      // Everything of the head was copied out at its event: compacting is safe.
      std::memmove(buf_.data(), buf_.data() + start_, end_ - start_);
      end_ -= start_;
      start_ = 0;
      return Step::more;
    }
    if (Step s = on_event(ev); s != Step::more) return s;
  }
}

ClientExchange::Step ClientExchange::on_event(ParseEvent ev) {
  switch (ev) {
    case ParseEvent::head: {
      const ResponseHead& h = parser_.head();
      interim_ = h.interim();
      if (interim_) return Step::more;
      response_.status = h.status;
      response_.reason = h.reason;
      response_.version = h.version;
      response_.headers = own(h.headers);
      keep_alive_ = h.keep_alive;
      return Step::more;
    }
    case ParseEvent::body:
      if (!interim_) response_.body.append(parser_.body());
      return Step::more;
    case ParseEvent::message_end:
      if (interim_) {
        interim_ = false;
        return Step::more;
      }
      response_.trailers = own(parser_.trailers());
      keep_alive_ = keep_alive_ && start_ == end_;  // bytes nobody asked for: do not trust the connection
      return Step::done;
    case ParseEvent::error: {
      int status = parser_.error().status;
      return fail(
          std::make_error_code(status == 413 || status == 431 ? std::errc::message_size : std::errc::bad_message));
    }
    case ParseEvent::need_more: break;
  }
  return Step::more;
}

}  // namespace duet::http::detail
