// duet::http::RouteTable — routing by method and path, written once for both
// voices' servers (task/http_server.hpp, stackful/http_server.hpp).
//
// Contract
// - Patterns: an exact path ("/health"), segments with parameters
//   ("/kv/{key}": one segment, not empty, captured), and a prefix: a last
//   segment "*" ("/static/*") matches the rest of the path, even empty,
//   captured as the parameter "*". Paths are compared as sent (percent-encoded;
//   percent_decode() decodes a parameter). add() throws std::invalid_argument
//   for a pattern that does not start with '/', an empty or unclosed "{}",
//   or a '*' that is not the whole last segment.
// - Methods: a token ("GET", "PUT", ...), or "*" for any. A HEAD request
//   takes the GET route when it has no HEAD route of its own (the server then
//   sends the headers without the body).
// - match(): routes are tried in the order they were added; the first whose
//   method and pattern match wins (status 0). None whose pattern matches: 404.
//   A pattern matched but no method: 405 and `allow` lists the methods.
//   Parameters are views into the path (valid as long as it).
// - Built before the server starts, then only read: match() from any number
//   of threads (shards) at once is safe.
//
//   duet::http::RouteTable routes;
//   routes.add("GET", "/kv/{key}", duet::http::BodyMode::whole);
//   std::vector<duet::http::PathParam> params;
//   auto m = routes.match("GET", "/kv/apple", params);   // m.status == 0, params[0] == {"key", "apple"}
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace duet::http {

// How the server hands a request's body to its handler: read whole into
// Request::body() first (bounded by RequestLimits::max_body), or streamed by
// the handler (the voice's HttpBodyReader); or the route takes the whole
// connection over (a WebSocket route: HttpServer::websocket).
enum class BodyMode : std::uint8_t { whole, stream, upgrade };

struct PathParam {
  std::string_view name;
  std::string_view value;
};

class RouteTable {
 public:
  struct Match {
    int status = 0;  // 0: found; 404; 405
    std::size_t index = 0;  // the route's, in the order of add()
    BodyMode mode = BodyMode::whole;
    std::string allow;  // for 405: "GET, HEAD, PUT"
  };

  // Returns the route's index.
  std::size_t add(std::string_view method, std::string_view pattern, BodyMode mode = BodyMode::whole);

  [[nodiscard]] Match match(std::string_view method, std::string_view path, std::vector<PathParam>& params) const;
  [[nodiscard]] std::size_t size() const noexcept { return routes_.size(); }

 private:
  struct Segment {
    std::string text;  // literal text, or the parameter's name
    bool param = false;
  };
  struct Route {
    std::string method;
    std::vector<Segment> segments;
    bool prefix = false;  // ends in "/*"
    BodyMode mode = BodyMode::whole;
  };

  static bool path_matches(const Route& route, std::string_view path, std::vector<PathParam>& params);

  std::vector<Route> routes_;
};

// "%41b+c" -> "Ab+c" (RFC 3986 percent-decoding; '+' stays); nullopt for a
// bad escape or an encoded NUL.
[[nodiscard]] std::optional<std::string> percent_decode(std::string_view text);

}  // namespace duet::http
