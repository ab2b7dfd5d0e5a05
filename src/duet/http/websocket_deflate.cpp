// permessage-deflate over zlib. zlib's raw streams (negative windowBits) are
// exactly RFC 7692's "DEFLATE without zlib's header and checksum". Sending, a
// message ends with Z_SYNC_FLUSH, which closes the last block and appends an
// empty stored block (00 00 ff ff) that the RFC strips; receiving, the same
// four bytes are fed back after the message's last byte so that inflate sees
// the end of the block.
#include "duet/http/websocket_deflate.hpp"

#include <zlib.h>

#include <algorithm>
#include <system_error>

namespace duet {
namespace detail {

void ZStreamDeleter::operator()(z_stream_s* z) const noexcept {
  if (inflate) {
    inflateEnd(z);
  } else {
    deflateEnd(z);
  }
  delete z;
}

}  // namespace detail

namespace {

constexpr unsigned char tail[4] = {0x00, 0x00, 0xff, 0xff};
constexpr std::size_t chunk = 16 * 1024;

[[noreturn]] void zlib_failed(const char* what) {
  throw std::system_error(std::make_error_code(std::errc::not_enough_memory), what);
}

}  // namespace

WsDeflater::WsDeflater(int window_bits, bool no_context_takeover, int level, int mem_level)
    : z_(new z_stream_s{}, detail::ZStreamDeleter{false}), no_context_takeover_(no_context_takeover) {
  // zlib refuses a raw 8-bit window (deflateInit2 returns Z_STREAM_ERROR): 9.
  const int bits = std::clamp(window_bits, 9, 15);
  if (deflateInit2(z_.get(), level, Z_DEFLATED, -bits, mem_level, Z_DEFAULT_STRATEGY) != Z_OK) {
    zlib_failed("deflateInit2 failed");  // z_'s deleter ends the half-made stream: harmless
  }
}

void WsDeflater::compress(std::span<const char> in, bool last, std::string& out) {
  z_stream_s& z = *z_;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));  // zlib's API is not const
  z.avail_in = static_cast<uInt>(in.size());
  const int flush = last ? Z_SYNC_FLUSH : Z_NO_FLUSH;
  // Run until zlib leaves output room unused: then it has said all it has.
  for (;;) {
    const std::size_t old = out.size();
    // deflateBound's worst case for this piece, plus a flush's few bytes:
    // usually one round, without zero-filling more than a message's size.
    const std::size_t room = std::min<std::size_t>(deflateBound(&z, z.avail_in) + 16, 1024 * 1024);
    out.resize(old + room);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + old);
    z.avail_out = static_cast<uInt>(room);
    const int rc = deflate(&z, flush);
    out.resize(old + room - z.avail_out);
    if (rc == Z_STREAM_ERROR) zlib_failed("deflate failed");
    if (z.avail_out != 0 && z.avail_in == 0) break;
  }
  if (!last) return;
  if (out.size() >= 4 && std::equal(tail, tail + 4, reinterpret_cast<const unsigned char*>(out.data() + out.size() - 4))) {
    out.resize(out.size() - 4);
  }
  if (no_context_takeover_) deflateReset(&z);
}

WsInflater::WsInflater(int window_bits, bool no_context_takeover)
    : z_(new z_stream_s{}, detail::ZStreamDeleter{true}), no_context_takeover_(no_context_takeover) {
  // A peer that agreed to 8 bits may compress with 9 (zlib's gap above); a
  // larger window to decompress into is always safe, so take at least 9.
  const int bits = std::clamp(window_bits, 9, 15);
  if (inflateInit2(z_.get(), -bits) != Z_OK) zlib_failed("inflateInit2 failed");
}

WsInflater::Result WsInflater::decompress(std::span<const char> in, bool last, std::string& out, std::size_t limit) {
  Result r = Result::ok;
  if (!in.empty()) r = run(reinterpret_cast<const unsigned char*>(in.data()), in.size(), out, limit);
  if (r != Result::ok || !last) return r;
  if (!ended_) r = run(tail, sizeof tail, out, limit);
  ended_ = false;
  if (r == Result::ok && no_context_takeover_) inflateReset(z_.get());
  return r;
}

WsInflater::Result WsInflater::run(const unsigned char* in, std::size_t n, std::string& out, std::size_t limit) {
  z_stream_s& z = *z_;
  z.next_in = const_cast<Bytef*>(in);  // zlib's API is not const
  z.avail_in = static_cast<uInt>(n);
  ended_ = false;
  for (;;) {
    // Room up to one byte past the limit: a byte there means the message is
    // too big. Grown a step at a time, so memory follows the real output.
    const std::size_t old = out.size();
    const std::size_t room = std::min(std::clamp<std::size_t>(n * 4, 256, chunk), limit + 1 - std::min(old, limit));
    out.resize(old + room);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + old);
    z.avail_out = static_cast<uInt>(room);
    const int rc = inflate(&z, Z_SYNC_FLUSH);
    out.resize(old + room - z.avail_out);
    if (out.size() > limit) return Result::too_big;
    if (rc == Z_STREAM_END) {
      // A block with BFINAL set ended the stream (RFC 7692 §7.2.3.4 allows
      // it): what follows starts a new one. If nothing follows, the message
      // is whole without the 00 00 ff ff tail, which would open a block.
      inflateReset(&z);
      if (z.avail_in == 0) {
        ended_ = true;
        return Result::ok;
      }
      continue;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) return Result::corrupt;
    if (z.avail_in == 0 && z.avail_out != 0) return Result::ok;  // all read, all said
    if (rc == Z_BUF_ERROR && z.avail_out != 0) return Result::corrupt;  // stuck: cannot happen on good input
  }
}

}  // namespace duet
