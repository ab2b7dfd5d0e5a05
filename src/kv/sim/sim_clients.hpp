// duet::kv::sim — the simulated clients of duet-kv-sim: a seeded workload on
// the real server's real drivers, every reply checked against KvModel.
//
// Contract
// - A run is a series of generations, one server process each (the caller
//   makes a new ServerRuntime over the same SimWorld for each, after
//   begin_generation). drive(loop, run, stop) runs one, on the server's own
//   loop (the simulation is one thread): one subscriber on run.channel, then
//   run.clients clients, each sending pipelines of 1..run.max_pipeline
//   commands until it has sent its share of the generation's requests; each
//   reply is checked as it arrives. After a restart every client first reads
//   back all its keys (KvModel::audit). A generation either
//   - ends in a crash (run.crash): at a seeded point the process dies
//     (SimWorld::crash, a torn tail or not); what the clients sent and saw no
//     answer to becomes unknown to their models, and the requests they had
//     not sent move to the next generation; or
//   - ends in a clean stop: the subscriber must have every message a PUBLISH
//     was acknowledged for, in each publisher's order, and a slow reader
//     still reading big GETs when drive calls stop() must not hold the stop
//     up (within 30 s of virtual time; its sends are cancelled); or
//   - only audits (run.audit_only): the last one, after the clean stop.
//   The first failure is kept in run.failure and ends the run early. Whoever
//   runs the loop after the server stopped sets run.server_stopped and turns
//   the loop until run.finished.
// - reply_length(bytes) frames one RESP2 reply: its length, 0 if incomplete,
//   npos if malformed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <memory>
#include <vector>

#include "duet/io/event_loop.hpp"
#include "duet/io/sim_world.hpp"
#include "duet/io/socket_address.hpp"
#include "duet/task/task.hpp"

namespace duet::kv::sim {

class KvModel;

struct SimRun {
  SimRun(SimWorld& w, const SocketAddress& address, int client_count);
  ~SimRun();
  SimRun(const SimRun&) = delete;
  SimRun& operator=(const SimRun&) = delete;
  SimRun(SimRun&&) = delete;
  SimRun& operator=(SimRun&&) = delete;

  // Starts generation `index` with `requests` to send; crash: it ends in one.
  void begin_generation(int index, std::uint64_t requests, bool crash_at_end, bool only_audit);

  SimWorld& world;
  SocketAddress server;
  int clients;
  int max_pipeline = 8;
  std::string channel = "sim:events";
  std::vector<std::unique_ptr<KvModel>> models;  // one per client, across generations
  // This generation.
  int generation = 0;
  std::uint64_t to_send = 0;
  bool crash = false;
  bool audit_only = false;
  bool crashed = false;
  std::uint64_t sent = 0;
  std::uint64_t checked = 0;
  std::uint64_t published = 0;
  std::uint64_t delivered = 0;
  // Outcome, over all generations.
  std::string failure;
  std::uint64_t replies_checked = 0;
  std::uint64_t unknown = 0;  // sent, answer lost to a crash
  std::uint64_t audited = 0;
  std::uint64_t crashes = 0;
  std::uint64_t resets = 0;  // client connections reset (SimOptions::reset) and made again
  bool clients_done = false;
  bool stop_requested = false;  // drive asked the server to stop
  bool server_stopped = false;  // the driver's loop is past its server (ServerRuntime::on_stopped)
  bool finished = false;        // drive has returned: nothing of it is left on the loop
};

[[nodiscard]] std::size_t reply_length(std::string_view bytes, std::size_t at = 0);
[[nodiscard]] std::int64_t wall_ms() noexcept;

Task<void> drive(EventLoop& loop, SimRun& run, std::function<void()> stop);

}  // namespace duet::kv::sim
