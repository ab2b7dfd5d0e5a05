#include "kv/shard/every_jobs.hpp"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include <algorithm>
#include <charconv>

#include "kv/reply.hpp"
#include "kv/shard/kv_cluster.hpp"
#include "kv/shard/reply_reader.hpp"

namespace duet::kv {
namespace {

using Items = std::vector<std::optional<std::string_view>>;

Items items_of(std::string_view reply) {
  std::size_t at = 0;
  return detail::read_bulk_array(reply, at).value_or(Items{});
}

}  // namespace

EveryJob::EveryJob(KvShard& origin, int db, Merge merge, std::size_t shards, std::span<const std::string_view> argv)
    : ShardJob(origin, db), merge_(merge), origin_shard_(origin.index()) {
  for (std::size_t s = 0; s < shards; ++s) part(s).argv.assign(argv);
  if (merge == Merge::patterns || merge == Merge::info) names_.resize(shards);
}

// A shard's counts of channels and patterns cannot be added: the same name
// on two shards is one name. The names themselves are copied here, on the
// shard's thread, and counted in finish.
void EveryJob::run_part(KvShard& shard, Part& part) {
  // Only the origin's reply of Merge::origin goes out as it is written.
  const bool as_is = merge_ == Merge::origin && shard.index() == origin_shard_;
  run_argv(shard, part.argv, part.reply, as_is ? resp() : 2);
  if (merge_ == Merge::patterns) {
    names_[shard.index()] = PubSubNames::of(shard.state().pubsub(), true);
  } else if (merge_ == Merge::info && part.reply.find("\r\npubsub_channels:") != std::string::npos) {
    names_[shard.index()] = PubSubNames::of(shard.state().pubsub());  // only when INFO shows the counts
  }
}

void EveryJob::finish(std::string& reply) {
  Reply out(reply, resp());
  const std::string* origin_reply = nullptr;
  const std::string* error = nullptr;
  for (const auto& p : parts()) {
    if (p->shard == origin_shard_) origin_reply = &p->reply;
    if (error == nullptr && detail::is_error_reply(p->reply)) error = &p->reply;
  }
  if (merge_ == Merge::origin) {
    reply = *origin_reply;
    return;
  }
  if (error != nullptr && merge_ != Merge::killed) {
    reply = *error;
    return;
  }
  switch (merge_) {
    case Merge::sum: {
      std::int64_t total = 0;
      for (const auto& p : parts()) total += detail::read_integer(p->reply).value_or(0);
      return out.integer(total);
    }
    case Merge::patterns:
      return out.integer(static_cast<std::int64_t>(distinct_counts(names_).patterns));
    case Merge::all_ok:
    case Merge::origin:
      return out.ok();
    case Merge::concat: {
      std::vector<Items> all;
      std::size_t n = 0;
      for (const auto& p : parts()) n += all.emplace_back(items_of(p->reply)).size();
      out.array(n);
      for (const Items& items : all) {
        for (const auto& item : items) item ? out.bulk(*item) : out.null();
      }
      return;
    }
    case Merge::lines: {  // CLIENT LIST: one line per client, by id as Redis lists them
      std::vector<std::pair<std::uint64_t, std::string_view>> lines;
      for (const auto& p : parts()) {
        std::size_t at = 0;
        auto bulk = detail::read_bulk(p->reply, at);
        std::string_view text = bulk && *bulk ? **bulk : std::string_view();
        while (!text.empty()) {
          const std::size_t end = std::min(text.find('\n'), text.size() - 1) + 1;
          std::uint64_t id = 0;
          if (text.starts_with("id=")) std::from_chars(text.data() + 3, text.data() + end, id);
          lines.emplace_back(id, text.substr(0, end));
          text.remove_prefix(end);
        }
      }
      std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      std::string text;
      for (const auto& line : lines) text.append(line.second);
      return out.verbatim(text);
    }
    case Merge::info: {
      std::vector<std::string_view> texts;
      std::size_t origin = 0;
      for (const auto& p : parts()) {
        std::size_t at = 0;
        auto bulk = detail::read_bulk(p->reply, at);
        if (p->shard == origin_shard_) origin = texts.size();
        texts.push_back(bulk && *bulk ? **bulk : std::string_view());
      }
      return out.verbatim(merge_info(texts, origin, distinct_counts(names_)));
    }
    case Merge::killed: {
      std::int64_t total = 0;
      bool counted = false;
      bool ok = false;
      for (const auto& p : parts()) {
        if (auto n = detail::read_integer(p->reply)) total += *n, counted = true;
        if (p->reply == "+OK\r\n") ok = true;
      }
      if (counted) return out.integer(total);
      if (ok) return out.ok();
      reply = *origin_reply;
      return;
    }
    case Merge::union_names: {
      std::vector<Items> all;
      for (const auto& p : parts()) all.push_back(items_of(p->reply));
      absl::flat_hash_set<std::string_view> seen;
      std::vector<std::string_view> names;
      for (const Items& items : all) {
        for (const auto& item : items) {
          if (item && seen.insert(*item).second) names.push_back(*item);
        }
      }
      out.array(names.size());
      for (std::string_view name : names) out.bulk(name);
      return;
    }
    case Merge::count_pairs: {
      std::vector<Items> all;
      for (const auto& p : parts()) all.push_back(items_of(p->reply));
      const Items& first = all.front();
      out.array(first.size());
      for (std::size_t i = 0; i + 1 < first.size(); i += 2) {
        std::int64_t total = 0;
        for (const Items& items : all) {
          std::int64_t n = 0;
          if (i + 1 < items.size() && items[i + 1]) std::from_chars(items[i + 1]->data(), items[i + 1]->data() + items[i + 1]->size(), n);
          total += n;
        }
        out.bulk(first[i].value_or(""));
        out.integer(total);
      }
      return;
    }
  }
}

RandomKeyJob::RandomKeyJob(KvShard& origin, int db, std::size_t shards)
    : ShardJob(origin, db), sizes_(shards, 0), origin_(origin) {
  for (std::size_t s = 0; s < shards; ++s) part(s);
}

void RandomKeyJob::run_part(KvShard& shard, Part& part) {
  Keyspace& keys = shard.state().store().db(db());
  sizes_[shard.index()] = keys.size();
  if (Entry* e = keys.random(now(), shard.state().store().next_random())) part.reply.assign(e->key.view());
}

// Shard s is picked with probability size(s) / total, so every key is as
// likely as on one shard (up to the single shard's own sampling).
void RandomKeyJob::finish(std::string& reply) {
  std::size_t total = 0;
  for (const auto& p : parts()) total += p->reply.empty() ? 0 : sizes_[p->shard];
  Reply out(reply, resp());
  if (total == 0) return out.null();
  std::size_t pick = origin_.state().store().next_random() % total;
  for (const auto& p : parts()) {
    if (p->reply.empty()) continue;
    if (pick < sizes_[p->shard]) return out.bulk(p->reply);
    pick -= sizes_[p->shard];
  }
  out.null();
}

ScanJob::ScanJob(KvShard& origin, int db, std::size_t shards, std::uint64_t cursor,
                 std::span<const std::string_view> argv)
    : ShardJob(origin, db), shards_(shards), shard_(static_cast<std::size_t>(cursor % shards)) {
  Part& p = part(shard_);
  p.argv.push(argv[0]);
  p.argv.push(std::to_string(cursor / shards));
  for (std::size_t i = 2; i < argv.size(); ++i) p.argv.push(argv[i]);
}

void ScanJob::finish(std::string& reply) {
  const std::string& inner = parts().front()->reply;
  std::size_t at = 0;
  auto header = detail::read_header(inner, at, '*');
  auto next = header ? detail::read_bulk(inner, at) : std::nullopt;
  std::uint64_t cursor = 0;
  if (!next || !*next || std::from_chars((**next).data(), (**next).data() + (**next).size(), cursor).ec != std::errc()) {
    reply = inner;  // an error (a bad COUNT, say): as the shard said it
    return;
  }
  if (cursor != 0) {
    cursor = cursor * shards_ + shard_;
  } else {
    cursor = shard_ + 1 < shards_ ? shard_ + 1 : 0;  // on to the next shard's slot 0
  }
  Reply out(reply, resp());
  out.array(2);
  out.bulk(std::to_string(cursor));
  reply.append(inner, at, std::string::npos);  // the keys, as they came
}

}  // namespace duet::kv
