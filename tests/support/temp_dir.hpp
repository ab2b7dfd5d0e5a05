// A fresh directory under /tmp, removed with everything in it on scope exit.
//
//   duet::test::TempDir dir("duet-aof");
//   std::string log = dir.file("appendonly.aof");
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace duet::test {

class TempDir {
 public:
  explicit TempDir(std::string_view prefix) {
    std::string name = "/tmp/" + std::string(prefix) + "-XXXXXX";
    if (::mkdtemp(name.data()) == nullptr) throw std::runtime_error("mkdtemp");
    path_ = name;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() { std::filesystem::remove_all(path_); }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] std::string file(std::string_view name) const { return path_ + "/" + std::string(name); }

 private:
  std::string path_;
};

}  // namespace duet::test
