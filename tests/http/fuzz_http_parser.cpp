// libFuzzer target: arbitrary bytes through duet::http::RequestParser.
//
// Properties checked beyond "no crash, no sanitizer report":
// - each parse() gets an exactly sized heap copy of the unconsumed bytes, so
//   ASan reports any read past the input;
// - consumed() never exceeds the bytes passed, every view the parser hands
//   out (head, fields, body, trailers) lies inside them, a body piece is
//   never empty and a head's fields are never more than the limit;
// - the input fed whole and in fuzzer-chosen pieces gives the same requests,
//   bodies, trailers and the same error (the incremental contract).
// Build and run: tests/http/run_fuzz.sh [seconds]
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "duet/http/request_parser.hpp"

namespace {

using duet::http::ParseEvent;
using duet::http::RequestLimits;
using duet::http::RequestParser;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

bool inside(std::string_view v, std::string_view in) {
  return v.empty() || (v.data() >= in.data() && v.data() + v.size() <= in.data() + in.size());
}

void append_head(std::string& out, const duet::http::RequestHead& h, std::string_view in, const RequestLimits& l) {
  check(h.headers.size() <= l.max_headers);
  for (std::string_view v : {h.method, h.target, h.query, h.host}) check(inside(v, in));
  out.append("H").append(h.method).append(" ").append(h.target).append(" ").append(h.path);
  out.append(h.keep_alive ? "+" : "-").append(std::to_string(h.content_length)).append("\n");
  for (const auto& f : h.headers) {
    check(inside(f.name, in) && inside(f.value, in));
    out.append(f.name).append(":").append(f.value).append("\n");
  }
}

// Feeds `input` in pieces of `piece` bytes (0: whole) as a driver would.
std::string run(std::string_view input, std::size_t piece, const RequestLimits& limits) {
  RequestParser parser(limits);
  std::string out, pending, body;  // body pieces are cut where the input was: joined
  for (std::size_t fed = 0; fed < input.size();) {
    std::size_t n = piece == 0 ? input.size() : std::min(piece, input.size() - fed);
    pending.append(input.substr(fed, n));
    fed += n;
    std::unique_ptr<char[]> copy(new char[pending.size()]);
    std::memcpy(copy.get(), pending.data(), pending.size());
    std::string_view in(copy.get(), pending.size());
    for (;;) {
      ParseEvent ev = parser.parse(in);
      check(parser.consumed() <= in.size());
      if (ev == ParseEvent::error) {
        check(parser.error().status >= 400 && parser.error().status <= 505 && !parser.error().detail.empty());
        return out + "B" + body + "E" + std::to_string(parser.error().status) + std::string(parser.error().detail);
      }
      if (ev == ParseEvent::head) append_head(out, parser.head(), in, limits);
      if (ev == ParseEvent::body) {
        check(!parser.body().empty() && inside(parser.body(), in));
        body.append(parser.body());
      }
      if (ev == ParseEvent::message_end) {
        out.append("B").append(body).append("|");
        body.clear();
        for (const auto& f : parser.trailers()) {
          check(inside(f.name, in) && inside(f.value, in));
          out.append(f.name).append(":").append(f.value).append("\n");
        }
        out.append(";");
      }
      in.remove_prefix(parser.consumed());
      if (ev == ParseEvent::need_more) break;
    }
    pending.assign(in);
  }
  return out + "B" + body;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::size_t piece = 1 + data[0] % 17;
  RequestLimits limits;
  if (data[0] & 0x80) {  // small limits, so the fuzzer reaches them
    limits.max_request_line = 40;
    limits.max_head_bytes = 160;
    limits.max_headers = 4;
    limits.max_body = 64;
    limits.max_chunk_extension = 8;
  }
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string whole = run(input, 0, limits);
  std::string pieces = run(input, piece, limits);
  check(whole == pieces);
  return 0;
}
