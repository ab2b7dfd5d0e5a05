// duet::kv::sim::KvModel — what duet-kv-sim's clients expect of the server:
// a model of one client's own keys, which draws that client's next command
// from the seed and says which replies are correct.
//
// Contract
// - Each client owns its keys ("c<id>:k<n>" strings, "c<id>:n<n>" counters),
//   so its commands apply in the order it sends them and its model is exact:
//   every reply is checked byte for byte. The one uncertainty is time: a key
//   set with PX expires at (execution time + px), and execution lies between
//   the batch's send and its reply; a read in that window accepts both
//   answers, and the reply tells the model which one happened.
// - next() draws a command (RESP bytes) with the set of replies allowed;
//   settle(reply, sent_ms, replied_ms) checks it, updates the model and
//   returns an error text when the reply is wrong (empty when right).
// - A crash (or a reset) leaves the commands sent and not answered unknown:
//   lose(unanswered, ...) keeps, per key, every state some prefix of them
//   would leave (each may have happened or not, in order; an acknowledged
//   one must have). After reconnecting, the client reads back every key
//   (audit()) and settle_audit() accepts only one of those states: an
//   acknowledged write missing, or a value nothing explains, is an error.
// - Plain values on one thread.
//
//   KvModel model(3, world);
//   auto cmd = model.next(now_ms);  ... send cmd.bytes, read a reply r ...
//   if (auto bad = model.settle(cmd, r, sent_ms, replied_ms); !bad.empty()) fail(bad);
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace duet {
class SimWorld;
}

namespace duet::kv::sim {

struct ModelCommand {
  enum class Kind : std::uint8_t { get, set, set_px, del, incr, append, exists, publish, rewrite, audit };
  Kind kind = Kind::get;
  std::string key;
  std::string value;
  std::int64_t px = 0;
  std::string bytes;  // the command in RESP
};

class KvModel {
 public:
  KvModel(int client, SimWorld& world) : client_(client), world_(world) {}

  [[nodiscard]] ModelCommand next(const std::string& channel);
  // Checks reply against the model for a command sent at sent_ms and answered
  // by replied_ms (virtual wall-clock ms); "" when correct, else what is wrong.
  [[nodiscard]] std::string settle(const ModelCommand& cmd, const std::string& reply, std::int64_t sent_ms,
                                   std::int64_t replied_ms);
  void lose(const std::vector<ModelCommand>& unanswered, std::int64_t sent_ms, std::int64_t lost_ms);
  [[nodiscard]] std::vector<ModelCommand> audit() const;
  [[nodiscard]] std::string settle_audit(const ModelCommand& cmd, const std::string& reply, std::int64_t sent_ms,
                                         std::int64_t replied_ms);

 private:
  struct Key {
    std::optional<std::string> value;
    // Expiry between lo and hi (unix ms), or none. Present for sure before
    // lo, gone for sure after hi.
    std::int64_t expire_lo = INT64_MAX;
    std::int64_t expire_hi = INT64_MAX;
  };
  enum class Presence : std::uint8_t { present, absent, unknown };

  [[nodiscard]] Presence presence(const Key& k, std::int64_t sent_ms, std::int64_t replied_ms) const noexcept;
  [[nodiscard]] std::string value_for(std::size_t round);
  [[nodiscard]] std::vector<Key> after(const Key& k, const ModelCommand& cmd, std::int64_t sent_ms,
                                       std::int64_t lost_ms) const;
  [[nodiscard]] std::string audit_counter(const ModelCommand& cmd, const std::string& reply);

  int client_;
  SimWorld& world_;
  std::map<std::string, Key> keys_;
  std::map<std::string, std::int64_t> counters_;
  // Unknown outcomes since a lost connection, until the audit settles them.
  std::map<std::string, std::vector<Key>> maybe_keys_;
  std::map<std::string, std::vector<std::int64_t>> maybe_counters_;
  std::uint64_t rounds_ = 0;
};

// RESP encoders of the replies the model compares with.
[[nodiscard]] std::string resp_bulk(const std::optional<std::string>& v);
[[nodiscard]] std::string resp_int(std::int64_t n);
[[nodiscard]] std::string resp_command(const std::vector<std::string>& args);

}  // namespace duet::kv::sim
