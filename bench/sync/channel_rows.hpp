// sync/channel_pingpong — what every row of it does, duet's and its peers'.
//
// Two parties on one thread ping-pong one int through two channels of
// capacity 1 (Boost.Fiber: buffered_channel(2), which holds 2 - 1 = 1):
//   pinger: send(ping, v); v = recv(pong);       repeated, then close(ping)
//   ponger: v = recv(ping); send(pong, v + 1);    until ping is closed
// One iteration is one round trip: two hand-offs, each a value that one party
// sends and the other, blocked in recv, is woken to take. So per hand-off is
// the row's time / 2. Rows: duet_task beside asio (1.22,
// experimental::channel with C++20 awaitables), duet_fiber beside boost_fiber.
#pragma once
