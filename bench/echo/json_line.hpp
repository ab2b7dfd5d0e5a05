// duet::bench::JsonLine — one JSON object, built field by field, for the load
// generators' one-line results.
//
// Contract: num() prints a number with the given decimals (counts below 2^53
// are exact), text() escapes quotes and backslashes and blanks control bytes (a
// server's error text may hold any of them), flag() prints true/false. Field
// names are trusted literals. line() is the object and a newline.
//
//   duet::bench::JsonLine json;
//   json.text("label", "pubsub").num("delivered", 1e6).num("rate", 3.25, 2).flag("stalled", false);
//   std::fputs(json.line().c_str(), stdout);   // {"label":"pubsub","delivered":1000000,...}
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace duet::bench {

class JsonLine {
 public:
  JsonLine& num(const char* name, double v, int decimals = 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return key(name).append(buf), *this;
  }
  JsonLine& text(const char* name, std::string_view v) {
    key(name) += '"';
    for (char ch : v) {
      if (ch == '"' || ch == '\\') out_ += '\\';
      out_ += static_cast<unsigned char>(ch) < 0x20 ? ' ' : ch;
    }
    return out_ += '"', *this;
  }
  JsonLine& flag(const char* name, bool v) { return key(name).append(v ? "true" : "false"), *this; }
  [[nodiscard]] std::string line() const { return out_ + "}\n"; }

 private:
  std::string& key(const char* name) {
    return out_.append(out_.size() > 1 ? ",\"" : "\"").append(name).append("\":");
  }
  std::string out_ = "{";
};

}  // namespace duet::bench
