// The sending side. Mask keys come from OpenSSL's generator (RFC 6455 §10.3
// asks for keys an intermediary cannot predict), drawn 64 at a time into a
// per-thread pool so that a frame costs a copy of four bytes, not a call
// into the generator.
#include "duet/http/websocket_writer.hpp"

#include <openssl/rand.h>

#include <cstring>
#include <stdexcept>

namespace duet {
namespace {

struct MaskKeyPool {
  std::array<unsigned char, 256> bytes{};
  std::size_t next = sizeof bytes;

  WsMaskKey take() {
    if (next == bytes.size()) {
      if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
        throw std::runtime_error("OpenSSL's random generator failed");
      }
      next = 0;
    }
    WsMaskKey key;
    std::memcpy(key.data(), bytes.data() + next, 4);
    next += 4;
    return key;
  }
};

thread_local MaskKeyPool mask_keys;

}  // namespace

WsWriter::WsWriter(WsRole role, const std::optional<WsDeflateParams>& deflate, const WsDeflateConfig& config)
    : role_(role), min_compress_size_(config.min_compress_size) {
  if (deflate) {
    deflater_.emplace(deflate->send_window_bits(role_), deflate->send_no_context_takeover(role_), config.level,
                      config.mem_level);
  }
}

WsMaskKey WsWriter::next_mask_key() { return mask_keys.take(); }

WsOutFrame WsWriter::message(WsOpcode op, std::string_view payload) {
  return data_frame(op, payload, {}, true);
}

WsOutFrame WsWriter::message_in_place(WsOpcode op, std::span<char> payload) {
  return data_frame(op, std::string_view(payload.data(), payload.size()), payload, true);
}

WsOutFrame WsWriter::fragment(WsOpcode op, std::string_view payload, bool last) {
  return data_frame(op, payload, {}, last);
}

// `in_place` is `payload` when the caller lets a client mask it there, else empty.
WsOutFrame WsWriter::data_frame(WsOpcode op, std::string_view payload, std::span<char> in_place, bool fin) {
  const bool first = !fragmenting_;
  // The last frame's views end here: a buffer a big message grew is let go,
  // so that an idle connection does not keep it.
  if (body_.capacity() > keep_capacity && payload.size() <= keep_capacity) std::string().swap(body_);
  if (first) {
    // A fragmented message is compressed whatever its first piece's size:
    // the rest of it is not known yet.
    compress_message_ = deflater_ && (!fin || payload.size() >= min_compress_size_);
  }
  WsFrameHeader h;
  h.fin = fin;
  h.opcode = first ? op : WsOpcode::continuation;
  h.rsv1 = first && compress_message_;
  h.masked = role_ == WsRole::client;
  std::span<const char> body(payload.data(), payload.size());
  if (compress_message_) {
    body_.clear();
    deflater_->compress(std::span<const char>(payload.data(), payload.size()), fin, body_);
    // An empty message compresses to nothing once the tail is cut; RFC 7692
    // §7.2.3.6 sends it as one 00 byte (an empty stored block's start).
    if (fin && first && body_.empty()) body_.push_back('\0');
    body = body_;
  }
  if (h.masked) {
    h.mask = next_mask_key();
    if (!compress_message_ && in_place.data() != nullptr) {
      ws_mask(in_place, h.mask);
    } else {
      if (!compress_message_) body_.assign(payload.data(), payload.size());
      ws_mask(body_, h.mask);
      body = body_;
    }
  }
  h.length = body.size();
  const std::size_t n = ws_write_header(h, header_);
  fragmenting_ = !fin;
  return {std::span<const char>(header_.data(), n), body};
}

std::span<const char> WsWriter::control(WsOpcode op, std::string_view payload) {
  if (payload.size() > ws_max_control_payload) throw std::invalid_argument("control frame payload over 125 bytes");
  WsFrameHeader h;
  h.opcode = op;
  h.length = payload.size();
  h.masked = role_ == WsRole::client;
  if (h.masked) h.mask = next_mask_key();
  const std::size_t n = ws_write_header(h, std::span<char, ws_max_header_size>(control_.data(), ws_max_header_size));
  if (!payload.empty()) std::memcpy(control_.data() + n, payload.data(), payload.size());  // data() may be null
  std::span<char> body(control_.data() + n, payload.size());
  if (h.masked) ws_mask(body, h.mask);
  return {control_.data(), n + payload.size()};
}

std::span<const char> WsWriter::close(const WsClose& close) {
  std::array<char, ws_max_control_payload> payload{};
  const std::size_t n = write_close_payload(close, payload);
  return control(WsOpcode::close, std::string_view(payload.data(), n));
}

}  // namespace duet
