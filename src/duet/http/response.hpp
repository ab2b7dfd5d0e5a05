// duet::http::Response — what a server handler answers, in both voices.
//
// Contract
// - A plain value the handler builds and returns (Task<Response> in the
//   stackless voice, Response in fibers). The server serialises it with
//   ResponseWriter: it adds Content-Length, Connection and Date itself, so
//   headers must not name Content-Length, Transfer-Encoding or Connection
//   (the server answers 500 and logs nothing else if they do: the writer
//   refuses them, as it refuses CR/LF in names and values).
// - close = true ends the connection after this response.
// - Response::streamed() is the answer of a handler that already sent its
//   response through the voice's HttpResponseStream: the server sends
//   nothing more for it.
//
//   co_return duet::http::Response::text(200, "hello");
//   auto r = duet::http::Response::text(404, "no such key\n");
//   r.header("Cache-Control", "no-store");
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace duet::http {

struct Response {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  bool close = false;
  bool streamed_ = false;  // set by streamed(): the handler sent it itself

  static Response text(int status, std::string body, std::string_view content_type = "text/plain") {
    Response r;
    r.status = status;
    r.body = std::move(body);
    r.headers.emplace_back("Content-Type", content_type);
    return r;
  }
  static Response empty(int status) {
    Response r;
    r.status = status;
    return r;
  }
  static Response streamed() {
    Response r;
    r.streamed_ = true;
    return r;
  }
  Response& header(std::string name, std::string value) {
    headers.emplace_back(std::move(name), std::move(value));
    return *this;
  }
  [[nodiscard]] bool is_streamed() const noexcept { return streamed_; }
};

}  // namespace duet::http
