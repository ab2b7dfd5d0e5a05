// Helpers for the KV tests: encode commands as RESP, run them through a Session.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "kv/session.hpp"

namespace kvtest {

inline std::string resp(std::initializer_list<std::string_view> args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (std::string_view a : args) out += "$" + std::to_string(a.size()) + "\r\n" + std::string(a) + "\r\n";
  return out;
}

inline std::string resp(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return out;
}

// Feeds bytes and returns (and drains) everything the session wants to send.
inline std::string talk(duet::kv::Session& s, std::string_view bytes) {
  s.feed(bytes);
  std::string out(s.output());
  s.consume_output(out.size());
  return out;
}

inline std::string run(duet::kv::Session& s, std::initializer_list<std::string_view> args) {
  return talk(s, resp(args));
}

// A server state on a test clock (tests move `now`) with one session on it.
struct SessionFixture {
  std::int64_t now = 1'700'000'000'000;
  duet::kv::ServerState state;
  duet::kv::Session session{state};
  SessionFixture() { state.set_clock([this] { return now; }); }
  std::string cmd(std::initializer_list<std::string_view> args) { return run(session, args); }
};

}  // namespace kvtest
