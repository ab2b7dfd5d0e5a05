// duet::kv::sim — the simulated clients of duet-kv-sim: a seeded workload on
// the real server's real drivers, every reply checked against KvModel.
//
// Contract
// - drive(loop, run, stop) runs on the server's own loop (the simulation is
//   one thread): one subscriber on run.channel, then run.clients clients,
//   each sending pipelines of 1..run.max_pipeline commands until it has sent
//   its share of run.requests; each reply is checked as it arrives. Then the
//   subscriber must have every message a PUBLISH was acknowledged for, in
//   each publisher's order. Beside them a slow reader pipelines big GETs and
//   reads them a little at a time, and is still reading when drive calls
//   stop(): the server must then stop within 30 s of virtual time although
//   that client stops reading (its sends are cancelled). The first failure
//   is kept in run.failure and ends the run early. Whoever runs the loop
//   after the server stopped sets run.server_stopped and turns the loop
//   until run.finished.
// - reply_length(bytes) frames one RESP2 reply: its length, 0 if incomplete,
//   npos if malformed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "io/event_loop.hpp"
#include "io/sim_world.hpp"
#include "io/socket_address.hpp"
#include "task/task.hpp"

namespace duet::kv::sim {

struct SimRun {
  SimRun(SimWorld& w, const SocketAddress& address) : world(w), server(address) {}
  SimWorld& world;
  SocketAddress server;
  std::uint64_t requests = 10000;
  int clients = 8;
  int max_pipeline = 8;
  std::string channel = "sim:events";
  // Outcome.
  std::string failure;
  std::uint64_t replies_checked = 0;
  std::uint64_t published = 0;
  std::uint64_t delivered = 0;
  bool clients_done = false;
  bool stop_requested = false;  // drive asked the server to stop
  bool server_stopped = false;  // the driver's loop is past its server (ServerRuntime::on_stopped)
  bool finished = false;        // drive has returned: nothing of it is left on the loop
};

[[nodiscard]] std::size_t reply_length(std::string_view bytes, std::size_t at = 0);
[[nodiscard]] std::int64_t wall_ms() noexcept;

Task<void> drive(EventLoop& loop, SimRun& run, std::function<void()> stop);

}  // namespace duet::kv::sim
