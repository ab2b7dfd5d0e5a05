#include "kv/detail/split_args.hpp"

#include <cstring>

namespace duet::kv::detail {
namespace {

bool is_space(char c) noexcept {  // C-locale isspace
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

bool is_hex(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

char unescape(char c) noexcept {
  switch (c) {
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'b': return '\b';
    case 'a': return '\a';
    default: return c;
  }
}

// The cursor over a NUL-terminated view: at(i) past the end reads as '\0',
// mirroring the C string Redis walks.
struct Line {
  std::string_view text;
  char at(std::size_t i) const noexcept { return i < text.size() ? text[i] : '\0'; }
};

// One token starting at `p` (not a blank). Returns false on unbalanced quotes.
bool read_token(const Line& line, std::size_t& p, std::string& out) {
  bool in_double = false;
  bool in_single = false;
  for (bool done = false; !done;) {
    char c = line.at(p);
    if (in_double) {
      if (c == '\\' && line.at(p + 1) == 'x' && is_hex(line.at(p + 2)) && is_hex(line.at(p + 3))) {
        out.push_back(static_cast<char>(hex_value(line.at(p + 2)) * 16 + hex_value(line.at(p + 3))));
        p += 3;
      } else if (c == '\\' && line.at(p + 1) != '\0') {
        out.push_back(unescape(line.at(++p)));
      } else if (c == '"') {
        if (line.at(p + 1) != '\0' && !is_space(line.at(p + 1))) return false;
        done = true;
      } else if (c == '\0') {
        return false;
      } else {
        out.push_back(c);
      }
    } else if (in_single) {
      if (c == '\\' && line.at(p + 1) == '\'') {
        ++p;
        out.push_back('\'');
      } else if (c == '\'') {
        if (line.at(p + 1) != '\0' && !is_space(line.at(p + 1))) return false;
        done = true;
      } else if (c == '\0') {
        return false;
      } else {
        out.push_back(c);
      }
    } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\0') {
      done = true;
    } else if (c == '"') {
      in_double = true;
    } else if (c == '\'') {
      in_single = true;
    } else {
      out.push_back(c);
    }
    if (line.at(p) != '\0') ++p;
  }
  return true;
}

}  // namespace

bool split_args(std::string_view text, std::string& storage, std::vector<std::string_view>& args) {
  if (const void* nul = std::memchr(text.data(), '\0', text.size())) {
    text = text.substr(0, static_cast<std::size_t>(static_cast<const char*>(nul) - text.data()));
  }
  Line line{text};
  storage.clear();
  storage.reserve(text.size());  // unescaping never grows, so views stay valid
  args.clear();
  std::size_t p = 0;
  while (true) {
    while (p < text.size() && is_space(text[p])) ++p;
    if (p >= text.size()) return true;
    std::size_t start = storage.size();
    if (!read_token(line, p, storage)) {
      args.clear();
      return false;
    }
    args.emplace_back(storage.data() + start, storage.size() - start);
  }
}

}  // namespace duet::kv::detail
