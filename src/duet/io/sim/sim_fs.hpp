// duet::detail::SimFs — the in-memory file system of a SimWorld: what a
// process may lose when it dies, and nothing more.
//
// Contract
// - Files are byte strings with two versions: what reads see (the page
//   cache) and what survives a crash (the last fsync/fdatasync of that file).
//   A name (create, rename, unlink) survives a crash once its directory was
//   fsynced — or, for a file's own creation, once the file was (as ext4 does);
//   a rename or unlink needs the directory's fsync. Directories are not
//   tracked: any path opened with O_DIRECTORY is one.
// - crash(torn): the process dies. Every name and byte not made durable is
//   gone; with torn, a file that only grew by appends keeps a seeded prefix of
//   its unsynced tail, as a torn last write would. Until restart(), the
//   dead process's code may still run (its owner winds it down), but nothing
//   it does reaches the disk: its descriptors, and any it opens, are dead —
//   writes and fsyncs claim success, reads see end of file — and its
//   renames and unlinks change nothing. restart(): a new process begins.
// - Faults (SimOptions): a write may fail with ENOSPC, an fsync with EIO
//   (whose unsynced bytes are then gone, as Linux drops the dirty pages).
// - Calls answer as the syscalls, errno as -errno. Paths are compared after
//   removing "./" and doubled slashes. The world's thread only.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace duet {
class SimWorld;
}

namespace duet::detail {

class SimFs {
 public:
  static constexpr int first_fd = (1 << 24) + (1 << 22);  // above the sockets' numbers

  explicit SimFs(SimWorld& world) noexcept : world_(world) {}
  [[nodiscard]] static bool owns(int fd) noexcept { return fd >= first_fd; }

  int open(std::string_view path, int flags, mode_t mode);
  int close(int fd);
  int read(int fd, void* buf, std::size_t len, std::int64_t offset);    // offset -1: the current position
  int write(int fd, const void* buf, std::size_t len, std::int64_t offset);
  int fsync(int fd);
  int ftruncate(int fd, std::int64_t size);
  int size(int fd, std::int64_t& out);
  int rename(std::string_view from, std::string_view to);
  int unlink(std::string_view path);
  void crash(bool torn);
  void restart() noexcept { dead_ = false; }
  // For tests: the bytes a path holds now (nullptr: no such file).
  [[nodiscard]] const std::string* contents(std::string_view path) const;

 private:
  struct Inode {
    std::string data;
    std::string synced;
  };
  struct Open {
    std::shared_ptr<Inode> inode;  // null: a directory
    std::string path;
    int flags = 0;
    std::int64_t position = 0;
    bool dead = false;  // opened by a process that has crashed since
  };
  [[nodiscard]] static std::string normal(std::string_view path);
  [[nodiscard]] Open* find(int fd) noexcept;

  SimWorld& world_;
  std::map<std::string, std::shared_ptr<Inode>> names_;
  std::map<std::string, std::shared_ptr<Inode>> durable_names_;
  std::unordered_map<int, Open> open_;
  int next_fd_ = first_fd;
  bool dead_ = false;  // crashed, not restarted yet
};

}  // namespace duet::detail
