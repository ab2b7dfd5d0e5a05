// Test support for the HTTP request parser: feeds bytes in pieces the way a
// driver does (drop consumed bytes, keep the rest, append what arrives) and
// writes down what came out as one comparable string.
#pragma once

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "duet/http/request_parser.hpp"

namespace http_test {

using duet::http::ParseEvent;
using duet::http::RequestLimits;
using duet::http::RequestParser;

// One message: "METHOD target|path|query|host|1.x|ka|ec|up|H<n>|B<body>|T<trailers>;"
// then "E<status> <detail>" on an error, or "N" if the input ended mid-request.
inline std::string describe_head(const duet::http::RequestHead& h) {
  std::string s;
  s.append(h.method).append(" ").append(h.target).append("|").append(h.path).append("|").append(h.query);
  s.append("|").append(h.host).append(h.version == duet::http::HttpVersion::http_1_1 ? "|1.1" : "|1.0");
  s.append(h.keep_alive ? "|ka" : "|close").append(h.expect_continue ? "|ec" : "").append(h.upgrade ? "|up" : "");
  s.append("|H").append(std::to_string(h.headers.size()));
  return s;
}

// Feeds `input` cut at the sorted offsets `cuts`; checks on the way that
// every view lies inside the bytes passed and consumed() never exceeds them.
inline std::string feed(std::string_view input, const std::vector<std::size_t>& cuts, RequestLimits limits = {}) {
  RequestParser parser(limits);
  std::string out, body, buffer;
  std::size_t start = 0, fed = 0;
  bool in_message = false;
  auto inside = [&](std::string_view v, std::string_view in) {
    return v.empty() || (v.data() >= in.data() && v.data() + v.size() <= in.data() + in.size());
  };
  for (std::size_t i = 0; i <= cuts.size(); ++i) {
    std::size_t to = i < cuts.size() ? cuts[i] : input.size();
    buffer.erase(0, start);  // a driver compacts only while no head is in use
    start = 0;
    buffer.append(input.substr(fed, to - fed));
    fed = to;
    for (;;) {
      std::string_view in = std::string_view(buffer).substr(start);
      ParseEvent ev = parser.parse(in);
      REQUIRE(parser.consumed() <= in.size());
      start += parser.consumed();
      if (ev == ParseEvent::need_more) break;
      if (ev == ParseEvent::error) {
        auto e = parser.error();
        return out + "E" + std::to_string(e.status) + " " + std::string(e.detail);
      }
      if (ev == ParseEvent::head) {
        const auto& h = parser.head();
        REQUIRE(inside(h.method, in));
        REQUIRE(inside(h.target, in));
        for (const auto& f : h.headers) REQUIRE((inside(f.name, in) && inside(f.value, in)));
        out += describe_head(h);
        body.clear();
        in_message = true;
      } else if (ev == ParseEvent::body) {
        REQUIRE(inside(parser.body(), in));
        REQUIRE(!parser.body().empty());
        body += parser.body();
      } else {
        out.append("|B").append(body).append("|T");
        for (const auto& f : parser.trailers()) out.append(f.name).append(":").append(f.value).append(",");
        out += ";";
        in_message = false;
      }
    }
  }
  return out + (in_message || buffer.size() > start ? "N" : "");
}

inline std::string feed_whole(std::string_view input, RequestLimits limits = {}) { return feed(input, {}, limits); }

inline std::string feed_bytewise(std::string_view input, RequestLimits limits = {}) {
  std::vector<std::size_t> cuts;
  for (std::size_t i = 1; i < input.size(); ++i) cuts.push_back(i);
  return feed(input, cuts, limits);
}

// Random cut points from a fixed seed: short pieces mostly, some long.
inline std::vector<std::size_t> random_cuts(std::size_t size, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::size_t> cuts;
  std::size_t at = 0;
  for (;;) {
    std::size_t step = rng() % 4 == 0 ? 1 + rng() % 64 : 1 + rng() % 7;
    at += step;
    if (at >= size) break;
    cuts.push_back(at);
  }
  return cuts;
}

// The same transcript whole, byte by byte and at seeded random splits.
inline std::string feed_every_way(std::string_view input, RequestLimits limits = {}) {
  std::string whole = feed_whole(input, limits);
  INFO("input: " << input);
  CHECK(feed_bytewise(input, limits) == whole);
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    INFO("seed " << seed);
    CHECK(feed(input, random_cuts(input.size(), seed), limits) == whole);
  }
  return whole;
}

}  // namespace http_test
