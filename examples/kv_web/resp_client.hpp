// kv_web/resp_client.hpp — a small RESP2 client for the stackless voice: the
// web example's way to the KV server (duet-kv-*, or any Redis).
//
// RespPool keeps connections to one server and lends one to each command, so
// concurrent HTTP requests each get a connection of their own (a connection
// carries one command at a time) and reuse it afterwards; a connection that
// failed is dropped, not returned. Replies: simple strings, errors, integers,
// bulk strings and nil, which is all GET, SET and DEL answer; an array reply
// is refused as a protocol error. The loop's thread only.
//
//   RespPool kv(loop, duet::SocketAddress::parse("127.0.0.1", 6379).value());
//   std::vector<std::string_view> args{"GET", key};   // named: not a braced list inside co_await (GCC 12)
//   auto r = co_await kv.command(args, stop);
//   if (r && r->kind == RespReply::Kind::bulk) use(r->text);
#pragma once

#include <charconv>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <duet/task/buffered.hpp>
#include <duet/task/tcp_stream.hpp>

struct RespReply {
  enum class Kind { simple, error, integer, bulk, nil } kind = Kind::nil;
  std::string text;        // simple, error (without the '-'), bulk
  long long integer = 0;   // integer
};

class RespPool {
 public:
  static constexpr std::size_t max_bulk = 512 * 1024 * 1024;  // Redis's proto-max-bulk-len
  static constexpr std::size_t max_idle = 64;                 // connections kept between commands

  RespPool(duet::EventLoop& loop, duet::SocketAddress server) : loop_(loop), server_(server) {}

  duet::Task<duet::IoResult<RespReply>> command(std::span<const std::string_view> args, std::stop_token stop) {
    std::unique_ptr<Connection> conn = take();
    if (!conn) {
      auto tcp = co_await duet::TcpStream::connect(loop_, server_, stop);
      if (!tcp) co_return tcp.error();
      conn = std::make_unique<Connection>(std::move(*tcp));
    }
    auto reply = co_await conn->call(encode(args), stop);
    if (reply && idle_.size() < max_idle) idle_.push_back(std::move(conn));  // else it closes here
    co_return reply;
  }

 private:
  struct Connection {
    explicit Connection(duet::TcpStream s) : tcp(std::move(s)), in(tcp) {}
    duet::TcpStream tcp;
    duet::BufferedReader<duet::TcpStream> in;

    duet::Task<duet::IoResult<RespReply>> call(std::string request, std::stop_token stop) {
      auto sent = co_await tcp.send_all(std::string_view(request), stop);
      if (!sent) co_return sent.error();
      auto line = co_await in.read_line(64 * 1024, stop);
      if (!line) co_return line.error();
      std::string_view l = *line;
      if (l.empty()) co_return protocol_error();
      RespReply r;
      std::string_view rest = l.substr(1);
      switch (l[0]) {
        case '+': r.kind = RespReply::Kind::simple; r.text = rest; co_return r;
        case '-': r.kind = RespReply::Kind::error; r.text = rest; co_return r;
        case ':':
          r.kind = RespReply::Kind::integer;
          if (!parse(rest, r.integer)) co_return protocol_error();
          co_return r;
        case '$': {
          long long n = 0;
          if (!parse(rest, n) || n < -1 || n > static_cast<long long>(max_bulk)) co_return protocol_error();
          if (n == -1) co_return r;  // nil
          auto bulk = co_await in.read_exactly(static_cast<std::size_t>(n) + 2, stop);
          if (!bulk) co_return bulk.error();
          if (!bulk->ends_with("\r\n")) co_return protocol_error();
          r.kind = RespReply::Kind::bulk;
          r.text = bulk->substr(0, static_cast<std::size_t>(n));
          co_return r;
        }
        default: co_return protocol_error();
      }
    }
  };

  static bool parse(std::string_view s, long long& out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size();
  }
  static std::error_code protocol_error() { return std::make_error_code(std::errc::protocol_error); }

  // A RESP array of bulk strings: what every Redis client sends.
  static std::string encode(std::span<const std::string_view> args) {
    std::string out = "*" + std::to_string(args.size()) + "\r\n";
    for (std::string_view a : args) {
      out += '$';
      out += std::to_string(a.size());
      out += "\r\n";
      out += a;
      out += "\r\n";
    }
    return out;
  }

  std::unique_ptr<Connection> take() {
    if (idle_.empty()) return nullptr;
    auto c = std::move(idle_.back());
    idle_.pop_back();
    return c;
  }

  duet::EventLoop& loop_;
  duet::SocketAddress server_;
  std::vector<std::unique_ptr<Connection>> idle_;
};
