// duet::http::detail::ServerConnection — one HTTP/1.1 server connection's
// logic, sans-I/O and written once for both voices: the voices' servers
// (task/http_server.cpp, stackful/http_server.cpp) only receive, send, call
// the handler and wait.
//
// Contract
// - next() says what the driver does now:
//     receive  wait for bytes, at most wait_budget() (0: the deadline has
//              passed: call timed_out() instead), then feed()/commit() them,
//              or received_eof(), timed_out(), or failed();
//              idle_wait() says whether it is the wait between requests (the
//              one a server's stop cancels: then call stop());
//     send     send output() within the options' send_timeout, then sent()
//              (or failed() if it could not);
//     handle   call handler route() with request(), then respond() (or
//              handler_failed() if it threw);
//     upgrade  a route that takes the connection over (BodyMode::upgrade):
//              hand the stream, request() and leftover() (the bytes received
//              after its head) to the route's handler; the core is done
//              (answers to earlier pipelined requests went out first);
//     close    close the connection.
// - Every policy lives here: framing and pipelining (responses to pipelined
//   requests gathered into one send), 100-continue, routing (404/405 with
//   Allow), the body read whole (bounded by max_body) or streamed by the
//   handler (next_body_piece), the deadlines (head, body, idle), a graceful
//   stop (no request after the one in progress), errors answered with their
//   status and Connection: close, and memory: between requests a connection
//   holds no buffer at all.
// - Buffers: received bytes are kept in an own string (the drivers copy a
//   pooled recv's bytes in, or receive into recv_space()); a request's views
//   stay valid until respond(). One thread; one object per connection.
//
//   detail::ServerConnection c(routes, options);
//   for (;;) switch (c.next()) { case ServerStep::receive: ...; case ServerStep::close: return; ... }
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "duet/http/request.hpp"
#include "duet/http/request_parser.hpp"
#include "duet/http/response.hpp"
#include "duet/http/response_writer.hpp"
#include "duet/http/route_table.hpp"
#include "duet/http/server_options.hpp"

namespace duet::http::detail {

enum class ServerStep : std::uint8_t { receive, send, handle, upgrade, close };

// What a streamed body's next read found.
enum class BodyPiece : std::uint8_t { data, end, need_more, failed };

class ServerConnection {
 public:
  using Clock = std::chrono::steady_clock;
  using Headers = std::span<const std::pair<std::string, std::string>>;

  ServerConnection(const RouteTable& routes, const HttpServerOptions& options, std::stop_token stop = {});
  ServerConnection(const ServerConnection&) = delete;
  ServerConnection& operator=(const ServerConnection&) = delete;

  [[nodiscard]] ServerStep next();

  // receive
  [[nodiscard]] bool idle_wait() const noexcept { return state_ == State::idle; }
  [[nodiscard]] std::chrono::nanoseconds wait_budget() const noexcept;
  [[nodiscard]] std::span<char> recv_space(std::size_t at_least = 4096);
  void commit(std::size_t n);
  void feed(std::string_view bytes);
  void received_eof() noexcept {
    end_receive(0);
    eof_ = true;
  }
  void timed_out();
  void stop() noexcept { stopping_ = true; }
  // A receive that did not bring bytes: EOF, timed_out, a stop of the idle
  // wait (operation_canceled), or a failure; the same as the calls above.
  void receive_failed(const std::error_code& error) noexcept;
  // The connection is unusable (a send or receive failed): it closes, even
  // under a handler still running (its response is dropped).
  void failed() noexcept;

  // send
  [[nodiscard]] std::string_view output() const noexcept { return out_; }
  void sent() noexcept { out_.clear(); }

  // handle
  [[nodiscard]] std::size_t route() const noexcept { return match_.index; }
  [[nodiscard]] Request& request() noexcept { return request_; }
  void respond(const Response& response);
  void handler_failed();

  // upgrade: what arrived after the request's head (maybe the first frames).
  [[nodiscard]] std::string_view leftover() const noexcept { return unparsed(); }

  // A streamed body (BodyMode::stream), read by the handler: data sets piece
  // (valid until the next call); need_more: send output() if any, receive, ask again.
  [[nodiscard]] BodyPiece next_body_piece(std::string_view& piece);
  // A streamed response: the head (chunked, or close-delimited to HTTP/1.0),
  // pieces, the end; each only adds to output(), which the handler's voice sends.
  void begin_stream(int status, Headers headers);
  void stream_piece(std::string_view data);
  void end_stream();
  [[nodiscard]] bool stream_started() const noexcept { return stream_.has_value(); }

  // The voice's own connection object, for its HttpBodyReader/HttpResponseStream.
  void set_driver(void* driver, int voice) noexcept {
    driver_ = driver;
    voice_ = voice;
  }
  [[nodiscard]] void* driver(int voice) const;

 private:
  enum class State : std::uint8_t { idle, head, body, handle, upgrade, discard, closing };

  [[nodiscard]] std::string_view unparsed() const noexcept {
    return std::string_view(in_).substr(pos_);
  }
  void compact();
  void end_receive(std::size_t n) noexcept;
  void arrived();
  ServerStep parse_step();
  void on_head();
  void reject(int status, std::string_view detail, std::string_view allow = {});
  void finish_request(bool keep_alive);
  void write_fields(ResponseWriter& w, Headers headers);

  const RouteTable& routes_;
  const HttpServerOptions& options_;
  std::stop_token stop_;
  RequestParser parser_;
  State state_ = State::idle;
  bool eof_ = false;
  bool stopping_ = false;
  bool broken_ = false;  // a send or receive failed: the connection only closes now
  bool body_done_ = false;  // the current request's message_end was seen
  Clock::time_point deadline_;
  std::string in_;
  std::size_t pos_ = 0;  // in_[pos_..] not yet parsed
  static constexpr std::size_t no_receive = ~std::size_t{0};
  std::size_t recv_base_ = no_receive;  // where recv_space() began, until commit()
  std::string out_;
  std::string head_store_;  // a head with a body moves here, so in_ can be compacted
  std::string body_;
  std::vector<PathParam> params_;
  RouteTable::Match match_;
  Request request_;
  std::optional<ResponseWriter> stream_;
  void* driver_ = nullptr;
  int voice_ = -1;
};

}  // namespace duet::http::detail
