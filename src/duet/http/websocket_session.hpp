// duet::WsSession — one WebSocket connection's protocol, written once for
// both voices: a WsReader, a WsWriter and the closing handshake between them
// (RFC 6455 §7). The servers and clients of each voice only move its bytes.
//
// Contract
// - next(input) is WsReader::next plus the decisions a connection makes by
//   itself; each event's `reply`, when not empty, is a frame to send before
//   anything else the caller sends next:
//     ping    → the pong with the ping's payload (automatic pong), while open;
//     close   → the peer's close echoed (its code, no reason; empty for 1005),
//               unless we had sent ours: either way the state is closed;
//     error   → our close with the error's code and reason (unless ours was
//               sent already): the state is closed, the connection fails.
// - States: open → closing (we called close(), waiting for the peer's) →
//   closed; or open → closed when the peer closes first or a rule is broken.
//   Once closed, a server closes TCP (it closes first, RFC 6455 §7.1.1); a
//   client waits for the server's EOF, within a timeout of the driver's.
// - Sending: message(), message_in_place(), fragment(), ping() as WsWriter's,
//   but only while open: after close() (or in closed) they return an empty
//   frame and send nothing, since no data may follow a close frame.
//   Messages received while closing are still delivered.
// - Spans and views as WsReader's and WsWriter's: valid until the next call
//   of the same kind (next(); a data send; a control frame, which replies
//   and ping()/close() share). One session per connection; one thread.
//
//   duet::WsSession ws(duet::WsRole::server, {}, hs.deflate ? std::optional(hs.deflate->params) : std::nullopt);
//   for (auto e = ws.next(in); e.kind != duet::WsEvent::Kind::need_more; e = ws.next(in)) {
//     if (!e.reply.empty()) send(e.reply);
//     if (e.kind == duet::WsEvent::Kind::message) send(ws.message(e.opcode, e.data()));  // echo
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "duet/http/websocket_reader.hpp"
#include "duet/http/websocket_writer.hpp"

namespace duet {

enum class WsState : std::uint8_t { open, closing, closed };

struct WsSessionOptions {
  std::size_t max_message_size = 1024 * 1024;  // 1009 past it; 1 MiB by default
  WsDeflateConfig deflate;                     // our compressor's level, memory, min_compress_size
};

class WsSession {
 public:
  // `deflate`: the handshake's agreement, when it agreed permessage-deflate.
  explicit WsSession(WsRole role, const WsSessionOptions& options = {},
                     const std::optional<WsDeflateParams>& deflate = std::nullopt);

  [[nodiscard]] WsEvent next(std::span<char>& input);

  [[nodiscard]] WsOutFrame message(WsOpcode op, std::string_view payload);
  [[nodiscard]] WsOutFrame message_in_place(WsOpcode op, std::span<char> payload);
  [[nodiscard]] WsOutFrame fragment(WsOpcode op, std::string_view payload, bool last);
  [[nodiscard]] std::span<const char> ping(std::string_view payload = {});
  // Begins the closing handshake (state closing); empty when not open.
  [[nodiscard]] std::span<const char> close(std::uint16_t code = 1000, std::string_view reason = {});

  [[nodiscard]] WsState state() const noexcept { return state_; }
  [[nodiscard]] bool can_send() const noexcept { return state_ == WsState::open; }
  [[nodiscard]] WsRole role() const noexcept { return role_; }
  // What the connection ended with: the peer's close (1005 when it gave no
  // code), the error's code, or 1006 (abnormal) while not closed.
  [[nodiscard]] std::uint16_t close_code() const noexcept { return close_code_; }

  [[nodiscard]] WsReader& reader() noexcept { return reader_; }
  [[nodiscard]] WsWriter& writer() noexcept { return writer_; }

 private:
  WsRole role_;
  WsState state_ = WsState::open;
  std::uint16_t close_code_ = static_cast<std::uint16_t>(WsCloseCode::abnormal);
  WsReader reader_;
  WsWriter writer_;
};

}  // namespace duet
