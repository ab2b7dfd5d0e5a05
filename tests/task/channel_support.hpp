// Helpers shared by the stackless channel tests (channel_test.cpp,
// channel_cancel_test.cpp): one task that sends a Coin and one that receives
// one, each with an optional stop token and timeout, recording the outcome.
//
//   Outcome sent;  Got got;
//   Task<void> s = started(send_coin(ch, 1, sent));  Task<void> r = started(recv_coin(ch, got));
#pragma once

#include <chrono>
#include <optional>
#include <stop_token>
#include <system_error>

#include "support/counted_value.hpp"
#include "sync_support.hpp"
#include "duet/task/channel.hpp"
#include "duet/task/task.hpp"
#include "duet/task/with_timeout.hpp"

namespace duet::test::channel {

using duet::Task;
using duet::test::Coin;
using duet::test::sync::code_of;
using duet::test::sync::Outcome;
using namespace std::chrono_literals;

using Coins = duet::Channel<Coin>;
using Got = std::optional<duet::IoResult<Coin>>;

inline Task<void> send_coin(Coins& ch, int id, Outcome& out, std::stop_token token = {},
                            std::chrono::milliseconds t = 0ms) {
  if (t.count() > 0) {
    auto r = co_await duet::with_timeout(ch.send(Coin(id), std::move(token)), t);
    out = code_of(r);
  } else {
    auto r = co_await ch.send(Coin(id), std::move(token));
    out = code_of(r);
  }
}

inline Task<void> recv_coin(Coins& ch, Got& out, std::stop_token token = {},
                            std::chrono::milliseconds t = 0ms) {
  if (t.count() > 0) {
    auto r = co_await duet::with_timeout(ch.recv(std::move(token)), t);
    out.emplace(std::move(r));
  } else {
    auto r = co_await ch.recv(std::move(token));
    out.emplace(std::move(r));
  }
}

inline int id_of(Got& got) { return got && *got ? (**got).id : -1; }
inline std::error_code code_of_got(const Got& got) { return got && !*got ? got->error() : std::error_code{}; }

}  // namespace duet::test::channel
