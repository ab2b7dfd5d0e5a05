// A 127.0.0.1 port that refuses connections at once: a TCP socket bound there
// but not listening, held open for the fixture's life, so no one else can
// listen on that port meanwhile (a closed listener's port could be reused).
//
//   duet::test::RefusingPort refused;
//   co_await duet::TcpStream::connect(loop, refused.addr);   // connection_refused
#pragma once

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "duet/io/socket_address.hpp"
#include "duet/io/unique_fd.hpp"

namespace duet::test {

struct RefusingPort {
  UniqueFd fd{::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  SocketAddress addr;

  RefusingPort() {
    REQUIRE(fd.get() >= 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0);
    socklen_t len = sizeof a;
    REQUIRE(::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&a), &len) == 0);
    addr = SocketAddress::parse("127.0.0.1", ntohs(a.sin_port)).value();
  }
};

}  // namespace duet::test
