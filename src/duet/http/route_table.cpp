// RouteTable: patterns split into segments once at add(); match() walks the
// path segment by segment without allocating (params reuses its capacity).
#include "duet/http/route_table.hpp"

#include <stdexcept>

#include "duet/http/detail/http_chars.hpp"

namespace duet::http {

namespace {

[[noreturn]] void bad_pattern(std::string_view why) {
  throw std::invalid_argument("duet::http::RouteTable: " + std::string(why));
}

// The next segment of `rest` (which starts after a '/'), and rest moved past it and its '/'.
std::string_view take_segment(std::string_view& rest, bool& more) noexcept {
  const auto slash = rest.find('/');
  std::string_view segment = rest.substr(0, slash);
  more = slash != std::string_view::npos;
  rest = more ? rest.substr(slash + 1) : std::string_view();
  return segment;
}

}  // namespace

std::size_t RouteTable::add(std::string_view method, std::string_view pattern, BodyMode mode) {
  if (method != "*" && !detail::is_token(method)) bad_pattern("the method is not a token");
  if (pattern.empty() || pattern.front() != '/') bad_pattern("a pattern starts with '/'");
  Route route{std::string(method), {}, false, mode};
  std::string_view rest = pattern.substr(1);
  for (bool more = true; more;) {
    const std::string_view segment = take_segment(rest, more);
    if (segment == "*") {
      if (more) bad_pattern("'*' must be the last segment");
      route.prefix = true;
    } else if (!segment.empty() && segment.front() == '{') {
      if (segment.size() < 3 || segment.back() != '}') bad_pattern("a parameter is {name}");
      route.segments.push_back({std::string(segment.substr(1, segment.size() - 2)), true});
    } else {
      if (segment.find_first_of("{}*") != std::string_view::npos) bad_pattern("'{', '}' or '*' inside a segment");
      route.segments.push_back({std::string(segment), false});
    }
  }
  routes_.push_back(std::move(route));
  return routes_.size() - 1;
}

bool RouteTable::path_matches(const Route& route, std::string_view path, std::vector<PathParam>& params) {
  params.clear();
  if (path.empty() || path.front() != '/') return false;  // "*" (OPTIONS *) matches no pattern
  std::string_view rest = path.substr(1);
  bool more = true;
  for (const Segment& s : route.segments) {
    if (!more) return false;  // the path ended first
    const std::string_view segment = take_segment(rest, more);
    if (s.param) {
      if (segment.empty()) return false;
      params.push_back({s.text, segment});
    } else if (segment != s.text) {
      return false;
    }
  }
  if (route.prefix) {
    if (!more) return false;  // "/static" is not under "/static/*"
    params.push_back({"*", rest});
    return true;
  }
  return !more;
}

RouteTable::Match RouteTable::match(std::string_view method, std::string_view path,
                                    std::vector<PathParam>& params) const {
  Match m;
  m.status = 404;
  // A HEAD request falls back to a GET route when no HEAD route matches: two passes.
  for (std::string_view wanted : {method, method == "HEAD" ? std::string_view("GET") : std::string_view()}) {
    if (wanted.empty()) break;
    for (std::size_t i = 0; i < routes_.size(); ++i) {
      const Route& r = routes_[i];
      if (!path_matches(r, path, params)) continue;
      if (r.method == wanted || r.method == "*") return {0, i, r.mode, {}};
      if (m.allow.find(r.method) == std::string::npos) {
        if (!m.allow.empty()) m.allow += ", ";
        m.allow += r.method;
        if (r.method == "GET" && m.allow.find("HEAD") == std::string::npos) m.allow += ", HEAD";
      }
      m.status = 405;
    }
  }
  params.clear();
  return m;
}

std::optional<std::string> percent_decode(std::string_view text) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;  // needs two hex digits
    const int hi = hex(text[i + 1]);
    const int lo = hex(text[i + 2]);
    if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

}  // namespace duet::http
