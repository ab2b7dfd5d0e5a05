// ServerConnection: one connection's states (idle -> head -> [body] -> handle
// -> idle ..., or closing) and the policies between them; see the header.
#include "duet/http/detail/server_connection.hpp"

#include <ctime>
#include <stdexcept>

#include "duet/io/io_result.hpp"

namespace duet::http::detail {

namespace {

constexpr std::size_t response_head_room = 256;  // a typical head: status line, a few fields, Date

bool bodyless_status(int status) noexcept { return status < 200 || status == 204 || status == 304; }

}  // namespace

ServerConnection::ServerConnection(const RouteTable& routes, const HttpServerOptions& options, std::stop_token stop)
    : routes_(routes), options_(options), stop_(std::move(stop)), parser_(options.limits),
      deadline_(Clock::now() + options.idle_timeout) {}

void* ServerConnection::driver(int voice) const {
  if (voice != voice_) throw std::logic_error("duet::http: a request used with the other voice's body reader or stream");
  return driver_;
}

ServerStep ServerConnection::next() {
  for (;;) {
    if (state_ == State::closing) return out_.empty() ? ServerStep::close : ServerStep::send;
    if (state_ == State::handle) return ServerStep::handle;
    if (state_ == State::upgrade) return out_.empty() ? ServerStep::upgrade : ServerStep::send;
    if (state_ == State::idle && (stopping_ || stop_.stop_requested()) && unparsed().empty()) {
      state_ = State::closing;  // a graceful stop ends a connection between requests
      continue;
    }
    if (state_ != State::body && out_.size() >= options_.output_limit) return ServerStep::send;
    ServerStep step = parse_step();
    if (step != ServerStep::handle) return step;  // handle: parse on
  }
}

// One parser event; `handle` here means "go on" (next() looks at the state).
ServerStep ServerConnection::parse_step() {
  const ParseEvent ev = parser_.parse(unparsed());
  pos_ += parser_.consumed();
  switch (ev) {
    case ParseEvent::need_more:
      if (!out_.empty()) return ServerStep::send;  // pipelined answers go out before we wait
      if (eof_) {
        state_ = State::closing;  // a request cut short dies with its client
        return ServerStep::close;
      }
      if (state_ == State::idle && unparsed().empty()) {
        // Between requests a connection keeps no buffer (memory per idle connection).
        std::string().swap(in_);
        std::string().swap(out_);
        std::string().swap(head_store_);
        std::string().swap(body_);
        pos_ = 0;
      }
      return ServerStep::receive;
    case ParseEvent::head:
      on_head();
      break;
    case ParseEvent::body:
      if (state_ == State::body) body_.append(parser_.body());  // else discarded
      break;
    case ParseEvent::message_end:
      body_done_ = true;
      if (state_ == State::discard) {
        finish_request(true);
        break;
      }
      if (match_.status != 0) {  // answered by the connection itself (404, 405), bodyless
        finish_request(true);
        break;
      }
      request_.body_ = body_;
      state_ = State::handle;
      break;
    case ParseEvent::error:
      if (state_ == State::discard) state_ = State::closing;  // the answer went out already
      else reject(parser_.error().status, parser_.error().detail);
      break;
  }
  return ServerStep::handle;
}

void ServerConnection::on_head() {
  const RequestHead& head = parser_.head();
  body_done_ = false;
  body_.clear();
  if (head.body != BodyKind::none) {
    // The body will be received into in_, which moves: the head goes aside.
    head_store_.assign(parser_.head_bytes());
    parser_.relocate_head(head_store_.data());
  }
  if (head.body != BodyKind::none) deadline_ = Clock::now() + options_.body_timeout;
  match_ = routes_.match(head.method, head.path, params_);
  if (match_.status == 404) return reject(404, "no route for this path");
  if (match_.status == 405) return reject(405, "method not allowed here", match_.allow);
  request_.head_ = &parser_.head();
  request_.params_ = params_;
  request_.mode_ = match_.mode;
  request_.stop_ = stop_;
  request_.connection_ = this;
  request_.body_ = {};
  if (match_.mode == BodyMode::upgrade) {
    // The route's handler owns the connection from here (a head it refuses,
    // a body, a HEAD, is its to answer); the core parses nothing more.
    state_ = State::upgrade;
    return;
  }
  if (head.body != BodyKind::none && head.expect_continue) write_continue(out_);
  if (head.body != BodyKind::none) state_ = match_.mode == BodyMode::stream ? State::handle : State::body;
  // else: message_end follows at once, and then the handler
}

// A request the connection answers itself: a parse error (the connection
// closes), or a route it has not (404/405: kept alive, a body read and
// dropped to reach the next request; but a client waiting for 100 Continue
// would never send it: that connection closes).
void ServerConnection::reject(int status, std::string_view detail, std::string_view allow) {
  if (status != 404 && status != 405) {
    write_error_response(out_, HttpError{status, detail});
    state_ = State::closing;
    return;
  }
  const RequestHead& head = parser_.head();
  ResponseWriter w(out_, ResponseContext::from(head));
  w.start(status);
  if (!allow.empty()) w.header("Allow", allow);
  w.header("Content-Type", "text/plain");
  if (options_.date) w.date(std::time(nullptr));
  if (head.expect_continue || stopping_ || stop_.stop_requested()) w.close_connection();
  w.body(std::string(detail) + "\n");
  if (!w.keep_alive()) state_ = State::closing;
  else if (head.body != BodyKind::none) state_ = State::discard;  // message_end then finishes it
}

std::chrono::nanoseconds ServerConnection::wait_budget() const noexcept {
  const auto left = deadline_ - Clock::now();
  return left > Clock::duration::zero() ? std::chrono::duration_cast<std::chrono::nanoseconds>(left)
                                        : std::chrono::nanoseconds(0);
}

void ServerConnection::compact() {
  if (pos_ == 0) return;
  in_.erase(0, pos_);
  pos_ = 0;
}

std::span<char> ServerConnection::recv_space(std::size_t at_least) {
  compact();
  recv_base_ = in_.size();
  in_.resize(recv_base_ + at_least);
  in_.resize(in_.capacity());  // all the room the string has anyway
  return {in_.data() + recv_base_, in_.size() - recv_base_};
}

void ServerConnection::commit(std::size_t n) {
  end_receive(n);
  arrived();
}

// Drops the part of recv_space() that no bytes filled.
void ServerConnection::end_receive(std::size_t n) noexcept {
  if (recv_base_ == no_receive) return;
  in_.resize(recv_base_ + n);
  recv_base_ = no_receive;
}

void ServerConnection::feed(std::string_view bytes) {
  compact();
  in_.append(bytes);
  arrived();
}

void ServerConnection::arrived() {
  if (state_ != State::idle) return;
  state_ = State::head;  // a request begins: from now on its head has head_timeout
  deadline_ = Clock::now() + options_.head_timeout;
}

void ServerConnection::timed_out() {
  end_receive(0);
  if (state_ == State::head || state_ == State::body)  // not idle, not discard: nothing to answer
    write_error_response(out_, HttpError{408, "the request took too long to arrive"});
  state_ = State::closing;
}

void ServerConnection::receive_failed(const std::error_code& error) noexcept {
  if (error == io_errc::eof) received_eof();
  else if (error == std::errc::timed_out) timed_out();
  else if (error == std::errc::operation_canceled && state_ == State::idle) stop();
  else failed();
}

void ServerConnection::failed() noexcept {
  end_receive(0);
  out_.clear();
  broken_ = true;  // also for a handler still running: nothing more goes out
  state_ = State::closing;
}

void ServerConnection::write_fields(ResponseWriter& w, Headers headers) {
  for (const auto& [name, value] : headers) w.header(name, value);
  if (options_.date) w.date(std::time(nullptr));
  if (stopping_ || stop_.stop_requested()) w.close_connection();
}

void ServerConnection::respond(const Response& response) {
  if (broken_) return finish_request(false);
  if (response.is_streamed() || stream_) {
    if (!stream_) return handler_failed();  // "streamed" but never started
    if (!stream_->done()) end_stream();
    finish_request(stream_->keep_alive());
    return;
  }
  const std::size_t mark = out_.size();
  // One allocation for the head and body, not one per doubling as they are appended.
  out_.reserve(mark + response_head_room + response.body.size());
  bool keep_alive = false;
  try {
    ResponseWriter w(out_, ResponseContext::from(parser_.head()));
    w.start(response.status);
    write_fields(w, response.headers);
    if (response.close) w.close_connection();
    if (bodyless_status(response.status)) w.end();
    else w.body(response.body);
    keep_alive = w.keep_alive();
  } catch (const std::exception&) {  // a status or field the writer refuses: the handler's bug
    out_.resize(mark);
    return handler_failed();
  }
  finish_request(keep_alive);
}

void ServerConnection::handler_failed() {
  if (broken_) return finish_request(false);
  if (!stream_) write_error_response(out_, HttpError{500, "the handler failed"});
  // A stream already begun cannot be mended: its client sees it cut short.
  stream_.reset();
  finish_request(false);
}

void ServerConnection::finish_request(bool keep_alive) {
  request_ = Request{};
  params_.clear();
  stream_.reset();
  match_ = {};
  if (!keep_alive || broken_ || stopping_ || stop_.stop_requested()) {
    state_ = State::closing;
    return;
  }
  if (!body_done_) {
    // The handler left part of its body unread: it is read and dropped
    // (bounded by max_body and body_timeout) to reach the next request.
    state_ = State::discard;
    return;
  }
  const bool more = !unparsed().empty();
  state_ = more ? State::head : State::idle;
  deadline_ = Clock::now() + (more ? options_.head_timeout : options_.idle_timeout);
}

BodyPiece ServerConnection::next_body_piece(std::string_view& piece) {
  if (body_done_) return BodyPiece::end;
  const ParseEvent ev = parser_.parse(unparsed());
  pos_ += parser_.consumed();
  switch (ev) {
    case ParseEvent::body:
      piece = parser_.body();
      return BodyPiece::data;
    case ParseEvent::message_end:
      body_done_ = true;
      return BodyPiece::end;
    case ParseEvent::need_more:
      return eof_ ? BodyPiece::failed : BodyPiece::need_more;
    default:  // error (a bad chunk, past max_body): the handler answers, the connection closes
      return BodyPiece::failed;
  }
}

void ServerConnection::begin_stream(int status, Headers headers) {
  if (stream_) throw std::logic_error("duet::http: a response stream was already begun");
  stream_.emplace(out_, ResponseContext::from(parser_.head()));
  stream_->start(status);
  write_fields(*stream_, headers);
  stream_->begin_chunked();
}

void ServerConnection::stream_piece(std::string_view data) {
  if (!stream_) throw std::logic_error("duet::http: write before the response stream began");
  if (!data.empty()) stream_->chunk(data);
}

void ServerConnection::end_stream() {
  if (!stream_) throw std::logic_error("duet::http: finish before the response stream began");
  stream_->end_chunked();
}

}  // namespace duet::http::detail
