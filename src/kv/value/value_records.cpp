#include "kv/value/value_records.hpp"

#include <cstring>
#include <initializer_list>
#include <span>
#include <vector>

#include "kv/command_table.hpp"

namespace duet::kv {
namespace {

void put_u32(std::string& out, std::size_t n) {
  auto v = static_cast<std::uint32_t>(n);
  out.append(reinterpret_cast<const char*>(&v), sizeof(v));
}

std::uint32_t get_u32(std::string_view& in) {
  std::uint32_t v = 0;
  std::memcpy(&v, in.data(), sizeof(v));
  in.remove_prefix(sizeof(v));
  return v;
}

void put_command(std::string& out, std::span<const std::string_view> argv) {
  put_u32(out, argv.size());
  for (std::string_view arg : argv) {
    put_u32(out, arg.size());
    out.append(arg);
  }
}

}  // namespace

std::string ValueRecords::encode(const Value& value, std::string_view key) {
  std::string out;
  if (const Object* object = value.object()) {
    object->write_records(key, [&](std::span<const std::string_view> argv) { put_command(out, argv); });
    return out;
  }
  Value::Scratch scratch;
  std::string_view bytes = value.str(scratch);
  if (value.encoding() == "raw" && !bytes.empty()) {
    // A string grown in place (SETBIT, APPEND, BITOP) stays "raw" as in Redis:
    // SETRANGE on the absent key builds it raw, where SET would pick embstr.
    put_command(out, std::initializer_list<std::string_view>{"SETRANGE", key, "0", bytes});
    return out;
  }
  put_command(out, std::initializer_list<std::string_view>{"SET", key, bytes});
  return out;
}

void ValueRecords::replay(ServerState& state, Store& store, int db, std::string_view records, std::int64_t now) {
  std::vector<std::string_view> argv;
  ClientInfo client;
  client.authenticated = true;
  client.db = db;
  std::string unused;
  while (!records.empty()) {
    argv.resize(get_u32(records));
    for (std::string_view& arg : argv) {
      std::uint32_t n = get_u32(records);
      arg = records.substr(0, n);
      records.remove_prefix(n);
    }
    unused.clear();
    CommandContext ctx{state, client, argv, Reply(unused), now, &store};
    ctx.silent = true;  // a move, not a command: no keyspace events
    find_command(argv[0])->handler(ctx);  // our own records: known commands, valid arguments
  }
}

}  // namespace duet::kv
