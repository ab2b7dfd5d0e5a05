// duet::kv::AofBuffer — bytes of append-only-file records, in Redis's AOF format.
//
// Contract
// - Every record is a RESP2 multibulk array (*N, then $len bulk strings), which
//   is what Redis writes and replays, so redis-server can load the file too.
// - append(db, argv) writes a SELECT first when db differs from the database of
//   the previous record in this buffer (db_ = -1, "unknown", forces one).
// - append_command() writes one record with no SELECT (staging one command's
//   records, all of one database); append_records(db, staged) adds them.
// - take() hands the bytes out and keeps the database, so consecutive chunks of
//   one file stay consistent; reset_db() forgets it (a new file or a new reader).
// - A plain value type; one thread.
//
//   AofBuffer buf;
//   std::string_view argv[] = {"SET", "k", "v"};
//   buf.append(0, argv);   // "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n..."
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace duet::kv {

class AofBuffer {
 public:
  void append(int db, std::span<const std::string_view> argv) {
    select(db);
    append_command(argv);
  }
  // Records of one database (staged elsewhere without SELECT), SELECT first if needed.
  void append_records(int db, std::string_view records) {
    if (records.empty()) return;
    select(db);
    bytes_.append(records);
  }
  // One record, no SELECT: for staging the records of one command.
  void append_command(std::span<const std::string_view> argv) {
    header('*', argv.size());
    for (std::string_view arg : argv) bulk(arg);
  }
  void append_command(std::initializer_list<std::string_view> argv) {
    append_command(std::span<const std::string_view>(argv.begin(), argv.size()));
  }
  void append(int db, std::initializer_list<std::string_view> argv) {
    append(db, std::span<const std::string_view>(argv.begin(), argv.size()));
  }
  void append_raw(std::string_view bytes) { bytes_.append(bytes); }
  // Bytes that belong before everything buffered (a failed write put back).
  void prepend_raw(std::string_view bytes) { bytes_.insert(0, bytes); }

  [[nodiscard]] std::string_view bytes() const noexcept { return bytes_; }
  [[nodiscard]] std::size_t size() const noexcept { return bytes_.size(); }
  [[nodiscard]] bool empty() const noexcept { return bytes_.empty(); }
  [[nodiscard]] int db() const noexcept { return db_; }
  std::string take() { return std::exchange(bytes_, std::string()); }
  void clear() noexcept { bytes_.clear(); }
  void reset_db() noexcept { db_ = -1; }

  static std::string number(std::int64_t value) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, value);
    return std::string(buf, r.ptr);
  }

 private:
  void select(int db) {
    if (db == db_) return;
    db_ = db;
    std::string n = number(db);
    header('*', 2);
    bulk("SELECT");
    bulk(n);
  }
  void header(char type, std::size_t n) {
    char buf[24];
    buf[0] = type;
    auto r = std::to_chars(buf + 1, buf + sizeof buf - 2, n);
    r.ptr[0] = '\r';
    r.ptr[1] = '\n';
    bytes_.append(buf, static_cast<std::size_t>(r.ptr + 2 - buf));
  }
  void bulk(std::string_view arg) {
    header('$', arg.size());
    bytes_.append(arg);
    bytes_.append("\r\n", 2);
  }

  std::string bytes_;
  int db_ = -1;
};

}  // namespace duet::kv
