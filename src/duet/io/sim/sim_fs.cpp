// SimFs: two maps of names (now, and as a crash would leave them) over
// inodes that hold two versions of their bytes. See sim_fs.hpp.
#include "duet/io/sim/sim_fs.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "duet/io/sim_world.hpp"

namespace duet::detail {

std::string SimFs::normal(std::string_view path) {
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '/' && !out.empty() && out.back() == '/') continue;
    out.push_back(path[i]);
  }
  while (out.size() > 2 && out.compare(0, 2, "./") == 0) out.erase(0, 2);
  return out;
}

SimFs::Open* SimFs::find(int fd) noexcept {
  auto it = open_.find(fd);
  return it == open_.end() ? nullptr : &it->second;
}

int SimFs::open(std::string_view raw, int flags, mode_t /*mode*/) {
  const std::string path = normal(raw);
  Open o;
  o.path = path;
  o.flags = flags;
  o.dead = dead_;  // the dead process's calls go nowhere
  if (!dead_ && (flags & O_DIRECTORY) == 0) {
    auto it = names_.find(path);
    if (it == names_.end()) {
      if ((flags & O_CREAT) == 0) return -ENOENT;
      it = names_.emplace(path, std::make_shared<Inode>()).first;
    } else if ((flags & O_CREAT) != 0 && (flags & O_EXCL) != 0) {
      return -EEXIST;
    }
    o.inode = it->second;
    if ((flags & O_TRUNC) != 0 && (flags & O_ACCMODE) != O_RDONLY) o.inode->data.clear();
  }
  const int fd = next_fd_++;
  open_.emplace(fd, std::move(o));
  return fd;
}

int SimFs::close(int fd) {
  auto it = open_.find(fd);
  if (it == open_.end()) return -EBADF;
  open_.erase(it);  // a dead descriptor closes quietly
  return 0;
}

int SimFs::read(int fd, void* buf, std::size_t len, std::int64_t offset) {
  Open* o = find(fd);
  if (o == nullptr) return -EBADF;
  if (o->dead) return 0;
  if (!o->inode) return -EISDIR;
  if ((o->flags & O_ACCMODE) == O_WRONLY) return -EBADF;
  const std::int64_t at = offset < 0 ? o->position : offset;
  const auto size = static_cast<std::int64_t>(o->inode->data.size());
  const std::size_t n = at >= size ? 0 : std::min<std::size_t>({len, static_cast<std::size_t>(size - at), INT_MAX});
  if (n > 0) std::memcpy(buf, o->inode->data.data() + at, n);
  if (offset < 0) o->position += static_cast<std::int64_t>(n);
  return static_cast<int>(n);
}

int SimFs::write(int fd, const void* buf, std::size_t len, std::int64_t offset) {
  Open* o = find(fd);
  if (o == nullptr) return -EBADF;
  if (o->dead) return static_cast<int>(std::min<std::size_t>(len, INT_MAX));
  if (!o->inode) return -EISDIR;
  if ((o->flags & O_ACCMODE) == O_RDONLY) return -EBADF;
  if (world_.chance(world_.options().enospc)) return -ENOSPC;
  std::string& data = o->inode->data;
  const bool append = (o->flags & O_APPEND) != 0;
  const auto at = static_cast<std::size_t>(append ? static_cast<std::int64_t>(data.size()) : offset < 0 ? o->position : offset);
  const std::size_t n = std::min<std::size_t>(len, INT_MAX);
  if (data.size() < at + n) data.resize(at + n, '\0');
  data.replace(at, n, static_cast<const char*>(buf), n);
  if (offset < 0 || append) o->position = static_cast<std::int64_t>(at + n);
  world_.trace_bytes(buf, n);
  return static_cast<int>(n);
}

// A file's fsync makes its bytes durable, and its own name if the file was
// created under it; a directory's makes every name change durable.
int SimFs::fsync(int fd) {
  Open* o = find(fd);
  if (o == nullptr) return -EBADF;
  if (o->dead) return 0;
  if (!o->inode) {
    durable_names_ = names_;
    return 0;
  }
  if (world_.chance(world_.options().fsync_eio)) {
    o->inode->data = o->inode->synced;  // the dirty pages are dropped
    return -EIO;
  }
  o->inode->synced = o->inode->data;
  if (names_.count(o->path) != 0 && names_[o->path] == o->inode && durable_names_.count(o->path) == 0) {
    durable_names_[o->path] = o->inode;
  }
  return 0;
}

int SimFs::ftruncate(int fd, std::int64_t size) {
  Open* o = find(fd);
  if (o == nullptr) return -EBADF;
  if (o->dead) return 0;
  if (!o->inode || size < 0) return -EINVAL;
  o->inode->data.resize(static_cast<std::size_t>(size), '\0');
  return 0;
}

int SimFs::size(int fd, std::int64_t& out) {
  Open* o = find(fd);
  if (o == nullptr) return -EBADF;
  out = o->inode && !o->dead ? static_cast<std::int64_t>(o->inode->data.size()) : 0;
  return 0;
}

int SimFs::rename(std::string_view from_raw, std::string_view to_raw) {
  if (dead_) return 0;
  const std::string from = normal(from_raw), to = normal(to_raw);
  auto it = names_.find(from);
  if (it == names_.end()) return -ENOENT;
  std::shared_ptr<Inode> inode = it->second;
  names_.erase(it);
  names_[to] = std::move(inode);
  return 0;
}

int SimFs::unlink(std::string_view raw) {
  if (dead_) return 0;
  return names_.erase(normal(raw)) != 0 ? 0 : -ENOENT;
}

void SimFs::crash(bool torn) {
  dead_ = true;
  for (auto& [fd, o] : open_) {
    o.dead = true;
    o.inode.reset();
  }
  names_ = durable_names_;
  for (auto& [path, inode] : names_) {
    const std::string& now = inode->data;
    const std::string& kept = inode->synced;
    const bool grew = now.size() > kept.size() && now.compare(0, kept.size(), kept) == 0;
    std::string survivor = kept;
    if (torn && grew) survivor.append(now, kept.size(), static_cast<std::size_t>(world_.below(now.size() - kept.size() + 1)));
    inode->data = survivor;
    inode->synced = std::move(survivor);
  }
  world_.trace(0xc4a5aULL);
}

const std::string* SimFs::contents(std::string_view path) const {
  auto it = names_.find(normal(path));
  return it == names_.end() ? nullptr : &it->second->data;
}

}  // namespace duet::detail
