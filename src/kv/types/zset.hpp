// duet::kv::ZsetObject — a key's sorted set: member → score, ordered by
// (score, member), in Redis 7.0's two encodings.
//
// Contract
// - "listpack" while the set has at most `max_entries` members and every
//   member has at most `max_value` bytes (zset-max-listpack-entries/-value,
//   read at each write); "skiplist" beyond — Redis's name, kept because
//   OBJECT ENCODING is an interface, though the structure is a ZsetTree (an
//   order-statistic B+tree with a member index, kv/types/zset_tree.hpp).
//   A write never converts back; a set built whole (zset_create's hints,
//   zset_fit_encoding) starts in the encoding its size calls for, as Redis's
//   zsetTypeCreate / zsetConvertToListpackIfNeeded.
// - listpack (zset_listpack.hpp): ONE allocation, the 1-byte header then the
//   entries in order, each [varint length][member][score]; a score that is an
//   integer of at most 2^53 in magnitude takes 1 + its bytes, any
//   other 9. Five members "m1".."m5" with small integer scores: 22 bytes.
// - Order is Redis's: score ascending, ties by member bytewise (memcmp, then
//   length). -0.0 and 0.0 are equal scores; a score reads back as given,
//   except that a listpack keeps -0.0 as 0 (Redis 7.0 stores an integral
//   score as an integer there), while the tree keeps -0.0.
//   NaN is never stored (zset_add answers `nan`).
// - Writes go through the functions below on the Value: a listpack write
//   builds the object anew (as Redis's listpack reallocs), so a ZsetObject*
//   held across a write is stale. Reads return views valid until the next
//   write. Ranks are 0-based, ascending.
// - Lexicographic bounds compare members alone, which gives Redis's answer
//   when all scores are equal (ZRANGEBYLEX's precondition).
// - One thread: the shard's that owns the key.
//
//   ZsetLimits limits = ZsetLimits::from(ctx.server.config());
//   Value v;  v.set_object(ZsetObject::create(1, 1, limits));
//   double now = 0;
//   zset_add(v, "alice", 10, 0, now, limits);       // ZaddResult::added
//   v.as<ZsetObject>()->rank("alice") == 0;
#pragma once

#include <absl/functional/function_ref.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "kv/types/zset_tree.hpp"
#include "kv/value/object.hpp"
#include "kv/value/value.hpp"

namespace duet::kv {

struct ServerConfig;

struct ZsetLimits {
  std::size_t max_entries = 128;
  std::size_t max_value = 64;
  [[nodiscard]] static ZsetLimits from(const ServerConfig& config) noexcept;
};

class ZsetObject : public Object {
 public:
  static constexpr ValueType value_type = ValueType::zset;
  using Element = ZsetTree::Element;
  // visit(member, score): false stops the walk.
  using Visit = absl::FunctionRef<bool(std::string_view member, double score)>;

  // An empty set in the encoding that `size_hint` members of at most
  // `value_len_hint` bytes call for (Redis's zsetTypeCreate); the caller adds
  // a member before a key holds it.
  [[nodiscard]] static ObjectPtrOf<ZsetObject> create(std::size_t size_hint, std::size_t value_len_hint,
                                                      const ZsetLimits& limits);
  static void destroy(ZsetObject* zset) noexcept;  // ObjectDeleter's case: either encoding

  [[nodiscard]] bool is_listpack() const noexcept { return encoding_tag() == listpack_tag; }
  [[nodiscard]] std::string_view encoding() const noexcept { return is_listpack() ? "listpack" : "skiplist"; }
  [[nodiscard]] std::size_t size() const noexcept;
  [[nodiscard]] std::size_t memory_usage() const noexcept;
  [[nodiscard]] ObjectPtr clone() const;
  // ZADD key score member ... (scores as %.17g, which reads back exactly).
  void write_records(std::string_view key, RecordSink sink) const;

  [[nodiscard]] std::optional<double> score(std::string_view member) const;
  [[nodiscard]] std::optional<std::size_t> rank(std::string_view member) const;
  [[nodiscard]] Element at(std::size_t rank) const noexcept;  // rank < size()
  // Ranks from `from_rank`: upward, or downward when `reverse`, at most `count`.
  void visit(std::size_t from_rank, std::size_t count, bool reverse, Visit visit) const;
  // Every element whose member's hash falls in the next stretch from
  // `cursor` (ZSCAN); returns the next cursor, 0 when done. A listpack
  // visits all and returns 0, as Redis.
  std::uint64_t scan(std::uint64_t cursor, std::size_t count, Visit visit) const;

  // The first rank whose score is >= x (> x if exclusive); size() if none.
  [[nodiscard]] std::size_t first_rank_with_score(double x, bool exclusive) const;
  // The last rank whose score is <= x (< x if exclusive); nullopt if none.
  [[nodiscard]] std::optional<std::size_t> last_rank_with_score(double x, bool exclusive) const;
  // The same over members alone (lexicographic ranges).
  [[nodiscard]] std::size_t first_rank_with_member(std::string_view m, bool exclusive) const;
  [[nodiscard]] std::optional<std::size_t> last_rank_with_member(std::string_view m, bool exclusive) const;

 protected:
  static constexpr unsigned listpack_tag = 0;
  static constexpr unsigned tree_tag = 1;

  explicit ZsetObject(unsigned encoding_tag) noexcept : Object(value_type, encoding_tag) {}
  ~ZsetObject() = default;
};

// ZADD's flags (Redis's ZADD_IN_*), and what zset_add did (ZADD_OUT_*):
// `same` is a member whose score stays (ZADD INCR still answers it),
// `unchanged` one that NX, XX, GT or LT skipped (Redis's ZADD_OUT_NOP).
enum ZaddFlag : unsigned { zadd_incr = 1, zadd_nx = 2, zadd_xx = 4, zadd_gt = 8, zadd_lt = 16 };
enum class ZaddResult { added, updated, same, unchanged, nan };

// Redis's zsetAdd on the set held by `v`: adds `member` or updates its
// score as the flags allow (INCR adds `score` to the old one); `new_score`
// gets the member's score after the call (unless `nan`: an INCR that made
// NaN, which changes nothing). Converts to the tree past the limits.
ZaddResult zset_add(Value& v, std::string_view member, double score, unsigned flags, double& new_score,
                    const ZsetLimits& limits);
// false when `member` is absent. The caller deletes an emptied key.
bool zset_remove(Value& v, std::string_view member);
// Removes ranks start..stop (stop < size()); returns how many.
std::size_t zset_remove_ranks(Value& v, std::size_t start, std::size_t stop);
// A set built whole (ZUNIONSTORE, ZRANGESTORE, ...) in the tree encoding
// goes back to a listpack if it fits (zsetConvertToListpackIfNeeded).
void zset_fit_encoding(Value& v, const ZsetLimits& limits);

}  // namespace duet::kv
