// duet::http::detail::ClientConnection<Tcp, Tls> — one connection of an HTTP
// client: a plain stream (http://) or a TLS stream over one (https://), for
// either voice's stream types, so the pool (IdlePool) holds one type.
//
// Contract
// - Holds exactly one of the two, chosen when made; tcp() / tls() give the
//   one it holds (the other is nullptr). Move-only as the streams are;
//   destroying it closes the stream. One thread.
//
//   ClientConnection<TcpStream, TlsStream> c(std::move(tcp));
//   if (auto* s = c.tcp()) s->recv(buf); else c.tls()->recv(buf);
#pragma once

#include <utility>
#include <variant>

namespace duet::http::detail {

template <typename Tcp, typename Tls>
class ClientConnection {
 public:
  ClientConnection() = default;
  explicit ClientConnection(Tcp tcp) : stream_(std::in_place_index<0>, std::move(tcp)) {}
  explicit ClientConnection(Tls tls) : stream_(std::in_place_index<1>, std::move(tls)) {}

  [[nodiscard]] Tcp* tcp() noexcept { return std::get_if<0>(&stream_); }
  [[nodiscard]] Tls* tls() noexcept { return std::get_if<1>(&stream_); }

 private:
  std::variant<Tcp, Tls> stream_;
};

}  // namespace duet::http::detail
