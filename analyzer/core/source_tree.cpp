#include "core/source_tree.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fnmatch.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace tpulint {

namespace {

FileStamp stamp_from(const struct stat& st) {
  return {uint64_t(st.st_size), int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
          int64_t(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec, uint64_t(st.st_ino)};
}

class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Resolves `relative` (normalized) beneath `root_fd` following no symlink: openat2 where the
// kernel has it (Linux 5.6), else one openat per component.
int open_beneath(int root_fd, const std::string& relative, int flags) {
  flags |= O_CLOEXEC | O_NOFOLLOW;
#ifdef SYS_openat2
  static std::atomic<bool> have_openat2{true};
  if (have_openat2.load(std::memory_order_relaxed)) {
    open_how how{};
    how.flags = uint64_t(flags);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    long fd = syscall(SYS_openat2, root_fd, relative.c_str(), &how, sizeof how);
    if (fd >= 0) return int(fd);
    // ENOSYS: an older kernel; EPERM: a seccomp filter (containers) that does not know it.
    if (errno != ENOSYS && errno != EPERM) return -errno;
    have_openat2.store(false, std::memory_order_relaxed);
  }
#endif
  std::vector<std::string> parts;
  for (size_t start = 0; start <= relative.size();) {
    size_t slash = relative.find('/', start);
    if (slash == std::string::npos) slash = relative.size();
    parts.push_back(relative.substr(start, slash - start));
    start = slash + 1;
  }
  int dir = root_fd;  // closed when replaced, unless it is the root's
  auto step_to = [&](int next) {
    if (dir != root_fd) close(dir);
    dir = next;
  };
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    int next = openat(dir, parts[i].c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) {
      int error = errno;
      struct stat st;
      // O_DIRECTORY | O_NOFOLLOW on a symlink says ENOTDIR: say what openat2 says.
      if (error == ENOTDIR && fstatat(dir, parts[i].c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        error = ELOOP;
      step_to(-1);
      return -error;
    }
    step_to(next);
  }
  int fd = openat(dir, parts.back().c_str(), flags);
  int error = errno;
  step_to(-1);
  return fd >= 0 ? fd : -error;
}

}  // namespace

std::optional<FileStamp> stamp_of(const fs::path& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return std::nullopt;
  return stamp_from(st);
}

std::optional<std::string> normalized_relative_path(std::string_view relative) {
  if (relative.starts_with('/')) return std::nullopt;
  std::vector<std::string_view> parts;
  for (size_t start = 0; start <= relative.size();) {
    size_t slash = relative.find('/', start);
    if (slash == std::string_view::npos) slash = relative.size();
    std::string_view part = relative.substr(start, slash - start);
    start = slash + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (parts.empty()) return std::nullopt;
      parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  for (std::string_view p : parts) {
    if (!out.empty()) out += '/';
    out += p;
  }
  return out;
}

std::string FileRead::reason() const {
  switch (status) {
    case Status::Read: return "";
    case Status::Missing: return "unreadable: No such file or directory";
    case Status::Symlink: return "symlink: not followed";
    case Status::NotRegular: return "not a regular file (a FIFO, socket or device)";
    case Status::TooLarge: return "too large";
    case Status::Unreadable: return std::string("unreadable: ") + std::strerror(error);
  }
  return "";
}

SourceTree::SourceTree(fs::path root) : root_(std::move(root)) {}

SourceTree SourceTree::holding(const fs::path& absolute, std::string_view relative) {
  fs::path rel(relative);
  fs::path root = absolute;
  auto a = std::distance(absolute.begin(), absolute.end()), r = std::distance(rel.begin(), rel.end());
  if (r == 0 || r >= a) return SourceTree(absolute.parent_path());
  auto ai = absolute.end();
  for (auto ri = rel.end(); ri != rel.begin();) {
    --ri, --ai;
    if (*ri != *ai) return SourceTree(absolute.parent_path());
    root = root.parent_path();
  }
  return SourceTree(root);
}

std::optional<std::string> path_beneath(const fs::path& path, const fs::path& base) {
  auto pi = path.begin();
  for (auto bi = base.begin(); bi != base.end(); ++bi, ++pi) {
    if (bi->empty()) continue;  // a trailing separator
    if (pi == path.end() || *pi != *bi) return std::nullopt;
  }
  std::string rel;
  for (; pi != path.end(); ++pi) {
    if (pi->empty()) continue;
    if (!rel.empty()) rel += '/';
    rel += pi->string();
  }
  return rel;
}

std::optional<std::string> SourceTree::relative_path(const fs::path& absolute) const {
  return path_beneath(absolute.lexically_normal(), root_);
}

int SourceTree::open(std::string_view relative, int flags) const {
  std::optional<std::string> rel = normalized_relative_path(relative);
  if (!rel) return -EXDEV;  // as openat2 says of a path that leaves the root
  Descriptor root(::open(root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (root.get() < 0) return -errno;
  return open_beneath(root.get(), rel->empty() ? "." : *rel, flags);
}

EntryKind SourceTree::kind(std::string_view relative) const {
  int fd = open(relative, O_PATH);
  if (fd < 0) return fd == -ELOOP ? EntryKind::Symlink : EntryKind::Missing;
  Descriptor d(fd);
  struct stat st;
  if (fstat(fd, &st) != 0) return EntryKind::Missing;
  if (S_ISREG(st.st_mode)) return EntryKind::RegularFile;
  if (S_ISDIR(st.st_mode)) return EntryKind::Directory;
  if (S_ISLNK(st.st_mode)) return EntryKind::Symlink;
  return EntryKind::Other;
}

FileRead SourceTree::read(std::string_view relative, uint64_t max_size) const {
  FileRead out;
  // O_NONBLOCK: a FIFO opens at once (and is then refused) instead of waiting for a writer.
  int fd = open(relative, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    if (fd == -ENOENT || fd == -ENOTDIR || fd == -EXDEV) out.status = FileRead::Status::Missing;
    else if (fd == -ELOOP) out.status = FileRead::Status::Symlink;
    else out.status = FileRead::Status::Unreadable, out.error = -fd;
    return out;
  }
  Descriptor d(fd);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    out.status = FileRead::Status::Unreadable;
    out.error = errno;
    return out;
  }
  if (!S_ISREG(st.st_mode)) {
    out.status = FileRead::Status::NotRegular;
    return out;
  }
  out.stamp = stamp_from(st);
  if (uint64_t(st.st_size) > max_size) {
    out.status = FileRead::Status::TooLarge;
    return out;
  }
  // Up to one byte past the limit: a file that grew since fstat is still caught.
  std::string text(size_t(st.st_size) + 1, '\0');
  size_t have = 0;
  for (;;) {
    if (have == text.size()) {
      if (have > max_size) break;
      text.resize(std::min<uint64_t>(max_size + 1, text.size() * 2));
    }
    ssize_t n = ::read(fd, text.data() + have, text.size() - have);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      out.status = FileRead::Status::Unreadable;
      out.error = errno;
      return out;
    }
    if (n == 0) break;
    have += size_t(n);
  }
  if (have > max_size) {
    out.status = FileRead::Status::TooLarge;
    return out;
  }
  text.resize(have);
  out.text = std::move(text);
  out.status = FileRead::Status::Read;
  return out;
}

std::optional<std::vector<std::string>> SourceTree::glob(std::string_view dir, std::string_view name, bool recursive,
                                                         size_t max_entries) const {
  // Walked only when it is a directory of the tree reached through no symlink: a glob through a
  // link to '/' would walk the machine. The walk follows no symlink below it either.
  if (kind(dir) != EntryKind::Directory) return std::nullopt;
  const std::filesystem::path start = root_ / std::filesystem::path(dir);
  const std::string pattern(name);
  std::vector<std::string> out;
  std::error_code ec;
  size_t visited = 0;
  auto consider = [&](const std::filesystem::directory_entry& e) {
    ++visited;
    if (!e.is_regular_file(ec) || e.is_symlink(ec)) return;
    if (fnmatch(pattern.c_str(), e.path().filename().c_str(), 0) != 0) return;
    if (auto rel = relative_path(e.path())) out.push_back(std::move(*rel));
  };
  if (recursive) {
    for (std::filesystem::recursive_directory_iterator it(start, std::filesystem::directory_options::skip_permission_denied, ec), end;
         !ec && it != end && visited <= max_entries; it.increment(ec))
      consider(*it);
  } else {
    for (std::filesystem::directory_iterator it(start, ec), end; !ec && it != end && visited <= max_entries; it.increment(ec))
      consider(*it);
  }
  if (ec || visited > max_entries) return std::nullopt;
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace tpulint
