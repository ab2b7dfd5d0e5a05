// kv_web/hiredis_pool.hpp — plain blocking hiredis, lent one connection per
// command: the stackful web example's way to the KV server.
//
// Nothing here knows of fibers: redisConnect and redisCommand block. Under
// libduet_hook (linked, or preloaded) their connect/read/write/poll become
// fiber waits, so each HTTP request's fiber waits for its own reply while the
// others run. A connection is lent to one fiber at a time (hiredis contexts
// are not shared) and returned after a good reply; one that failed is freed.
// The scheduler's thread only.
//
//   HiredisPool kv("127.0.0.1", 6379);
//   auto reply = kv.command("GET %b", key.data(), key.size());
//   if (reply && reply->type == REDIS_REPLY_STRING) use(reply->str, reply->len);
#pragma once

#include <hiredis/hiredis.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

struct ReplyFree {
  void operator()(redisReply* r) const noexcept { freeReplyObject(r); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyFree>;

class HiredisPool {
 public:
  static constexpr std::size_t max_idle = 64;  // connections kept between commands

  HiredisPool(std::string host, int port) : host_(std::move(host)), port_(port) {}
  HiredisPool(const HiredisPool&) = delete;
  HiredisPool& operator=(const HiredisPool&) = delete;
  ~HiredisPool() {
    for (redisContext* c : idle_) redisFree(c);
  }

  // hiredis's printf-like command; nullptr when the server could not be
  // reached or the connection failed mid-command.
  template <typename... Args>
  ReplyPtr command(const char* format, Args... args) {
    redisContext* c = take();
    if (c == nullptr) return nullptr;
    ReplyPtr reply(static_cast<redisReply*>(redisCommand(c, format, args...)));
    if (reply != nullptr && idle_.size() < max_idle) {
      idle_.push_back(c);
    } else {
      redisFree(c);
    }
    return reply;
  }

 private:
  redisContext* take() {
    if (!idle_.empty()) {
      redisContext* c = idle_.back();
      idle_.pop_back();
      return c;
    }
    redisContext* c = redisConnect(host_.c_str(), port_);
    if (c != nullptr && c->err != 0) {
      redisFree(c);
      return nullptr;
    }
    return c;
  }

  std::string host_;
  int port_;
  std::vector<redisContext*> idle_;
};
