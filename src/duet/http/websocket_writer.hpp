// duet::WsWriter — the sending half of a WebSocket connection: messages,
// fragments and control frames out as frames ready for the socket.
//
// Contract
// - Each call returns what to send, in order: a WsOutFrame is a header (in
//   the writer) and a payload (the caller's bytes or the writer's), for one
//   writev or two sends; control frames are one span. Nothing is sent by the
//   writer itself (sans-I/O).
// - No copy where the rules allow it: a server's uncompressed message is the
//   caller's bytes. A client must mask (RFC 6455 §5.3, a fresh random key per
//   frame): message() copies into the writer's buffer to mask there;
//   message_in_place() masks the caller's bytes themselves (they are
//   scrambled after the call). A compressed message is compressed into the
//   writer's buffer (and masked there by a client).
// - permessage-deflate (when agreed): messages of min_compress_size bytes or
//   more are compressed, with RSV1 on their first frame only; a fragmented
//   message is compressed as one stream across its fragments.
// - Lifetimes: a WsOutFrame's spans are valid until the next data call
//   (message, message_in_place, fragment); control()'s span until the next
//   control() — the two use separate buffers, so a pong may be made while a
//   message's frame is still being sent. The caller's bytes must stay until sent.
// - A control payload longer than 125 bytes is a caller's mistake: it throws
//   std::invalid_argument. One writer per connection; one thread.
//
//   duet::WsWriter w(duet::WsRole::server);
//   auto f = w.message(duet::WsOpcode::text, "hello");
//   send(f.header); send(f.payload);
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "duet/http/websocket_close.hpp"
#include "duet/http/websocket_deflate.hpp"
#include "duet/http/websocket_extension.hpp"
#include "duet/http/websocket_frame.hpp"

namespace duet {

struct WsOutFrame {
  std::span<const char> header;
  std::span<const char> payload;
  [[nodiscard]] std::size_t size() const noexcept { return header.size() + payload.size(); }
  [[nodiscard]] bool empty() const noexcept { return header.empty(); }
};

class WsWriter {
 public:
  static constexpr std::size_t keep_capacity = 64 * 1024;  // a buffer grown past it is freed by the next frame

  // `deflate`: what the handshake agreed; `config`: level, memory and
  // min_compress_size for our compressor.
  explicit WsWriter(WsRole role, const std::optional<WsDeflateParams>& deflate = std::nullopt,
                    const WsDeflateConfig& config = {});

  // A whole message (op: text or binary) in one frame.
  [[nodiscard]] WsOutFrame message(WsOpcode op, std::string_view payload);
  // The same, but a client masks `payload` where it lies instead of copying it.
  [[nodiscard]] WsOutFrame message_in_place(WsOpcode op, std::span<char> payload);
  // One fragment: `op` names the message's type on its first fragment (later
  // ones are continuations whatever op says); `last` ends the message.
  [[nodiscard]] WsOutFrame fragment(WsOpcode op, std::string_view payload, bool last);
  [[nodiscard]] bool in_fragmented_message() const noexcept { return fragmenting_; }

  // A ping, pong or close frame, header and payload together.
  [[nodiscard]] std::span<const char> control(WsOpcode op, std::string_view payload);
  [[nodiscard]] std::span<const char> close(const WsClose& close);

  [[nodiscard]] bool compressing() const noexcept { return deflater_.has_value(); }

 private:
  WsOutFrame data_frame(WsOpcode op, std::string_view payload, std::span<char> in_place, bool fin);
  WsMaskKey next_mask_key();

  WsRole role_;
  std::size_t min_compress_size_;
  std::optional<WsDeflater> deflater_;
  bool fragmenting_ = false;       // a fragmented message has begun
  bool compress_message_ = false;  // the current message is compressed
  std::array<char, ws_max_header_size> header_{};
  std::string body_;  // a copied, masked or compressed payload
  std::array<char, ws_max_header_size + ws_max_control_payload> control_{};
};

}  // namespace duet
