// duet::http::Request — the request a server handler receives, in both voices.
//
// Contract
// - Made by the server for one request and passed by reference to the
//   handler; valid until the handler returns (or, in the stackless voice,
//   until its Task completes). Every view (method, path, header values,
//   params, body) points into the connection's buffers: copy what must live
//   longer.
// - body(): the whole body when the route reads it whole (BodyMode::whole,
//   the default), de-chunked; empty for a streamed route, whose handler reads
//   it through its voice's HttpBodyReader (task/http_server.hpp or
//   stackful/http_server.hpp) while the request is being handled.
// - stop_token(): requested when the server shuts down; a long handler (a
//   stream, a long poll) may end early on it. The server lets a handler run
//   to its end either way and then closes the connection.
// - One thread: the connection's.
//
//   duet::Task<duet::http::Response> get_key(duet::http::Request& req) {
//     std::string_view key = req.param("key");
//     std::string_view agent = req.header("user-agent");
//     co_return duet::http::Response::text(200, std::string(key));
//   }
#pragma once

#include <span>
#include <stop_token>
#include <string_view>
#include <vector>

#include "duet/http/request_head.hpp"
#include "duet/http/route_table.hpp"

namespace duet::http {

namespace detail {
class ServerConnection;
}

class Request {
 public:
  [[nodiscard]] const RequestHead& head() const noexcept { return *head_; }
  [[nodiscard]] std::string_view method() const noexcept { return head_->method; }
  [[nodiscard]] std::string_view path() const noexcept { return head_->path; }
  [[nodiscard]] std::string_view query() const noexcept { return head_->query; }
  [[nodiscard]] std::string_view target() const noexcept { return head_->target; }
  // The first field named `name` (case-insensitive); empty when absent.
  [[nodiscard]] std::string_view header(std::string_view name) const noexcept { return head_->find(name); }
  // A path parameter of the route ("key" of "/kv/{key}", "*" of a prefix), as sent (see percent_decode).
  [[nodiscard]] std::string_view param(std::string_view name) const noexcept {
    for (const PathParam& p : params_)
      if (p.name == name) return p.value;
    return {};
  }
  [[nodiscard]] std::span<const PathParam> params() const noexcept { return params_; }
  [[nodiscard]] std::string_view body() const noexcept { return body_; }
  [[nodiscard]] BodyMode body_mode() const noexcept { return mode_; }
  [[nodiscard]] std::stop_token stop_token() const noexcept { return stop_; }

  // The connection serving it: for the voices' HttpBodyReader and HttpResponseStream.
  [[nodiscard]] detail::ServerConnection& connection() const noexcept { return *connection_; }

 private:
  friend class detail::ServerConnection;

  const RequestHead* head_ = nullptr;
  std::span<const PathParam> params_;
  std::string_view body_;
  BodyMode mode_ = BodyMode::whole;
  std::stop_token stop_;
  detail::ServerConnection* connection_ = nullptr;
};

}  // namespace duet::http
