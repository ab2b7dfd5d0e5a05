// duet::WsDeflater / duet::WsInflater — permessage-deflate's compression
// (RFC 7692 §7.2) through zlib: raw DEFLATE, a message ends with a sync flush
// whose 00 00 ff ff tail is taken off (sender) and put back (receiver).
//
// Contract
// - A WsDeflater compresses the messages one side sends, a WsInflater
//   decompresses those it receives; WsWriter and WsReader own them when the
//   handshake agreed permessage-deflate (WsDeflateParams says how).
// - A message may be given in pieces (its fragments); `last` ends it. With
//   context takeover the window carries over to the next message (so a
//   repeated message costs a few bytes); without, each message starts empty.
// - Window bits as agreed, with zlib's one gap: it cannot compress raw
//   deflate with an 8-bit window, so 8 compresses with 9, as other
//   implementations do. That stream still fits a 256-byte window: zlib's
//   deflate never refers further back than the window less 262 bytes (250).
// - Decompression is bounded: decompress() stops with too_big as soon as the
//   output would pass `limit`, so a small message that inflates to gigabytes
//   (a zip bomb) costs at most `limit` bytes of memory, never more.
// - Output is appended to the caller's std::string. Move-only; one thread.
//   zlib's own memory per stream: about 2^(window+2) + 2^(mem_level+9) bytes
//   to compress (256 KiB at 15 and 8), 2^window + 7 KiB to decompress.
//
//   duet::WsDeflater d(15, false);  std::string out;
//   d.compress(message, true, out);  // out = the frame's payload, RSV1 set
//   duet::WsInflater i(15, false);  std::string text;
//   if (i.decompress(out, true, text, max_size) != duet::WsInflater::Result::ok) fail();
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

struct z_stream_s;

namespace duet {

namespace detail {
struct ZStreamDeleter {
  bool inflate = false;
  void operator()(z_stream_s* z) const noexcept;
};
using ZStream = std::unique_ptr<z_stream_s, ZStreamDeleter>;
}  // namespace detail

class WsDeflater {
 public:
  // Throws std::system_error if zlib cannot set up (out of memory, bad level).
  WsDeflater(int window_bits, bool no_context_takeover, int level = 6, int mem_level = 8);

  // Appends the compressed form of `in` to `out`; `last` ends the message.
  void compress(std::span<const char> in, bool last, std::string& out);

 private:
  detail::ZStream z_;
  bool no_context_takeover_;
};

class WsInflater {
 public:
  enum class Result { ok, too_big, corrupt };

  explicit WsInflater(int window_bits, bool no_context_takeover);

  // Appends what `in` decompresses to onto `out`, keeping out.size() <= limit
  // (too_big past it); `last` ends the message. After too_big or corrupt the
  // connection fails: the inflater is not to be used again.
  [[nodiscard]] Result decompress(std::span<const char> in, bool last, std::string& out, std::size_t limit);

 private:
  Result run(const unsigned char* in, std::size_t n, std::string& out, std::size_t limit);

  detail::ZStream z_;
  bool no_context_takeover_;
  bool ended_ = false;  // the last input ended exactly at a final block's end
};

}  // namespace duet
